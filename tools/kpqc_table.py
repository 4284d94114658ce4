#!/usr/bin/env python3
"""The one algorithm table (src/algorithms.def), read from Python.

Tests, the benchmark lab and the documentation use this instead of
repeating names, sizes, OIDs or code points.  Run as a script it prints the
Markdown table of docs/algorithms.md (`--check FILE` fails if FILE differs).
"""
import pathlib
import re
import sys

DEF = pathlib.Path(__file__).resolve().parent.parent / "src" / "algorithms.def"

FIELDS = {
    "KEM": ["family", "id", "display", "kat_name", "level", "pk", "sk", "ct", "ss", "oid", "codepoint", "aliases"],
    "SIG": ["family", "id", "display", "kat_name", "level", "pk", "sk", "sig", "oid", "codepoint", "aliases"],
    "HYBRID": ["id", "kem", "classical", "codepoint", "aliases"],
    "COMPOSITE": ["id", "sig", "curve", "digest", "oid", "codepoint", "aliases"],
}
INTS = {"level", "pk", "sk", "ct", "ss", "sig"}


def _split_args(text):
    return [a.strip() for a in re.findall(r'\s*("[^"]*"|[^,]+)', text)]


def load(path=DEF):
    """Returns {"KEM": [...], "SIG": [...], "HYBRID": [...], "COMPOSITE": [...]}."""
    table = {k: [] for k in FIELDS}
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.match(r"^KPQC_(KEM|SIG|HYBRID|COMPOSITE)\((.*)\)\s*$", line)
        if not m:
            continue
        kind, args = m.group(1), _split_args(m.group(2))
        row = {}
        for name, value in zip(FIELDS[kind], args):
            if value.startswith('"'):
                value = value[1:-1]
            elif name in INTS and kind in ("KEM", "SIG"):
                value = int(value)
            elif name == "codepoint":
                value = int(value, 16)
            row[name] = value
        row["aliases"] = [a for a in row["aliases"].split(",") if a]
        table[kind].append(row)
    return table


def markdown(table=None):
    t = table or load()
    kems = {k["id"]: k for k in t["KEM"]}
    sigs = {s["id"]: s for s in t["SIG"]}
    out = ["# Algorithms", "",
           "Generated from `src/algorithms.def` by `tools/kpqc_table.py`; do not edit by hand.",
           "OIDs sit under the experimental arc 1.3.9999.410; TLS code points are private-use values.",
           "", "## KEMs", "",
           "| name | specification | level | pk | sk | ct | ss | OID | TLS group | aliases |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in t["KEM"]:
        out.append(f"| `{k['id']}` | {k['display']} | {k['level']} | {k['pk']} | {k['sk']} | {k['ct']} | {k['ss']} "
                   f"| {k['oid']} | 0x{k['codepoint']:04X} | {', '.join(k['aliases'])} |")
    out += ["", "## Hybrid TLS groups (classical + KpqC; order in docs/provider.md)", "",
            "| group | KEM | classical | level | key share (client) | TLS group | aliases |",
            "|---|---|---|---|---|---|---|"]
    classical_share = {"x25519": 32, "x448": 56, "p256": 65, "p384": 97, "p521": 133}
    for h in t["HYBRID"]:
        k = kems[h["kem"]]
        out.append(f"| `{h['id']}` | {k['display']} | {h['classical']} | {k['level']} "
                   f"| {classical_share[h['classical']] + k['pk']} | 0x{h['codepoint']:04X} | {', '.join(h['aliases'])} |")
    out += ["", "## Signatures", "",
            "| name | specification | level | pk | sk | signature | OID | TLS sigalg | aliases |",
            "|---|---|---|---|---|---|---|---|---|"]
    for s in t["SIG"]:
        out.append(f"| `{s['id']}` | {s['display']} | {s['level']} | {s['pk']} | {s['sk']} | {s['sig']} "
                   f"| {s['oid']} | 0x{s['codepoint']:04X} | {', '.join(s['aliases'])} |")
    out += ["", "## Composite signatures (KpqC ‖ ECDSA)", "",
            "| name | KpqC | ECDSA curve | digest | level | OID | TLS sigalg | aliases |",
            "|---|---|---|---|---|---|---|---|"]
    for c in t["COMPOSITE"]:
        s = sigs[c["sig"]]
        out.append(f"| `{c['id']}` | {s['display']} | {c['curve']} | {c['digest']} | {s['level']} "
                   f"| {c['oid']} | 0x{c['codepoint']:04X} | {', '.join(c['aliases'])} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    text = markdown()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        current = pathlib.Path(sys.argv[2]).read_text()
        if current != text:
            sys.exit(f"{sys.argv[2]} is out of date: regenerate with tools/kpqc_table.py > {sys.argv[2]}")
        print(f"{sys.argv[2]} matches src/algorithms.def")
    else:
        sys.stdout.write(text)
