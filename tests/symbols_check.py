#!/usr/bin/env python3
"""Every global symbol a library archive defines starts with kpqc_ or KPQC_,
so that a program linking libkpqc beside liboqs, a reference HAETAE or any
other library cannot collide with it.

  symbols_check.py --nm NM ARCHIVE...
"""
import argparse
import subprocess
import sys

PREFIXES = ("kpqc_", "KPQC_")


def foreign_symbols(nm: str, archive: str) -> list[str]:
    out = subprocess.run([nm, "-g", "--defined-only", "-P", archive], capture_output=True, text=True,
                         check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        # "-P": NAME TYPE VALUE SIZE; archive members are "archive[member]:"
        if len(fields) < 2 or fields[0].endswith(":"):
            continue
        if not fields[0].startswith(PREFIXES):
            found.append(f"{fields[0]} ({fields[1]})")
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("archives", nargs="+")
    args = ap.parse_args()
    bad = 0
    for archive in args.archives:
        found = foreign_symbols(args.nm, archive)
        for sym in found:
            print(f"{archive}: global symbol outside kpqc_/KPQC_: {sym}")
        bad += len(found)
        if not found:
            print(f"{archive}: every global symbol is kpqc_/KPQC_")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
