#!/usr/bin/env python3
"""The one algorithm table (src/algorithms.def), read from Python.

Tests, the benchmark lab and the documentation use this instead of
repeating names, sizes, OIDs or code points.  `from_build` reads
build/algorithms.json, the table as the C preprocessor reads it
(`kpqc-kat --table-json`); `load` gives the same rows under the
integration tests' short field names.  Nothing in Python parses the C
file.  Run as a script it prints the Markdown table of docs/algorithms.md
from BUILD_DIR/algorithms.json
(`[--build-dir BUILD_DIR] [--check FILE | --update FILE]`; --check fails if
FILE's generated part differs, --update rewrites it).  What follows the
MEASURED line in the file (the footprint tables of `kpqc-bench footprint`)
is not generated and is kept.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def from_build(build_dir=ROOT / "build"):
    """build/algorithms.json: {"kems", "sigs", "hybrids", "composites",
    "families"} rows under the JSON's field names.  Fails loudly when the
    build has not written it."""
    path = pathlib.Path(build_dir) / "algorithms.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: build first (make build)")
    return json.loads(path.read_text())


# The integration tests' short names for the JSON's kinds and fields.
_KINDS = {"kems": "KEM", "sigs": "SIG", "hybrids": "HYBRID", "composites": "COMPOSITE"}
_FIELDS = {"name": "id", "pk_len": "pk", "sk_len": "sk", "ct_len": "ct", "ss_len": "ss", "sig_len": "sig",
           "group_codepoint": "codepoint", "sigalg_codepoint": "codepoint"}


def load(build_dir=ROOT / "build"):
    """The rows of `from_build` by kind ("KEM", "SIG", "HYBRID",
    "COMPOSITE") under the short field names the integration tests use
    (id, pk, sk, ct, ss, sig, codepoint)."""
    t = from_build(build_dir)
    return {short: [{_FIELDS.get(k, k): v for k, v in r.items()} for r in t[kind]] for kind, short in _KINDS.items()}


MEASURED = "<!-- Measured, not generated: the tables below come from `kpqc-bench footprint`. -->"


def generated_part(text):
    """The part of docs/algorithms.md that markdown() writes."""
    return text.split("\n" + MEASURED, 1)[0]


def markdown(table):
    """docs/algorithms.md from the rows of `from_build`."""
    t = table
    kems = {k["name"]: k for k in t["kems"]}
    sigs = {s["name"]: s for s in t["sigs"]}
    out = ["# Algorithms", "",
           "Generated from `src/algorithms.def` by `tools/kpqc_table.py`; do not edit by hand.",
           "OIDs sit under the experimental arc 1.3.9999.410; TLS code points are private-use values.",
           "", "## KEMs", "",
           "| name | specification | level | pk | sk | ct | ss | OID | TLS group | aliases |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in t["kems"]:
        out.append(f"| `{k['name']}` | {k['display']} | {k['level']} | {k['pk_len']} | {k['sk_len']} | {k['ct_len']} "
                   f"| {k['ss_len']} | {k['oid']} | 0x{k['group_codepoint']:04X} | {', '.join(k['aliases'])} |")
    out += ["", "## Hybrid TLS groups (classical + KpqC; order in docs/provider.md)", "",
            "| group | KEM | classical | level | key share (client) | TLS group | aliases |",
            "|---|---|---|---|---|---|---|"]
    classical_share = {"x25519": 32, "x448": 56, "p256": 65, "p384": 97, "p521": 133}
    for h in t["hybrids"]:
        k = kems[h["kem"]]
        out.append(f"| `{h['name']}` | {k['display']} | {h['classical']} | {k['level']} "
                   f"| {classical_share[h['classical']] + k['pk_len']} | 0x{h['group_codepoint']:04X} "
                   f"| {', '.join(h['aliases'])} |")
    out += ["", "## Signatures", "",
            "| name | specification | level | pk | sk | signature | OID | TLS sigalg | aliases |",
            "|---|---|---|---|---|---|---|---|---|"]
    for s in t["sigs"]:
        out.append(f"| `{s['name']}` | {s['display']} | {s['level']} | {s['pk_len']} | {s['sk_len']} | {s['sig_len']} "
                   f"| {s['oid']} | 0x{s['sigalg_codepoint']:04X} | {', '.join(s['aliases'])} |")
    out += ["", "## Composite signatures (KpqC ‖ ECDSA)", "",
            "| name | KpqC | ECDSA curve | digest | level | OID | TLS sigalg | aliases |",
            "|---|---|---|---|---|---|---|---|"]
    for c in t["composites"]:
        s = sigs[c["sig"]]
        out.append(f"| `{c['name']}` | {s['display']} | {c['curve']} | {c['digest']} | {s['level']} "
                   f"| {c['oid']} | 0x{c['sigalg_codepoint']:04X} | {', '.join(c['aliases'])} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--check")
    ap.add_argument("--update")
    args = ap.parse_args()
    text = markdown(from_build(args.build_dir))
    if args.check:
        if generated_part(pathlib.Path(args.check).read_text()) != text:
            sys.exit(f"{args.check} is out of date: regenerate with tools/kpqc_table.py --update {args.check}")
        print(f"{args.check} matches the algorithm table")
    elif args.update:
        path = pathlib.Path(args.update)
        old = path.read_text() if path.exists() else ""
        path.write_text(text + old[len(generated_part(old)):])
    else:
        sys.stdout.write(text)
