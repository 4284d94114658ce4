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


# The build whose table the suites read (kpqc-bench --build-dir): a build
# of a few algorithms (KPQC_ALGORITHMS) lists only those.
_build_dir = [str(ROOT / "build")]


def use_build(build_dir):
    _build_dir[0] = str(build_dir)


@functools.lru_cache(maxsize=None)
def _table(build_dir):
    return kpqc_table.from_build(build_dir)


def table(build_dir=None):
    """{"kems", "sigs", "hybrids", "composites", ...} rows; family names in
    lower case (the directory and module names)."""
    return _table(build_dir or _build_dir[0])


def names(kind, level=None, build_dir=None):
    """Names of one kind ("kems", "sigs", "hybrids", "composites"), of one
    level if given, in the table's order."""
    return [r["name"] for r in table(build_dir)[kind] if level is None or r["level"] == level]
