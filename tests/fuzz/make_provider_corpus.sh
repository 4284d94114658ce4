#!/bin/sh
# Seeds for fuzz_tls_server, made with the build's own tools: the first
# flight (ClientHello) of `kpqc-openssl s_client` for several KpqC groups,
# recorded through a listening socket.  BUILD must be an uninstrumented build.
set -eu
BUILD=$1
CORPUS=$2
mkdir -p "$CORPUS/fuzz_tls_server"
[ -x "$BUILD/kpqc-openssl" ] || exit 0
for g in x25519_smaugt1 smaugt1 p256_ntruplus768 ntruplus768; do
    python3 - "$BUILD" "$g" "$CORPUS/fuzz_tls_server/ch-$g" <<'PY'
import socket, subprocess, sys
build, group, out = sys.argv[1:]
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
port = srv.getsockname()[1]
p = subprocess.Popen([f"{build}/kpqc-openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-groups", group],
                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
srv.settimeout(5)
try:
    conn, _ = srv.accept()
except socket.timeout:
    p.kill()
    sys.exit("no ClientHello recorded for " + group)
conn.settimeout(5)
data = b""
try:
    while len(data) < 5 or len(data) < 5 + int.from_bytes(data[3:5], "big"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    pass
open(out, "wb").write(data)
conn.close(); p.kill(); p.wait()
PY
done

# Seeds for fuzz_provider_decoder: keys of several algorithms in the four
# encodings, each behind the selector byte the target expects (0 SPKI DER,
# 1 SPKI PEM, 2 PKCS#8 DER, 3 PKCS#8 PEM).
DEC="$CORPUS/fuzz_provider_decoder"
mkdir -p "$DEC"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for alg in smaugt1 ntruplus768 aimer128f p256_aimer128f haetae2 p384_haetae3; do
    "$BUILD/kpqc-openssl" genpkey -algorithm "$alg" -out "$TMP/$alg.pem" 2>/dev/null || continue
    i=0
    for args in "-pubout -outform DER" "-pubout -outform PEM" "-outform DER" "-outform PEM"; do
        # shellcheck disable=SC2086
        "$BUILD/kpqc-openssl" pkey -in "$TMP/$alg.pem" $args -out "$TMP/body"
        { printf "\\$(printf %03o $i)"; cat "$TMP/body"; } > "$DEC/$alg-$i"
        i=$((i + 1))
    done
done
