"""Command line of the lab: `kpqc-bench SUITE [options]`, or one of the
two reports: `quick` (the default report, a few minutes on 2 cores) and
`paper` (every table of the source documents).  Suites and the reports'
lists of (suite, preset) are in registry.py.
"""
import argparse

from . import algorithms, registry
from .env import ROOT, Build
from .results import Lab


def main(argv):
    ap = argparse.ArgumentParser(prog="kpqc-bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--out", help="results directory (default results/<timestamp>)")
    sub = ap.add_subparsers(dest="suite", required=True)
    suites = registry.suites()
    for name, mod in suites.items():
        mod.add_arguments(sub.add_parser(name, help=(mod.__doc__ or "").strip().splitlines()[0]))
    for name, suite_list in registry.REPORTS.items():
        sub.add_parser(name, help=f"the {name} report: " + ", ".join(f"{s} ({p})" for s, p in suite_list))
    args = ap.parse_args(argv)
    algorithms.use_build(args.build_dir)
    lab = Lab(Build(args.build_dir), args.out)
    if args.suite in registry.REPORTS:
        registry.run_report(lab, args.suite)
    else:
        registry.run(lab, suites[args.suite], args)
    report = lab.finish(f"kpqc-bench {args.suite}")
    print(report.read_text())
    print(f"\nResults: {lab.dir}")
    return 0
