"""QUIC across the network suite's link: the link carries UDP datagrams
whole, delayed and counted; a QUIC handshake with a KpqC hybrid group and a
KpqC certificate completes; a server flight above the anti-amplification
budget takes a round more than a small one, by count at the server's
socket; `kpqc-bench network --transport` reports both transports.

Round trips are asserted from counts and from lower bounds on time (no
handshake is faster than the link's delay allows), never from how fast
something ran."""
import json
import socket
import subprocess
import sys
import threading
import time

import pytest

from test_network import ROOT, SO_RCVBUFFORCE, build, topo  # noqa: F401 (fixtures)

sys.path.insert(0, str(ROOT / "bench"))
from lab import netns, quic  # noqa: E402
from lab.link import Link, LinkConfig  # noqa: E402

PORT = 5302


def test_model_counts_the_amplification_budget_and_the_window():
    # One Initial: 3,600 bytes before the client answers, then the 12,000-byte window, which
    # the first round's acknowledgements do not grow (it was bound by the budget, not the window).
    assert quic.INITIAL_CWND == 12000
    small, large, over, huge = (quic.server_rounds(913, f)["round_bytes"] for f in (652, 15026, 15090, 40000))
    assert len(small) == 1 and small[0] <= 3600
    assert large[0] == 3600 and len(large) == 2
    assert over[:2] == [3600, 12000] and len(over) == 3   # 3,600 + 12,000 B exceeded by a few bytes
    # then at most OpenSSL's 16 KiB CRYPTO buffer (17,059 B of datagrams) a round, though the window is 24,000 B
    assert huge[:3] == [3600, 12000, 17059] and len(huge) == 4
    # A ClientHello in two Initials doubles the budget; one padded acknowledgement spends a third of it.
    two = quic.server_rounds(1425, 10103)
    assert two["initials"] == 2 and two["budget"] == 7200 and two["round_bytes"][0] == 7200
    assert quic.model(50, 0, 0.0, 249, 652, 0)["model_ms"] == 50
    assert quic.model(50, 0, 0.0, 913, 15026, 0)["rounds"] == 2
    assert quic.model(50, 0, 0.0, 913, 652, 1)["rounds"] == 2  # HelloRetryRequest
    # A client's own flight beyond OpenSSL's 16 KiB CRYPTO buffer holds its Finished back a round trip.
    assert (quic.client_wait_rtts(15000), quic.client_wait_rtts(23000)) == (0, 1)
    assert quic.model(50, 0, 0.0, 913, 652, 0, client_flight=23000)["rounds"] == 2


def udp_echo_run(topo, sizes, timeout=5.0):
    """Sends datagrams of `sizes` client -> server, the server echoes each;
    returns the sizes the server received, and each echo's round trip (ms)."""
    srv = netns.socket_in(topo.server, socket.AF_INET, socket.SOCK_DGRAM)
    cli = netns.socket_in(topo.client, socket.AF_INET, socket.SOCK_DGRAM)
    srv.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    srv.bind((topo.server_addr, PORT))
    srv.settimeout(timeout)
    cli.settimeout(timeout)
    got = []

    def echo():
        for _ in sizes:
            try:
                data, peer = srv.recvfrom(65536)
            except socket.timeout:
                return
            got.append(len(data))
            srv.sendto(data, peer)

    t = threading.Thread(target=echo)
    t.start()
    rtts = []
    for i, n in enumerate(sizes):
        t0 = time.monotonic()
        cli.sendto(i.to_bytes(4, "big") + bytes(n - 4), (topo.server_addr, PORT))
        back = cli.recv(65536)
        rtts.append((time.monotonic() - t0) * 1e3)
        assert len(back) == n and int.from_bytes(back[:4], "big") == i
    t.join(timeout=timeout)
    srv.close()
    cli.close()
    return got, rtts


def test_link_carries_udp_datagrams_whole_and_delayed(build, topo):
    """QUIC's datagrams (1,200 bytes, up to the MTU) cross whole and one
    each, after the configured delay; the emulator counts each."""
    sizes = [4, 64, 1200, 1472, 1200, 500] * 5  # 1,472: a 1,500-byte IPv4 packet
    with Link(topo, LinkConfig(rtt_ms=20), build) as link:
        got, rtts = udp_echo_run(topo, sizes)
    assert got == sizes, "datagrams split, merged, lost or reordered"
    assert min(rtts) >= 20, rtts
    if link.stats:  # the emulator: exactly these packets each way, at their IP size
        for d in ("a2b", "b2a"):
            assert link.stats[d]["forwarded"] == len(sizes) and link.stats[d]["lost"] == 0, link.stats
            assert link.stats[d]["forwarded_bytes"] == sum(sizes) + 28 * len(sizes), link.stats


def quic_run(build, lab, topo, group, sig, count=3, extra=()):
    out = subprocess.run(lab.env_cmd + [str(build / "bench" / "kpqc-handshake"), "quic", "--group", group, "--sig", sig,
                                        "--count", str(count), "--server-netns", topo.server, "--client-netns",
                                        topo.client, "--address", topo.server_addr, "--timeout-ms", "5000", *extra],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    client = [r for r in recs if r["mode"] == "quic"]
    served = [r for r in recs if r["mode"] == "served"][1:]  # after the warm-up
    assert len(client) == count and all(r["ok"] for r in client), client
    assert len(served) == count and all(r["ok"] and r["handshake"] for r in served), served
    for r in served:  # never more than three times what the client's first flight brought (RFC 9000 §8.1)
        assert 1200 <= r["first_in"] and 0 < r["first_out"] <= 3 * r["first_in"], r
    return client, served


def test_quic_handshake_with_kpqc_group_and_certificate(build, lab, topo):
    rtt = 20.0
    with Link(topo, LinkConfig(rtt_ms=rtt), build):
        client, served = quic_run(build, lab, topo, "x25519_smaugt1", "haetae2")
        mutual, _ = quic_run(build, lab, topo, "x25519_smaugt1", "haetae2", count=2, extra=("--mutual", "--chain"))
    for r in client + mutual:
        assert (r["negotiated"], r["peer_sig"]) == ("x25519_smaugt1", "haetae2"), r
        assert r["hs_ns"] / 1e6 >= rtt and r["dgrams_out"] >= 1 and r["dgrams_in"] >= 1
        assert r["bytes_out"] >= 1200  # the ClientHello's Initial, padded
    for r in served:  # what the server sent in Initial and Handshake packets reached the client
        assert r["flight_out"] >= 5000


def test_flight_above_the_amplification_budget_costs_a_round_trip(build, lab, topo):
    """X25519 / ECDSA P-256's flight (~0.7 kB) goes out whole after one
    Initial; aimer128f's (~15 kB) stops at 3 x 1,200 bytes and the rest
    waits for the client's answer: a round trip more, by count at the
    server's socket, and at least two round trips of the client's time."""
    rtt = 20.0
    with Link(topo, LinkConfig(rtt_ms=rtt), build):
        # more handshakes than the server keeps client sockets apart: each is still counted as its own
        small_c, small = quic_run(build, lab, topo, "X25519", "EC:P-256", count=40)
        large_c, large = quic_run(build, lab, topo, "x25519_smaugt1", "aimer128f")
    assert all(r["flight_out"] == r["first_out"] for r in small), small          # one round
    assert all(r["first_out"] <= 3600 < r["flight_out"] for r in large), large   # the budget, then a round more
    assert all(r["hs_ns"] / 1e6 >= rtt for r in small_c) and all(r["hs_ns"] / 1e6 >= 2 * rtt for r in large_c)
    assert (quic.model(rtt, 0, 0, 249, 652, 0)["rounds"], quic.model(rtt, 0, 0, 913, 15026, 0)["rounds"]) == (1, 2)


def test_network_suite_reports_both_transports(build, tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(build),
                        "--out", str(out), "network", "--transport", "both", "--rtts", "20", "--loss", "0",
                        "--rates", "100", "--count", "3", "--cpu-count", "5", "--chain-rtt", "0",
                        "--algorithms", "X25519/EC:P-256,x25519_smaugt1/no-such-signature"],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [x for x in json.loads((out / "summary.json").read_text())["rows"] if x["suite"] == "network"]
    by = {(x["transport"], x["group"], x["sig"]): x for x in rows}
    assert set(by) == {(t, g, s) for t in ("tcp", "quic")
                       for g, s in (("X25519", "EC:P-256"), ("x25519_smaugt1", "no-such-signature"))}
    for t, rounds in (("tcp", 2), ("quic", 1)):
        row = by[(t, "X25519", "EC:P-256")]
        assert row["status"] == "ok" and row["completed"] == 3 and row["rounds"] == rounds
        assert row["rtt_ms"] == 20 and row["p95_ms"] >= row["p50_ms"] >= rounds * 20
        assert by[(t, "x25519_smaugt1", "no-such-signature")]["status"] == "unavailable"
    assert by[("quic", "X25519", "EC:P-256")]["rounds_lower_bound"] == 1
    report = (out / "report.md").read_text()
    assert "QUIC handshakes over the emulated link" in report and "TCP+TLS and QUIC side by side" in report
    assert (out / "network_extra_rtts.png").exists()
