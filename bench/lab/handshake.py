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
import socket
import subprocess
import time

import numpy as np

from . import callgrind, plots
from .results import md_table
from .stats import fmt_ratio, interleave, no_measurable_difference, over_rounds, summarize
from .timekeeping import MachineLoad

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


# The named baselines of each level, classical group then NIST hybrid: every
# ratio of the handshake tables is to one of these, measured in the same
# rounds.  Certificate tables compare with SIGS of the level (ECDSA, ML-DSA).
BASELINES = {1: ["X25519", "X25519MLKEM768"], 3: ["X448", "SecP256r1MLKEM768"],
             5: ["secp521r1", "SecP384r1MLKEM1024"]}


def add_arguments(p):
    p.add_argument("--count", type=int, default=20, help="handshakes per configuration in each round")
    p.add_argument("--rounds", type=int, default=30,
                   help="interleaved rounds; medians and ratio intervals are over rounds")
    p.add_argument("--levels", default="1,3,5")
    p.add_argument("--groups", default="", help="only these groups (the level's baselines are always measured)")
    p.add_argument("--sigs", default="",
                   help="certificate key types, compared with ECDSA and ML-DSA of the level "
                        "(default: ECDSA only, as the paper)")
    p.add_argument("--mutual", action="store_true")
    p.add_argument("--tcp", action="store_true", help="also over loopback TCP and with concurrent clients")
    p.add_argument("--no-instructions", action="store_true", help="skip the instruction counts (callgrind)")


def inproc(lab, group, sig, count, mutual=False, heap=False, chain=False):
    argv = [lab.build.handshake, "inproc", "--group", group, "--sig", sig, "--count", str(count)]
    argv += (["--mutual"] if mutual else []) + (["--chain"] if chain else [])
    recs = lab.build.run_json(argv, env={} if heap else {"KPQC_NO_HEAP": "1"})
    setup = recs[0]
    hs = [r for r in recs if r.get("mode") == "inproc"]
    for r in hs:
        lab.raw("handshake", dict(r, sig=sig, heap=heap))
    return setup, hs


def instructions(lab, group, sig, mutual=False):
    """Instructions per in-process handshake (callgrind, set-up cancelled)."""
    def argv(n):
        return [lab.build.handshake, "inproc", "--group", group, "--sig", sig, "--count", str(n)] + \
            (["--mutual"] if mutual else [])
    return callgrind.per_repetition(lab.build, argv, env={"KPQC_NO_HEAP": "1"})


def compare(lab, configs, baselines_of, rounds, count, mutual=False, count_instructions=True, suite="handshake"):
    """Measures configurations (level, group, sig) in paired, interleaved
    rounds; returns {config: summary row} with each row's ratio_to its
    baselines (baselines_of(config) -> {name: config}), and the noise."""
    shape, unavailable = {}, set()
    for i, key in enumerate(configs):  # bytes and heap, and whether this build has the configuration
        lab.progress(f"{suite} set-up", i, len(configs), f"{key[1]} / {key[2]}")
        try:
            shape[key] = inproc(lab, key[1], key[2], 3, mutual, heap=True)
        except RuntimeError:
            unavailable.add(key)
    lab.progress(f"{suite} set-up", len(configs), len(configs))
    measured = [k for k in configs if k not in unavailable]

    def block(key):
        return float(np.median([r["ns"] for r in inproc(lab, key[1], key[2], count, mutual)[1]]))

    with MachineLoad() as load:
        per_round = interleave(measured, block, rounds, progress=lambda d, t, w: lab.progress(suite, d, t, w))
    results = {}
    for i, key in enumerate(measured):
        lvl, g, sig = key
        bases = {name: b for name, b in baselines_of(key).items() if b in per_round}
        st = over_rounds({k: per_round[k] for k in [key] + list(bases.values())}, bases)[key]
        s = summarize(per_round[key])
        ir = None
        if count_instructions and callgrind.available():
            lab.progress(f"{suite} instructions", i, len(measured), f"{g} / {sig}")
            ir = instructions(lab, g, sig, mutual)
        setup, heap = shape[key]
        flights = heap[-1]["flights"]
        results[key] = lab.row(suite, level=lvl, group=g, family=family(g), sig=sig, mutual=mutual, rounds=rounds,
                               count_per_round=count, median_ns=st["median"], ci_low_ns=s["ci_low"],
                               ci_high_ns=s["ci_high"], ratio_to=st["ratio_to"], split_half=st["split_half"],
                               instructions=ir, bytes_total=heap[-1]["bytes"], client_hello=flights[0],
                               server_flight=flights[1] if len(flights) > 1 else 0, hrr=heap[-1]["hrr"],
                               heap_peak=heap[-1]["heap_peak"], allocs=heap[-1]["allocs"],
                               cert_der=setup["cert_der"], **{f"noise_{k}": v for k, v in load.result.items()})
    if count_instructions and callgrind.available():
        lab.progress(f"{suite} instructions", len(measured), len(measured))
    return results, sorted(f"{g} / {s}" for _, g, s in unavailable), load


def verdict(ratio):
    if ratio is None:
        return "–"
    if no_measurable_difference(ratio):
        return "no measurable difference"
    m = ratio["median"]
    return f"{(1 - m) * 100:.0f} % faster" if m < 1 else f"{(m - 1) * 100:.0f} % slower"


def ranked(results, names, lead_of):
    """Rows ranked by their ratio to the last baseline; rows with no
    measurable difference after them, unranked, and the baselines last."""
    def rank(r):
        ratio = r["ratio_to"].get(names[-1])
        tie = ratio is None or no_measurable_difference(ratio)
        return (lead_of(r) in names, tie, ratio["median"] if ratio and not tie else 0)
    return sorted(results, key=rank)


def ratio_table(results, names, lead, lead_of):
    """Markdown rows of one comparison: the row's median, its ratio to each
    named baseline with the interval, a verdict against the last baseline,
    instructions."""
    rows, halves = [], []
    for r in ranked(results, names, lead_of):
        base = r["ratio_to"].get(names[-1])
        ir, ir_base = r["instructions"], next((x["instructions"] for x in results if lead_of(x) == names[-1]), None)
        rows.append([lead_of(r), r["family"] if lead == "group" else r["group"], f"{r['median_ns'] / 1e3:.0f}"] +
                    ["baseline" if lead_of(r) == n else fmt_ratio(r["ratio_to"].get(n)) for n in names] +
                    ["baseline" if lead_of(r) == names[-1] else verdict(base)] +
                    [f"{ir / 1e6:.2f}" if ir else "–", f"{ir / ir_base:.3f}" if ir and ir_base else "–"])
        for n in names:
            if r["split_half"].get(n) and lead_of(r) != n:
                halves.append(abs(r["split_half"][n][0] - r["split_half"][n][1]))
    header = [lead, "family" if lead == "group" else "group", "median µs"] + \
        [f"ratio to {n} [95 % CI]" for n in names] + [f"vs {names[-1]}", "M instructions", f"instr. vs {names[-1]}"]
    agreement = (f"Split-half agreement: the median ratio from even rounds and from odd rounds differ by "
                 f"{np.median(halves):.3f} (median) and {max(halves):.3f} (largest) over the rows."
                 if halves else "")
    return md_table(header, rows), agreement


def report(lab, title, results, names_of, lead, lead_of, unavailable, load):
    scopes = {}
    for r in results.values():
        scopes.setdefault((r["level"], r["sig"] if lead == "group" else r["group"]), []).append(r)
    for (lvl, fixed), rs in sorted(scopes.items()):
        names = names_of(lvl, fixed)
        table, agreement = ratio_table(rs, names, lead, lead_of)
        r0 = rs[0]
        fixed_slug = "".join(c if c.isalnum() else "_" for c in fixed)
        lab.section(f"Level {lvl}: {title} ({fixed}; ratio to {' and '.join(names)})",
                    table + f"\n\n{r0['rounds']} interleaved rounds of {r0['count_per_round']} handshakes per "
                    "configuration; median µs and ratios are medians over rounds (a ratio pairs two configurations "
                    "of the same round), 95 % CI by bootstrap over rounds; 'no measurable difference' when the "
                    "interval contains 1. Instructions per handshake: callgrind, difference of a 6- and a "
                    f"1-handshake run. {agreement} Noise: {load.summary()}." +
                    ("\n\nNot measured (not in this build): " + "; ".join(unavailable) if unavailable else ""))
        plots.ratio_forest(lab, f"{r0['suite']}_L{lvl}_{fixed_slug}.png", ranked(rs, names, lead_of), names, lead_of,
                           f"Level {lvl}: {title} ({fixed})")


def run(args, lab, count=None, levels=None, sigs=None, tcp=None):
    count = count or args.count
    levels = levels or [int(x) for x in args.levels.split(",")]
    rounds = getattr(args, "rounds", 30)
    count_ir = not getattr(args, "no_instructions", False)
    only = {g.lower() for g in getattr(args, "groups", "").split(",") if g}
    have = available_groups(lab.build)
    configs, cert_configs = [], []
    for lvl in levels:
        groups = [g for g in GROUPS[lvl] if g.lower() in have and (not only or g.lower() in only or g in BASELINES[lvl])]
        configs += [(lvl, g, SIGS[lvl][0]) for g in groups]
        wanted = sigs.get(lvl, []) if isinstance(sigs, dict) else (args.sigs.split(",") if args.sigs else [])
        if wanted:  # the certificate comparison: the level's NIST hybrid, every certificate type
            cert_configs += [(lvl, BASELINES[lvl][-1], s) for s in dict.fromkeys(SIGS[lvl] + wanted)]
    results, unavailable, load = compare(lab, configs, lambda k: {g: (k[0], g, k[2]) for g in BASELINES[k[0]]},
                                         rounds, count, args.mutual, count_ir)
    report(lab, "TLS 1.3 handshake in one process", results, lambda lvl, _: BASELINES[lvl], "group",
           lambda r: r["group"], unavailable, load)
    if cert_configs:
        certs, unavailable, load = compare(lab, cert_configs, lambda k: {s: (k[0], k[1], s) for s in SIGS[k[0]]},
                                           rounds, count, args.mutual, count_ir, suite="handshake_certs")
        report(lab, "TLS 1.3 handshake in one process by certificate", certs, lambda lvl, _: SIGS[lvl], "certificate",
               lambda r: r["sig"], unavailable, load)
        results.update(certs)
    wire_rows = [[r["level"], g, sig, r["client_hello"], r["server_flight"], r["bytes_total"], r["hrr"]]
                 for (_, g, sig), r in sorted(results.items(), key=lambda kv: (kv[1]["level"], kv[1]["bytes_total"]))]
    lab.section("Bytes on the wire per handshake (TLS records, both directions)",
                md_table(["level", "group", "certificate", "ClientHello flight", "server flight", "total", "HRR"], wire_rows))
    mem_rows = [[r["level"], g, sig, f"{r['heap_peak'] / 1024:.0f}", r["allocs"]]
                for (_, g, sig), r in sorted(results.items(), key=lambda kv: (kv[1]["level"], kv[1]["heap_peak"]))]
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
