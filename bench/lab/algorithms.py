"""The algorithm table, the lab's one source of algorithm names and sizes.

The build writes build/algorithms.json (`kpqc-kat --table-json`), read
through tools/kpqc_table.py, the project's one reader of it; where a build
has none yet, the same rows are read from src/algorithms.def through the
same module and given the JSON's field names.  Suites ask this
module, never a list typed into them.
"""
import functools
import pathlib
import sys

from .env import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import kpqc_table  # noqa: E402

_RENAME = {"id": "name", "pk": "pk_len", "sk": "sk_len", "ct": "ct_len", "ss": "ss_len", "sig": "sig_len"}


def _from_def():
    t = kpqc_table.load()
    kems = [{_RENAME.get(k, k) if k != "codepoint" else "group_codepoint": v for k, v in r.items()} for r in t["KEM"]]
    sigs = [{_RENAME.get(k, k) if k != "codepoint" else "sigalg_codepoint": v for k, v in r.items()} for r in t["SIG"]]
    level = {r["name"]: r["level"] for r in kems + sigs}
    hybrids = [dict(name=r["id"], kem=r["kem"], classical=r["classical"], level=level[r["kem"]],
                    group_codepoint=r["codepoint"], aliases=r["aliases"]) for r in t["HYBRID"]]
    composites = [dict(name=r["id"], sig=r["sig"], curve=r["curve"], digest=r["digest"], level=level[r["sig"]],
                       oid=r["oid"], sigalg_codepoint=r["codepoint"], aliases=r["aliases"]) for r in t["COMPOSITE"]]
    for r in kems + sigs:
        r["family"] = r["family"].lower()
    return {"kems": kems, "sigs": sigs, "hybrids": hybrids, "composites": composites}


@functools.lru_cache(maxsize=None)
def table(build_dir=str(ROOT / "build")):
    """{"kems", "sigs", "hybrids", "composites", ...} rows; family names in
    lower case (the directory and module names)."""
    if (pathlib.Path(build_dir) / "algorithms.json").exists():
        return kpqc_table.from_build(build_dir)
    return _from_def()


def names(kind, level=None, build_dir=str(ROOT / "build")):
    """Names of one kind ("kems", "sigs", "hybrids", "composites"), of one
    level if given, in the table's order."""
    return [r["name"] for r in table(build_dir)[kind] if level is None or r["level"] == level]
