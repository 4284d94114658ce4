"""Suite `handshake`: full TLS 1.3 handshakes with certificate verification,
in one process over memory buffers (the cryptographic cost), and with
--tcp over loopback TCP between two processes (latency) and with concurrent
clients (handshakes/s); bytes per flight and heap use per handshake.
Every comparison is measured in paired, interleaved rounds and reported as
ratios to the named baselines of the level (BASELINES; certificates: SIGS),
beside instructions per handshake (callgrind).
"""
import subprocess

import numpy as np

from . import algorithms, callgrind, plots
from .results import md_table
from .stats import agreement, fmt_ratio, interleave, no_measurable_difference, over_rounds, summarize
from .timekeeping import MachineLoad

# OpenSSL's own groups of each level (classical and NIST PQC); the KpqC
# groups of the level come from the algorithm table (groups()).
OPENSSL_GROUPS = {1: ["X25519", "secp256r1", "MLKEM512", "X25519MLKEM768"],
                  3: ["secp384r1", "X448", "MLKEM768", "SecP256r1MLKEM768"],
                  5: ["secp521r1", "MLKEM1024", "SecP384r1MLKEM1024"]}


def kpqc_groups(level):
    """The table's KpqC hybrid and pure groups of a level."""
    return algorithms.names("hybrids", level) + algorithms.names("kems", level)


def groups(level):
    return OPENSSL_GROUPS[level] + kpqc_groups(level)


SIGS = {1: ["EC:P-256", "ML-DSA-44"], 3: ["EC:P-384", "ML-DSA-65"], 5: ["EC:P-521", "ML-DSA-87"]}
def family(group):
    if group in algorithms.names("hybrids"):
        return "KpqC hybrid"
    if group in algorithms.names("kems"):
        return "KpqC"
    g = group.lower()
    if "mlkem" in g:
        return "ML-KEM hybrid" if any(c in g for c in ("x25519", "secp", "x448")) else "ML-KEM"
    return "ECDHE"


def available_groups(build):
    out = subprocess.run([build.openssl, "list", "-tls-groups", "-tls1_3"], capture_output=True, text=True)
    return {g.lower() for g in out.stdout.strip().split(":")}


PRESETS = {"quick": {"levels": "1", "rounds": 20, "count": 20, "tcp": True},
           "paper": {"levels": "1,3,5", "rounds": 40, "count": 20, "tcp": True, "sigs": "table"}}

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
                   help="certificate key types, compared with ECDSA and ML-DSA of the level in a table of their "
                        "own ('table': every pure and composite signature of the algorithm table at the level "
                        "whose signing suits many handshakes, i.e. not AIMer's s variants; default: none)")
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
    rows = []
    for r in ranked(results, names, lead_of):
        base = r["ratio_to"].get(names[-1])
        ir, ir_base = r["instructions"], next((x["instructions"] for x in results if lead_of(x) == names[-1]), None)
        rows.append([lead_of(r), r["family"] if lead == "group" else r["group"], f"{r['median_ns'] / 1e3:.0f}"] +
                    ["baseline" if lead_of(r) == n else fmt_ratio(r["ratio_to"].get(n)) for n in names] +
                    ["baseline" if lead_of(r) == names[-1] else verdict(base)] +
                    [f"{ir / 1e6:.2f}" if ir else "–", f"{ir / ir_base:.3f}" if ir and ir_base else "–"])
    header = [lead, "family" if lead == "group" else "group", "median µs"] + \
        [f"ratio to {n} [95 % CI]" for n in names] + [f"vs {names[-1]}", "M instructions", f"instr. vs {names[-1]}"]
    return md_table(header, rows), agreement(results)


def report(lab, title, results, names_of, lead, lead_of, unavailable, load):
    scopes = {}
    for r in results.values():
        scopes.setdefault((r["level"], r["sig"] if lead == "group" else r["group"]), []).append(r)
    for (lvl, fixed), rs in sorted(scopes.items()):
        names = names_of(lvl, fixed)
        table, split = ratio_table(rs, names, lead, lead_of)
        r0 = rs[0]
        fixed_slug = "".join(c if c.isalnum() else "_" for c in fixed)
        lab.section(f"Level {lvl}: {title} ({fixed}; ratio to {' and '.join(names)})",
                    table + f"\n\n{r0['rounds']} interleaved rounds of {r0['count_per_round']} handshakes per "
                    "configuration; median µs and ratios are medians over rounds (a ratio pairs two configurations "
                    "of the same round), 95 % CI by bootstrap over rounds; 'no measurable difference' when the "
                    "interval contains 1. Instructions per handshake: callgrind, difference of a 6- and a "
                    f"1-handshake run. {split} Noise: {load.summary()}." +
                    ("\n\nNot measured (not in this build): " + "; ".join(unavailable) if unavailable else ""))
        plots.ratio_forest(lab, f"{r0['suite']}_L{lvl}_{fixed_slug}.png", ranked(rs, names, lead_of), names, lead_of,
                           f"Level {lvl}: {title} ({fixed})")


def baseline_level(level):
    """The level whose baselines a row of this level is compared with: 1, 3
    or 5 (HAETAE2 and ML-DSA-44, level 2, with level 1)."""
    return max(lvl for lvl in SIGS if lvl <= level)


def table_sigs(level):
    """Signatures of the algorithm table compared at a level, pure and
    composite, without AIMer's s variants (tens of ms of signing per
    handshake)."""
    t = algorithms.table()
    family = {r["name"]: r["family"] for r in t["sigs"]}

    def slow(r):
        pure = r.get("sig", r["name"])  # a composite's KpqC half
        return family[pure] == "aimer" and pure.endswith("s")
    return [r["name"] for r in t["sigs"] + t["composites"] if baseline_level(r["level"]) == level and not slow(r)]


def run(args, lab):
    count, rounds = args.count, args.rounds
    levels = [int(x) for x in args.levels.split(",")]
    only = {g.lower() for g in args.groups.split(",") if g}
    have = available_groups(lab.build)
    configs, cert_configs = [], []
    for lvl in levels:
        level_groups = [g for g in groups(lvl) if g.lower() in have and
                        (not only or g.lower() in only or g in BASELINES[lvl])]
        configs += [(lvl, g, SIGS[lvl][0]) for g in level_groups]
        wanted = table_sigs(lvl) if args.sigs == "table" else [s for s in args.sigs.split(",") if s]
        if wanted:  # the certificate comparison: the level's NIST hybrid, every certificate type
            cert_configs += [(lvl, BASELINES[lvl][-1], s) for s in dict.fromkeys(SIGS[lvl] + wanted)]
    results, unavailable, load = compare(lab, configs, lambda k: {g: (k[0], g, k[2]) for g in BASELINES[k[0]]},
                                         rounds, count, args.mutual, not args.no_instructions)
    report(lab, "TLS 1.3 handshake in one process", results, lambda lvl, _: BASELINES[lvl], "group",
           lambda r: r["group"], unavailable, load)
    if cert_configs:
        certs, unavailable, load = compare(lab, cert_configs, lambda k: {s: (k[0], k[1], s) for s in SIGS[k[0]]},
                                           rounds, count, args.mutual, not args.no_instructions,
                                           suite="handshake_certs")
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
    if args.tcp:
        run_tcp(lab, [g for g in BASELINES[1] + algorithms.names("hybrids", 1) if g.lower() in have], count,
                max(5, rounds // 2))
    return results


def plot(lab, results):
    plots.handshake_by_group(lab, results)


def run_tcp(lab, groups, count, rounds):
    """Latency over loopback TCP and handshakes/s with 8 concurrent clients,
    each in paired, interleaved rounds, with ratios to the level-1 baselines."""
    def latency(g):
        seq = [r for r in lab.build.run_json([lab.build.handshake, "tcp", "--group", g, "--count", str(count)])
               if r.get("mode") == "tcp"]
        for r in seq:
            lab.raw("tcp", r)
        ok = [r["ns"] for r in seq if r["ok"]]
        return float(np.median(ok)) if ok else None

    def throughput(g):
        load = [r for r in lab.build.run_json([lab.build.handshake, "load", "--group", g, "--count", str(4 * count),
                                                "--clients", "8"]) if r.get("mode") == "load"][0]
        lab.raw("load", load)
        return load["per_second"] if not load["failures"] else None

    bases = {g: g for g in BASELINES[1]}
    with MachineLoad() as load:
        lat = over_rounds(interleave(groups, latency, rounds, progress=lambda d, t, w: lab.progress("tcp", d, t, w)),
                          bases)
        tput = over_rounds(interleave(groups, throughput, rounds, seed=2,
                                      progress=lambda d, t, w: lab.progress("load", d, t, w)), bases)
    rows = []
    for g in groups:
        a, b = lat[g], tput[g]
        lab.row("tcp", group=g, family=family(g), median_ns=a["median"], ratio_to=a["ratio_to"], rounds=rounds,
                per_second=b["median"], per_second_ratio_to=b["ratio_to"],
                **{f"noise_{k}": v for k, v in load.result.items()})
        rows.append([g, family(g), f"{a['median'] / 1e3:.0f}" if a["median"] else "–"] +
                    ["baseline" if g == n else fmt_ratio(a["ratio_to"].get(n)) for n in BASELINES[1]] +
                    [f"{b['median']:.0f}" if b["median"] else "–"] +
                    ["baseline" if g == n else fmt_ratio(b["ratio_to"].get(n)) for n in BASELINES[1]])
    names = BASELINES[1]
    lab.section("Over loopback TCP, two processes (ECDSA P-256 certificate)",
                md_table(["group", "family", "latency median µs"] + [f"latency ratio to {n}" for n in names] +
                         ["handshakes/s (8 clients)"] + [f"handshakes/s ratio to {n}" for n in names], rows) +
                f"\n\n{rounds} interleaved rounds of {count} sequential handshakes (latency) and of {4 * count} "
                "handshakes by 8 client processes against 2 server processes (throughput); ratios are medians of "
                f"per-round ratios with a bootstrap 95 % CI, '≈' when it contains 1. Latency: {agreement(lat.values())} "
                f"Throughput: {agreement(tput.values())} Noise: {load.summary()}.")
