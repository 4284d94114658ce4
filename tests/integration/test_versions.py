"""What kpqcprovider does on one OpenSSL series, the same checks for each
(3.0 system, 3.5, 3.6, 4.0; `--build-dir build/openssl-<series>`): the
self-tested provider loads, TLS 1.3 with every KpqC group, X.509 and CMS with
KpqC signatures, key encoders/decoders, and KpqC signatures in the TLS
handshake where the series has them (>= 3.2) -- on older ones the handshake
must be refused cleanly, never signed with something else."""
import re
import subprocess

import pytest


@pytest.fixture(scope="module")
def series(lab):
    out = lab.run("version").stdout  # "OpenSSL 3.0.19 ..."
    major, minor = map(int, re.match(r"OpenSSL (\d+)\.(\d+)", out).group(1, 2))
    return major, minor


def tls_sigalgs_supported(series):
    return series >= (3, 2)


def cms_supported(series):
    # CMS before 3.5 signs a digest of the signed attributes with the
    # attribute digest; KpqC signatures take the message itself (as ML-DSA
    # does, which 3.5 taught CMS), so older CMS is refused by the provider.
    return series >= (3, 5)


def listed(lab, what):
    return lab.run("list", what).stdout


@pytest.fixture(scope="module")
def sigs(lab, table):
    """One signature per family, pure and composite, of those built."""
    out = listed(lab, "-signature-algorithms")
    chosen = []
    for fam in sorted({s["family"] for s in table["SIG"]}):
        pure = next((s["id"] for s in table["SIG"] if s["family"] == fam and s["id"] in out), None)
        if pure:
            chosen.append(pure)
            chosen += [c["id"] for c in table["COMPOSITE"] if c["sig"] == pure and c["id"] in out][:1]
    if not chosen:
        pytest.skip("no KpqC signature family built")
    return chosen


def test_provider_loaded_and_self_tested(lab):
    # The known-answer self-test runs at load: a failure would leave it out.
    out = lab.run("list", "-providers").stdout
    assert re.search(r"kpqcprovider\s*\n\s*name: kpqcprovider", out), out
    assert "status: active" in out.split("kpqcprovider", 1)[1], out


def kpqc_groups(lab, table):
    kems = listed(lab, "-kem-algorithms")
    built = {k["id"] for k in table["KEM"] if k["id"] in kems}
    return sorted(built) + [h["id"] for h in table["HYBRID"] if h["kem"] in built]


def handshake(lab, server_args, client_args):
    server, port = lab.server(*server_args)
    try:
        r = lab.client(port, *client_args)
        server_out = server.communicate(timeout=15)[0]
    finally:
        if server.poll() is None:
            server.kill()
    return r, server.returncode, server_out


def test_every_group_handshakes(lab, table):
    groups = kpqc_groups(lab, table)
    assert len(groups) >= 7
    for g in groups:
        # Both sides know only g: the handshake completes only with g.
        r, _, _ = handshake(lab, ["-groups", g, "-tls1_3"], ["-groups", g])
        out = r.stdout + r.stderr
        assert "CONNECTION ESTABLISHED" in out and "TLSv1.3" in out, (g, out)
    # ... and only with a group both know.
    r, _, _ = handshake(lab, ["-groups", "X25519", "-tls1_3"], ["-groups", groups[-1]])
    assert "CONNECTION ESTABLISHED" not in r.stdout + r.stderr


def certificate(lab, alg):
    key, cert = lab.tmp / f"v-{alg}.key", lab.tmp / f"v-{alg}.crt"
    if not cert.exists():
        lab.run("genpkey", "-algorithm", alg, "-out", str(key))
        lab.run("req", "-x509", "-new", "-key", str(key), "-subj", f"/CN={alg}", "-days", "2",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=keyCertSign,digitalSignature", "-out", str(cert))
    return key, cert


def test_x509_issue_verify_and_tamper(lab, sigs):
    for alg in sigs:
        key, cert = certificate(lab, alg)
        r = lab.run("verify", "-CAfile", str(cert), str(cert), check=False)
        assert r.returncode == 0 and ": OK" in r.stdout, (alg, r.stdout + r.stderr)
        der = lab.tmp / f"v-{alg}.der"
        lab.run("x509", "-in", str(cert), "-outform", "DER", "-out", str(der))
        data = bytearray(der.read_bytes())
        data[-10] ^= 0x01  # inside the signature
        bad = lab.tmp / f"v-{alg}-bad.der"
        bad.write_bytes(bytes(data))
        r = lab.run("verify", "-CAfile", str(cert), str(bad), check=False)
        assert r.returncode != 0, alg


def test_cms_sign_verify_and_tamper(lab, sigs, series):
    msg = lab.tmp / "v-message.txt"
    msg.write_text("KpqC CMS on every OpenSSL series\n")
    for alg in sigs:
        key, cert = certificate(lab, alg)
        signed = lab.tmp / f"v-{alg}.p7s"
        r = lab.run("cms", "-sign", "-binary", "-md", "sha512", "-in", str(msg), "-signer", str(cert),
                    "-inkey", str(key), "-outform", "DER", "-out", str(signed), "-nodetach", check=False)
        if not cms_supported(series):
            assert r.returncode != 0 and f"{alg} hashes the message itself" in r.stderr, (alg, r.stderr)
            continue
        assert r.returncode == 0, (alg, r.stderr)
        r = lab.run("cms", "-verify", "-binary", "-inform", "DER", "-in", str(signed), "-CAfile", str(cert),
                    check=False)
        assert r.returncode == 0 and "KpqC CMS" in r.stdout, (alg, r.stderr)
        data = bytearray(signed.read_bytes())
        i = data.find(b"KpqC CMS")
        data[i] ^= 0x20
        bad = lab.tmp / f"v-{alg}-bad.p7s"
        bad.write_bytes(bytes(data))
        r = lab.run("cms", "-verify", "-binary", "-inform", "DER", "-in", str(bad), "-CAfile", str(cert),
                    check=False)
        assert r.returncode != 0, alg


def test_key_encoders_and_decoders(lab, sigs, table):
    kem = kpqc_groups(lab, table)[0]
    for alg in sigs[:2] + [kem]:
        pem, der = lab.tmp / f"v-enc-{alg}.pem", lab.tmp / f"v-enc-{alg}.der"
        lab.run("genpkey", "-algorithm", alg, "-out", str(pem))
        lab.run("pkey", "-in", str(pem), "-outform", "DER", "-out", str(der))
        from_pem = lab.run("pkey", "-in", str(pem), "-pubout").stdout
        from_der = lab.run("pkey", "-inform", "DER", "-in", str(der), "-pubout").stdout
        assert from_pem and from_pem == from_der, alg
        # A truncated key is refused with an error, not a crash.
        short = lab.tmp / f"v-enc-{alg}-short.der"
        short.write_bytes(der.read_bytes()[:-7])
        r = lab.run("pkey", "-inform", "DER", "-in", str(short), "-noout", check=False)
        assert r.returncode == 1, (alg, r.returncode, r.stderr)


def test_kpqc_signature_in_the_handshake(lab, sigs, series):
    alg = sigs[0]
    key, cert = certificate(lab, alg)
    server_args = ["-cert", str(cert), "-key", str(key), "-groups", "x25519_smaugt1", "-tls1_3"]
    if not tls_sigalgs_supported(series):
        # Unavailable before 3.2 (the provider offers no TLS-SIGALG there):
        # a server with a KpqC certificate refuses to start, loudly, rather
        # than serving it with some other signature.
        r = lab.run("s_server", "-accept", f"127.0.0.1:{lab.free_port()}", "-naccept", "1", *server_args,
                    check=False, timeout=20)
        assert r.returncode == 1 and "unknown certificate type" in r.stderr, (r.returncode, r.stderr)
        return
    r, server_rc, server_out = handshake(lab, server_args,
                                         ["-groups", "x25519_smaugt1", "-CAfile", str(cert), "-verify_return_error"])
    out = r.stdout + r.stderr
    assert server_rc == 0, server_out
    assert "CONNECTION ESTABLISHED" in out and f"Signature type: {alg}" in out, out
    assert "Verification: OK" in out, out
