"""The QUIC half of the network suite: handshakes over OpenSSL's QUIC stack
(kpqc-handshake quic) across the same link as TLS over TCP, and the model
of their round trips.

QUIC has no connection set-up of its own, so a handshake whose flights fit
takes one round trip where TCP+TLS takes two.  Size costs more, though:
  - the client pads every datagram carrying an Initial packet to 1,200
    bytes (RFC 9000 §14.1), and a ClientHello larger than one Initial's
    payload (a large key share) spans two;
  - before the server has validated the client's address it may send at
    most three times the bytes it received (RFC 9000 §8.1): 3,600 bytes
    after one Initial.  A larger first flight waits for the client's
    acknowledgements, one round trip, which also validate the address;
  - then the congestion window bounds it: RFC 9002 §7.2's initial window,
    min(10 x max_datagram, max(14,720, 2 x max_datagram)) = 12,000 bytes
    for OpenSSL's 1,200-byte datagrams.  It grows by what is acknowledged
    only after a round that filled it (RFC 9002 §7.8: an underused window
    is not increased), so the acknowledgements of a first round bound by
    the budget leave it at 12,000 bytes: a flight of more than 3,600 +
    12,000 bytes after one Initial takes a third round trip.
  - OpenSSL buffers at most 16 KiB of a handshake flight not yet
    acknowledged (its CRYPTO stream's send buffer): a round never sends
    more, and a client whose own flight (mutual authentication) is larger
    cannot hand its Finished over, so cannot end its handshake, before the
    server has acknowledged the start of that flight.
OpenSSL's server does not validate addresses by Retry here (that would
cost a round trip of its own); OpenSSL's client and server send 1,200-byte
datagrams (they do not probe the path's MTU).
"""
import math

from .stats import summarize, upper_median

MAX_DATAGRAM = 1200                 # UDP payload of every OpenSSL QUIC datagram
AMPLIFICATION = 3                   # RFC 9000 §8.1
INITIAL_CWND = min(10 * MAX_DATAGRAM, max(14720, 2 * MAX_DATAGRAM))  # RFC 9002 §7.2: 12,000 B
UDPIP_OVERHEAD = 28                 # IPv4 and UDP headers
# Bytes a QUIC datagram spends around the handshake it carries (long
# header, packet number, AEAD tag, CRYPTO frame header), and the TLS record
# layer's bytes in the in-process flights that QUIC does not send (record
# headers, tags, the compatibility ChangeCipherSpec): measured on the
# x25519_smaugt1 / aimer128f row, whose 15,026-byte TLS flight crossed as
# 13 datagrams of 15,573 bytes.
DATAGRAM_OVERHEAD, TLS_RECORD_BYTES = 45, 33
PAYLOAD = MAX_DATAGRAM - DATAGRAM_OVERHEAD
CRYPTO_BUFFER = 16384               # OpenSSL's send buffer of a CRYPTO stream (handshake bytes)


def datagrams(tls_bytes):
    """Datagrams carrying a TLS flight of tls_bytes (record-layer bytes)."""
    return max(1, math.ceil(max(0, tls_bytes - TLS_RECORD_BYTES) / PAYLOAD))


def flight_bytes(tls_bytes, initials=1):
    """UDP payload bytes of the server's first flight.  Datagrams carrying
    an Initial packet are padded to 1,200 bytes: the first (ServerHello),
    and when the ClientHello came in two, the one acknowledging its second
    part and one more, before the flight, acknowledging its first part
    alone (OpenSSL answers each datagram as it arrives)."""
    n = datagrams(tls_bytes)
    raw = tls_bytes - TLS_RECORD_BYTES + n * DATAGRAM_OVERHEAD
    return max(raw, min(n, initials) * MAX_DATAGRAM) + (MAX_DATAGRAM if initials > 1 else 0)


def rounds_of(left, first_limit=None):
    """The bytes a sender with a fresh window sends in each round trip until
    left is out: within the window (which slow start grows by the bytes of
    each round that filled it), the CRYPTO buffer, and first_limit in the
    first round."""
    cwnd, buffered, rounds = INITIAL_CWND, flight_bytes(CRYPTO_BUFFER + TLS_RECORD_BYTES), []
    while left > 0:
        sent = min(left, cwnd, buffered, first_limit if first_limit is not None and not rounds else left)
        rounds.append(sent)
        left -= sent
        cwnd += sent if sent == cwnd else 0
    return rounds


def server_rounds(client_hello, server_flight):
    """Round trips the server's first flight takes, and the bytes of each:
    the first within the anti-amplification budget, the next ones (the
    address is validated by then) within the window and the buffer."""
    initials = datagrams(client_hello)
    budget = AMPLIFICATION * MAX_DATAGRAM * initials
    return {"initials": initials, "budget": budget,
            "round_bytes": rounds_of(flight_bytes(server_flight, initials), budget)}


def client_wait_rtts(client_flight):
    """Round trips a client's own flight (its certificates, with mutual
    authentication) holds its Finished back: none while the flight fits the
    CRYPTO buffer, then one per round of what is left."""
    return len(rounds_of(max(0, client_flight - TLS_RECORD_BYTES - CRYPTO_BUFFER)))


def model(rtt_ms, rate_mbit, cpu_ms, client_hello, server_flight, hrr, client_flight=0):
    """Expected time to the client's Finished over QUIC: one round trip for
    the flights (two with a HelloRetryRequest), one more per round the
    server's flight needs beyond the first and per round the client's own
    flight (client_flight: mutual authentication) holds its Finished back,
    the CPU time of both ends, and the serialisation of the client's
    Initials and of what the round trips do not hide (the last round and
    one datagram of each before it)."""
    s = server_rounds(client_hello, server_flight)
    extra = len(s["round_bytes"]) - 1
    rounds = 1 + hrr + extra + client_wait_rtts(client_flight)
    ms_per_byte = 8 / (rate_mbit * 1e3) if rate_mbit else 0.0
    wire = MAX_DATAGRAM + UDPIP_OVERHEAD
    last = s["round_bytes"][-1]
    flight_ms = (last + math.ceil(last / MAX_DATAGRAM) * UDPIP_OVERHEAD + extra * wire) * ms_per_byte
    serial_ms = flight_ms + s["initials"] * wire * ms_per_byte
    return {"rounds": rounds, "extra_rtts": extra, "initials": s["initials"], "budget": s["budget"],
            "flight_bytes": sum(s["round_bytes"]), "first_round_bytes": s["round_bytes"][0],
            "flight_datagrams": datagrams(server_flight), "serial_ms": serial_ms,
            "model_ms": rounds * rtt_ms + cpu_ms + serial_ms}


def summarize_cell(lab, conf, prof, client, served, method, error="", suite="network"):
    ok = [r for r in client if r["ok"]]
    m = model(conf.rtt_ms, conf.rate_mbit, prof["cpu_ms"], prof["client_hello"], prof["server_flight"], prof["hrr"],
              prof["client_flight"] if prof["mutual"] else 0)
    s = summarize([r["hs_ns"] / 1e6 for r in ok])
    done = [r for r in served if r["handshake"]]
    row = dict(transport="quic", rtt_ms=conf.rtt_ms, loss_pct=conf.loss_pct, rate_mbit=conf.rate_mbit, mtu=conf.mtu,
               jitter_ms=conf.jitter_ms, family=prof["family"], group=prof["group"], sig=prof["sig"],
               status="ok" if ok else "failed", reason=error, count=len(client), completed=len(ok),
               timeouts=sum(r["timeout"] for r in client), failures=sum(1 for r in client if not r["ok"]),
               server_ok=sum(r["ok"] for r in served), method=method, cpu_ms=prof["cpu_ms"],
               client_hello=prof["client_hello"], server_flight=prof["server_flight"], cert_der=prof["cert_der"],
               hrr=prof["hrr"], **m)
    if ok:
        row.update(p50_ms=s["median"], p95_ms=s["p95"], ci_low_ms=s["ci_low"], ci_high_ms=s["ci_high"],
                   deviation_pct=100 * (s["median"] - m["model_ms"]) / m["model_ms"],
                   **{f"client_{k}": upper_median([r[k] for r in ok])
                      for k in ("dgrams_out", "bytes_out", "dgrams_in", "bytes_in")})
        row["rounds_timed"] = rounds_timed(row)
    if done:
        # What the server's socket saw: the client's first flight, what the
        # server sent before anything else came back (at most three times
        # the first), and its whole flight.  A flight larger than its first
        # round waited for the client: a round trip more, by count.
        row.update(server_first_in=upper_median([r["first_in"] for r in done]),
                   server_first_out=upper_median([r["first_out"] for r in done]),
                   server_flight_out=upper_median([r["flight_out"] for r in done]),
                   server_dgrams_out=upper_median([r["dgrams_out"] for r in done]),
                   server_bytes_out=upper_median([r["bytes_out"] for r in done]),
                   amplification_ok=all(r["first_out"] <= AMPLIFICATION * r["first_in"] for r in done),
                   # by count on a loss-free link (a retransmission also makes the flight larger)
                   rounds_lower_bound=upper_median([1 + (r["flight_out"] > r["first_out"]) for r in done])
                   if not conf.loss_pct else None)
    if prof["chain"]:
        row["chain"] = True
    if prof["mutual"]:
        row.update(mutual=True, client_flight=prof["client_flight"])
        if ok:
            row["echo_p50_ms"] = summarize([r["ns"] / 1e6 for r in ok])["median"]
    return lab.row(suite, **row)


def _name(r):
    return f"{r['group']} / {r['sig']}"


def _link(r):
    rate = r["rate_mbit"]
    rate = "unlimited" if not rate else (f"{rate / 1000:g} Gbit" if rate >= 1000 else f"{rate:g} Mbit")
    return f"{rate}, loss {r['loss_pct']:g} %, RTT {r['rtt_ms']:g} ms"


def _f(x, fmt):
    return "–" if x is None else format(x, fmt)


def rounds_timed(r):
    """Round trips a TCP or QUIC row's p50 holds: (p50 - CPU - serialisation) / RTT."""
    if r.get("status") != "ok" or not r["rtt_ms"]:
        return None
    return (r["p50_ms"] - r["cpu_ms"] - r["serial_ms"]) / r["rtt_ms"]


def report(lab, results, md_table):
    """The QUIC table, and TCP+TLS beside QUIC where a run measured both."""
    rows = []
    for r in sorted((r for r in results if r.get("transport") == "quic"),
                    key=lambda r: (-r["rate_mbit"], r["loss_pct"], r["rtt_ms"], r["family"], _name(r))):
        if r["status"] == "unavailable":
            rows.append([_link(r), _name(r), "unavailable"] + ["–"] * 9 + [r["reason"]])
            continue
        ok = r["status"] == "ok"
        rows.append([_link(r), _name(r), f"{r['completed']}/{r['count']}", _f(r.get("p50_ms"), ".1f"),
                     _f(r.get("p95_ms"), ".1f"), f"{r['model_ms']:.1f}",
                     f"{r['rounds']} / {_f(r.get('rounds_lower_bound'), 'd')} / {_f(rounds_timed(r), '.2f')}",
                     f"{r['initials']} / {_f(r.get('server_first_in', 0) // MAX_DATAGRAM or None, 'd')}",
                     f"{_f(r.get('server_first_in'), 'd')} / {r['first_round_bytes']} / "
                     f"{_f(r.get('server_first_out'), 'd')}",
                     f"{r['flight_bytes']} / {_f(r.get('server_flight_out'), 'd')}",
                     f"{_f(r.get('client_bytes_out'), 'd')} / {_f(r.get('client_bytes_in'), 'd')} in "
                     f"{_f(r.get('client_dgrams_out'), 'd')} / {_f(r.get('client_dgrams_in'), 'd')}",
                     f"{r['timeouts']}", "" if ok else r["reason"]])
    if not rows:
        return
    lab.section("QUIC handshakes over the emulated link",
                "OpenSSL's QUIC client and server, the same groups, certificates and link as TLS over TCP. Time "
                "from the client's first datagram to its handshake's end (ms). Round trips: the model's; at least "
                "this many by count (a second one when the server's flight outgrew what it sent before the client "
                "answered); from the time, (p50 − CPU − serialisation) / RTT. Model: an Initial's ClientHello "
                f"padded to {MAX_DATAGRAM} B, the server's first round within {AMPLIFICATION}× what it received "
                f"(anti-amplification) and the initial window ({INITIAL_CWND} B), later rounds within the window "
                "grown by what was acknowledged. Datagrams and bytes are UDP payloads counted at the sockets, "
                "up to each end's handshake.\n\n" +
                md_table(["link", "group / certificate", "completed", "p50 ms", "p95 ms", "model ms",
                          "round trips: model / counted ≥ / timed", "client Initials: model / received",
                          "server's first round B: received / model / sent", "server flight B: model / sent",
                          "client B out / in in datagrams", "timeouts", "note"], rows))
    side_by_side(lab, results, md_table)


def side_by_side(lab, results, md_table, title="TCP+TLS and QUIC side by side"):
    by = {}
    for r in results:
        if r.get("status") == "ok":
            by.setdefault((_link(r), _name(r), r.get("chain", False)), {})[r["transport"]] = r
    rows = []
    for (link, name, chain), pair in sorted(by.items()):
        if len(pair) < 2:
            continue
        t, q = pair["tcp"], pair["quic"]
        rows.append([link, name + (" (chain)" if chain else ""), t["cert_der"], t["server_flight"],
                     f"{t['rounds']} / {_f(rounds_timed(t), '.2f')}", f"{t['p50_ms']:.1f}",
                     f"{q['rounds']} / {_f(rounds_timed(q), '.2f')}", f"{q['p50_ms']:.1f}",
                     f"{t['p50_ms'] - q['p50_ms']:+.1f}"])
    if rows:
        lab.section(title,
                    "Round trips predicted / timed ((p50 − CPU − serialisation) / RTT) and p50 of the handshake "
                    "(TCP: from connect(), so the TCP handshake is included). TCP's extra round trips come from the "
                    "initial window of 10 segments, QUIC's from the anti-amplification budget and its 12,000-byte "
                    "initial window.\n\n" +
                    md_table(["link", "group / certificate", "certificates DER B", "TLS server flight B",
                              "TCP round trips: model / timed", "TCP p50 ms", "QUIC round trips: model / timed",
                              "QUIC p50 ms", "TCP − QUIC ms"], rows))


def chain_table(lab, rtt_ms, group, results, profiles, sent, md_table):
    """Certificates alone, as chains and as chains both ways over QUIC."""
    rows = []
    for r in results:
        ok = r["status"] == "ok"
        echo, counted = r.get("echo_p50_ms"), r.get("rounds_lower_bound")
        rows.append([r["sig"], sent(r), r["cert_der"], r["server_flight"],
                     f"{r['first_round_bytes']} / {_f(r.get('server_first_out'), 'd')}",
                     f"{r['flight_bytes']} / {_f(r.get('server_flight_out'), 'd')}",
                     f"{r['rounds'] - 1} / {_f(counted - 1 if counted else None, 'd')}",
                     f"{r['model_ms']:.1f}", _f(r.get("p50_ms"), ".1f") if ok else "failed",
                     _f(rounds_timed(r), ".2f"),
                     _f((echo - r["p50_ms"]) / rtt_ms - 1 if echo and ok else None, ".2f")])
    rows += [[p["sig"], sent(p)] + ["unavailable"] + ["–"] * 7 + [p["reason"]]
             for p in profiles if p["status"] != "ok"]
    lab.section(f"Certificate chains over QUIC ({group}, RTT {rtt_ms:g} ms)",
                "The same certificates, chains (leaf and intermediate CA of the same algorithm) and chains both "
                "ways as the TCP table, over QUIC. The server's first round: what the model lets it send before "
                f"the client answers ({AMPLIFICATION}× the client's Initials, at most the {INITIAL_CWND}-byte "
                "initial window) and what it sent, counted at its socket; its whole flight, modelled and sent. "
                "Extra round trips: the model's, and at least this many by count. With chains both ways the "
                "client's flight meets its own congestion window and OpenSSL's 16 KiB CRYPTO send buffer (a "
                "client is never bound by the anti-amplification limit): a larger flight holds the client's "
                "Finished back a round trip, which the model counts. The last column is the extra round trips "
                "of the first application byte's echo beyond its own, as in the TCP table.\n\n" +
                md_table(["certificate", "sent", "certificates DER B", "TLS server flight B",
                          "first round B: model / sent", "flight B: model / sent", "extra RTT: model / counted ≥",
                          "model ms", "p50 ms", "round trips timed", "client flight extra RTT"], rows))


def extra_rtt_plot(lab, predicted, measured, fname):
    """Extra round trips by the bytes of certificates sent, TCP and QUIC:
    the model on every KpqC signature of the table (leaf, and leaf +
    intermediate), and the measured chains where a run had them."""
    from .plots import plt
    fig, ax = plt.subplots(figsize=(9, 5))
    styles = {"tcp": ("#1f77b4", -0.06), "quic": ("#d62728", 0.06)}
    for transport, (color, dy) in styles.items():
        col = {"tcp": (6, 10), "quic": (7, 11)}[transport]
        xs, ys = [], []
        for row in predicted:
            cert = row[8] - row[4]  # a chain's flight carries one certificate more than a leaf's
            xs += [cert, 2 * cert]
            ys += [row[col[0]] + dy, row[col[1]] + dy]
        ax.scatter(xs, ys, s=18, color=color, label=f"{transport.upper()} model (every KpqC signature, ECDSA, ML-DSA)")
        pts = [(r["cert_der"], rounds_timed(r) - (2 if transport == "tcp" else 1)) for r in measured
               if r.get("transport") == transport and r.get("status") == "ok" and not r.get("mutual")]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=60, facecolors="none", edgecolors=color,
                       label=f"{transport.upper()} measured ((p50 − CPU − serialisation) / RTT − base)")
    ax.set_xscale("log")
    ax.set_xlabel("certificates sent (DER bytes; leaf, or leaf + intermediate)")
    ax.set_ylabel("round trips beyond the transport's least (TCP+TLS 2, QUIC 1)")
    ax.set_title("Extra round trips by certificate size: TCP initial window vs QUIC anti-amplification")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(lab.dir / fname, dpi=110)
    plt.close(fig)
    lab.plots.append(fname)
