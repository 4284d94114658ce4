#!/bin/sh
# Prints the prefix of an OpenSSL >= 3.5 to build against, building a private
# OpenSSL 3.5 LTS once when the system has none (Debian 12 ships 3.0).
#
# The source comes from crates.io's `openssl-src` crate (300.5.x carries
# OpenSSL 3.5).  The build is cached outside the clone, keyed by version and
# configuration, so every later build and test run reuses it.
#   KPQC_OPENSSL_PREFIX=/path   use that installation, build nothing
#   KPQC_CACHE_DIR=/path        where to cache (default ~/.cache/kpqc-tls)
set -eu

say() { echo "openssl-bootstrap: $*" >&2; }

if [ -n "${KPQC_OPENSSL_PREFIX:-}" ]; then
    echo "$KPQC_OPENSSL_PREFIX"; exit 0
fi

# A system OpenSSL that is new enough wins.
if command -v pkg-config >/dev/null 2>&1 && pkg-config --atleast-version=3.5 openssl 2>/dev/null; then
    pkg-config --variable=prefix openssl; exit 0
fi

CRATE_VERSION="300.5.5+3.5.5"
CONFIG_FLAGS="shared no-legacy no-docs no-tests"
HERE=$(cd "$(dirname "$0")" && pwd)
KEY=$(printf '%s %s %s' "$CRATE_VERSION" "$CONFIG_FLAGS" "$(cat "$HERE/mkdef.pl" "$HERE/openssl.cnf" | sha256sum)" | sha256sum | cut -c1-12)
CACHE=${KPQC_CACHE_DIR:-$HOME/.cache/kpqc-tls}
PREFIX="$CACHE/openssl-${CRATE_VERSION#*+}-$KEY"

if [ -x "$PREFIX/bin/openssl" ] && [ -f "$PREFIX/.complete" ]; then
    echo "$PREFIX"; exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # one build at a time; others wait and reuse it
if [ -f "$PREFIX/.complete" ]; then echo "$PREFIX"; exit 0; fi

say "building OpenSSL ${CRATE_VERSION#*+} into $PREFIX (once; takes a few minutes)"
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
./Configure $CONFIG_FLAGS --prefix="$PREFIX" --libdir=lib --openssldir="$PREFIX/ssl" >&2
make -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -n 40 "$WORK/make.log" >&2; exit 1; }
make install_sw >>"$WORK/make.log" 2>&1 || { tail -n 40 "$WORK/make.log" >&2; exit 1; }
mkdir -p "$PREFIX/ssl"
install -m 0644 "$HERE/openssl.cnf" "$PREFIX/ssl/openssl.cnf"
LD_LIBRARY_PATH="$PREFIX/lib" "$PREFIX/bin/openssl" version >&2
touch "$PREFIX/.complete"
cd / && rm -rf "$WORK"
echo "$PREFIX"
