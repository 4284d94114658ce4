"""The lab's suites, found in one place.

A suite is a module of this package with one interface:
  add_arguments(parser)   its options (their defaults make the suite's own run);
  PRESETS                 {"quick": {...}, "paper": {...}}: option values of the
                          two reports, over the defaults (a suite without a
                          preset is not in that report);
  run(args, lab)          measures, writes its tables, returns its rows;
  plot(lab, rows)         optional: its figures.
The module's name is the suite's name.  QUICK and PAPER, the two reports,
are lists of (suite, preset) run in order: the report leads with the first.
"""
import argparse
import importlib
import pathlib
import pkgutil

QUICK = [("handshake", "quick"), ("chains", "quick"), ("prims", "quick"), ("sizes", "quick"), ("spawn", "quick"),
         ("published", "quick")]
PAPER = [("handshake", "paper"), ("chains", "paper"), ("prims", "paper"), ("kpqclean", "paper"), ("sizes", "paper"),
         ("spawn", "paper"), ("wolfssl", "paper"), ("network", "paper"), ("mqtt", "paper"), ("footprint", "paper"), ("published", "paper")]
REPORTS = {"quick": QUICK, "paper": PAPER}


def suites():
    """{name: module} of every suite in the package."""
    found = {}
    for m in sorted(pkgutil.iter_modules([str(pathlib.Path(__file__).parent)]), key=lambda m: m.name):
        mod = importlib.import_module(f"{__package__}.{m.name}")
        if callable(getattr(mod, "run", None)) and callable(getattr(mod, "add_arguments", None)):
            found[m.name] = mod
    return found


def arguments(mod, preset=None):
    """The suite's options: its defaults, with the preset's values over them."""
    p = argparse.ArgumentParser()
    mod.add_arguments(p)
    args = p.parse_args([])
    for k, v in (getattr(mod, "PRESETS", {}).get(preset, {}) if preset else {}).items():
        if not hasattr(args, k):
            raise KeyError(f"preset {preset} of {mod.__name__} sets an unknown option {k}")
        setattr(args, k, v)
    return args


def run(lab, mod, args):
    rows = mod.run(args, lab)
    if callable(getattr(mod, "plot", None)):
        mod.plot(lab, rows)
    return rows


def run_report(lab, name):
    """Runs the (suite, preset) list of a report, in order."""
    found = suites()
    for suite, preset in REPORTS[name]:
        mod = found[suite]
        if preset not in getattr(mod, "PRESETS", {}):
            raise KeyError(f"{suite} has no preset {preset}")
        run(lab, mod, arguments(mod, preset))
