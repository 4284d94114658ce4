"""The algorithm table, the lab's one source of algorithm names and sizes.

The build writes build/algorithms.json (`kpqc-kat --table-json`), read
through tools/kpqc_table.py, the project's one reader of it.  Suites ask this
module, never a list typed into them.
"""
import functools
import sys

from .env import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import kpqc_table  # noqa: E402


@functools.lru_cache(maxsize=None)
def table(build_dir=str(ROOT / "build")):
    """{"kems", "sigs", "hybrids", "composites", ...} rows; family names in
    lower case (the directory and module names)."""
    return kpqc_table.from_build(build_dir)


def names(kind, level=None, build_dir=str(ROOT / "build")):
    """Names of one kind ("kems", "sigs", "hybrids", "composites"), of one
    level if given, in the table's order."""
    return [r["name"] for r in table(build_dir)[kind] if level is None or r["level"] == level]
