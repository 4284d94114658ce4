#!/bin/sh
# Runs every fuzz target of a KPQC_FUZZ build for a bounded time each.
#   run_fuzz.sh FUZZ_BUILD_DIR SECONDS_PER_TARGET [MAIN_BUILD_DIR]
# MAIN_BUILD_DIR (an uninstrumented build) records TLS seeds for the provider
# targets: sanitizer-built provider modules load only into sanitizer-built programs.
set -eu
BUILD=$1
SECONDS_EACH=${2:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=$BUILD/fuzz-corpus
python3 "$HERE/make_corpus.py" --kat-tool "$BUILD/kpqc-kat" --out "$CORPUS"
if [ -n "${3:-}" ] && [ -x "$3/kpqc-openssl" ]; then
    sh "$HERE/make_provider_corpus.sh" "$3" "$CORPUS" || echo "fuzz: could not record TLS seeds"
fi
status=0
for t in $(cat "$BUILD/fuzz-targets.txt" | tr ';' ' '); do
    mkdir -p "$CORPUS/$t" "$BUILD/fuzz-crashes/$t"
    # Targets that load providers keep OpenSSL's one-time global state until
    # exit, which libFuzzer's final leak check would report; memory safety is
    # still checked by ASan on every input.
    leaks=1
    case $t in *provider*|*tls*) leaks=0 ;; esac
    # The decoder-only targets run thousands of inputs a second: a third of
    # the time gives them hundreds of thousands.
    secs=$SECONDS_EACH
    case $t in *_unpack|*_parse) secs=$(( (SECONDS_EACH + 2) / 3 )) ;; esac
    echo "fuzz: $t for ${secs}s"
    if ! ASAN_OPTIONS="detect_leaks=$leaks" "$BUILD/tests/fuzz/$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -detect_leaks=$leaks \
            -artifact_prefix="$BUILD/fuzz-crashes/$t/" -print_final_stats=1 "$CORPUS/$t" \
            >"$BUILD/fuzz-$t.log" 2>&1; then
        echo "fuzz: $t FAILED (see $BUILD/fuzz-$t.log)"; tail -n 30 "$BUILD/fuzz-$t.log"; status=1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/fuzz-$t.log" | sed "s/^/fuzz: $t: /"
done
exit $status
