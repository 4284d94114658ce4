"""PNG plots of a run (matplotlib, no display needed)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def handshake_by_group(lab, results):
    if not results:
        return
    items = sorted(results.values(), key=lambda r: (r["level"], r["median_ns"]))
    colors = {"ECDHE": "#888888", "ML-KEM": "#1f77b4", "ML-KEM hybrid": "#6baed6", "KpqC": "#d62728",
              "KpqC hybrid": "#fc9272"}
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(items) + 1.5))
    labels = [f"L{r['level']} {r['group']} / {r['sig']}" for r in items]
    ax.barh(labels, [r["median_ns"] / 1e3 for r in items],
            xerr=[[(r["median_ns"] - r["ci_low_ns"]) / 1e3 for r in items],
                  [(r["ci_high_ns"] - r["median_ns"]) / 1e3 for r in items]],
            color=[colors.get(r["family"], "#333333") for r in items])
    ax.set_xlabel("full TLS 1.3 handshake, in one process (µs, median, 95 % CI)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(lab.dir / "handshake.png", dpi=110)
    plt.close(fig)
    lab.plots.append("handshake.png")

    fig, ax = plt.subplots(figsize=(10, 0.32 * len(items) + 1.5))
    items = sorted(results.values(), key=lambda r: (r["level"], r["bytes_total"]))
    ax.barh([f"L{r['level']} {r['group']}" for r in items], [r["bytes_total"] for r in items],
            color=[colors.get(r["family"], "#333333") for r in items])
    ax.set_xlabel("bytes on the wire per handshake")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(lab.dir / "wire.png", dpi=110)
    plt.close(fig)
    lab.plots.append("wire.png")


def cert_sizes(lab):
    rows = [r for r in lab.rows if r["suite"] == "certs"]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(rows) + 1.5))
    ax.barh([r["alg"] for r in rows], [r["leaf_der"] for r in rows], color="#4c72b0")
    ax.set_xscale("log")
    ax.set_xlabel("DER certificate size (bytes, log scale)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(lab.dir / "cert_sizes.png", dpi=110)
    plt.close(fig)
    lab.plots.append("cert_sizes.png")
