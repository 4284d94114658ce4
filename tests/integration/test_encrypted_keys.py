"""Private keys written with a cipher and a passphrase are PKCS#8
EncryptedPrivateKeyInfo for every family and a composite (never the clear
PrivateKeyInfo), read back with the right passphrase and refused with a
wrong one: genpkey -aes256 -pass, pkey -aes256 -passout, req -newkey -keyout
-passout."""
import pytest

# One parameter set per family, and a composite.
CANDIDATES = ["smaugt1", "ntruplus768", "haetae2", "aimer128f", "p256_haetae2"]


def built(lab):
    listed = (lab.run("list", "-kem-algorithms").stdout + lab.run("list", "-signature-algorithms").stdout).lower()
    return [a for a in CANDIDATES if a in listed]


def is_signature(lab, alg):
    return alg in lab.run("list", "-signature-algorithms").stdout


@pytest.fixture(params=CANDIDATES)
def alg(request, lab):
    if request.param not in built(lab):
        pytest.skip(f"{request.param} not built")
    return request.param


def public_of(lab, path, passin):
    return lab.run("pkey", "-in", str(path), "-passin", passin, "-pubout").stdout


def refused(lab, path, passin):
    r = lab.run("pkey", "-in", str(path), "-passin", passin, "-noout", check=False)
    return r.returncode != 0


def test_genpkey_encrypts(lab, alg):
    key = lab.tmp / f"enc-gen-{alg}.pem"
    lab.run("genpkey", "-algorithm", alg, "-aes256", "-pass", "pass:right horse", "-out", str(key))
    text = key.read_text()
    assert text.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----"), text[:60]
    assert "BEGIN PRIVATE KEY" not in text
    assert "BEGIN PUBLIC KEY" in public_of(lab, key, "pass:right horse")
    assert refused(lab, key, "pass:wrong horse")


def test_pkey_reencrypts(lab, alg):
    clear, enc = lab.tmp / f"enc-clear-{alg}.pem", lab.tmp / f"enc-pkey-{alg}.pem"
    lab.run("genpkey", "-algorithm", alg, "-out", str(clear))
    assert clear.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    lab.run("pkey", "-in", str(clear), "-aes-128-cbc", "-passout", "pass:secret", "-out", str(enc))
    assert enc.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    # The same key comes back, and decrypting it gives the clear encoding.
    assert public_of(lab, enc, "pass:secret") == lab.run("pkey", "-in", str(clear), "-pubout").stdout
    again = lab.run("pkey", "-in", str(enc), "-passin", "pass:secret").stdout
    assert again == clear.read_text()
    assert refused(lab, enc, "pass:Secret")


def test_req_newkey_encrypts(lab, alg):
    if not is_signature(lab, alg):
        pytest.skip("KEM keys make no certificate requests")
    key, csr = lab.tmp / f"enc-req-{alg}.pem", lab.tmp / f"enc-req-{alg}.csr"
    lab.run("req", "-new", "-newkey", alg, "-keyout", str(key), "-passout", "pass:pw", "-subj", "/CN=enc",
            "-out", str(csr))
    assert key.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    lab.run("req", "-in", str(csr), "-verify", "-noout")
    assert public_of(lab, key, "pass:pw") == lab.run("req", "-in", str(csr), "-pubkey", "-noout").stdout
    assert refused(lab, key, "pass:wrong")


def test_unknown_cipher_is_refused(lab):
    algs = built(lab)
    if not algs:
        pytest.skip("nothing built")
    key = lab.tmp / "enc-bad-cipher.pem"
    r = lab.run("genpkey", "-algorithm", algs[0], "-cipher", "no-such-cipher", "-pass", "pass:x", "-out", str(key),
                check=False)
    assert r.returncode != 0
