#!/usr/bin/env python3
"""Checks the one algorithm table: no name, alias, OID or TLS code point is
claimed twice; hybrids and composites refer to existing algorithms at a
sensible level; every KEM and signature has its official KAT digests; and
docs/algorithms.md is the table's current rendering.
Reads the whole table as the C preprocessor reads it: the configure-time
reader's output (--rows-tool, tools/table_rows.c) when given, else
BUILD_DIR/algorithms.json (a build's selection, KPQC_ALGORITHMS).

  table_check.py [BUILD_DIR] [--rows-tool TABLE_ROWS]
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import kpqc_table  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("build_dir", nargs="?", default=str(ROOT / "build"))
ap.add_argument("--rows-tool")
args = ap.parse_args()
if args.rows_tool:
    t = json.loads(subprocess.run([args.rows_tool], capture_output=True, text=True, check=True).stdout)
else:
    t = kpqc_table.from_build(args.build_dir)
errors = []

names = collections.Counter()
for kind in ("kems", "sigs", "hybrids", "composites"):
    for row in t[kind]:
        names[row["name"].lower()] += 1
        for a in row["aliases"]:
            names[a.lower()] += 1
errors += [f"name claimed {n} times: {k}" for k, n in names.items() if n > 1]

oids = collections.Counter(r["oid"] for k in ("kems", "sigs", "composites") for r in t[k])
errors += [f"OID used {n} times: {k}" for k, n in oids.items() if n > 1]
for o in oids:
    if not o.startswith("1.3.9999.410."):
        errors.append(f"OID outside the project's arc: {o}")

groups = collections.Counter(r["group_codepoint"] for k in ("kems", "hybrids") for r in t[k])
sigalgs = collections.Counter(r["sigalg_codepoint"] for k in ("sigs", "composites") for r in t[k])
errors += [f"group code point used {n} times: 0x{k:04X}" for k, n in groups.items() if n > 1]
errors += [f"sigalg code point used {n} times: 0x{k:04X}" for k, n in sigalgs.items() if n > 1]

kems = {k["name"]: k for k in t["kems"]}
sigs = {s["name"]: s for s in t["sigs"]}
classical_level = {"p256": 1, "x25519": 1, "p384": 3, "x448": 3, "p521": 5}
for h in t["hybrids"]:
    if h["kem"] not in kems:
        errors.append(f"hybrid {h['name']}: unknown KEM {h['kem']}")
    elif h["classical"].startswith("p") and classical_level[h["classical"]] != kems[h["kem"]]["level"]:
        errors.append(f"hybrid {h['name']}: NIST curve does not match the KEM's level")
    elif h["classical"] == "x448" and kems[h["kem"]]["level"] < 3:
        errors.append(f"hybrid {h['name']}: x448 is for levels 3 and 5")
for c in t["composites"]:
    if c["sig"] not in sigs:
        errors.append(f"composite {c['name']}: unknown signature {c['sig']}")

# Nothing of ours may reuse another implementation's identifiers.
for line in (ROOT / "tests" / "data" / "foreign_identifiers.tsv").read_text().splitlines():
    if line.startswith("#") or not line.strip():
        continue
    kind, value, owner, name = line.split("\t")
    if kind == "group" and int(value, 16) in groups:
        errors.append(f"group code point {value} is {owner}'s {name}")
    elif kind == "group-range":
        lo, hi = (int(v, 16) for v in value.split("-"))
        errors += [f"group code point 0x{g:04X} inside {owner}'s range {value}" for g in groups if lo <= g <= hi]
    elif kind == "oid-arc":
        first, last = value.split("-")
        base = first.rsplit(".", 1)[0]
        lo, hi = int(first.rsplit(".", 1)[1]), int(last.rsplit(".", 1)[1])
        for o in oids:
            if o.startswith(base + ".") and lo <= int(o[len(base) + 1:].split(".")[0]) <= hi:
                errors.append(f"OID {o} inside {owner}'s arc {value}")

# Every KEM and signature of the table has its official KAT file's digests
# (tests/kat/kats.json), and nothing else has.
kats = json.loads((ROOT / "tests" / "kat" / "kats.json").read_text())
rows = [r["name"] for r in t["kems"] + t["sigs"]]
errors += [f"{n}: no official KAT digests in tests/kat/kats.json" for n in rows if n not in kats]
errors += [f"tests/kat/kats.json: {n} is not in the table" for n in kats if n not in rows]
for n, kat in kats.items():
    missing = {"file", "sha256", "sha256_first10"} - set(kat)
    if missing:
        errors.append(f"tests/kat/kats.json: {n} lacks {', '.join(sorted(missing))}")

expected = kpqc_table.markdown(t)
if kpqc_table.generated_part((ROOT / "docs" / "algorithms.md").read_text()) != expected:
    errors.append("docs/algorithms.md is out of date: run tools/kpqc_table.py --update docs/algorithms.md")

for e in errors:
    print("table:", e)
print(f"table: {sum(len(t[k]) for k in ('kems', 'sigs', 'hybrids', 'composites'))} rows checked, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
