#!/usr/bin/env python3
"""Checks that `kpqc-kat ALG` reproduces the official KAT file of ALG.

The SHA-256 of every official response file is kept in kats.json (the files
themselves are not needed).  With --impl portable the portable code path is
forced through KPQC_IMPL (likewise avx2 and avx512), so every path is
checked against the same hash.  A forced path the machine cannot run is a
failure, not a silent fallback: the tool must report the path it was asked
for, and the test is reported as skipped (exit 77) with the reason.
"""
import argparse
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SKIPPED = 77  # ctest's SKIP_RETURN_CODE: the path exists, this CPU cannot run it


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kat-tool", required=True)
    ap.add_argument("--impl", choices=["auto", "portable", "avx2", "avx512"], default="auto")
    ap.add_argument("--first10", default="",
                    help="comma-separated algorithms checked on their first 10 records only "
                         "(slow ones under an emulator; kats.json keeps that prefix's digest too)")
    ap.add_argument("--emulator", default="", help="command that runs the tool (e.g. qemu-aarch64 -L ...)")
    ap.add_argument("algorithms", nargs="+")
    args = ap.parse_args()
    tool = shlex.split(args.emulator) + [args.kat_tool]
    first10 = set(filter(None, args.first10.split(",")))

    expected = json.loads((HERE / "kats.json").read_text())
    env = dict(os.environ)
    env.pop("KPQC_IMPL", None)
    if args.impl != "auto":
        env["KPQC_IMPL"] = args.impl
    built = subprocess.run(tool + ["--list"], capture_output=True, text=True, check=True).stdout.split()
    if args.impl != "auto":
        path = subprocess.run(tool + ["--impl"], capture_output=True, text=True, env=env,
                              check=True).stdout.strip()
        if path != args.impl:
            print(f"KPQC_IMPL={args.impl} runs the {path} path: this machine cannot test {args.impl}")
            return SKIPPED

    failures = 0
    for alg in args.algorithms:
        if alg not in built:
            print(f"{alg}: not built into this library")
            failures += 1
            continue
        short = alg in first10
        out = subprocess.run(tool + [alg] + (["--count", "10"] if short else []), capture_output=True, env=env)
        digest = hashlib.sha256(out.stdout).hexdigest()
        want = expected[alg]["sha256_first10" if short else "sha256"]
        ok = out.returncode == 0 and digest == want
        print(f"{alg} [{args.impl}{', first 10 records' if short else ''}]: {'OK' if ok else 'MISMATCH'} sha256={digest}"
              + ("" if ok else f" expected={want} rc={out.returncode} {out.stderr.decode()[:300]}"))
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
