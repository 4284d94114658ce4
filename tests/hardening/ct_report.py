#!/usr/bin/env python3
"""Collects the constant-time evidence of every family into one report:
runs both checkers (valgrind memcheck on the release build's code, and
MemorySanitizer natively on an instrumented build) for each algorithm on
each code path, lists the values the code declassifies on purpose, and
writes Markdown (stdout, or --out FILE).  Exit status 1 if any run is
flagged or a checker's self-test is not."""
import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATHS = ("portable", "avx2", "avx512")
SKIPPED = 77  # ct_check: the path named by KPQC_IMPL does not run here


def declassified():
    sites = []
    for path in sorted((ROOT / "src").rglob("*.c")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if "KPQC_CT_DECLASSIFY(" in line and "#define" not in line:
                sites.append((str(path.relative_to(ROOT)), n, line.strip()))
    return sites


def valgrind_rows(build, algs):
    """One row per algorithm and path; a path valgrind cannot run (its CPU
    has no AVX-512 as of 3.19) gets a row that says so instead of a silent
    fallback."""
    check = build / "tests" / "ct_check"
    rows, flagged = [], 0
    for impl in PATHS:
        env = dict(os.environ, KPQC_IMPL=impl)
        ran = subprocess.run(["valgrind", "-q", str(build / "kpqc-kat"), "--impl"], capture_output=True,
                             text=True, env=env).stdout.strip()
        for alg in algs:
            if ran != impl:
                rows.append((alg, impl, "valgrind", f"not run: valgrind runs the {ran} path here", "–"))
                continue
            r = subprocess.run(["valgrind", "--error-exitcode=1", "-q", str(check), alg], capture_output=True,
                               text=True, env=env, timeout=1800)
            errors = len(re.findall(r"Conditional jump|Use of uninitialised", r.stderr))
            flagged += r.returncode != 0
            rows.append((alg, impl, "valgrind", "clean" if r.returncode == 0 else "FLAGGED", str(errors)))
    self_test = subprocess.run(["valgrind", "--error-exitcode=1", "-q", str(check), "--self-test"],
                               capture_output=True, text=True)
    return rows, flagged, self_test.returncode != 0


def msan_rows(msan_build, algs):
    """MemorySanitizer stops at its first report, so a flagged run has one;
    a path this CPU lacks is skipped by the harness and said so."""
    check = msan_build / "tests" / "ct_check_msan"
    if not check.exists():
        return [(alg, impl, "msan", f"not run: no {check} (make test-ctmsan)", "–")
                for impl in PATHS for alg in algs], 1, False
    rows, flagged = [], 0
    for impl in PATHS:
        env = dict(os.environ, KPQC_IMPL=impl, MSAN_OPTIONS="exitcode=1")
        for alg in algs:
            r = subprocess.run([str(check), alg], capture_output=True, text=True, env=env, timeout=1800)
            if r.returncode == SKIPPED:
                rows.append((alg, impl, "msan", "not run: this CPU has no such path", "–"))
                continue
            errors = r.stderr.count("MemorySanitizer: use-of-uninitialized-value")
            flagged += r.returncode != 0
            rows.append((alg, impl, "msan", "clean" if r.returncode == 0 else "FLAGGED", str(errors)))
    detected = all(
        "MemorySanitizer: use-of-uninitialized-value" in subprocess.run(
            [str(check), "--self-test", leak], capture_output=True, text=True,
            env=dict(os.environ, MSAN_OPTIONS="exitcode=1")).stderr
        for leak in ("index", "branch"))
    return rows, flagged, detected


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--msan-build-dir", default=str(ROOT / "build-ctmsan"),
                    help="build with -DKPQC_CT_MSAN=ON (make test-ctmsan)")
    ap.add_argument("--out")
    args = ap.parse_args()
    build = pathlib.Path(args.build_dir).resolve()
    algs = subprocess.run([str(build / "kpqc-kat"), "--list"], capture_output=True, text=True, check=True).stdout.split()
    vg, vg_flagged, vg_self = valgrind_rows(build, algs)
    ms, ms_flagged, ms_self = msan_rows(pathlib.Path(args.msan_build_dir).resolve(), algs)
    rows = sorted(vg + ms, key=lambda r: (algs.index(r[0]), PATHS.index(r[1]), r[2]))

    def verdict(ok):
        return "flagged, as it must be" if ok else "NOT flagged: the method is broken"

    lines = ["# Constant-time report", "",
             "Method: every operation runs with the secret key and every byte the RNG returns marked "
             "undefined; a branch or memory index that depends on them is reported. Keygen, encapsulation "
             "and decapsulation (valid and forged ciphertext) for KEMs; keygen, signing and verification for "
             "signatures. Two checkers: valgrind memcheck runs the release build's machine code on every "
             "path valgrind's CPU has (no AVX-512); MemorySanitizer (`-fsanitize=memory`, secrets "
             "poisoned) runs an instrumented build natively on every path this CPU has, avx512 included, "
             "and checks at the compiler's IR level.", "",
             f"Self-test (a deliberately leaky function must be flagged): valgrind {verdict(vg_self)}; "
             f"MemorySanitizer (secret index, secret branch) {verdict(ms_self)}", "",
             "| algorithm | path | checker | result | reports |", "|---|---|---|---|---|",
             *[f"| {' | '.join(r)} |" for r in rows], "",
             "Values declassified on purpose (public by the specification):", ""]
    lines += [f"- `{p}:{n}`: `{code}`" for p, n, code in declassified()]
    text = "\n".join(lines) + "\n"
    if args.out:
        pathlib.Path(args.out).write_text(text)
    print(text)
    return 1 if vg_flagged or ms_flagged or not vg_self or not ms_self else 0


if __name__ == "__main__":
    sys.exit(main())
