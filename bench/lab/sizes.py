"""Suite `sizes`: artifact sizes from the algorithm table (and OpenSSL's own
algorithms, measured), DER certificate sizes for every signature algorithm
the build can sign with, root+leaf chains."""
import subprocess

from . import algorithms, plots
from .results import md_table


# Certificate key types: classical, NIST PQC (OpenSSL native), KpqC when built.
CERT_TYPES = [("ECDSA P-256", "EC", ["-pkeyopt", "ec_paramgen_curve:P-256"], 1),
              ("ECDSA P-384", "EC", ["-pkeyopt", "ec_paramgen_curve:P-384"], 3),
              ("ML-DSA-44", "ML-DSA-44", [], 2), ("ML-DSA-65", "ML-DSA-65", [], 3), ("ML-DSA-87", "ML-DSA-87", [], 5),
              ("SLH-DSA-SHA2-128f", "SLH-DSA-SHA2-128f", [], 1), ("SLH-DSA-SHA2-128s", "SLH-DSA-SHA2-128s", [], 1)]


PRESETS = {"quick": {}, "paper": {}}


def add_arguments(p):
    pass


def plot(lab, rows):
    plots.cert_sizes(lab)


def _der_sizes(lab, name, keytype, opts):
    """(self-signed root, leaf issued by it) DER sizes, or None."""
    ossl = lab.build.openssl
    files = {k: lab.dir / f"size-{keytype}.{k}" for k in ("rkey", "root", "lkey", "csr", "leaf")}
    steps = [
        [ossl, "req", "-x509", "-newkey", keytype, *opts, "-keyout", str(files["rkey"]), "-nodes", "-out",
         str(files["root"]), "-days", "1", "-subj", "/CN=kpqc-bench root",
         "-addext", "basicConstraints=critical,CA:TRUE"],
        [ossl, "req", "-new", "-newkey", keytype, *opts, "-keyout", str(files["lkey"]), "-nodes", "-out",
         str(files["csr"]), "-subj", "/CN=kpqc-bench leaf"],
        [ossl, "x509", "-req", "-in", str(files["csr"]), "-CA", str(files["root"]), "-CAkey", str(files["rkey"]),
         "-days", "1", "-outform", "DER", "-out", str(files["leaf"])],
        [ossl, "x509", "-in", str(files["root"]), "-outform", "DER", "-out", str(files["root"])],
    ]
    try:
        for cmd in steps:
            if subprocess.run(cmd, capture_output=True, text=True).returncode != 0:
                return None
        return files["root"].stat().st_size, files["leaf"].stat().st_size
    finally:
        for f in files.values():
            f.unlink(missing_ok=True)


def run(args, lab):
    t = algorithms.table()
    built = subprocess.run([lab.build.openssl, "list", "-kem-algorithms", "-signature-algorithms"],
                           capture_output=True, text=True).stdout
    rows = []
    for k in t["kems"]:
        rows.append([k["level"], k["display"], "KEM", k["pk_len"], k["sk_len"], k["ct_len"],
                     "yes" if k["name"] in built else "no"])
        lab.row("sizes", alg=k["name"], kind="kem", level=k["level"], pk=k["pk_len"], sk=k["sk_len"], ct=k["ct_len"])
    for s in t["sigs"]:
        rows.append([s["level"], s["display"], "signature", s["pk_len"], s["sk_len"], s["sig_len"],
                     "yes" if s["name"] in built else "no"])
        lab.row("sizes", alg=s["name"], kind="sig", level=s["level"], pk=s["pk_len"], sk=s["sk_len"], sig=s["sig_len"])
    # FIPS 203/204 sizes, for the comparison.
    for name, lvl, pk, sk, ct in (("ML-KEM-512", 1, 800, 1632, 768), ("ML-KEM-768", 3, 1184, 2400, 1088),
                                  ("ML-KEM-1024", 5, 1568, 3168, 1568)):
        rows.append([lvl, name, "KEM", pk, sk, ct, "OpenSSL"])
    for name, lvl, pk, sk, sig in (("ML-DSA-44", 2, 1312, 2560, 2420), ("ML-DSA-65", 3, 1952, 4032, 3309),
                                   ("ML-DSA-87", 5, 2592, 4896, 4627)):
        rows.append([lvl, name, "signature", pk, sk, sig, "OpenSSL"])
    lab.section("Artifact sizes (bytes)", md_table(["level", "algorithm", "kind", "public key", "secret key",
                                                    "ciphertext / signature", "in this build"],
                                                   sorted(rows, key=lambda r: (r[0], r[2], r[1]))))
    types = list(CERT_TYPES)
    for s in t["sigs"]:
        if s["name"] in built:
            types.append((s["display"], s["name"], [], s["level"]))
    for c in t["composites"]:
        if c["name"] in built:
            types.append((c["name"], c["name"], [], c["level"]))
    crow = []
    base = None
    for name, keytype, opts, lvl in types:
        sizes = _der_sizes(lab, name, keytype, opts)
        if sizes is None:
            continue
        root, leaf = sizes
        base = base or leaf
        lab.row("certs", alg=name, level=lvl, leaf_der=leaf, root_der=root, chain_der=root + leaf)
        crow.append([name, lvl or "", leaf, root + leaf, f"{leaf / base:.1f}×"])
    missing = [s["display"] for s in t["sigs"] if s["name"] not in built]
    note = (f"\n\nNot in this build (no certificate row): {', '.join(missing)}." if missing else "")
    lab.section("Certificate sizes (DER: a leaf issued by a root of the same algorithm, and the root+leaf chain)",
                md_table(["algorithm", "level", "leaf B", "root+leaf B", "vs P-256"], crow) +
                "\n\nPublished (TLS/X.509 paper, Table 3): secp256r1 385 B, Falcon-512 1,788 B; our P-256 leaf "
                "is smaller because its subject and extensions are minimal." + note)
