"""KpqC signatures, pure and composite, through the real openssl CLI: keys
in every encoding, X.509 certificates, dgst and CMS signing, bad input."""
import re
import subprocess

import pytest

# How `openssl pkey` says it refused a key (4.0: "Could not find or decode ...").
REFUSED_KEY = re.compile(r"Could not find (or decode )?private key")


def built_signatures(lab, table):
    listed = lab.run("list", "-signature-algorithms").stdout
    pure = [s["id"] for s in table["SIG"] if f" {s['id']}" in listed or f"{s['id']} }}" in listed]
    composite = [c["id"] for c in table["COMPOSITE"] if c["sig"] in pure]
    return pure, composite


def all_signatures(lab, table):
    pure, composite = built_signatures(lab, table)
    return pure + composite


def test_list_shows_every_algorithm_and_group(lab, table):
    # The command of the issue, with the provider named explicitly.
    out = lab.run("list", "-kem-algorithms", "-signature-algorithms", "-tls-groups", "-provider",
                  "kpqcprovider", "-provider", "default").stdout
    pure, composite = built_signatures(lab, table)
    assert pure, "no KpqC signature built"
    for s in table["SIG"]:
        if s["id"] in pure:
            assert s["oid"] in out
            for alias in s["aliases"]:
                assert alias in out, alias
    for c in table["COMPOSITE"]:
        if c["id"] in composite:
            assert c["id"] in out and c["oid"] in out
    for k in table["KEM"]:
        if k["id"] in out:
            assert k["oid"] in out


def make_cert(lab, alg, name=None):
    name = name or alg
    key, cert = lab.tmp / f"{name}.key", lab.tmp / f"{name}.crt"
    if not cert.exists():
        lab.run("genpkey", "-algorithm", alg, "-out", str(key))
        lab.run("req", "-x509", "-new", "-key", str(key), "-subj", f"/CN={name}", "-days", "30",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=keyCertSign,digitalSignature",
                "-out", str(cert))
    return key, cert


@pytest.fixture(scope="module")
def signatures(lab, table):
    sigs = all_signatures(lab, table)
    if not sigs:
        pytest.skip("no KpqC signature family built")
    return sigs


def test_certificates_keys_and_tampering(lab, table, signatures):
    sig_len = {s["id"]: s["sig"] for s in table["SIG"]}
    sig_len.update({c["id"]: sig_len[c["sig"]] for c in table["COMPOSITE"] if c["sig"] in sig_len})
    for alg in signatures:
        key, cert = make_cert(lab, alg)
        assert lab.run("verify", "-CAfile", str(cert), str(cert)).stdout.strip().endswith("OK")
        text = lab.run("x509", "-in", str(cert), "-noout", "-text").stdout
        assert f"Signature Algorithm: {alg}" in text and f"Public Key Algorithm: {alg}" in text

        # PEM and DER round trips of private and public keys are byte-identical.
        for fmt in ("PEM", "DER"):
            out1, out2 = lab.tmp / f"{alg}.1.{fmt}", lab.tmp / f"{alg}.2.{fmt}"
            lab.run("pkey", "-in", str(key), "-outform", fmt, "-out", str(out1))
            lab.run("pkey", "-inform", fmt, "-in", str(out1), "-outform", fmt, "-out", str(out2))
            assert out1.read_bytes() == out2.read_bytes(), (alg, fmt)
            pub1, pub2 = lab.tmp / f"{alg}.pub1.{fmt}", lab.tmp / f"{alg}.pub2.{fmt}"
            lab.run("pkey", "-in", str(key), "-pubout", "-outform", fmt, "-out", str(pub1))
            lab.run("pkey", "-pubin", "-inform", fmt, "-in", str(pub1), "-pubout", "-outform", fmt,
                    "-out", str(pub2))
            assert pub1.read_bytes() == pub2.read_bytes(), (alg, fmt)
        assert alg in lab.run("pkey", "-in", str(key), "-noout", "-text").stdout

        # A leaf signed by that certificate verifies; with one flipped byte
        # inside its signature value it does not.
        leaf_key, leaf_csr, leaf = (lab.tmp / f"{alg}.leaf.{x}" for x in ("key", "csr", "crt"))
        lab.run("req", "-new", "-newkey", alg, "-nodes", "-keyout", str(leaf_key), "-subj", f"/CN=leaf-{alg}",
                "-out", str(leaf_csr))
        lab.run("x509", "-req", "-in", str(leaf_csr), "-CA", str(cert), "-CAkey", str(key), "-days", "2",
                "-out", str(leaf))
        assert lab.run("verify", "-CAfile", str(cert), str(leaf)).stdout.strip().endswith("OK")
        der = bytearray(subprocess.run(lab.openssl + ["x509", "-in", str(leaf), "-outform", "DER"],
                                       capture_output=True, check=True).stdout)
        der[len(der) - sig_len[alg] // 2] ^= 0x01
        bad = lab.tmp / f"{alg}.bad.crt"
        bad.write_bytes(bytes(der))
        r = lab.run("verify", "-CAfile", str(cert), str(bad), check=False)
        assert r.returncode == 2 and "certificate signature failure" in r.stdout + r.stderr, (alg, r.stderr)


def test_dgst_and_cms(lab, signatures):
    msg = lab.tmp / "message.txt"
    msg.write_text("KpqC in X.509 and CMS\n")
    for alg in signatures[:1] + [s for s in signatures if s.startswith("p256_")][:1]:
        key, cert = make_cert(lab, alg)
        pub = lab.tmp / f"{alg}.pub.pem"
        lab.run("pkey", "-in", str(key), "-pubout", "-out", str(pub))
        sig = lab.tmp / f"{alg}.sig"
        lab.run("dgst", "-sign", str(key), "-out", str(sig), str(msg))
        assert "Verified OK" in lab.run("dgst", "-verify", str(pub), "-signature", str(sig), str(msg)).stdout
        tampered = lab.tmp / "tampered.txt"
        tampered.write_text("KpqC in X.509 and CMS!\n")
        r = lab.run("dgst", "-verify", str(pub), "-signature", str(sig), str(tampered), check=False)
        assert r.returncode == 1 and "Verification failure" in r.stdout + r.stderr

        signed = lab.tmp / f"{alg}.cms"
        # As for ML-DSA, the signature takes no digest: -md names the one of
        # the message-digest attribute.
        lab.run("cms", "-sign", "-in", str(msg), "-signer", str(cert), "-inkey", str(key), "-binary",
                "-md", "sha512", "-nodetach", "-outform", "DER", "-out", str(signed))
        out = lab.run("cms", "-verify", "-in", str(signed), "-inform", "DER", "-CAfile", str(cert), "-binary")
        assert out.stdout == msg.read_text()


def tlv(tag, body):
    n = len(body)
    length = bytes([n]) if n < 128 else (bytes([0x81, n]) if n < 256 else bytes([0x82, n >> 8, n & 0xFF]))
    return bytes([tag]) + length + body


def children(der):
    """The contents of a DER SEQUENCE's elements (whole TLVs, except the last's value only)."""
    def read(buf, i):
        n, i = buf[i + 1], i + 2
        if n & 0x80:
            k, n = n & 0x7F, int.from_bytes(buf[i:i + (n & 0x7F)], "big")
            i += k
        return i, n
    i, n = read(der, 0)
    out = []
    while i < len(der):
        start = i
        i, n = read(der, i)
        out.append(der[start:i + n])
        i += n
    out[-1] = out[-1][len(out[-1]) - read(out[-1], 0)[1]:]
    return out


def pkcs8(oid_tlv, key):
    return tlv(0x30, b"\x02\x01\x00" + tlv(0x30, oid_tlv) + tlv(0x04, key))


def test_bad_input_gives_clean_errors(lab, signatures):
    alg = signatures[0]
    key, cert = make_cert(lab, alg)
    der = subprocess.run(lab.openssl + ["pkey", "-in", str(key), "-outform", "DER"], capture_output=True,
                         check=True).stdout
    version, algid, key_bytes = children(der)
    oid = algid[2:]  # the OID's TLV inside the AlgorithmIdentifier
    assert pkcs8(oid, key_bytes) == der
    cases = {
        "truncated": der[:-7],
        "unknown-oid": der.replace(bytes.fromhex("2bce0f831a"), bytes.fromhex("2bce0f831b"), 1),
        "key-one-byte-short": pkcs8(oid, key_bytes[:-1]),
        "key-one-byte-long": pkcs8(oid, key_bytes + b"\x00"),
        "garbage": b"\x30\x82\xff\xff" + b"\x00" * 64,
    }
    for name, blob in cases.items():
        path = lab.tmp / f"bad-{name}.der"
        path.write_bytes(blob)
        r = lab.run("pkey", "-inform", "DER", "-in", str(path), "-noout", check=False)
        assert r.returncode == 1, (name, r.returncode, r.stderr)   # an error, never a signal
    r = lab.run("genpkey", "-algorithm", "no-such-kpqc-algorithm", check=False)
    assert r.returncode == 1 and "no-such-kpqc-algorithm" in r.stderr
    # A KEM key cannot sign.
    kem_key = lab.tmp / "kem.key"
    if lab.run("genpkey", "-algorithm", "smaugt1", "-out", str(kem_key), check=False).returncode == 0:
        r = lab.run("req", "-x509", "-new", "-key", str(kem_key), "-subj", "/CN=x", "-out",
                    str(lab.tmp / "x.crt"), check=False)
        assert r.returncode == 1


def test_private_key_must_match_public_key(lab, table, signatures):
    """A PKCS#8 key (secret key || public key) whose secret coefficients
    were altered is refused when loaded, deterministically: for HAETAE the
    last byte of s2 (signatures would still verify now and then), for AIMer
    the last byte of the plaintext."""
    sk_len = {s["id"]: s["sk"] for s in table["SIG"]}
    for alg in (a for a in signatures if a in sk_len):
        key, _ = make_cert(lab, alg)
        der = subprocess.run(lab.openssl + ["pkey", "-in", str(key), "-outform", "DER"], capture_output=True,
                             check=True).stdout
        _, algid, key_bytes = children(der)
        spot = sk_len[alg] - 33 if alg.startswith("haetae") else 0
        path = lab.tmp / f"mismatch-{alg}.der"
        path.write_bytes(pkcs8(algid[2:], key_bytes))
        assert lab.run("pkey", "-inform", "DER", "-in", str(path), "-noout", check=False).returncode == 0
        for flip in (0x01, 0x02, 0x80):
            bad = bytearray(key_bytes)
            bad[spot] ^= flip
            path.write_bytes(pkcs8(algid[2:], bytes(bad)))
            r = lab.run("pkey", "-inform", "DER", "-in", str(path), "-noout", check=False)
            assert r.returncode == 1 and REFUSED_KEY.search(r.stderr), (alg, flip, r.stderr)
        # a key from another pair, spliced with this public key
        other = lab.tmp / f"other-{alg}.key"
        lab.run("genpkey", "-algorithm", alg, "-out", str(other))
        other_der = subprocess.run(lab.openssl + ["pkey", "-in", str(other), "-outform", "DER"],
                                   capture_output=True, check=True).stdout
        spliced = children(other_der)[2][:sk_len[alg]] + key_bytes[sk_len[alg]:]
        path.write_bytes(pkcs8(algid[2:], spliced))
        r = lab.run("pkey", "-inform", "DER", "-in", str(path), "-noout", check=False)
        assert r.returncode == 1 and REFUSED_KEY.search(r.stderr), (alg, r.stderr)


def test_pure_kem_keys_encode(lab, table):
    listed = lab.run("list", "-kem-algorithms").stdout
    for k in table["KEM"]:
        if k["id"] not in listed:
            continue
        key = lab.tmp / f"{k['id']}.key"
        lab.run("genpkey", "-algorithm", k["id"], "-out", str(key))
        again = lab.run("pkey", "-in", str(key)).stdout
        assert again == key.read_text()
        return
    pytest.skip("no KEM built")
