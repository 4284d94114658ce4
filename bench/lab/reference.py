"""The KpqC reference code beside libkpqc, in the same run.

The reference a user would install instead is the PyPI package `kpqc`: the
submitters' reference C code behind Python bindings.  Each round times,
for every algorithm, one short block of its operations through the
binding and one through libkpqc (kpqc-prims, every path the CPU runs),
the algorithms in a fresh shuffled order; ratios ours/reference are paired
within rounds (see stats).  The binding's own cost per call (a verify
that its argument checks reject before any cryptography) is measured too
and subtracted from the reference's times, so the ratio compares C with C.
"""
import importlib
import time

import numpy as np

from .algorithms import table
from .results import md_table
from .stats import fmt_ratio, interleave, paired_ratio

OPS = {"kem": ("keygen", "encaps", "decaps"), "sig": ("keygen", "sign", "verify")}
MESSAGE = b"kpqc-bench reference message, 32B"


def binding(row, kind):
    """The reference package's object for one of our algorithms: the one of
    the family's module whose key and output sizes are ours, or None."""
    try:
        module = importlib.import_module(f"kpqc.{row['family']}")
    except ImportError:
        return None
    for name in getattr(module, "__all__", []):
        alg = getattr(module, name)
        s = alg.sizes
        ours = (row["pk_len"], row["sk_len"], row["ct_len"] if kind == "kem" else row["sig_len"])
        theirs = (s.public_key, s.secret_key, s.ciphertext if kind == "kem" else s.signature)
        if ours == theirs:
            return alg
    return None


def _median_ns(fn, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return float(np.median(times))


def time_reference(alg, kind, n):
    """Median ns of each operation over n calls through the binding."""
    keys = alg.generate_key_pair()
    out = {"keygen": _median_ns(alg.generate_key_pair, n)}
    if kind == "kem":
        enc = alg.encapsulate(keys.public_key)
        out["encaps"] = _median_ns(lambda: alg.encapsulate(keys.public_key), n)
        out["decaps"] = _median_ns(lambda: alg.decapsulate(enc.ciphertext, keys.secret_key), n)
    else:
        sig = alg.sign(MESSAGE, keys.secret_key)
        out["sign"] = _median_ns(lambda: alg.sign(MESSAGE, keys.secret_key), n)
        out["verify"] = _median_ns(lambda: alg.verify(MESSAGE, sig, keys.public_key), n)
    return out


def call_overhead_ns(n=2000):
    """The binding's cost of one call without cryptography: a verify with a
    signature of the wrong length, rejected by the argument checks."""
    from kpqc.haetae import haetae2
    pk = bytes(haetae2.sizes.public_key)
    return _median_ns(lambda: haetae2.verify(MESSAGE, b"", pk), n)


def available():
    try:
        importlib.import_module("kpqc")
        return True
    except ImportError:
        return False


def compare(lab, rounds, fast, slow, only=""):
    """Paired rounds of ours and the reference; returns {(alg, op, impl):
    ratio} and writes the table.  fast/slow: calls per block for KEMs and
    fast signatures / for AIMer's s variants; only: a part of the names."""
    if not available():
        lab.section("The reference code beside ours", "Not measured: the `kpqc` package is not installed "
                    "(scripts/requirements.txt installs it into the lab's venv).")
        return {}
    algs, missing = [], []
    for kind, rows in (("kem", table()["kems"]), ("sig", table()["sigs"])):
        for row in rows:
            if only not in row["name"]:
                continue
            ref = binding(row, kind)
            (algs.append((row["name"], kind, row["level"], ref)) if ref else missing.append(row["name"]))
    by_name = {a[0]: a for a in algs}

    def block(name):
        _, kind, _, ref = by_name[name]
        n = slow if kind == "sig" and "aimer" in name and name.endswith("s") else fast
        ours = lab.build.run_json([lab.build.prims, "--filter", name, "--iterations", str(n),
                                   "--slow-iterations", str(n)])
        values = {(r["op"], r["impl"]): float(np.median(r["ns"])) for r in ours if r["alg"] == name}
        overhead = call_overhead_ns(200)
        for op, ns in time_reference(ref, kind, n).items():
            values[(op, "reference")] = ns - overhead
        values[("call", "binding")] = overhead
        return values

    per_round = interleave([a[0] for a in algs], block, rounds,
                           progress=lambda d, t, w: lab.progress("reference", d, t, w))
    ratios, rows = {}, []
    # every libkpqc path the machine ran, vector paths first, portable last
    paths = sorted({impl for vs in per_round.values() for v in vs for (_, impl) in v
                    if impl not in ("reference", "binding")}, key=lambda i: (i == "portable", i))
    overheads = [v[("call", "binding")] for vs in per_round.values() for v in vs]
    for name, kind, level, ref in algs:
        vs = per_round[name]
        for op in OPS[kind]:
            base = [v.get((op, "reference")) for v in vs]
            ref_ns = float(np.median(base))
            lab.row("reference", alg=name, level=level, op=op, impl="reference", package=f"kpqc {version()}",
                    median_ns=ref_ns, rounds=rounds)
            cells = []
            for impl in paths:
                ours = [v.get((op, impl)) for v in vs]
                if not any(ours):
                    cells.append("–")
                    continue
                ratio = paired_ratio(ours, base)
                ratios[(name, op, impl)] = ratio
                cells.append(f"{np.median([o for o in ours if o]) / 1e3:.1f} ({fmt_ratio(ratio)})")
            rows.append([level, name, ref.id, op, f"{ref_ns / 1e3:.1f}"] + cells)
    lab.section("The reference code beside ours (µs per operation; ours/reference with 95 % CI)",
                md_table(["level", "algorithm", "reference name", "operation", "reference µs (C, binding cost "
                          "subtracted)"] + [f"libkpqc {impl} µs (ratio)" for impl in paths], rows) +
                f"\n\nReference: PyPI `kpqc` {version()} (the submitters' reference C behind Python bindings), "
                f"timed through its Python API; its call overhead, {np.median(overheads) / 1e3:.2f} µs per call "
                "(median; a verify rejected by the argument checks), is subtracted. "
                f"{rounds} interleaved rounds; ratio = median over rounds of ours/reference in the same round, "
                "'≈' when the interval contains 1." +
                (f" Not in the reference package: {', '.join(missing)}." if missing else ""))
    return ratios


def version():
    try:
        return importlib.import_module("kpqc").__version__
    except (ImportError, AttributeError):
        return "?"
