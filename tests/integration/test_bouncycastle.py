"""Bouncy Castle 1.87 (bcprov-jdk18on, Maven Central) and kpqcprovider
exchange KEM keys and agree on secrets both ways: BC's key files (its OIDs,
its OCTET STRING-wrapped keys) load in `openssl pkey`/`pkeyutl`, and with
`oid-profile = bouncycastle` our key files load in BC.  BC's signature keys
are refused (their algorithms are not the specifications', docs/interop.md).

The Java side is tests/integration/bouncycastle/KpqcBc.java, compiled here
against the jar from the local Maven repository (fetched once by mvn)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

BC_VERSION = "1.87"
BC_ARTIFACT = f"org.bouncycastle:bcprov-jdk18on:{BC_VERSION}"
JAR = (pathlib.Path.home() / ".m2/repository/org/bouncycastle/bcprov-jdk18on" / BC_VERSION /
       f"bcprov-jdk18on-{BC_VERSION}.jar")
SOURCE = pathlib.Path(__file__).resolve().parent / "bouncycastle" / "KpqcBc.java"
KEM_FAMILIES = ("smaugt", "ntruplus")


class BouncyCastle:
    def __init__(self, classes):
        self.classpath = f"{JAR}:{classes}"

    def __call__(self, *args):
        r = subprocess.run(["java", "-cp", self.classpath, "KpqcBc", *map(str, args)], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()


@pytest.fixture(scope="module")
def bc(tmp_path_factory):
    for tool in ("java", "javac", "mvn"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing (scripts/install-deps.sh installs it)")
    if not JAR.exists():
        subprocess.run(["mvn", "-q", "-B", "dependency:get", f"-Dartifact={BC_ARTIFACT}"], check=True, timeout=600)
    classes = tmp_path_factory.mktemp("bc-classes")
    subprocess.run(["javac", "-d", str(classes), "-cp", str(JAR), str(SOURCE)], check=True, timeout=300)
    return BouncyCastle(classes)


@pytest.fixture(scope="module")
def bc_profile(lab):
    """The build tree's configuration with the provider writing BC's form."""
    conf = lab.tmp / "openssl-bc.cnf"
    text = (lab.build / "openssl.cnf").read_text()
    assert "[kpqc_sect]\n" in text
    conf.write_text(text.replace("[kpqc_sect]\n", "[kpqc_sect]\noid-profile = bouncycastle\n"))
    return conf


def _kems(lab, table):
    listed = lab.run("list", "-kem-algorithms").stdout
    kems = [k for k in table["KEM"] if k["family"] in KEM_FAMILIES and k["id"] in listed]
    assert kems, "no SMAUG-T or NTRU+ built"
    return kems


def _openssl(lab, *args, conf=None, check=True):
    env = dict(os.environ, KPQC_OPENSSL_CONF=str(conf)) if conf else None
    return lab.run(*args, env=env, check=check)


def _oid(lab, der):
    """The key's algorithm OID (ours print by their registered name)."""
    out = lab.run("asn1parse", "-inform", "DER", "-in", str(der)).stdout
    return next(line.split(":")[-1].strip() for line in out.splitlines() if "OBJECT" in line)


def _tlv(tag, body):
    n = len(body)
    length = bytes([n]) if n < 0x80 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes(
        (n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + length + body


def _agree_both_ways(lab, bc, tmp, pub, priv, conf=None):
    """OpenSSL encapsulates to `pub`, BC decapsulates with `priv`; then BC
    encapsulates and OpenSSL decapsulates."""
    ct, ss, ss_bc = tmp / "ct1", tmp / "ss1", tmp / "ss1.bc"
    _openssl(lab, "pkeyutl", "-encap", "-pubin", "-inkey", str(pub), "-keyform", "DER", "-out", str(ct), "-secret",
             str(ss), conf=conf)
    bc("decaps", priv, ct, ss_bc)
    assert ss.read_bytes() == ss_bc.read_bytes() and len(ss.read_bytes()) == 32
    ct, ss, ss_bc = tmp / "ct2", tmp / "ss2", tmp / "ss2.bc"
    bc("encaps", pub, ct, ss_bc)
    _openssl(lab, "pkeyutl", "-decap", "-inkey", str(priv), "-keyform", "DER", "-in", str(ct), "-out", str(ss),
             conf=conf)
    assert ss.read_bytes() == ss_bc.read_bytes()


def test_bc_key_files_load_and_agree(lab, table, bc, tmp_path):
    for k in _kems(lab, table):
        pub, priv = tmp_path / f"{k['id']}.pub.der", tmp_path / f"{k['id']}.priv.der"
        bc("keygen", k["id"], pub, priv)
        assert _oid(lab, pub) == bc("oid", k["id"]) != k["oid"]
        text = lab.run("pkey", "-pubin", "-inform", "DER", "-in", str(pub), "-noout", "-text").stdout
        assert text.startswith(f"{k['id']} Public-Key"), text
        text = lab.run("pkey", "-inform", "DER", "-in", str(priv), "-noout", "-text").stdout
        assert text.startswith(f"{k['id']} Private-Key"), text
        _agree_both_ways(lab, bc, tmp_path, pub, priv)
        # Loaded, the key is written back with our OID unless told otherwise.
        ours = tmp_path / f"{k['id']}.ours.der"
        lab.run("pkey", "-pubin", "-inform", "DER", "-in", str(pub), "-outform", "DER", "-out", str(ours))
        assert _oid(lab, ours) == k["id"]


def test_profile_bouncycastle_writes_what_bc_reads(lab, table, bc, bc_profile, tmp_path):
    for k in _kems(lab, table):
        pub, priv = tmp_path / f"{k['id']}.pub.der", tmp_path / f"{k['id']}.priv.der"
        _openssl(lab, "genpkey", "-algorithm", k["id"], "-outform", "DER", "-out", str(priv), "-outpubkey", str(pub),
                 conf=bc_profile)
        assert _oid(lab, pub) == _oid(lab, priv) == bc("oid", k["id"])
        _agree_both_ways(lab, bc, tmp_path, pub, priv, conf=bc_profile)
        # The private key file keeps its public half (NTRU+: as OneAsymmetricKey's publicKey).
        again = tmp_path / f"{k['id']}.again.der"
        _openssl(lab, "pkey", "-inform", "DER", "-in", str(priv), "-pubout", "-outform", "DER", "-out", str(again),
                 conf=bc_profile)
        assert again.read_bytes() == pub.read_bytes()
    # Signature keys keep our identifiers under the profile.
    sig = next(s for s in table["SIG"] if s["id"] in lab.run("list", "-signature-algorithms").stdout)
    key = tmp_path / "sig.der"
    _openssl(lab, "genpkey", "-algorithm", sig["id"], "-outform", "DER", "-out", str(key), conf=bc_profile)
    assert _oid(lab, key) == sig["id"]


def test_tampered_and_wrong_length_bc_keys_are_refused(lab, table, bc, bc_profile, tmp_path):
    smaugt = next((k for k in _kems(lab, table) if k["family"] == "smaugt"), None)
    if smaugt is None:
        pytest.skip("SMAUG-T not built")
    pub, priv = tmp_path / "pub.der", tmp_path / "priv.der"
    bc("keygen", smaugt["id"], pub, priv)
    der = bytearray(priv.read_bytes())
    der[len(der) - smaugt["sk"]] ^= 0xFF  # the secret polynomial: the pair no longer agrees
    bad = tmp_path / "tampered.der"
    bad.write_bytes(bytes(der))
    r = lab.run("pkey", "-inform", "DER", "-in", str(bad), "-noout", check=False)
    assert r.returncode != 0
    ntru = next((k for k in _kems(lab, table) if k["family"] == "ntruplus"), None)
    if ntru is not None:  # a public key that is not the secret key's, as OneAsymmetricKey's publicKey
        key, other = tmp_path / "ntru.der", tmp_path / "other.der"
        for path in (key, other):
            _openssl(lab, "genpkey", "-algorithm", ntru["id"], "-outform", "DER", "-out", str(path), conf=bc_profile)
        spliced = key.read_bytes()[:-ntru["pk"]] + other.read_bytes()[-ntru["pk"]:]
        bad.write_bytes(spliced)
        assert lab.run("pkey", "-inform", "DER", "-in", str(key), "-noout").returncode == 0
        assert lab.run("pkey", "-inform", "DER", "-in", str(bad), "-noout", check=False).returncode != 0
    der = pub.read_bytes()  # SEQUENCE(4 bytes) { AlgorithmIdentifier, BIT STRING { OCTET STRING pk } }
    algid, key = der[4:6 + der[5]], der[-smaugt["pk"]:]
    bad.write_bytes(_tlv(0x30, algid + _tlv(0x03, b"\0" + _tlv(0x04, key[:-1]))))  # one byte short
    assert lab.run("asn1parse", "-inform", "DER", "-in", str(bad), check=False).returncode == 0
    r = lab.run("pkey", "-pubin", "-inform", "DER", "-in", str(bad), "-noout", check=False)
    assert r.returncode != 0


# OSSL_DECODER straight from libcrypto (the CLI's key loading goes through
# OSSL_STORE, which keeps only "unsupported"): the provider's reason is on
# the error queue.
DECODE_WITH_LIBCRYPTO = """
import ctypes, sys
lib, libc = ctypes.CDLL("libcrypto.so.3"), ctypes.CDLL(None)
lib.OSSL_DECODER_CTX_new_for_pkey.restype = ctypes.c_void_p
lib.OSSL_DECODER_CTX_new_for_pkey.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                              ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p]
lib.OSSL_DECODER_from_data.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
lib.ERR_print_errors_fp.argtypes = [ctypes.c_void_p]
pkey = ctypes.c_void_p()
ctx = lib.OSSL_DECODER_CTX_new_for_pkey(ctypes.byref(pkey), b"DER", None, None, 0, None, None)
data = open(sys.argv[1], "rb").read()
buf = ctypes.create_string_buffer(data, len(data))
ptr, size = ctypes.c_void_p(ctypes.addressof(buf)), ctypes.c_size_t(len(data))
ok = lib.OSSL_DECODER_from_data(ctx, ctypes.byref(ptr), ctypes.byref(size))
libc.fflush(None)
lib.ERR_print_errors_fp(ctypes.c_void_p.in_dll(libc, "stderr"))
sys.exit(0 if ok and pkey.value else 1)
"""


def test_bc_signature_keys_are_refused(lab, table, bc, tmp_path):
    reasons = {"haetae2": "HAETAE verifies neither official KAT version", "aimer128f": "AIMer is version 2.1"}
    for sig, reason in reasons.items():
        pub, priv = tmp_path / f"{sig}.pub.der", tmp_path / f"{sig}.priv.der"
        bc("keygen", sig, pub, priv)
        for args in (["-pubin", "-in", str(pub)], ["-in", str(priv)]):
            r = lab.run("pkey", "-inform", "DER", *args, "-noout", check=False)
            assert r.returncode != 0, r.stdout
        for der in (pub, priv):
            r = subprocess.run(lab.env_cmd + [sys.executable, "-c", DECODE_WITH_LIBCRYPTO, str(der)],
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 1 and f"Bouncy Castle {sig} key" in r.stderr and reason in r.stderr, r.stderr
    # The same decoder, the same way, loads a BC KEM key: the refusal is not
    # the harness failing.
    kem = _kems(lab, table)[0]["id"]
    pub, priv = tmp_path / "kem.pub.der", tmp_path / "kem.priv.der"
    bc("keygen", kem, pub, priv)
    r = subprocess.run(lab.env_cmd + [sys.executable, "-c", DECODE_WITH_LIBCRYPTO, str(pub)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_unknown_profile_keeps_the_provider_out(lab, tmp_path):
    conf = tmp_path / "bad.cnf"
    conf.write_text((lab.build / "openssl.cnf").read_text().replace("[kpqc_sect]\n",
                                                                     "[kpqc_sect]\noid-profile = bouncy\n"))
    r = _openssl(lab, "list", "-providers", conf=conf, check=False)
    assert "kpqcprovider" not in r.stdout
    assert "kpqcprovider" in lab.run("list", "-providers").stdout
