"""Suite `kpqclean`: the KPQClean benchmark paper's cycle tables (Round 1
KpqC candidates, median of 10,000 runs, Ryzen 7 4800H, gcc -O3) beside
libkpqc's cycles for the final versions on this machine."""
import csv

from . import prims
from .env import ROOT
from .results import md_table


PRESETS = {"paper": {}}


def add_arguments(p):
    prims.add_arguments(p)  # when the run has no primitive rows yet, this suite measures them


def table(lab):
    """The published rows with ours beside them, from the lab's prims rows."""
    ours = {}
    for r in lab.rows:
        if r.get("suite") == "prims" and r.get("median_cycles") is not None:
            ours.setdefault((r["alg"], r["impl"]), {})[r["op"]] = r["median_cycles"]
    rows = []
    for p in csv.DictReader(open(ROOT / "bench" / "published" / "kpqclean_cycles.csv")):
        published = [int(p["keygen"]), int(p["encaps_or_sign"]), int(p["decaps_or_verify"])]
        for impl in ("portable", "avx2", "avx512"):
            ops = ours.get((p["ours"], impl))
            if not ops:
                continue
            mine = [ops.get("keygen"), ops.get("encaps", ops.get("sign")), ops.get("decaps", ops.get("verify"))]
            cells = [f"{m / 1e3:,.0f} ({pub / m:.1f}×)" if m else "–" for m, pub in zip(mine, published)]
            rows.append([p["level"], p["published"], f"{published[0] / 1e3:,.0f} / {published[1] / 1e3:,.0f} / "
                         f"{published[2] / 1e3:,.0f}", f"{p['ours']} ({impl})"] + cells)
    lab.section("KPQClean cycle table beside ours (thousand cycles; × = published / ours)",
                md_table(["level", "published (Round 1)", "published keygen / enc·sign / dec·verify",
                          "ours (final version, path)", "keygen", "encaps / sign", "decaps / verify"], rows) +
                "\n\nThe published figures are for the Round 1 submissions (SMAUG before SMAUG-T, HAETAE and "
                "AIMer of 2023) on a Ryzen 7 4800H; ours are the final versions through libkpqc on this "
                "machine, so the ratio mixes algorithm changes, implementation and CPU. The same table's "
                "ranking question — which KEM and which signature is fastest — is answered by the primitive "
                "table above, measured side by side in one run.")


def run(args, lab):
    if not any(r.get("suite") == "prims" for r in lab.rows):
        prims.run(args, lab)
    table(lab)
    return []
