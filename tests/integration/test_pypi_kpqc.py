"""The KpqC reference code as users get it from PyPI (`kpqc`, the official
implementations behind a Python binding) and kpqcprovider agree: keys made
by one are used by the other, KEM secrets match both ways, signatures
verify both ways.  Their raw keys travel in our SubjectPublicKeyInfo: the
header of one of our keys of the same algorithm, their key bytes."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from lab.reference import binding  # noqa: E402  (the lab's size-matched lookup)

SIGS = ("haetae2", "aimer128f")
MESSAGE = b"kpqc-tls and the reference code\n"


def _binding(row, kind):
    pytest.importorskip("kpqc", reason="PyPI kpqc is installed by scripts/install-deps.sh")
    size = {"kem": "ct", "sig": "sig"}[kind]
    return binding({"family": row["family"].lower(), "pk_len": row["pk"], "sk_len": row["sk"],
                    f"{size}_len": row[size]}, kind)


def _our_key(lab, tmp, alg):
    """One of our keys: (private key file, SPKI DER of its public key)."""
    key, pub = tmp / f"{alg}.key.pem", tmp / f"{alg}.pub.der"
    lab.run("genpkey", "-algorithm", alg, "-out", str(key))
    lab.run("pkey", "-in", str(key), "-pubout", "-outform", "DER", "-out", str(pub))
    return key, pub.read_bytes()


def _their_pub_in_our_spki(tmp, alg, our_spki, their_pk):
    path = tmp / f"{alg}.theirs.der"
    path.write_bytes(our_spki[:-len(their_pk)] + their_pk)
    return path


def test_kems_agree_both_ways(lab, table, tmp_path):
    listed = lab.run("list", "-kem-algorithms").stdout
    checked = 0
    for row in table["KEM"]:
        ref = _binding(row, "kem")
        if ref is None or row["id"] not in listed:
            continue
        key, spki = _our_key(lab, tmp_path, row["id"])
        # The reference encapsulates to our key; we decapsulate.
        enc = ref.encapsulate(spki[-row["pk"]:])
        ct, ss = tmp_path / "ct", tmp_path / "ss"
        ct.write_bytes(enc.ciphertext)
        lab.run("pkeyutl", "-decap", "-inkey", str(key), "-in", str(ct), "-out", str(ss))
        assert ss.read_bytes() == enc.shared_secret, row["id"]
        # We encapsulate to the reference's key; it decapsulates.
        theirs = ref.generate_key_pair()
        pub = _their_pub_in_our_spki(tmp_path, row["id"], spki, theirs.public_key)
        lab.run("pkeyutl", "-encap", "-pubin", "-inkey", str(pub), "-keyform", "DER", "-out", str(ct), "-secret",
                str(ss))
        assert ref.decapsulate(ct.read_bytes(), theirs.secret_key) == ss.read_bytes(), row["id"]
        checked += 1
    assert checked >= 1


def test_signatures_verify_both_ways(lab, table, tmp_path):
    listed = lab.run("list", "-signature-algorithms").stdout
    msg = tmp_path / "msg"
    msg.write_bytes(MESSAGE)
    checked = 0
    for row in table["SIG"]:
        ref = _binding(row, "sig")
        if row["id"] not in SIGS or ref is None or row["id"] not in listed:
            continue
        key, spki = _our_key(lab, tmp_path, row["id"])
        sig = tmp_path / "sig"
        lab.run("pkeyutl", "-sign", "-rawin", "-inkey", str(key), "-in", str(msg), "-out", str(sig))
        assert ref.verify(MESSAGE, sig.read_bytes(), spki[-row["pk"]:]), row["id"]
        theirs = ref.generate_key_pair()
        sig.write_bytes(ref.sign(MESSAGE, theirs.secret_key))
        pub = _their_pub_in_our_spki(tmp_path, row["id"], spki, theirs.public_key)
        r = lab.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", str(pub), "-keyform", "DER", "-in", str(msg),
                    "-sigfile", str(sig))
        assert "Signature Verified Successfully" in r.stdout, row["id"]
        # A changed message fails in ours as in theirs.
        msg.write_bytes(MESSAGE + b"!")
        r = lab.run("pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", str(pub), "-keyform", "DER", "-in", str(msg),
                    "-sigfile", str(sig), check=False)
        assert r.returncode != 0
        assert not ref.verify(MESSAGE + b"!", sig.read_bytes(), theirs.public_key)
        msg.write_bytes(MESSAGE)
        checked += 1
    assert checked >= 1
