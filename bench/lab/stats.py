"""Statistics of the lab.

summarize: robust summary of the samples of one block (median, IQR, p95, a
bootstrap 95 % CI of the median).

Comparisons between configurations use paired, interleaved rounds instead:
a shared machine drifts by tens of per cent within minutes, so two blocks
measured at different moments differ by the drift, and an interval computed
from the samples inside one block ignores it.  `interleave` runs R rounds;
in each round every configuration measures one short block, in a fresh
shuffled order.  A configuration's value is the median over rounds of its
per-round block medians, and its ratio to a baseline is the median over
rounds of the per-round ratios (both measured in the same round, so the
drift divides out) with a bootstrap 95 % CI that resamples whole rounds.
Every random choice uses a fixed seed: the same rounds give the same report.
"""
import random

import numpy as np

CONFIDENCE = 0.95


def summarize(samples, boot=1000, seed=1):
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        return {"n": 0}
    q1, med, q3, p95 = np.percentile(x, [25, 50, 75, 95])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(boot, x.size)) if x.size > 1 else np.zeros((1, 1), dtype=int)
    meds = np.median(x[idx], axis=1)
    lo, hi = np.percentile(meds, [2.5, 97.5])
    return {"n": int(x.size), "median": float(med), "iqr": float(q3 - q1), "p95": float(p95),
            "ci_low": float(lo), "ci_high": float(hi), "mean": float(x.mean()), "sd": float(x.std(ddof=1)) if x.size > 1 else 0.0}


def upper_median(xs):
    """The upper median of counts, a value that occurred; None for no values."""
    return sorted(xs)[len(xs) // 2] if xs else None


def interleave(configs, measure, rounds, seed=1, progress=None):
    """Runs `measure(config)` (one short block, returning one number, e.g.
    the block's median) for every configuration in each of `rounds` rounds,
    each round in a fresh shuffled order.  Returns {config: [value per
    round]}; a round where a configuration's measure returned None counts
    as missing for that configuration only."""
    rng = random.Random(seed)
    per_round = {c: [] for c in configs}
    order = list(configs)
    for r in range(rounds):
        rng.shuffle(order)
        for i, c in enumerate(order):
            if progress:
                progress(r * len(order) + i, rounds * len(order), str(c))
            per_round[c].append(measure(c))
    if progress:
        progress(rounds * len(order), rounds * len(order), "")
    return per_round


def paired_ratio(values, baseline, boot=2000, seed=1):
    """Median over rounds of values[i] / baseline[i], with a percentile
    bootstrap 95 % CI that resamples rounds (pairs stay together).
    Rounds where either side is missing are left out."""
    pairs = [(v, b) for v, b in zip(values, baseline) if v is not None and b is not None and b > 0]
    if not pairs:
        return None
    r = np.array([v / b for v, b in pairs], dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, r.size, size=(boot, r.size))
    meds = np.median(r[idx], axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = np.percentile(meds, [tail, 100 - tail])
    return {"median": float(np.median(r)), "ci_low": float(lo), "ci_high": float(hi), "rounds": int(r.size)}


def no_measurable_difference(ratio):
    """True when the ratio's interval contains 1: the rows are not ranked."""
    return ratio["ci_low"] <= 1.0 <= ratio["ci_high"]


def split_half(values, baseline):
    """The median paired ratio from the even rounds and from the odd rounds:
    how far two halves of the same run disagree (a noise gauge per row)."""
    halves = [paired_ratio(values[k::2], baseline[k::2], boot=1) for k in (0, 1)]
    if None in halves:
        return None
    return halves[0]["median"], halves[1]["median"]


def agreement(rows):
    """The split-half line of a table: how far the median ratios of the
    even and the odd rounds lie apart over its rows (each row a result of
    over_rounds)."""
    gaps = [abs(h[0] - h[1]) for r in rows for h in r.get("split_half", {}).values() if h is not None]
    if not gaps:
        return ""
    return (f"Split-half agreement: the median ratios of even and of odd rounds differ by {np.median(gaps):.3f} "
            f"(median) and {max(gaps):.3f} (largest) over the rows.")


def over_rounds(per_round, baselines):
    """For each configuration: the median over rounds of its values, and for
    each named baseline present, its paired ratio (see paired_ratio) and the
    split-half medians.  `baselines` maps a baseline's name (as reports and
    summary.json show it) to its configuration in per_round."""
    out = {}
    for c, vals in per_round.items():
        got = [v for v in vals if v is not None]
        row = {"median": float(np.median(got)) if got else None, "rounds": len(got), "ratio_to": {},
               "split_half": {}}
        for name, base in baselines.items():
            if base in per_round:
                ratio = paired_ratio(vals, per_round[base])
                if ratio is not None:
                    row["ratio_to"][name] = ratio
                    if base != c:  # a baseline agrees with itself
                        row["split_half"][name] = split_half(vals, per_round[base])
        out[c] = row
    return out


def fmt_ratio(ratio):
    """'0.85 [0.82, 0.88]', or with '≈' when no difference is measurable."""
    if ratio is None:
        return "–"
    text = f"{ratio['median']:.2f} [{ratio['ci_low']:.2f}, {ratio['ci_high']:.2f}]"
    return f"≈ {text}" if no_measurable_difference(ratio) else text
