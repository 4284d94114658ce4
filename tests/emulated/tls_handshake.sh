#!/bin/sh
# A TLS 1.3 handshake between the cross build's `openssl s_server` and
# `s_client`, both running under the emulator with kpqcprovider: the hybrid
# group x25519_smaugt1 and a HAETAE2 certificate chain (CA -> localhost),
# verified by the client.  The source documents' Raspberry Pi setup, on
# qemu-aarch64.
#   tls_handshake.sh BUILD_DIR OPENSSL_PREFIX EMULATOR [ARGS...]
set -eu
build=$1 prefix=$2
shift 2
group=x25519_smaugt1 alg=haetae2
work=$(mktemp -d)
server=""
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

ossl() {
    OPENSSL_CONF="$build/openssl.cnf" LD_LIBRARY_PATH="$prefix/lib" "$@"
}
run() { ossl "$EMULATOR_CMD" $EMULATOR_ARGS "$prefix/bin/openssl" "$@"; }
EMULATOR_CMD=$1
shift
EMULATOR_ARGS="$*"

cd "$work"
run req -x509 -newkey $alg -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=CA $alg" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign 2>/dev/null
run req -new -newkey $alg -nodes -keyout leaf.key -out leaf.csr -subj /CN=localhost 2>/dev/null
run x509 -req -in leaf.csr -CA ca.crt -CAkey ca.key -days 2 -out leaf.crt 2>/dev/null

port=$((20000 + $$ % 20000))
run s_server -accept "127.0.0.1:$port" -cert leaf.crt -key leaf.key -naccept 1 -www -tls1_3 \
    -groups $group >server.out 2>&1 &
server=$!
tries=0
until grep -q ACCEPT server.out; do
    tries=$((tries + 1))
    [ $tries -lt 300 ] || { echo "s_server did not start:"; cat server.out; exit 1; }
    sleep 0.1
done
printf 'GET / HTTP/1.0\r\n\r\n' | run s_client -connect "127.0.0.1:$port" -CAfile ca.crt -verify_return_error \
    -groups $group >client.out 2>&1 || true
wait "$server" || true
server=""

status=0
for want in "Negotiated TLS1.3 group: $group" "Peer signature type: $alg" "Verify return code: 0 (ok)"; do
    if grep -qF "$want" client.out; then echo "ok: $want"; else echo "missing: $want"; status=1; fi
done
[ $status -eq 0 ] || cat client.out
exit $status
