"""Key validation (`openssl pkey -pubcheck` / `-check`): good keys of every
family and a composite pass; an NTRU+ public key whose coefficients are not
canonical (all bytes 0xFF) is refused, as encapsulation to it would fail."""
import subprocess

import pytest

CANDIDATES = ["smaugt1", "ntruplus768", "haetae2", "aimer128f", "p256_haetae2"]


def built(lab, alg):
    listed = (lab.run("list", "-kem-algorithms").stdout + lab.run("list", "-signature-algorithms").stdout).lower()
    return alg in listed


@pytest.mark.parametrize("alg", CANDIDATES)
def test_good_keys_pass(lab, alg):
    if not built(lab, alg):
        pytest.skip(f"{alg} not built")
    key, pub = lab.tmp / f"valid-{alg}.pem", lab.tmp / f"valid-{alg}.pub"
    lab.run("genpkey", "-algorithm", alg, "-out", str(key))
    lab.run("pkey", "-in", str(key), "-pubout", "-out", str(pub))
    assert "Key is valid" in lab.run("pkey", "-in", str(key), "-check", "-noout").stdout
    assert "Key is valid" in lab.run("pkey", "-in", str(key), "-pubcheck", "-noout").stdout
    assert "Key is valid" in lab.run("pkey", "-pubin", "-in", str(pub), "-pubcheck", "-noout").stdout


def test_non_canonical_ntruplus_key_is_refused(lab, table, ntruplus_kem):
    alg = ntruplus_kem
    if not built(lab, alg):
        pytest.skip(f"{alg} not built")
    pk_len = next(k["pk"] for k in table["KEM"] if k["id"] == alg)
    key = lab.tmp / f"bad-{alg}.pem"
    lab.run("genpkey", "-algorithm", alg, "-out", str(key))
    der = bytearray(subprocess.run(lab.openssl + ["pkey", "-in", str(key), "-pubout", "-outform", "DER"],
                                   capture_output=True, check=True).stdout)
    der[-pk_len:] = b"\xff" * pk_len  # the key is the tail of the BIT STRING
    bad = lab.tmp / f"bad-{alg}.der"
    bad.write_bytes(bytes(der))
    r = lab.run("pkey", "-pubin", "-inform", "DER", "-in", str(bad), "-pubcheck", "-noout", check=False)
    assert r.returncode != 0 and "Key is valid" not in r.stdout, r.stdout
    assert "not valid" in r.stderr, r.stderr
