"""Suite `prims`: every primitive operation, KpqC (each code path) next to
OpenSSL's ML-KEM/ML-DSA/SLH-DSA/ECC, cycles and µs with spread."""
import pathlib
import shutil
import subprocess
import tempfile

from . import reference
from .results import md_table
from .stats import summarize

PRESETS = {"quick": {"iterations": 3000, "slow_iterations": 30, "reference_rounds": 5},
           "paper": {"iterations": 10000, "slow_iterations": 200, "reference_rounds": 10, "callgrind": True}}


def add_arguments(p):
    p.add_argument("--iterations", type=int, default=10000, help="samples per fast operation")
    p.add_argument("--slow-iterations", type=int, default=200, help="samples per slow operation")
    p.add_argument("--callgrind", action="store_true",
                   help="also count instructions per KpqC operation under callgrind (repeatable figures)")
    p.add_argument("--callgrind-iterations", type=int, default=5, help="operations counted per figure")
    p.add_argument("--filter", default="", help="only algorithms whose name contains this")
    p.add_argument("--reference-rounds", type=int, default=10,
                   help="interleaved rounds against the reference code (PyPI kpqc); 0: none")


def instructions(lab, n, only=""):
    """Instructions per operation: kpqc-instructions under callgrind, one
    dump per (algorithm, path, operation), each divided by its count."""
    tool = pathlib.Path(lab.build.dir) / "bench" / "kpqc-instructions"
    if not tool.exists() or shutil.which("valgrind") is None:
        return None
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "cg.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}",
                        str(tool), "--iterations", str(n), "--seed", "1"] + (["--filter", only] if only else []),
                       check=True, capture_output=True, timeout=7200)
        for dump in pathlib.Path(tmp).glob("cg.out.*"):
            label = total = None
            prefix = "desc: Trigger: Client Request: "
            for line in dump.read_text(errors="replace").splitlines():
                if line.startswith(prefix):
                    label = line[len(prefix):].split()
                elif line.startswith("summary: "):
                    total = int(line.split()[1])
            if label and total is not None and len(label) == 4:
                alg, impl, op, count = label
                counts[(alg, impl, op)] = total / int(count)
    return counts


def run(args, lab):
    it, sl, rounds = args.iterations, args.slow_iterations, args.reference_rounds
    only = args.filter
    vs_ref = reference.compare(lab, rounds, fast=20, slow=1, only=only) if rounds else {}
    records = lab.build.run_json([lab.build.prims, "--iterations", str(it), "--slow-iterations", str(sl)] +
                                 (["--filter", only] if only else []))
    ir = instructions(lab, args.callgrind_iterations, only) if args.callgrind else {}
    table = []
    for r in records:
        lab.raw("prims", r)
        s, c = summarize(r["ns"]), summarize(r["cycles"])
        lab.row("prims", alg=r["alg"], family=r["family"], kind=r["kind"], level=r["level"], op=r["op"],
                impl=r["impl"], n=s["n"], median_ns=s["median"], iqr_ns=s["iqr"], p95_ns=s["p95"],
                ci_low_ns=s["ci_low"], ci_high_ns=s["ci_high"], median_cycles=c["median"],
                instructions=(ir or {}).get((r["alg"], r["impl"], r["op"])),
                **({"ratio_to_reference": vs_ref[key]} if vs_ref.get(key := (r["alg"], r["op"], r["impl"])) else {}))
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
            n_ir = (ir or {}).get((alg, impl, o))
            cells.append(f"{s['median'] / 1e3:.1f} ±{s['iqr'] / 2e3:.1f} ({c['median'] / 1e3:.0f} kc" +
                         (f", {n_ir / 1e3:,.0f} k instr.)" if n_ir else ")"))
        ref = [vs_ref.get((alg, o, impl)) for o in names]
        rows.append([lvl, fam, alg, impl] + cells +
                    [" / ".join(f"{x['median']:.2f}" if x else "–" for x in ref) if any(ref) else ""])
    lab.section("Primitive operations (median µs ± IQR/2, thousand cycles" +
                (", thousand instructions)" if ir else ")"),
                md_table(["level", "family", "algorithm", "path", "keygen", "encaps / sign", "decaps / verify",
                          "ours / reference code"], rows) +
                f"\n\n{it} samples per KEM operation and {sl} per signature operation (SLH-DSA: fewer), "
                "after warm-up; KpqC through libkpqc's API, the rest through OpenSSL's EVP. Ours / reference code: "
                "median ratio per operation from the paired rounds of the reference table." +
                (f" Instructions: callgrind, mean of {args.callgrind_iterations} operations counted inside libkpqc's "
                 "API calls only, on seeded inputs (the same work in every run; the seeded generator's work "
                 "counted with it)." if ir else
                 " Instructions: not counted (--callgrind; needs valgrind and its headers)." if ir is None else ""))
    return table
