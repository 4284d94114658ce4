"""Suite `network`: TLS 1.3 handshake completion time between two network
namespaces over an emulated link, on a grid of RTT x loss x rate.

The server runs in one namespace and the client in the other (kpqc-handshake
link); the link is shaped by tc netem where the kernel has it, else by
kpqc-linkemu.  Each cell reports p50/p95 of the time from the client's
connect() to its TLS Finished, timeouts and TCP retransmissions, beside a
model: round trips x RTT + CPU time (from the in-process handshake) +
serialisation at the link rate, where a server flight larger than TCP's
initial window (10 segments) costs one more round trip per slow-start
window it spills into.

With --transport quic (or both) the same cells are measured over QUIC
(lab.quic): the handshake's datagrams and bytes each way, and its round
trips beside a model of QUIC's anti-amplification budget, Initial padding
and initial congestion window.  Every row says its `transport`.

Certificate algorithms are passed to the provider by name; a row whose group
or certificate algorithm this build does not offer is reported as
unavailable, not left out.
"""
import math
import random
import subprocess

from . import algorithms, handshake, netns, quic
from .link import Link, LinkConfig, netem_available
from .plots import plt
from .results import md_table
from .stats import summarize, upper_median

# (family, group, certificate key type) at level 1; OpenSSL's own PQC rows carry an ML-DSA-65 certificate.
ALGORITHMS = [
    ("ECDHE", "X25519", "EC:P-256"),
    ("ML-KEM hybrid", "X25519MLKEM768", "EC:P-256"),  # the key exchange alone against the KpqC hybrids
    ("ML-KEM hybrid", "X25519MLKEM768", "ML-DSA-65"),
    ("ML-KEM", "MLKEM768", "ML-DSA-65"),
    ("KpqC hybrid", "x25519_smaugt1", "EC:P-256"),
    ("KpqC hybrid", "x25519_ntruplus768", "EC:P-256"),
    ("KpqC", "smaugt1", "EC:P-256"),
    ("KpqC", "ntruplus768", "EC:P-256"),
    ("KpqC certificate", "x25519_smaugt1", "haetae2"),
    ("KpqC certificate", "x25519_smaugt1", "aimer128f"),
    ("KpqC certificate", "x25519_smaugt1", "aimer128s"),
    ("KpqC composite certificate", "x25519_smaugt1", "p256_haetae2"),
    ("KpqC composite certificate", "x25519_smaugt1", "p256_aimer128f"),
]
QUICK_ALGORITHMS = ["X25519/EC:P-256", "X25519MLKEM768/EC:P-256", "X25519MLKEM768/ML-DSA-65", "x25519_smaugt1/EC:P-256",
                    "x25519_ntruplus768/EC:P-256", "x25519_smaugt1/haetae2", "x25519_smaugt1/aimer128f"]
# The LAN of the source documents' table 5 (802.11ac, one room): ~1-2 ms, 100 Mbit.
LAN_ALGORITHMS = ["X25519/EC:P-256", "X25519MLKEM768/EC:P-256", "x25519_smaugt1/EC:P-256", "p256_smaugt1/EC:P-256",
                  "x25519_ntruplus768/EC:P-256", "p256_ntruplus768/EC:P-256"]

INITCWND = 10           # Linux's initial congestion window, segments
TCPIP_OVERHEAD = 52     # MTU - MSS: IPv4, TCP and its timestamp option
# Byte counts of kpqc-handshake's server flight around the certificate and
# signature, measured on the X25519 / ECDSA P-256 row: ServerHello,
# EncryptedExtensions, Finished with their record and message headers, and
# the X.509 fields of its certificate besides the key and the signature.
# With them the ML-DSA-65 row is predicted to the byte (10103 B).
FLIGHT_FIXED, CERT_FIXED = 268, 144
# The ClientHello besides its key share, measured on x25519_smaugt1 (913 B).
HELLO_FIXED = 209
# Certificates the KpqC ones are compared with: (name, level, public key B,
# signature B); ECDSA's signature at its usual DER length, ML-DSA's from FIPS 204.
REFERENCE_SIGS = [("EC:P-256", 1, 65, 72), ("ML-DSA-44", 2, 1312, 2420), ("ML-DSA-65", 3, 1952, 3309),
                  ("ML-DSA-87", 5, 2592, 4627)]



DEFAULTS = {"rtts": "1,10,50,150", "loss": "0,1,3", "rates": "1000,10", "count": 20, "algorithms": ""}


PRESETS = {"paper": {"lan": True}}


def add_arguments(p):
    p.add_argument("--lan", action="store_true",
                   help="only the LAN-like rows of the source documents' table 5 (RTT 1 and 2 ms, 100 Mbit/s)")
    p.add_argument("--quick", action="store_true", help="a few minutes: RTT 10,50 ms, loss 0,1 %%, 1 Gbit and 10 Mbit, 7 algorithms")
    p.add_argument("--rtts", default=DEFAULTS["rtts"], help="round-trip times, ms")
    p.add_argument("--loss", default=DEFAULTS["loss"], help="loss per direction, %%")
    p.add_argument("--rates", default=DEFAULTS["rates"], help="link rates, Mbit/s (0: unlimited)")
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--jitter-ms", type=float, default=0.0, help="per direction; packets may then be reordered")
    p.add_argument("--jitter-dist", choices=("uniform", "normal"), default="uniform")
    p.add_argument("--algorithms", default=DEFAULTS["algorithms"],
                   help="GROUP/CERT,... (default: classical, NIST, KpqC hybrid/pure and KpqC certificates)")
    p.add_argument("--count", type=int, default=DEFAULTS["count"], help="handshakes per cell")
    p.add_argument("--cpu-count", type=int, default=50, help="in-process handshakes for the CPU time of the model")
    p.add_argument("--timeout-ms", type=int, default=10000, help="bound on one handshake")
    p.add_argument("--method", choices=("auto", "netem", "emulator"), default="auto")
    p.add_argument("--seed", type=int, default=1, help="seed of the emulator's loss and jitter")
    p.add_argument("--chain-rtt", type=float, default=50.0,
                   help="RTT of the link where certificates are measured alone and as chains, ms (0: not measured)")
    p.add_argument("--transport", choices=("tcp", "quic", "both"), default="tcp",
                   help="TLS over TCP, QUIC, or both side by side")
    p.add_argument("--congestion-control", default="cubic",
                   help="TCP congestion control of both ends ('' = the system's; bbr paces even the initial window)")


def floats(text):
    return [float(x) for x in text.split(",") if x.strip()]


def parse_algorithms(text):
    known = {(g, s): fam for fam, g, s in ALGORITHMS}
    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        group, _, sig = item.partition("/")
        sig = sig or "EC:P-256"
        out.append((known.get((group, sig), handshake.family(group)), group, sig))
    return out


def slow_start_windows(segments):
    """Segments sent in each round trip of slow start (10, 20, 40 ...) for a
    flight of `segments`."""
    windows, cwnd = [], INITCWND
    while segments > 0:
        windows.append(min(cwnd, segments))
        segments, cwnd = segments - cwnd, 2 * cwnd
    return windows


def overflow_rtts(segments):
    """Round trips beyond the first that slow start needs for `segments`."""
    return len(slow_start_windows(segments)) - 1


def model(rtt_ms, rate_mbit, mss, cpu_ms, client_hello, server_flight, hrr):
    """Expected time to the client's Finished: TCP's handshake (1 RTT), the
    TLS flight exchange (1 RTT, 2 with a HelloRetryRequest), one RTT more for
    each slow-start window the server's first flight spills into beyond the
    initial window, the CPU time of both ends, and the serialisation that
    those round trips do not hide: a window starts when the ACK of the first
    segment of the one before returns, so with an overflow only one segment
    per window and the last window are serialised on the critical path,
    unless the link is too slow to send a window within a round trip."""
    segments = max(1, math.ceil(server_flight / mss))
    windows = slow_start_windows(segments)
    overflow = len(windows) - 1
    rounds = 2 + hrr + overflow
    ms_per_byte = 8 / (rate_mbit * 1e3) if rate_mbit else 0.0
    segment_ms = (mss + TCPIP_OVERHEAD) * ms_per_byte
    flight_ms = (server_flight + TCPIP_OVERHEAD * segments) * ms_per_byte
    if overflow:
        flight_ms = max(flight_ms - overflow * rtt_ms, overflow * segment_ms + windows[-1] * segment_ms)
    hello_ms = (client_hello + TCPIP_OVERHEAD * (math.ceil(client_hello / mss) + 3)) * ms_per_byte
    serial_ms = flight_ms + hello_ms
    return {"rounds": rounds, "overflow_rtts": overflow, "segments": segments, "serial_ms": serial_ms,
            "model_ms": rounds * rtt_ms + cpu_ms + serial_ms}


def profile(lab, family, group, sig, have, count, chain=False, mutual=False):
    """CPU time (both ends, and the server's share) and flight sizes from
    the in-process handshake, or why the combination cannot run here."""
    base = {"family": family, "group": group, "sig": sig, "chain": chain, "mutual": mutual}
    if group.lower() not in have:
        return dict(base, status="unavailable", reason=f"group {group} not offered by this build")
    try:
        setup, hs = handshake.inproc(lab, group, sig, count, chain=chain, mutual=mutual)
    except RuntimeError as e:
        msg = str(e)
        if "cannot make a key" in msg or "cannot sign" in msg:
            reason = f"certificate algorithm {sig} not offered by the provider yet"
        else:
            reason = "in-process handshake failed: " + msg.splitlines()[-1][-160:]
        return dict(base, status="unavailable", reason=reason)
    flights, hrr = hs[-1]["flights"], hs[-1]["hrr"]
    server = 3 if hrr else 1
    return dict(base, status="ok", cpu_ms=summarize([r["ns"] for r in hs])["median"] / 1e6, hrr=hrr,
                server_cpu_ms=summarize([r["server_ns"] for r in hs])["median"] / 1e6,
                client_hello=flights[0], server_flight=flights[server], cert_der=setup["cert_der"],
                client_flight=flights[server + 1] if mutual and len(flights) > server + 1 else 0)


def measure(lab, topo, conf, prof, count, timeout_ms, congestion, transport="tcp"):
    """count handshakes of prof across the link over TCP (kpqc-handshake
    link) or QUIC (kpqc-handshake quic): the client's and the server's
    records, and why there are none if the run failed."""
    mode = "quic" if transport == "quic" else "link"
    argv = [lab.build.handshake, mode, "--group", prof["group"], "--sig", prof["sig"], "--count", str(count),
            "--server-netns", topo.server, "--client-netns", topo.client, "--address", topo.server_addr,
            "--timeout-ms", str(timeout_ms)]
    argv += ["--congestion-control", congestion] if congestion and mode == "link" else []
    argv += (["--chain"] if prof["chain"] else []) + (["--mutual"] if prof["mutual"] else [])
    try:
        recs = lab.build.run_json(argv, timeout=(count + 1) * (timeout_ms / 1e3 + 1) + 60)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return [], [], str(e).strip().splitlines()[-1][-200:]
    client = [r for r in recs if r.get("mode") == mode]
    served = [r for r in recs if r.get("mode") == "served"][1:]  # the first one served the warm-up
    for r in client:
        lab.raw("network", dict(r, transport=transport, sig=prof["sig"], chain=prof["chain"], mutual=prof["mutual"],
                                rtt_ms=conf.rtt_ms, loss_pct=conf.loss_pct, rate_mbit=conf.rate_mbit, mtu=conf.mtu))
    return client, served, ""


def congestion_control(name):
    """The congestion control both ends use: the one asked for, else the system's."""
    return name or open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()


def transports(choice):
    return ["tcp", "quic"] if choice == "both" else [choice]


def measure_cell(lab, topo, conf, prof, transport, count, timeout_ms, method, congestion, suite="network"):
    """One cell over one transport: its summary row."""
    client, served, error = measure(lab, topo, conf, prof, count, timeout_ms, congestion, transport)
    if transport == "quic":
        return quic.summarize_cell(lab, conf, prof, client, served, method, error, suite=suite)
    return summarize_cell(lab, conf, prof, client, served, method, congestion_control(congestion), error, suite=suite)


def run_grid(lab, confs, algorithms, count, cpu_count, timeout_ms, method, congestion="cubic", seed=1,
             transport="tcp"):
    have = handshake.available_groups(lab.build)
    profiles = []
    for i, (fam, g, s) in enumerate(algorithms):
        lab.progress("network cpu", i, len(algorithms), f"{g} / {s}")
        profiles.append(profile(lab, fam, g, s, have, cpu_count))
    lab.progress("network cpu", len(algorithms), len(algorithms))
    runnable = [p for p in profiles if p["status"] == "ok"]
    results, checks = [], []
    with netns.Topology() as topo:
        cells = [(prof, t) for prof in runnable for t in transports(transport)]
        total, done = len(confs) * len(cells), 0
        for conf in confs:
            with Link(topo, conf, lab.build.dir, method) as link:
                order = list(cells)
                random.Random(seed).shuffle(order)  # drift spreads over all algorithms and transports
                for prof, t in order:
                    lab.progress("network", done, total,
                                 f"{conf.rtt_ms:g} ms {conf.loss_pct:g} % {t} {prof['group']}")
                    done += 1
                    results.append(measure_cell(lab, topo, conf, prof, t, count, timeout_ms, link.method, congestion))
            lab.raw("network-link", {"link": conf.label(), "method": link.method, "stats": link.stats})
            checks.append((conf, link.method, link.stats))
        lab.progress("network", total, total)
    for prof in profiles:
        if prof["status"] != "ok":
            for conf, t in ((c, t) for c in confs for t in transports(transport)):
                results.append(lab.row("network", transport=t, rtt_ms=conf.rtt_ms, loss_pct=conf.loss_pct,
                                       rate_mbit=conf.rate_mbit,
                                       mtu=conf.mtu, family=prof["family"], group=prof["group"], sig=prof["sig"],
                                       status="unavailable", reason=prof["reason"], count=0))
    return results, checks


def summarize_cell(lab, conf, prof, client, served, method, cc, error="", suite="network"):
    ok = [r for r in client if r["ok"]]
    mss = ok[0]["mss"] if ok and ok[0]["mss"] else conf.mtu - TCPIP_OVERHEAD
    m = model(conf.rtt_ms, conf.rate_mbit, mss, prof["cpu_ms"], prof["client_hello"], prof["server_flight"],
              prof["hrr"])
    s = summarize([r["hs_ns"] / 1e6 for r in ok])
    c = summarize([r["connect_ns"] / 1e6 for r in ok])
    row = dict(transport="tcp", rtt_ms=conf.rtt_ms, loss_pct=conf.loss_pct, rate_mbit=conf.rate_mbit, mtu=conf.mtu,
               jitter_ms=conf.jitter_ms, family=prof["family"], group=prof["group"], sig=prof["sig"],
               status="ok" if ok else "failed", reason=error, count=len(client), completed=len(ok),
               timeouts=sum(r["timeout"] for r in client), failures=sum(1 for r in client if not r["ok"]),
               retrans_client=sum(r["retrans"] for r in client), retrans_server=sum(r["retrans"] for r in served),
               server_ok=sum(r["ok"] for r in served), method=method, congestion_control=cc, mss=mss,
               cpu_ms=prof["cpu_ms"], client_hello=prof["client_hello"], server_flight=prof["server_flight"],
               cert_der=prof["cert_der"], hrr=prof["hrr"], **m)
    if ok:
        row.update(p50_ms=s["median"], p95_ms=s["p95"], ci_low_ms=s["ci_low"], ci_high_ms=s["ci_high"],
                   connect_p50_ms=c["median"], deviation_pct=100 * (s["median"] - m["model_ms"]) / m["model_ms"])
    if prof["chain"]:
        row["chain"] = True
    if prof["mutual"] and ok:  # the server has the client's flight when it answers the first byte
        # the client's data segments after its ClientHello (one write): its flight and the first byte
        segs = [r["data_segs"] - math.ceil(prof["client_hello"] / mss) for r in ok if "data_segs" in r]
        row.update(mutual=True, client_flight=prof["client_flight"], client_segments_sent=upper_median(segs),
                   echo_p50_ms=summarize([r["ns"] / 1e6 for r in ok])["median"])
    sent = upper_median([r["flight_segments"] for r in served if r["ok"] and "flight_segments" in r])
    if sent is not None:  # what the server's kernel sent, against the model's bytes / MSS
        row["segments_sent"] = sent
    return lab.row(suite, **row)


def _rate(r):
    mbit = r["rate_mbit"]
    return "unlimited" if not mbit else (f"{mbit / 1000:g} Gbit" if mbit >= 1000 else f"{mbit:g} Mbit")


def _name(r):
    return f"{r['group']} / {r['sig']}"


def report(lab, results, title):
    """TLS over TCP's table, QUIC's, the two side by side, and what could not run."""
    tcp = [r for r in results if r["transport"] == "tcp"]
    if tcp:
        tcp_report(lab, tcp, title)
    quic.report(lab, results, md_table)
    unavailable = sorted({(_name(r), r["reason"]) for r in results if r["status"] == "unavailable"})
    if unavailable:
        lab.section("Not measured (unavailable in this build)",
                    md_table(["group / certificate", "reason"], [list(u) for u in unavailable]))


def tcp_report(lab, results, title):
    rows = []
    for r in sorted(results, key=lambda r: (-r["rate_mbit"], r["loss_pct"], r["rtt_ms"], r["family"], _name(r))):
        if r["status"] == "unavailable":
            rows.append([_rate(r), f"{r['loss_pct']:g}", f"{r['rtt_ms']:g}", _name(r), r["family"],
                         "unavailable", "–", "–", "–", "–", r["reason"]])
            continue
        measured = (f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}", f"{r['deviation_pct']:+.1f} %") \
            if r["status"] == "ok" else ("failed", "–", "–")
        rows.append([_rate(r), f"{r['loss_pct']:g}", f"{r['rtt_ms']:g}", _name(r), r["family"],
                     f"{r['completed']}/{r['count']}", measured[0], measured[1],
                     f"{r['model_ms']:.1f} = {r['rounds']}×{r['rtt_ms']:g} + {r['cpu_ms']:.2f} + {r['serial_ms']:.2f}",
                     measured[2], f"{r['timeouts']} / {r['retrans_client'] + r['retrans_server']}"])
    method = next((r["method"] for r in results if r.get("method")), "–")
    lab.section(title,
                f"Link shaped by **{method}**; congestion control "
                f"{next((r['congestion_control'] for r in results if r.get('congestion_control')), '–')}. "
                "Time from the client's connect() to its TLS Finished (ms). "
                "Model = round trips × RTT + CPU (both ends, in-process handshake) + serialisation; "
                "deviation = (p50 − model) / model.\n\n" +
                md_table(["rate", "loss %", "RTT ms", "group / certificate", "family", "completed", "p50 ms",
                          "p95 ms", "model ms", "deviation", "timeouts / retransmissions"], rows))
    ok = [r for r in results if r["status"] == "ok"]
    seen, iw_rows = set(), []
    for r in sorted(ok, key=lambda r: r["server_flight"]):
        if _name(r) in seen:
            continue
        seen.add(_name(r))
        iw_rows.append([_name(r), r["cert_der"], r["server_flight"], r["segments"],
                        f"{INITCWND * r['mss']}", r["overflow_rtts"], "yes" if r["overflow_rtts"] else "no"])
    if iw_rows:
        lab.section("Server's first flight against TCP's initial window (10 segments)",
                    md_table(["group / certificate", "certificate DER B", "server flight B", "segments",
                              "initial window B", "extra round trips", "crosses initcwnd"], iw_rows))


def plot(lab, results, stem="network"):
    """Completion time by RTT and by loss (the suite's figures, drawn after run)."""
    ok = [r for r in results if r["status"] == "ok"]
    if not ok:
        return
    top_rate = max(r["rate_mbit"] for r in ok)
    rtts = sorted({r["rtt_ms"] for r in ok})
    mid_rtt = 50.0 if 50.0 in rtts else rtts[len(rtts) // 2]
    for axis, fixed, fname, xlabel in (("rtt_ms", lambda r: r["loss_pct"] == 0, f"{stem}_rtt.png", "RTT (ms)"),
                                       ("loss_pct", lambda r: r["rtt_ms"] == mid_rtt, f"{stem}_loss.png",
                                        f"loss per direction (%), RTT {mid_rtt:g} ms")):
        sel = [r for r in ok if r["rate_mbit"] == top_rate and fixed(r)]
        xs = sorted({r[axis] for r in sel})
        if len(xs) < 2:
            continue
        fig, ax = plt.subplots(figsize=(9, 5.5))
        label = _name if len({r["transport"] for r in sel}) == 1 else lambda r: f"{_name(r)} {r['transport'].upper()}"
        for name in sorted({label(r) for r in sel}):
            pts = sorted((r[axis], r["p50_ms"], r["p95_ms"]) for r in sel if label(r) == name)
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
            ax.plot([p[0] for p in pts], [p[2] for p in pts], linestyle=":", color=line.get_color())
        if axis == "rtt_ms":
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("handshake completion (ms): p50 solid, p95 dotted")
        ax.set_title(f"TLS 1.3 handshakes over an emulated link, {top_rate:g} Mbit/s")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(lab.dir / fname, dpi=110)
        plt.close(fig)
        lab.plots.append(fname)


def predicted_flights(lab, mtu=1500, group="x25519_smaugt1"):
    """Every KpqC signature of the algorithm table (offered by the provider
    or not), with ECDSA and ML-DSA for reference: the server's first flight
    with its certificate, alone and with an intermediate CA's certificate of
    the same algorithm, against TCP's initial window and QUIC's
    anti-amplification budget.  Sizes from the table; composites add ECDSA
    P-256."""
    t = algorithms.table()
    kems = {k["name"]: k for k in t["kems"]}
    sigs = {s["name"]: s for s in t["sigs"]}
    hybrid = {h["name"]: h for h in t["hybrids"]}[group]
    share = kems[hybrid["kem"]]["ct_len"] + 32  # X25519 half
    hello = HELLO_FIXED + kems[hybrid["kem"]]["pk_len"] + 32
    rows = list(REFERENCE_SIGS) + [(s["name"], s["level"], s["pk_len"], s["sig_len"]) for s in t["sigs"]]
    rows += [(c["name"], sigs[c["sig"]]["level"], sigs[c["sig"]]["pk_len"] + 65, sigs[c["sig"]]["sig_len"] + 72)
             for c in t["composites"] if c["curve"] == "p256"]
    out, mss = [], mtu - TCPIP_OVERHEAD
    for name, level, pk, sig in rows:
        cert = CERT_FIXED + pk + sig
        leaf = FLIGHT_FIXED + share + cert + sig
        chain = leaf + cert
        seg_leaf, seg_chain = math.ceil(leaf / mss), math.ceil(chain / mss)
        q_leaf, q_chain = (len(quic.server_rounds(hello, f)["round_bytes"]) - 1 for f in (leaf, chain))
        out.append([name, level, pk, sig, leaf, seg_leaf, overflow_rtts(seg_leaf), q_leaf, chain, seg_chain,
                    overflow_rtts(seg_chain), q_chain])
        lab.row("network-flight", sig=name, level=level, group=group, cert_der=cert, flight_leaf=leaf,
                flight_chain=chain, extra_rtts_leaf=overflow_rtts(seg_leaf), extra_rtts_chain=overflow_rtts(seg_chain),
                quic_extra_rtts_leaf=q_leaf, quic_extra_rtts_chain=q_chain)
    lab.section(f"Predicted server flight with KpqC certificates, ECDSA and ML-DSA for reference ({group}; "
                "sizes from the algorithm table)",
                f"TCP: initial window {INITCWND} × {mss} B = {INITCWND * mss} B. QUIC: the first round within "
                f"{quic.AMPLIFICATION}× the client's {quic.MAX_DATAGRAM}-byte Initials, then the "
                f"{quic.INITIAL_CWND}-byte initial window grown by what was acknowledged. 'Chain' adds an "
                "intermediate CA certificate of the same algorithm (the root is not sent).\n\n" +
                md_table(["signature", "level", "pk B", "sig B", "leaf flight B", "segments", "TCP extra RTT",
                          "QUIC extra RTT", "chain flight B", "segments", "TCP extra RTT", "QUIC extra RTT"], out))
    return out


# Certificates measured alone and as a chain: ECDSA and ML-DSA for
# reference, every HAETAE and AIMer level 1 set, two composites.
CHAIN_SIGS = ["EC:P-256", "ML-DSA-44", "ML-DSA-65", "haetae2", "haetae3", "haetae5", "aimer128s", "aimer128f",
              "p256_haetae2", "p256_aimer128f"]


def measured_chains(lab, args, group="x25519_smaugt1"):
    """Each certificate of CHAIN_SIGS as a self-signed leaf, as a chain
    (leaf and intermediate CA sent, root trusted) and as chains both ways
    (mutual authentication) over one link of --chain-rtt ms: the flights the
    handshake really sent, the round trips the model predicts from them, and
    the time measured."""
    have = handshake.available_groups(lab.build)
    profiles = [profile(lab, "chain", group, sig, have, args.cpu_count, chain, mutual) for sig in CHAIN_SIGS
                for chain, mutual in ((False, False), (True, False), (True, True))]
    cells = [(p, t) for p in profiles if p["status"] == "ok" for t in transports(args.transport)]
    conf = LinkConfig(rtt_ms=args.chain_rtt, mtu=args.mtu, seed=args.seed)
    results = []
    with netns.Topology() as topo, Link(topo, conf, lab.build.dir, args.method) as link:
        for i, (prof, t) in enumerate(cells):
            lab.progress("network chains", i, len(cells), f"{t} {prof['sig']} {_sent(prof)}")
            results.append(measure_cell(lab, topo, conf, prof, t, args.count, args.timeout_ms, link.method,
                                        args.congestion_control, suite="network-chain"))
        lab.progress("network chains", len(cells), len(cells))
    if "tcp" in transports(args.transport):
        tcp_chain_table(lab, args, group, [r for r in results if r["transport"] == "tcp"], profiles)
    if "quic" in transports(args.transport):
        quic.chain_table(lab, args.chain_rtt, group, [r for r in results if r["transport"] == "quic"], profiles,
                         _sent, md_table)
    quic.side_by_side(lab, results, md_table, f"Certificate chains over TCP+TLS and QUIC ({group}, RTT "
                                              f"{args.chain_rtt:g} ms)")
    return results


def tcp_chain_table(lab, args, group, results, profiles):
    rows = []
    for r in results:
        measured = (f"{r['p50_ms']:.1f}", f"{(r['p50_ms'] - r['cpu_ms'] - r['serial_ms']) / r['rtt_ms']:.2f}") \
            if r["status"] == "ok" else ("failed", "–")
        sent = r.get("segments_sent")
        cf = r.get("client_flight", 0)
        client = "–"
        if cf:
            cs = r.get("client_segments_sent")
            # still the initial window: Linux grows it only while it limits the sender
            extra = overflow_rtts(cs) if cs else "–"
            client = (f"{cf} / {math.ceil(cf / r['mss'])} / {cs if cs else '–'} / {extra} / "
                      f"{(r['echo_p50_ms'] - r['p50_ms']) / r['rtt_ms'] - 1:.2f}")
        rows.append([r["sig"], _sent(r), r["cert_der"], r["server_flight"],
                     f"{r['segments']} / {sent if sent else '–'}",
                     f"{r['overflow_rtts']} / {overflow_rtts(sent) if sent else '–'}", client,
                     f"{r['model_ms']:.1f}", measured[0], measured[1]])
    rows += [[p["sig"], _sent(p), "unavailable", "–", "–", "–", "–", "–", "–", p["reason"]]
             for p in profiles if p["status"] != "ok"]
    lab.section(f"Certificate chains against the initial window, measured ({group}, RTT {args.chain_rtt:g} ms)",
                "The server's first flight as the handshake sent it, with a self-signed leaf, with a chain "
                "(leaf and intermediate CA of the same algorithm; the client trusts only the root), and with "
                "chains both ways (mutual authentication). The client's certificate flight meets the client's "
                "own initial window: it delays the server's end of the handshake, not the client's, so it is "
                "measured from the first application byte the server answers (one RTT after the handshake, "
                "plus any extra round trips of the client's flight): its bytes, its segments by bytes / MSS, the "
                "segments the client's kernel sent after the ClientHello (the flight and the first byte), the "
                "extra round trips predicted from those against the initial window (which a ClientHello alone "
                "does not grow: Linux grows the window only while it limits the sender) and measured. "
                f"Initial window {INITCWND} segments. Segments: the flight's bytes / MSS (the model's count) and "
                "the data segments the server's kernel sent (one TLS record per write, TCP_NODELAY: a flight "
                "just under the window can still take one segment more than its bytes need); extra round trips "
                "predicted from each. 'Round trips measured' is (p50 − in-process CPU − serialisation) / RTT; "
                "below a whole number where the client verifies the chain while the flight's last window is "
                "still on its way.\n\n" +
                md_table(["certificate", "sent", "certificates DER B", "server flight B", "segments: bytes / sent",
                          "extra RTT: bytes / sent", "client flight: B / segments bytes / sent / extra RTT predicted / "
                          "measured", "model ms",
                          "p50 ms",
                          "round trips measured"], rows))


def _sent(r):
    what = "leaf + intermediate" if r.get("chain") else "leaf"
    return what + (", both ways" if r.get("mutual") else "")


def link_check(lab, checks, results):
    """Per link: the RTT TCP saw (connect(), SYN to SYN-ACK, median over the
    cells) against the configured one, and the emulator's own counters: the
    loss it applied and how late it wrote packets against their due time."""
    rows = []
    for conf, method, stats in checks:
        connects = [r["connect_p50_ms"] for r in results if "connect_p50_ms" in r and r["rtt_ms"] == conf.rtt_ms
                    and r["loss_pct"] == conf.loss_pct and r["rate_mbit"] == conf.rate_mbit]
        seen = f"{upper_median(connects):.2f}" if connects else "–"
        if not stats:
            rows.append([conf.label(), method, seen, "–", "–", "–", "–"])
            continue
        a, b = stats["a2b"], stats["b2a"]
        sent = a["forwarded"] + a["lost"] + b["forwarded"] + b["lost"]
        lost = a["lost"] + b["lost"]
        rows.append([conf.label(), method, seen, sent, f"{100 * lost / sent:.2f}" if sent else "–",
                     f"{max(a['late_us_mean'], b['late_us_mean']):.1f} / {max(a['late_us_max'], b['late_us_max']):.0f}",
                     a["queue_drops"] + b["queue_drops"]])
    lab.section("The link's own check",
                md_table(["link", "method", "TCP connect ms (1 RTT)", "packets", "loss applied %", "late µs mean / max",
                          "queue drops"], rows))


def _not_runnable(lab, title):
    reason = netns.unusable_reason()
    if reason:
        lab.section(title, f"Not run: {reason}.")
    return reason


def run(args, lab):
    if args.lan:
        return lan(lab)
    title = "Handshakes over an emulated link (two network namespaces)"
    if _not_runnable(lab, title):
        return []
    if args.method == "netem" and not netem_available():
        lab.section(title, "Not run: --method netem, and this kernel has no sch_netem (the default uses kpqc-linkemu).")
        return []
    if args.quick:  # a smaller grid where the options were left at their defaults
        for key, value in (("rtts", "10,50"), ("loss", "0,1"), ("rates", "1000,10"), ("count", 10),
                           ("algorithms", ",".join(QUICK_ALGORITHMS))):
            if getattr(args, key) == DEFAULTS[key]:
                setattr(args, key, value)
    algorithms = parse_algorithms(args.algorithms) if args.algorithms else list(ALGORITHMS)
    cells = [(rate, loss, rtt) for rate in floats(args.rates) for loss in floats(args.loss) for rtt in floats(args.rtts)]
    # one loss/jitter stream per link, reproducible from --seed
    confs = [LinkConfig(rtt_ms=rtt, loss_pct=loss, rate_mbit=rate, mtu=args.mtu, jitter_ms=args.jitter_ms,
                        jitter_dist=args.jitter_dist, seed=args.seed * 1000 + i)
             for i, (rate, loss, rtt) in enumerate(cells)]
    results, checks = run_grid(lab, confs, algorithms, args.count, args.cpu_count, args.timeout_ms, args.method,
                               args.congestion_control, args.seed, args.transport)
    report(lab, results, title)
    link_check(lab, checks, results)
    chains = measured_chains(lab, args) if args.chain_rtt > 0 else []
    predicted = predicted_flights(lab, args.mtu)
    quic.extra_rtt_plot(lab, predicted, chains, "network_extra_rtts.png")
    return results


def lan(lab):
    """The LAN-like rows of the source documents' table 5: RTT 1-2 ms, 100 Mbit, no loss."""
    title = "LAN-like link, 100 Mbit/s (source documents' table 5)"
    if _not_runnable(lab, title):
        return []
    confs = [LinkConfig(rtt_ms=rtt, rate_mbit=100) for rtt in (1.0, 2.0)]
    results, checks = run_grid(lab, confs, parse_algorithms(",".join(LAN_ALGORITHMS)), 50, 50, 10000, "auto")
    base = {r["rtt_ms"]: r["p50_ms"] for r in results if r["group"] == "X25519" and r["status"] == "ok"}
    rows = [[f"{r['rtt_ms']:g}", _name(r), r["family"], f"{r['p50_ms']:.2f}", f"{r['p95_ms']:.2f}",
             f"{r['model_ms']:.2f}",
             f"{100 * (r['p50_ms'] / base[r['rtt_ms']] - 1):+.0f} %" if r["rtt_ms"] in base else "–"]
            for r in sorted(results, key=lambda r: (r["rtt_ms"], r.get("p50_ms", 0))) if r["status"] == "ok"]
    lab.section(title, "Published: relative overhead of PQC/KpqC hybrids over ECDHE below 40 % on the LAN.\n\n" +
                md_table(["RTT ms", "group / certificate", "family", "p50 ms", "p95 ms", "model ms", "vs X25519"], rows))
    link_check(lab, checks, results)
    return results
