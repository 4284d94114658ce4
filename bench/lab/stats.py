"""Robust summaries of timing samples: median, IQR, p95 and a bootstrap 95 %
confidence interval of the median (fixed seed, so reports are reproducible)."""
import numpy as np


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
