#!/bin/sh
# Installs what building and testing kpqc-tls needs on Debian/Ubuntu, once:
# compilers and tools from apt, Python packages into a virtual environment
# (build/venv).  OpenSSL 3.5 is built by cmake/openssl/bootstrap.sh during
# configuration when the system's is older.
set -eu
cd "$(dirname "$0")/.."

APT_PACKAGES="build-essential cmake ninja-build pkg-config perl clang llvm lld libclang-rt-14-dev valgrind \
python3 python3-venv python3-pip mosquitto mosquitto-clients iproute2 iputils-ping procps cargo \
nginx-light curl haproxy nodejs patchelf default-jdk-headless maven libssl-dev openssl \
gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"

missing=""
for p in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# cargo may come from rustup instead of apt.
if command -v cargo >/dev/null 2>&1; then missing=$(echo "$missing" | sed 's/ cargo//'); fi
if [ -n "$missing" ]; then
    echo "install-deps: apt-get install$missing"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The broker and the web server are started by the tests themselves, never
# as system services.
for service in mosquitto nginx haproxy; do
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet $service 2>/dev/null; then
        systemctl stop $service || true
    fi
done

VENV=build/venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if [ ! -f "$VENV/.installed" ] || [ scripts/requirements.txt -nt "$VENV/.installed" ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check -r scripts/requirements.txt
    touch "$VENV/.installed"
fi
