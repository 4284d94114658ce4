"""Suite `paths`: libkpqc's code paths (portable, AVX2, AVX-512) per
operation in paired rounds, with OpenSSL's ML-DSA/ML-KEM of the same level
beside them.

Each round measures, in a fixed order, every path of every algorithm and
then the OpenSSL counterparts, each block in a fresh `kpqc-prims --impl`
process (so no path inherits another's caches, frequency or heap), all
paths from the same seeded DRBG, so that they compute the same keys and
signatures (HAETAE's rejection loop runs as often on each).  A
value is the median over rounds of the block medians; ratios are paired
per round (stats.paired_ratio): AVX-512 / AVX2, and each path / OpenSSL.
"""
from . import algorithms
from .results import md_table
from .stats import fmt_ratio, paired_ratio, upper_median

ORDER = ("portable", "avx2", "avx512")  # measured in this order in every round
# Families whose signing repeats a random number of attempts (rejection
# sampling), as the ML-DSA counterparts' does: a median of a few such
# signatures mostly reflects how many attempts they happened to need.
REJECTION_SAMPLED = {"haetae"}
COUNTERPART = {  # NIST level -> OpenSSL algorithm of the same kind
    "kem": {1: "ML-KEM-512", 3: "ML-KEM-768", 5: "ML-KEM-1024"},
    "sig": {1: "ML-DSA-44", 2: "ML-DSA-44", 3: "ML-DSA-65", 5: "ML-DSA-87"},
}


def add_arguments(p):
    p.add_argument("--rounds", type=int, default=7, help="paired rounds")
    p.add_argument("--iterations", type=int, default=300, help="samples per KEM operation and block")
    p.add_argument("--slow-iterations", type=int, default=15, help="samples per signature operation and block")
    p.add_argument("--rejection-iterations", type=int, default=100,
                   help="samples per signature operation and block of HAETAE and of OpenSSL's ML-DSA, whose "
                        "signing repeats a random number of attempts")
    p.add_argument("--paths", default=",".join(ORDER), help="comma-separated paths to measure")
    p.add_argument("--filter", default="", help="only algorithms whose name contains this")


def block(lab, argv):
    """{(alg, op): (median wall ns, median thread CPU ns)} of one fresh
    kpqc-prims process."""
    out = {}
    for r in lab.build.run_json([lab.build.prims] + argv):
        out[(r["alg"], r["op"])] = (upper_median(r["ns"]), upper_median(r.get("cpu_ns", [])))
        lab.raw("paths", r)
    return out


def run(args, lab):
    table = algorithms.table(str(lab.build.dir))
    algs = [(r["name"], "kem", r["level"], args.slow_iterations) for r in table["kems"]] + \
           [(r["name"], "sig", r["level"],
             args.rejection_iterations if r["family"] in REJECTION_SAMPLED else args.slow_iterations)
            for r in table["sigs"]]
    algs = [a for a in algs if args.filter in a[0]]
    wanted = [p for p in ORDER if p in args.paths.split(",")]
    counterparts = sorted({COUNTERPART[kind][lvl] for _, kind, lvl, _ in algs})
    per_round = {}  # (alg, path, op) -> [wall ns per round]
    cpu_round = {}  # the same in thread CPU time
    for rnd in range(args.rounds):
        for alg, kind, _, slow in algs:
            for path in wanted:
                lab.progress("paths", rnd, args.rounds, f"{alg} {path}")
                got = block(lab, ["--impl", path, "--seed", "1", "--filter", alg, "--iterations", str(args.iterations),
                                  "--slow-iterations", str(slow)])
                for (a, op), ns in got.items():
                    if a == alg:
                        per_round.setdefault((alg, path, op), []).append(ns[0])
                        cpu_round.setdefault((alg, path, op), []).append(ns[1])
        for name in counterparts:
            got = block(lab, ["--filter", name, "--iterations", str(args.iterations),
                              "--slow-iterations", str(args.rejection_iterations)])
            for (a, op), ns in got.items():
                if a == name:
                    per_round.setdefault((name, "openssl", op), []).append(ns[0])
                    cpu_round.setdefault((name, "openssl", op), []).append(ns[1])
    lab.progress("paths", args.rounds, args.rounds)

    median = upper_median

    rows = []
    for alg, kind, lvl, _ in algs:
        ref = COUNTERPART[kind][lvl]
        for op in (("keygen", "encaps", "decaps") if kind == "kem" else ("keygen", "sign", "verify")):
            vals = {p: per_round.get((alg, p, op)) for p in wanted}
            base = per_round.get((ref, "openssl", op))
            if not any(vals.values()):
                continue
            fast = paired_ratio(vals.get("avx512") or [], vals.get("avx2") or [])
            cpu = {p: cpu_round.get((alg, p, op)) for p in wanted}
            cpu_base = cpu_round.get((ref, "openssl", op))
            fast_cpu = paired_ratio(cpu.get("avx512") or [], cpu.get("avx2") or [])
            best = next((p for p in ("avx512", "avx2", "portable") if cpu.get(p)), None)
            best_cpu = paired_ratio(cpu[best], cpu_base) if best and cpu_base else None
            cells = [f"{median(v) / 1e3:,.1f}" if v else "–" for v in vals.values()]
            vs_ossl = [fmt_ratio(paired_ratio(v, base)) if v and base else "–" for v in vals.values()]
            lab.row("paths", alg=alg, op=op, level=lvl, counterpart=ref, rounds=args.rounds,
                    **{f"{p}_ns": median(v) for p, v in vals.items() if v},
                    **({"openssl_ns": median(base)} if base else {}),
                    **({"avx512_over_avx2": fast} if fast else {}),
                    **({"avx512_over_avx2_cpu": fast_cpu} if fast_cpu else {}),
                    **{f"{p}_cpu_ns": median(v) for p, v in cpu.items() if v},
                    **({f"{best}_over_openssl_cpu": best_cpu} if best_cpu else {}),
                    **{f"{p}_over_openssl": paired_ratio(v, base) for p, v in vals.items() if v and base})
            rows.append([lvl, alg, op] + cells + [fmt_ratio(fast), fmt_ratio(fast_cpu),
                                                  f"{ref} {median(base) / 1e3:,.1f}" if base else "–"]
                        + vs_ossl + [fmt_ratio(best_cpu)])
    lab.section(f"Code paths per operation (median µs over {args.rounds} paired rounds)",
                md_table(["level", "algorithm", "op"] + list(wanted) + ["avx512 / avx2", "avx512 / avx2 (CPU time)",
                                                                        "OpenSSL (µs)"] +
                         [f"{p} / OpenSSL" for p in wanted] + ["fastest path / OpenSSL (CPU time)"], rows) +
                f"\n\nEach round measures every path of every algorithm in the order {', '.join(wanted)}, then "
                f"OpenSSL's counterparts, each block a fresh kpqc-prims process, every path on the same seeded inputs "
                f"({args.iterations} samples per "
                f"KEM operation, {args.slow_iterations} per signature operation, {args.rejection_iterations} per "
                "HAETAE and ML-DSA signature operation, whose signing repeats a random number of attempts); "
                "ratios are medians over rounds "
                "of the per-round ratios with a bootstrap 95 % CI over rounds (≈: the interval contains 1). "
                "Times are wall clock; the CPU-time columns use the thread's CPU time, which preemption on a "
                "busy machine does not inflate (it inflates long operations more than short ones).")
    return per_round
