"""PNG plots of a run (matplotlib, no display needed)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"ECDHE": "#888888", "ML-KEM": "#1f77b4", "ML-KEM hybrid": "#6baed6", "KpqC": "#d62728",
          "KpqC hybrid": "#fc9272"}


def _barh(lab, filename, labels, values, xlabel, colors, xerr=None, log=False):
    """One horizontal bar chart, first row on top, saved into the run directory."""
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(labels) + 1.5))
    ax.barh(labels, values, xerr=xerr, color=colors)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(lab.dir / filename, dpi=110)
    plt.close(fig)
    lab.plots.append(filename)


def handshake_by_group(lab, results):
    if not results:
        return
    items = sorted(results.values(), key=lambda r: (r["level"], r["median_ns"]))
    _barh(lab, "handshake.png", [f"L{r['level']} {r['group']} / {r['sig']}" for r in items],
          [r["median_ns"] / 1e3 for r in items],
          "full TLS 1.3 handshake, in one process (µs, median, 95 % CI)",
          [COLORS.get(r["family"], "#333333") for r in items],
          xerr=[[(r["median_ns"] - r["ci_low_ns"]) / 1e3 for r in items],
                [(r["ci_high_ns"] - r["median_ns"]) / 1e3 for r in items]])
    items = sorted(results.values(), key=lambda r: (r["level"], r["bytes_total"]))
    _barh(lab, "wire.png", [f"L{r['level']} {r['group']} / {r['sig']}" for r in items],
          [r["bytes_total"] for r in items], "bytes on the wire per handshake",
          [COLORS.get(r["family"], "#333333") for r in items])


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
              [COLORS.get(r["kex_family"], "#333333") for r in rows])
