"""PNG plots of a run (matplotlib, no display needed)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"ECDHE": "#888888", "ECDSA": "#888888", "ML-KEM": "#1f77b4", "ML-KEM hybrid": "#6baed6",
          "NIST PQC": "#1f77b4", "KpqC": "#d62728", "KpqC hybrid": "#fc9272", "KpqC composite": "#fc9272"}


def _family_legend(ax, families, **kw):
    """A legend of the colours of the families shown."""
    from matplotlib.patches import Patch
    handles = [Patch(color=COLORS.get(f, "#333333"), label=f) for f in COLORS if f in families]
    if handles:
        return ax.legend(handles=handles, fontsize=8, **kw)
    return None


def _save(lab, fig, filename):
    fig.tight_layout()
    fig.savefig(lab.dir / filename, dpi=110, bbox_inches="tight")
    plt.close(fig)
    lab.figure(filename)


def _barh(lab, filename, labels, values, xlabel, colors, xerr=None, log=False, families=()):
    """One horizontal bar chart, first row on top, saved into the run directory."""
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(labels) + 1.5))
    ax.barh(labels, values, xerr=xerr, color=colors)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.invert_yaxis()
    _family_legend(ax, set(families), loc="lower right")
    _save(lab, fig, filename)


MARKERS = ["o", "s", "D", "^"]


def ratio_forest(lab, filename, rows, baselines, label, title):
    """Forest plot: each row's median ratio to each named baseline (one
    marker shape per baseline) with its 95 % interval, a line at 1.0, the
    row's colour its family.  rows: summary rows with ratio_to and family."""
    rows = [r for r in rows if r.get("ratio_to")]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(10, 0.36 * len(rows) + 1.8))
    ax.axvline(1.0, color="black", linewidth=0.8)
    step = 0.8 / max(1, len(baselines))
    values = []
    for i, r in enumerate(rows):
        for j, name in enumerate(baselines):
            ratio = r["ratio_to"].get(name)
            if ratio is None or label(r) == name:
                continue
            y = i - 0.4 + step * (j + 0.5)
            values += [ratio["ci_low"], ratio["ci_high"]]
            ax.errorbar(ratio["median"], y, xerr=[[ratio["median"] - ratio["ci_low"]], [ratio["ci_high"] - ratio["median"]]],
                        fmt=MARKERS[j % len(MARKERS)], color=COLORS.get(r.get("family"), "#333333"), capsize=3,
                        markersize=5)
    ax.set_yticks(range(len(rows)), [label(r) for r in rows], fontsize=8)
    ax.invert_yaxis()
    if values and max(values) / max(min(values), 1e-9) > 20:
        ax.set_xscale("log")
    ax.set_xlabel(f"ratio (median over rounds, 95 % CI); 1.0 = as fast as the baseline, left of it = faster")
    ax.set_title(title, fontsize=10)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    shapes = [Line2D([], [], marker=MARKERS[j % len(MARKERS)], color="#555555", linestyle="", label=f"ratio to {n}")
              for j, n in enumerate(baselines)]
    families = {r.get("family") for r in rows}
    colours = [Patch(color=COLORS.get(f, "#333333"), label=f) for f in COLORS if f in families]
    ax.legend(handles=shapes + colours, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09),
              ncol=min(4, len(shapes + colours)), frameon=False)
    _save(lab, fig, filename)


def handshake_by_group(lab, results):
    if not results:
        return
    items = sorted(results.values(), key=lambda r: (r["level"], r["median_ns"]))
    _barh(lab, "handshake.png", [f"L{r['level']} {r['group']} / {r['sig']}" for r in items],
          [r["median_ns"] / 1e3 for r in items],
          "full TLS 1.3 handshake, in one process (µs, median over rounds, 95 % CI of it)",
          [COLORS.get(r["family"], "#333333") for r in items],
          xerr=[[(r["median_ns"] - r["ci_low_ns"]) / 1e3 for r in items],
                [(r["ci_high_ns"] - r["median_ns"]) / 1e3 for r in items]], families=[r["family"] for r in items])
    items = sorted(results.values(), key=lambda r: (r["level"], r["bytes_total"]))
    _barh(lab, "wire.png", [f"L{r['level']} {r['group']} / {r['sig']}" for r in items],
          [r["bytes_total"] for r in items], "bytes on the wire per handshake",
          [COLORS.get(r["family"], "#333333") for r in items], families=[r["family"] for r in items])


def cert_sizes(lab):
    rows = [r for r in lab.rows if r["suite"] == "certs"]
    if rows:
        _barh(lab, "cert_sizes.png", [r["alg"] for r in rows], [r["leaf_der"] for r in rows],
              "DER certificate size (bytes, log scale)", "#4c72b0", log=True)


def mqtt_handshakes(lab, rows):
    """Median TLS handshake of every MQTT key exchange × listener certificate."""
    rows = [r for r in rows if r.get("tls_median_ns")]
    if rows:
        _barh(lab, "mqtt_handshake.png", [f"{r['sig']} / {r['kex']}" for r in rows],
              [r["tls_median_ns"] / 1e6 for r in rows], "MQTT broker, mutual TLS 1.3 handshake (ms, median)",
              [COLORS.get(r["kex_family"], "#333333") for r in rows], families=[r["kex_family"] for r in rows])
