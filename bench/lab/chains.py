"""Suite `chains`: certificate path validation, root -> intermediate ->
leaf, for every signature algorithm of the table (pure and composite)
beside ECDSA and ML-DSA of the level, in paired, interleaved rounds.

Each sample decodes the two certificates a server sends and validates the
path to the trusted root, as a TLS client does after the handshake.
"""
import numpy as np

from . import plots
from .algorithms import table
from .handshake import SIGS, baseline_level
from .results import md_table
from .stats import agreement, fmt_ratio, interleave, over_rounds
from .timekeeping import MachineLoad


PRESETS = {"quick": {"rounds": 9, "count": 3}, "paper": {"rounds": 15, "count": 5}}


def add_arguments(p):
    p.add_argument("--count", type=int, default=5, help="validations per algorithm in each round")
    p.add_argument("--rounds", type=int, default=15, help="interleaved rounds")


def algorithms():
    """(level, signature) of every pure and composite signature, and the
    ECDSA and ML-DSA baselines of each level."""
    t = table()
    out = [(baseline_level(r["level"]), r["name"]) for r in t["sigs"] + t["composites"]]
    out += [(lvl, s) for lvl, sigs in SIGS.items() for s in sigs]
    return sorted(set(out))


def sig_family(sig):
    """The colour group of a signature: classical, NIST PQC, KpqC, composite."""
    t = table()
    if sig in {r["name"] for r in t["composites"]}:
        return "KpqC composite"
    if sig in {r["name"] for r in t["sigs"]}:
        return "KpqC"
    return "ECDSA" if sig.startswith("EC") else "NIST PQC"


def run(args, lab, count=None, rounds=None):
    count, rounds = count or args.count, rounds or args.rounds
    configs, facts = algorithms(), {}

    def block(key):
        recs = [r for r in lab.build.run_json([lab.build.handshake, "verify", "--sig", key[1], "--count", str(count)])
                if r.get("mode") == "verify"]
        for r in recs:
            lab.raw("chains", r)
        facts[key] = recs[0]
        return float(np.median([r["ns"] for r in recs]))

    with MachineLoad() as load:
        per_round = interleave(configs, block, rounds, progress=lambda d, t, w: lab.progress("chains", d, t, w))
    rows = {}
    for lvl in sorted({k[0] for k in configs}):
        bases = {s: (lvl, s) for s in SIGS[lvl]}
        level = {k: v for k, v in per_round.items() if k[0] == lvl}
        for key, st in over_rounds(level, bases).items():
            rows[key] = lab.row("chains", level=lvl, sig=key[1], family=sig_family(key[1]), median_ns=st["median"],
                                rounds=rounds, split_half=st["split_half"],
                                count_per_round=count, ratio_to=st["ratio_to"], chain_der=facts[key]["chain_der"],
                                **{f"noise_{k}": v for k, v in load.result.items()})
        names = SIGS[lvl]
        table_rows = [[key[1], f"{r['median_ns'] / 1e3:.0f}", r["chain_der"]] +
                      ["baseline" if key[1] == n else fmt_ratio(r["ratio_to"].get(n)) for n in names]
                      for key, r in sorted(((k, r) for k, r in rows.items() if k[0] == lvl),
                                           key=lambda kv: kv[1]["median_ns"])]
        lab.section(f"Level {lvl}: certificate path validation, root → intermediate → leaf "
                    f"(ratio to {' and '.join(names)})",
                    md_table(["signature", "median µs", "chain bytes sent", *[f"ratio to {n} [95 % CI]" for n in names]],
                             table_rows) +
                    f"\n\nDecoding the leaf and intermediate and validating the path to the trusted root "
                    f"(X509_verify_cert); {rounds} interleaved rounds of {count} validations; ratios are medians of "
                    f"per-round ratios with a bootstrap 95 % CI, '≈' when it contains 1. "
                    f"{agreement(r for k, r in rows.items() if k[0] == lvl)} Noise: {load.summary()}.")
        level_rows = sorted((r for k, r in rows.items() if k[0] == lvl), key=lambda r: r["median_ns"])
        plots.ratio_forest(lab, f"chains_L{lvl}.png", level_rows, names, lambda r: r["sig"],
                           f"Level {lvl}: certificate path validation")
    return rows
