"""TLS 1.3 authenticated by KpqC signatures: every KpqC group against a set
of server certificates (in one process over memory BIOs, asserting the
negotiated group and the peer's signature algorithm), then s_server/s_client
for mutual TLS and for OpenSSL's native X25519MLKEM768 beside a KpqC
certificate."""
import json
import subprocess

import pytest

# Certificates every group is tried with: classical, NIST, then KpqC ones
# when their family is built.  Value: the signature name TLS reports.
NATIVE_CERTS = {"EC:P-256": "ecdsa_secp256r1_sha256", "ML-DSA-65": "mldsa65"}
KPQC_CERTS = ["haetae2", "haetae3", "haetae5", "aimer128f", "p256_haetae2", "p256_aimer128f"]


def listed_signatures(lab):
    return lab.run("list", "-signature-algorithms").stdout


def kpqc_groups(lab, table):
    names = {r["id"] for r in table["KEM"] + table["HYBRID"]}
    return [g for g in lab.built_groups() if g in names]


def inproc(lab, group, sig, *extra):
    cmd = lab.env_cmd + [str(lab.build / "bench" / "kpqc-handshake"), "inproc", "--group", group, "--sig", sig,
                         "--count", "3", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (group, sig, r.stderr)
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return [row for row in rows if row.get("mode") == "inproc" and "negotiated" in row]


def test_group_by_certificate_matrix(lab, table):
    listed = listed_signatures(lab)
    certs = dict(NATIVE_CERTS)
    certs.update({s: s for s in KPQC_CERTS if s in listed})
    assert any(s in certs for s in KPQC_CERTS), "no KpqC signature built"
    groups = kpqc_groups(lab, table)
    assert len(groups) >= 7
    for group in groups:
        for sig, reported in certs.items():
            rows = inproc(lab, group, sig)
            assert rows, (group, sig)
            for row in rows:
                assert row["negotiated"] == group, row
                assert row["peer_sig"] == reported, row


def test_mutual_tls_inproc(lab, table):
    listed = listed_signatures(lab)
    pairs = [("smaugt1", s) for s in ("haetae2", "aimer128f") if s in listed][:1]
    pairs += [("x25519_ntruplus768", s) for s in ("p256_haetae2", "p256_aimer128f") if s in listed][:1]
    if not pairs:
        pytest.skip("no KpqC signature built")
    for group, sig in pairs:
        for row in inproc(lab, group, sig, "--mutual"):
            assert row["negotiated"] == group and row["peer_sig"] == sig, row


def ca_and_leaf(lab, alg):
    ca_key, ca, key, csr, leaf = (lab.tmp / f"tls-{alg}.{x}" for x in ("ca.key", "ca.crt", "key", "csr", "crt"))
    if not leaf.exists():
        lab.run("req", "-x509", "-newkey", alg, "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
                "-subj", f"/CN=CA {alg}", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=keyCertSign")
        lab.run("req", "-new", "-newkey", alg, "-nodes", "-keyout", str(key), "-out", str(csr),
                "-subj", "/CN=localhost")
        lab.run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-days", "2",
                "-out", str(leaf))
    return str(ca), str(leaf), str(key)


def cli_handshake(lab, group, server_alg, client_alg=None):
    """s_server with a `server_alg` chain; with client_alg, mutual TLS."""
    ca, cert, key = ca_and_leaf(lab, server_alg)
    port = lab.free_port()
    args = ["s_server", "-accept", f"127.0.0.1:{port}", "-cert", cert, "-key", key, "-naccept", "1", "-www",
            "-tls1_3", "-groups", group]
    client_args = ["-CAfile", ca, "-verify_return_error", "-groups", group]
    if client_alg:
        cca, ccert, ckey = ca_and_leaf(lab, client_alg)
        args += ["-Verify", "1", "-CAfile", cca, "-verify_return_error"]
        client_args += ["-cert", ccert, "-key", ckey]
    server = subprocess.Popen(lab.openssl + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        while line and "ACCEPT" not in line:
            line = server.stdout.readline()
        r = subprocess.run(lab.openssl + ["s_client", "-connect", f"127.0.0.1:{port}", *client_args],
                           input="GET / HTTP/1.0\r\n\r\n", capture_output=True, text=True, timeout=30)
        server_out = server.communicate(timeout=15)[0]
    finally:
        if server.poll() is None:
            server.kill()
    return r.stdout + r.stderr, server_out


def test_mutual_tls_with_the_cli(lab):
    listed = listed_signatures(lab)
    pure = next((s for s in ("haetae2", "aimer128f") if s in listed), None)
    composite = next((s for s in ("p256_haetae2", "p256_aimer128f") if s in listed), None)
    if pure is None:
        pytest.skip("no KpqC signature built")
    for group, alg in (("x25519_smaugt1", pure), ("ntruplus768", composite or pure)):
        client, server = cli_handshake(lab, group, alg, client_alg=alg)
        assert f"Negotiated TLS1.3 group: {group}" in client, client
        assert f"Peer signature type: {alg}" in client, client
        assert "Verify return code: 0 (ok)" in client, client
        assert "depth=0 CN=localhost\nverify return:1" in server, server  # the client certificate verified


def test_native_mlkem_with_kpqc_certificate(lab):
    listed = listed_signatures(lab)
    alg = next((s for s in ("haetae2", "aimer128f") if s in listed), None)
    if alg is None:
        pytest.skip("no KpqC signature built")
    client, _ = cli_handshake(lab, "X25519MLKEM768", alg)
    assert "Negotiated TLS1.3 group: X25519MLKEM768" in client, client
    assert f"Peer signature type: {alg}" in client, client
    assert "Verify return code: 0 (ok)" in client, client
