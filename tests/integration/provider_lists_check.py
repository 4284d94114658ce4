#!/usr/bin/env python3
"""What kpqcprovider lists through the openssl CLI is what the build
selected (KPQC_ALGORITHMS), no more and no less: its KEMs (pure and hybrid),
signatures (pure and composite), TLS groups and TLS signature algorithms
against build/algorithms.json; a name of the whole table (the configure-time
reader, --rows-tool) that the build left out must appear nowhere.

  provider_lists_check.py --openssl KPQC_OPENSSL --json ALGORITHMS_JSON --rows-tool TABLE_ROWS
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys


def listed(openssl, *flags):
    out = subprocess.run([openssl, "list", *flags], capture_output=True, text=True, check=True).stdout
    return out


def provider_names(text, table_names):
    """Table names among the `{ ... } @ kpqcprovider` entries of a list."""
    found = set()
    for entry in re.findall(r"\{([^}]*)\}\s*@\s*kpqcprovider", text):
        found |= {n.strip() for n in entry.split(",")} & table_names
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openssl", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--rows-tool", required=True)
    args = ap.parse_args()
    build = json.loads(pathlib.Path(args.json).read_text())
    table = json.loads(subprocess.run([args.rows_tool], capture_output=True, text=True, check=True).stdout)
    names = {k: {r["name"] for r in table[k]} for k in ("kems", "sigs", "hybrids", "composites")}
    everything = set().union(*names.values())
    want_kem = {r["name"] for k in ("kems", "hybrids") for r in build[k]}
    want_sig = {r["name"] for k in ("sigs", "composites") for r in build[k]}
    groups = set(listed(args.openssl, "-tls-groups", "-tls1_3").strip().split(":"))
    sigalgs = set(listed(args.openssl, "-tls-signature-algorithms").strip().split(":"))
    got = {"KEMs": provider_names(listed(args.openssl, "-kem-algorithms"), everything),
           "signatures": provider_names(listed(args.openssl, "-signature-algorithms"), everything),
           "TLS groups": groups & everything,
           "TLS signature algorithms": sigalgs & everything}
    want = {"KEMs": want_kem, "signatures": want_sig, "TLS groups": want_kem, "TLS signature algorithms": want_sig}
    errors = []
    for what in got:
        errors += [f"{what}: {n} selected but not listed" for n in sorted(want[what] - got[what])]
        errors += [f"{what}: {n} listed but not selected" for n in sorted(got[what] - want[what])]
    for e in errors:
        print(e)
    print(f"provider lists {len(want_kem)} groups and {len(want_sig)} signatures of the selection; "
          f"{len(errors)} disagreement(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
