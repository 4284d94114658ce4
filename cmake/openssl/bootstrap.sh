#!/bin/sh
# Prints the prefix of an OpenSSL installation to build against, building a
# private one once when the system has none of that version.
#   bootstrap.sh            OpenSSL >= 3.5 (the default: 3.5 LTS; Debian 12 ships 3.0)
#   bootstrap.sh 3.6|4.0    that release series (the version matrix of the tests)
#   bootstrap.sh 3.0        the system's own OpenSSL 3.0 (never built)
#
# The source comes from crates.io's `openssl-src` crate (300.5.x carries
# OpenSSL 3.5, 300.6.x 3.6, 400.0.x 4.0).  Each build is cached outside the
# clone, keyed by version and configuration, so every later build and test
# run reuses it.
#   KPQC_OPENSSL_PREFIX=/path   use that installation for the default, build nothing
#   KPQC_CACHE_DIR=/path        where to cache (default ~/.cache/kpqc-tls)
#   KPQC_OPENSSL_CROSS=aarch64-linux-gnu
#                               cross-build for that target with Debian's cross
#                               compiler (gcc-aarch64-linux-gnu); its programs
#                               run under qemu-aarch64.  Never the system's.
#   bootstrap.sh --key [SERIES] print the cache directory the build goes to
#                               (or is reused from), building nothing
#
# The script chooses its compiler and flags itself: whatever calls it (CMake
# exports a toolchain file's compiler as CC; make exports MAKEFLAGS) gets the
# same build.  It starts again under a clean environment that keeps only
# what locates tools and the cache, and the cache key covers everything the
# build depends on: the source version, the configuration, every file beside
# this script (the script included) and the identity and version of the
# compiler and of perl.
set -eu

if [ -z "${KPQC_BOOTSTRAP_CLEAN:-}" ]; then
    exec env -i KPQC_BOOTSTRAP_CLEAN=1 LC_ALL=C PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}" \
        HOME="${HOME:-/root}" ${CARGO_HOME:+CARGO_HOME="$CARGO_HOME"} ${RUSTUP_HOME:+RUSTUP_HOME="$RUSTUP_HOME"} \
        ${KPQC_CACHE_DIR:+KPQC_CACHE_DIR="$KPQC_CACHE_DIR"} \
        ${KPQC_OPENSSL_PREFIX:+KPQC_OPENSSL_PREFIX="$KPQC_OPENSSL_PREFIX"} \
        ${KPQC_OPENSSL_CROSS:+KPQC_OPENSSL_CROSS="$KPQC_OPENSSL_CROSS"} \
        sh "$0" "$@"
fi

KEY_ONLY=""
if [ "${1:-}" = "--key" ]; then KEY_ONLY=1; shift; fi

say() { echo "openssl-bootstrap: $*" >&2; }

SERIES=${1:-3.5}
CROSS=${KPQC_OPENSSL_CROSS:-}
# The compiler is always gcc: OpenSSL's Configure puts the cross prefix in
# front of it (aarch64-linux-gnu-gcc, Debian's gcc-aarch64-linux-gnu).
CC=gcc
case "$CROSS" in
    "") TARGET=""; RUN="" ;;
    aarch64-linux-gnu)
        TARGET="linux-aarch64 --cross-compile-prefix=$CROSS-"
        RUN="qemu-aarch64 -L /usr/$CROSS" ;;
    *) say "unknown cross target '$CROSS' (aarch64-linux-gnu)"; exit 2 ;;
esac
system_prefix() { pkg-config --variable=prefix openssl; }
have_pkg_config() { command -v pkg-config >/dev/null 2>&1; }

# What the matrix versions do not exercise is left out to shorten their
# builds; the default build keeps its configuration (and cache key).
MATRIX_FLAGS="no-legacy no-docs no-tests no-slh-dsa no-lms no-sm2 no-sm3 no-sm4 no-aria no-camellia no-seed
    no-idea no-bf no-cast no-rc2 no-rc4 no-md4 no-mdc2 no-whirlpool no-cmp no-ts no-srp no-sctp"
case "$SERIES" in
    3.0)
        # The distribution's OpenSSL (libssl-dev): headers and libraries only.
        if have_pkg_config && pkg-config --atleast-version=3.0 openssl && ! pkg-config --atleast-version=3.1 openssl; then
            system_prefix; exit 0
        fi
        say "no system OpenSSL 3.0 (install libssl-dev)"; exit 1 ;;
    3.5)
        if [ -n "${KPQC_OPENSSL_PREFIX:-}" ] && [ -z "$CROSS" ]; then echo "$KPQC_OPENSSL_PREFIX"; exit 0; fi
        # A system OpenSSL that is new enough wins.
        if [ -z "$CROSS" ] && have_pkg_config && pkg-config --atleast-version=3.5 openssl 2>/dev/null; then
            system_prefix; exit 0
        fi
        CRATE_VERSION="300.5.5+3.5.5"
        CONFIG_FLAGS="shared no-legacy no-docs no-tests" ;;
    3.6)
        CRATE_VERSION="300.6.1+3.6.3"
        CONFIG_FLAGS="shared $MATRIX_FLAGS" ;;
    4.0)
        CRATE_VERSION="400.0.2+4.0.3"
        CONFIG_FLAGS="shared $MATRIX_FLAGS" ;;
    *)
        say "unknown OpenSSL series '$SERIES' (3.0, 3.5, 3.6 or 4.0)"; exit 2 ;;
esac
CONFIG_FLAGS=$(echo $CONFIG_FLAGS $TARGET)   # one line: it is part of the cache key

HERE=$(cd "$(dirname "$0")" && pwd)
COMPILER=${CROSS:+$CROSS-}$CC
command -v "$COMPILER" >/dev/null 2>&1 || { say "no $COMPILER on PATH"; exit 1; }
# Every input of the build, one per line; any change means a new prefix.
recipe() {
    echo "openssl-src $CRATE_VERSION"
    echo "configure $CONFIG_FLAGS"
    (cd "$HERE" && find . -type f | LC_ALL=C sort | xargs sha256sum)
    echo "compiler $(command -v "$COMPILER")"
    "$COMPILER" --version | head -n1
    "$COMPILER" -dumpmachine
    perl -e 'print "perl $^V\n"'
}
KEY=$(recipe | sha256sum | cut -c1-12)
CACHE=${KPQC_CACHE_DIR:-$HOME/.cache/kpqc-tls}
PREFIX="$CACHE/openssl-${CRATE_VERSION#*+}${CROSS:+-$CROSS}-$KEY"

if [ -n "$KEY_ONLY" ] || { [ -x "$PREFIX/bin/openssl" ] && [ -f "$PREFIX/.complete" ]; }; then
    echo "$PREFIX"; exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # one build at a time; others wait and reuse it
if [ -f "$PREFIX/.complete" ]; then echo "$PREFIX"; exit 0; fi

say "building OpenSSL ${CRATE_VERSION#*+} into $PREFIX (once; takes a few minutes)"
STARTED=$(date +%s)
WORK="$CACHE/build-$KEY"
rm -rf "$WORK" "$PREFIX"
mkdir -p "$WORK/fetch"
cat > "$WORK/fetch/Cargo.toml" <<TOML
[package]
name = "kpqc-openssl-source"
version = "0.0.0"
edition = "2021"
[lib]
path = "lib.rs"
[dependencies]
openssl-src = "=$CRATE_VERSION"
TOML
: > "$WORK/fetch/lib.rs"
(cd "$WORK/fetch" && cargo fetch --quiet) >&2
SRC=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"openssl-src-$CRATE_VERSION"/openssl | head -n1)
[ -d "$SRC" ] || { say "openssl-src $CRATE_VERSION not found after cargo fetch"; exit 1; }

cp -R "$SRC" "$WORK/src"
install -m 0755 "$HERE/mkdef.pl" "$WORK/src/util/mkdef.pl"
cd "$WORK/src"
recipe > "$WORK/recipe.txt"
CC=$CC ./Configure $CONFIG_FLAGS --prefix="$PREFIX" --libdir=lib --openssldir="$PREFIX/ssl" >&2
make -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -n 40 "$WORK/make.log" >&2; exit 1; }
make install_sw >>"$WORK/make.log" 2>&1 || { tail -n 40 "$WORK/make.log" >&2; exit 1; }
install -m 0644 "$WORK/recipe.txt" "$PREFIX/recipe.txt"   # what the key was made of
mkdir -p "$PREFIX/ssl"
install -m 0644 "$HERE/openssl.cnf" "$PREFIX/ssl/openssl.cnf"
LD_LIBRARY_PATH="$PREFIX/lib" $RUN "$PREFIX/bin/openssl" version >&2
touch "$PREFIX/.complete"
say "OpenSSL ${CRATE_VERSION#*+} built in $(( $(date +%s) - STARTED )) s"
cd / && rm -rf "$WORK"
echo "$PREFIX"
