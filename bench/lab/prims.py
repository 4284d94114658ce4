"""Suite `prims`: every primitive operation, KpqC (each code path) next to
OpenSSL's ML-KEM/ML-DSA/SLH-DSA/ECC, cycles and µs with spread."""
from .results import md_table
from .stats import summarize

# Official reference implementations measured on this machine class (µs,
# keygen/encaps/decaps), quoted as targets in the project's plan.
REFERENCE = {("smaugt1", "portable"): (20, 19, 25), ("ntruplus768", "portable"): (37, 13, 16),
             ("ntruplus768", "avx2"): (6, 8, 5)}


def add_arguments(p):
    p.add_argument("--iterations", type=int, default=10000, help="samples per fast operation")
    p.add_argument("--slow-iterations", type=int, default=200, help="samples per slow operation")


def run(args, lab, iterations=None, slow=None):
    it = iterations or args.iterations
    sl = slow or args.slow_iterations
    records = lab.build.run_json([lab.build.prims, "--iterations", str(it), "--slow-iterations", str(sl)])
    table = []
    for r in records:
        lab.raw("prims", r)
        s, c = summarize(r["ns"]), summarize(r["cycles"])
        lab.row("prims", alg=r["alg"], family=r["family"], kind=r["kind"], level=r["level"], op=r["op"],
                impl=r["impl"], n=s["n"], median_ns=s["median"], iqr_ns=s["iqr"], p95_ns=s["p95"],
                ci_low_ns=s["ci_low"], ci_high_ns=s["ci_high"], median_cycles=c["median"])
        table.append((r, s, c))
    # One line per algorithm and path: keygen / encaps|sign / decaps|verify.
    by = {}
    for r, s, c in table:
        by.setdefault((r["alg"], r["impl"], r["family"], r["level"]), {})[r["op"]] = (s, c)
    rows = []
    for (alg, impl, fam, lvl), ops in sorted(by.items(), key=lambda kv: (kv[0][3], kv[0][2], kv[0][0], kv[0][1])):
        names = [o for o in ("keygen", "encaps", "sign", "decaps", "verify") if o in ops]
        cells = []
        for o in names:
            s, c = ops[o]
            cells.append(f"{s['median'] / 1e3:.1f} ±{s['iqr'] / 2e3:.1f} ({c['median'] / 1e3:.0f} kc)")
        ref = REFERENCE.get((alg, impl))
        rows.append([lvl, fam, alg, impl] + cells + ["/".join(map(str, ref)) if ref else ""])
    lab.section("Primitive operations (median µs ± IQR/2, thousand cycles)",
                md_table(["level", "family", "algorithm", "path", "keygen", "encaps / sign", "decaps / verify",
                          "reference µs"], rows) +
                f"\n\n{it} samples per KEM operation and {sl} per signature operation (SLH-DSA: fewer), "
                "after warm-up; KpqC through libkpqc's API, the rest through OpenSSL's EVP.")
    return table
