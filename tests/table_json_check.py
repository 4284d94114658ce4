#!/usr/bin/env python3
"""build/algorithms.json (kpqc-kat --table-json: the table as the C
preprocessor reads it, the only reading of src/algorithms.def) against the
built library's descriptors (kpqc-kat --list): exactly the KEMs and
signatures the library holds, hybrids and composites exactly those whose
KpqC half it holds, at their halves' levels.

CMake's configure-time reading (--rows-tool, tools/table_rows.c built for
the build machine: the whole table) must give the same rows as the built
kpqc-kat for every row kpqc-kat lists (all of them when every algorithm is
selected).

  table_json_check.py ALGORITHMS_JSON [--kat-tool KPQC_KAT [--emulator CMD]]
                      [--rows-tool TABLE_ROWS]
"""
import argparse
import json
import pathlib
import shlex
import subprocess
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--kat-tool")
    ap.add_argument("--emulator", default="")
    ap.add_argument("--rows-tool")
    args = ap.parse_args()
    js = json.loads(pathlib.Path(args.json).read_text())
    errors = []
    kems = {k["name"]: k for k in js["kems"]}
    sigs = {s["name"]: s for s in js["sigs"]}
    for h in js["hybrids"]:
        if h["level"] != kems[h["kem"]]["level"]:
            errors.append(f"hybrid {h['name']}: level {h['level']} but its KEM's is {kems[h['kem']]['level']}")
    for c in js["composites"]:
        if c["level"] != sigs[c["sig"]]["level"]:
            errors.append(f"composite {c['name']}: level {c['level']} but its scheme's is {sigs[c['sig']]['level']}")
    if args.rows_tool:
        rows = json.loads(subprocess.run([args.rows_tool], capture_output=True, text=True, check=True).stdout)
        for kind in ("kems", "sigs", "hybrids", "composites"):
            listed = {r["name"] for r in js[kind]}
            if [r for r in rows[kind] if r["name"] in listed] != js[kind]:
                errors.append(f"{kind}: CMake's configure-time rows differ from kpqc-kat's")
        for h in rows["hybrids"]:
            if (h["kem"] in kems) != any(r["name"] == h["name"] for r in js["hybrids"]):
                errors.append(f"hybrid {h['name']}: listed {'without' if h['kem'] not in kems else 'apart from'} "
                              f"its KEM {h['kem']}")
        for c in rows["composites"]:
            if (c["sig"] in sigs) != any(r["name"] == c["name"] for r in js["composites"]):
                errors.append(f"composite {c['name']}: listed {'without' if c['sig'] not in sigs else 'apart from'} "
                              f"its signature {c['sig']}")
        for f in js["families"]:
            if not any(r["name"] == f["name"] and r["directory"] == f["directory"] for r in rows["families"]):
                errors.append(f"family {f['name']}: not among CMake's configure-time families")
    fams = {f["name"] for f in js["families"]}
    if args.kat_tool:
        built = subprocess.run(shlex.split(args.emulator) + [args.kat_tool, "--list"], capture_output=True,
                               text=True, check=True).stdout.split()
        rows = {**kems, **sigs}
        for name in built:
            if name not in rows:
                errors.append(f"{name}: built but not in the table")
            elif rows[name]["family"] not in fams:
                errors.append(f"{name}: its family {rows[name]['family']} has no family row")
        errors += [f"{name}: in algorithms.json but not built" for name in rows if name not in built]
        built_fams = {rows[n]["family"] for n in built if n in rows}
        errors += [f"family row {f} but nothing of it built" for f in fams - built_fams]
    for e in errors:
        print(e)
    print(f"{sum(len(v) for v in js.values())} rows checked, {len(errors)} disagreements")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
