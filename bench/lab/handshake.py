"""Suites `handshake`, `wire`, `mem` and `spawn`: full TLS 1.3 handshakes
with certificate verification.

handshake  in one process over memory buffers (the cryptographic cost),
           over loopback TCP between two processes (latency), and with
           concurrent clients (handshakes/s);
wire/mem   bytes per flight (HelloRetryRequest counted) and heap use, from
           the in-process runs with OpenSSL's memory hooks installed;
spawn      the source documents' method: one `openssl s_client` process per
           handshake, which mostly measures process start-up.
"""
import os
import random
import socket
import subprocess
import time

from .results import md_table
from .stats import summarize

# Level-matched sets: classical, NIST PQC (OpenSSL's own), KpqC hybrid and pure.
GROUPS = {
    1: ["X25519", "secp256r1", "MLKEM512", "X25519MLKEM768", "x25519_smaugt1", "p256_smaugt1", "x25519_timer",
        "x25519_ntruplus768", "p256_ntruplus768", "smaugt1", "ntruplus768"],
    3: ["secp384r1", "X448", "MLKEM768", "SecP256r1MLKEM768", "p384_smaugt3", "x448_smaugt3", "p384_ntruplus864",
        "x448_ntruplus864", "smaugt3", "ntruplus864"],
    5: ["secp521r1", "MLKEM1024", "SecP384r1MLKEM1024", "p521_smaugt5", "x448_smaugt5", "p521_ntruplus1152",
        "smaugt5", "ntruplus1152"],
}
SIGS = {1: ["EC:P-256", "ML-DSA-44"], 3: ["EC:P-384", "ML-DSA-65"], 5: ["EC:P-521", "ML-DSA-87"]}
# Level-matched certificates of the full report: NIST PQC, KpqC pure and composite.
PAPER_SIGS = {1: ["ML-DSA-44", "haetae2", "aimer128f", "p256_haetae2"], 3: ["ML-DSA-65", "haetae3", "aimer192s"],
              5: ["ML-DSA-87", "haetae5"]}


def family(group):
    g = group.lower()
    if "smaug" in g or "timer" in g or "ntruplus" in g:
        return "KpqC hybrid" if "_" in g else "KpqC"
    if "mlkem" in g:
        return "ML-KEM hybrid" if any(c in g for c in ("x25519", "secp", "x448")) else "ML-KEM"
    return "ECDHE"


def available_groups(build):
    out = subprocess.run([build.openssl, "list", "-tls-groups", "-tls1_3"], capture_output=True, text=True)
    return {g.lower() for g in out.stdout.strip().split(":")}


def add_arguments(p):
    p.add_argument("--count", type=int, default=500, help="handshakes per configuration")
    p.add_argument("--levels", default="1,3,5")
    p.add_argument("--sigs", default="", help="certificate key types (default: ECDSA per level, as the paper)")
    p.add_argument("--mutual", action="store_true")
    p.add_argument("--tcp", action="store_true", help="also over loopback TCP and with concurrent clients")


def inproc(lab, group, sig, count, mutual=False, heap=False, chain=False):
    argv = [lab.build.handshake, "inproc", "--group", group, "--sig", sig, "--count", str(count)]
    argv += (["--mutual"] if mutual else []) + (["--chain"] if chain else [])
    recs = lab.build.run_json(argv, env={} if heap else {"KPQC_NO_HEAP": "1"})
    setup = recs[0]
    hs = [r for r in recs if r.get("mode") == "inproc"]
    for r in hs:
        lab.raw("handshake", dict(r, sig=sig, heap=heap))
    return setup, hs


def run(args, lab, count=None, levels=None, sigs=None, tcp=None):
    count = count or args.count
    levels = levels or [int(x) for x in args.levels.split(",")]
    have = available_groups(lab.build)
    configs = []
    for lvl in levels:
        wanted = sigs.get(lvl, []) if isinstance(sigs, dict) else sigs  # per level, or the same for all
        for sig in (wanted or (args.sigs.split(",") if args.sigs else SIGS[lvl][:1])):
            configs += [(lvl, g, sig) for g in GROUPS[lvl] if g.lower() in have]
    random.Random(7).shuffle(configs)  # randomised order: drift spreads over all rows
    rows, results, unavailable = [], {}, set()
    for i, (lvl, g, sig) in enumerate(configs):
        lab.progress("handshake", i, len(configs), f"{g} / {sig}")
        try:
            setup, hs = inproc(lab, g, sig, count, args.mutual)
            _, heap = inproc(lab, g, sig, 20, args.mutual, heap=True)
        except RuntimeError:  # a certificate or group this build lacks
            unavailable.add(f"{g} / {sig}")
            continue
        s = summarize([r["ns"] for r in hs])
        flights = heap[-1]["flights"]
        r = lab.row("handshake", level=lvl, group=g, family=family(g), sig=sig, n=s["n"], median_ns=s["median"],
                    iqr_ns=s["iqr"], p95_ns=s["p95"], ci_low_ns=s["ci_low"], ci_high_ns=s["ci_high"],
                    bytes_total=heap[-1]["bytes"], client_hello=flights[0], server_flight=flights[1] if len(flights) > 1 else 0,
                    hrr=heap[-1]["hrr"], heap_peak=heap[-1]["heap_peak"], allocs=heap[-1]["allocs"],
                    cert_der=setup["cert_der"])
        results[(g, sig)] = r
    lab.progress("handshake", len(configs), len(configs))
    ecdhe = {}
    for (g, sig), r in results.items():
        if r["family"] == "ECDHE":
            ecdhe.setdefault((r["level"], sig), r["median_ns"])
    for (g, sig), r in sorted(results.items(), key=lambda kv: (kv[1]["level"], kv[1]["sig"], kv[1]["median_ns"])):
        base = ecdhe.get((r["level"], sig))
        rows.append([r["level"], g, r["family"], sig, f"{r['median_ns'] / 1e3:.0f}",
                     f"[{r['ci_low_ns'] / 1e3:.0f}, {r['ci_high_ns'] / 1e3:.0f}]", f"{r['p95_ns'] / 1e3:.0f}",
                     f"{r['median_ns'] / base:.2f}×" if base else "–"])
    lab.section("TLS 1.3 handshake, in one process (µs; full handshake, certificate verified, no resumption)",
                md_table(["level", "group", "family", "certificate", "median µs", "95 % CI", "p95 µs", "vs ECDHE"], rows) +
                ("\n\nNot measured (not in this build): " + "; ".join(sorted(unavailable)) if unavailable else ""))
    wire_rows = [[r["level"], g, sig, r["client_hello"], r["server_flight"], r["bytes_total"], r["hrr"]]
                 for (g, sig), r in sorted(results.items(), key=lambda kv: (kv[1]["level"], kv[1]["bytes_total"]))]
    lab.section("Bytes on the wire per handshake (TLS records, both directions)",
                md_table(["level", "group", "certificate", "ClientHello flight", "server flight", "total", "HRR"], wire_rows))
    mem_rows = [[r["level"], g, sig, f"{r['heap_peak'] / 1024:.0f}", r["allocs"]]
                for (g, sig), r in sorted(results.items(), key=lambda kv: (kv[1]["level"], kv[1]["heap_peak"]))]
    lab.section("Heap per handshake (client and server together, OpenSSL's allocations)",
                md_table(["level", "group", "certificate", "peak KiB", "allocations"], mem_rows))
    if tcp if tcp is not None else args.tcp:
        run_tcp(lab, [g for g in GROUPS[levels[0]] if g.lower() in have][:6], count)
    return results


def run_tcp(lab, groups, count):
    rows = []
    for i, g in enumerate(groups):
        lab.progress("tcp", i, len(groups), g)
        seq = lab.build.run_json([lab.build.handshake, "tcp", "--group", g, "--count", str(count)])
        seq = [r for r in seq if r.get("mode") == "tcp"]
        for r in seq:
            lab.raw("tcp", r)
        s = summarize([r["ns"] for r in seq if r["ok"]])
        load = [r for r in lab.build.run_json([lab.build.handshake, "load", "--group", g, "--count", str(4 * count),
                                                "--clients", "8"]) if r.get("mode") == "load"][0]
        lab.raw("load", load)
        lab.row("tcp", group=g, family=family(g), median_ns=s["median"], p95_ns=s["p95"], n=s["n"],
                per_second=load["per_second"], failures=load["failures"])
        rows.append([g, family(g), f"{s['median'] / 1e3:.0f}", f"{s['p95'] / 1e3:.0f}", f"{load['per_second']:.0f}",
                     load["failures"]])
    lab.progress("tcp", len(groups), len(groups))
    lab.section("Over loopback TCP, two processes (ECDSA P-256 certificate)",
                md_table(["group", "family", "latency median µs", "p95 µs", "handshakes/s (8 clients, 2 server processes)",
                          "failures"], rows))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(lab, groups, count):
    """One `openssl s_client` process per handshake against `openssl s_server`,
    as the source documents measured; wall time per process."""
    cert, key = lab.dir / "spawn-cert.pem", lab.dir / "spawn-key.pem"
    subprocess.run([lab.build.openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-keyout", str(key), "-out", str(cert), "-days", "1", "-nodes", "-subj", "/CN=localhost"],
                   capture_output=True, check=True)
    out = {}
    for i, g in enumerate(groups):
        lab.progress("spawn", i, len(groups), g)
        port = _free_port()
        server = subprocess.Popen([lab.build.openssl, "s_server", "-accept", f"127.0.0.1:{port}", "-cert", str(cert),
                                   "-key", str(key), "-tls1_3", "-www", "-groups", g, "-naccept", str(count + 1)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        line = server.stdout.readline()
        while line and "ACCEPT" not in line:
            line = server.stdout.readline()
        times = []
        try:
            for n in range(count + 1):
                t0 = time.perf_counter()
                r = subprocess.run([lab.build.openssl, "s_client", "-connect", f"127.0.0.1:{port}", "-tls1_3",
                                    "-groups", g, "-brief"], input=b"\n", capture_output=True, timeout=30)
                dt = time.perf_counter() - t0
                # `echo | s_client`, as the shell loops did: one line makes
                # s_client complete the handshake, end of input closes it.
                if n > 0 and b"CONNECTION ESTABLISHED" in r.stdout + r.stderr:
                    times.append(dt * 1e9)
        finally:
            server.kill()
            server.wait()
        for t in times:
            lab.raw("spawn", {"group": g, "ns": t})
        s = summarize(times)
        if not times:
            lab.row("spawn", group=g, family=family(g), n=0)
            continue
        lab.row("spawn", group=g, family=family(g), n=s["n"], median_ns=s["median"], p95_ns=s["p95"])
        out[g] = s
    lab.progress("spawn", len(groups), len(groups))
    return out
