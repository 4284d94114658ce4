"""Suite `mqtt`: a real Mosquitto broker with mutual TLS 1.3 on KpqC and NIST PQC.

The published MQTT benchmark (bench/published/mqtt_pqc.csv) ran one broker
with one listener per server-certificate algorithm (ECDSA-P256, ML-DSA-44,
-65, -87), every key exchange allowed on every listener and chosen by the
client, 30 connections per combination.  This suite does the same on
loopback and adds a listener for each HAETAE level, AIMer128f and the P-256
composite; a listener whose algorithm kpqcprovider does not offer in this
build is reported as unavailable.  Key exchanges: X25519, MLKEM512/768/1024,
X25519MLKEM768 and every KpqC pure and hybrid group the provider offers.

How the broker runs on OpenSSL 3.5 + kpqcprovider (lab/mqtt_broker.py):
Debian's mosquitto, started through the build's `kpqc-env` (LD_LIBRARY_PATH
to the private libssl.so.3/libcrypto.so.3 of OpenSSL 3.5, OPENSSL_MODULES,
OPENSSL_CONF).  mosquitto.conf sets `tls_version tlsv1.3`, `ciphers_tls1.3`,
`require_certificate true` and a per-listener cafile; mosquitto has no
setting for groups, so the broker's accepted groups are the `Groups =` line
of its own generated openssl.cnf (system_default section).  Clients:
bench/src/kpqc-mqtt.c (MQTT 3.1.1 over the same OpenSSL, one group per
connection, per-phase timing).  Debian's mosquitto_pub/mosquitto_sub and
paho-mqtt (CPython's ssl links libssl.so.3 too) work the same way as the
broker, each with its own openssl.cnf naming the group to offer; see
tests/integration/test_mqtt.py.

Every client certificate is of the listener's algorithm and issued by its
CA.  Also checked on every listener: an unknown group, no client
certificate, a client certificate from another CA and an expired one are
refused with a reason, and the broker keeps serving afterwards.
"""
import collections
import csv
import json
import pathlib
import random
import socket
import subprocess
import time

from . import algorithms, plots
from .handshake import available_groups, family
from .mqtt_broker import Broker, BrokerError
from . import control, mqtt_remote
from .mqtt_pki import Pki, PkiError, der_size, offered_signatures, prepare_listeners, wanted_listeners
from .results import md_table
from .stats import summarize

NIST_GROUPS = ["X25519", "MLKEM512", "MLKEM768", "MLKEM1024", "X25519MLKEM768"]
FAMILY_ORDER = ["ECDHE", "ML-KEM", "ML-KEM hybrid", "KpqC", "KpqC hybrid"]
PLOTTED_GROUPS = ["X25519", "MLKEM768", "X25519MLKEM768", "x25519_smaugt1", "x25519_ntruplus768"]
UNKNOWN_GROUP = "x25519_smaugt9"  # no such parameter set


PRESETS = {"paper": {}}


def add_arguments(p):
    p.add_argument("--iterations", type=int, default=30, help="connections per key exchange and certificate")
    p.add_argument("--quick", action="store_true", help="5 connections per combination")
    p.add_argument("--groups", default="", help="comma-separated key exchanges (default: all, see above)")
    p.add_argument("--sigs", default="", help="comma-separated listener algorithms (default: all)")
    p.add_argument("--qos", type=int, default=1, choices=(0, 1))
    p.add_argument("--payload", type=int, default=64, help="PUBLISH payload bytes")
    p.add_argument("--timeout-ms", type=int, default=10000, help="per socket operation")
    p.add_argument("--remote", metavar="HOST:PORT", help="against the broker of a `kpqc-bench serve` agent there")
    p.add_argument("--token", default="", help="the agent's token (with --remote)")
    p.add_argument("--fingerprint", default="", help="the agent's certificate fingerprint, as it printed (with --remote)")


def client_binary(build_dir):
    return pathlib.Path(build_dir) / "bench" / "kpqc-mqtt"


def run_client(build_dir, port, group, ca, client=None, count=1, qos=1, payload=64, timeout_ms=10000,
               host="127.0.0.1"):
    """Runs kpqc-mqtt: `count` connections; returns its JSON records (a setup
    failure or a crash becomes one record with ok false and the reason)."""
    build_dir = pathlib.Path(build_dir)
    argv = [str(build_dir / "kpqc-env"), str(client_binary(build_dir)), "--host", host, "--port", str(port),
            "--group", group,
            "--ca", str(ca), "--count", str(count), "--qos", str(qos), "--payload", str(payload),
            "--timeout-ms", str(timeout_ms)]
    if client is not None:
        argv += ["--cert", str(client[0]), "--key", str(client[1])]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=count * 3 * timeout_ms / 1000 + 30)
    except subprocess.TimeoutExpired:
        return [{"mode": "setup", "ok": False, "error": "client timed out"}]
    recs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if not recs:
        recs = [{"mode": "setup", "ok": False, "error": f"kpqc-mqtt exit {r.returncode}: {r.stderr.strip()[-300:]}"}]
    return recs


def kex_groups(build, table, wanted=""):
    have = available_groups(build)
    names = NIST_GROUPS + [k["name"] for k in table["kems"]] + [h["name"] for h in table["hybrids"]]
    if wanted:
        names = [g.strip() for g in wanted.split(",") if g.strip()]
    groups = [g for g in names if g.lower() in have]
    return sorted(groups, key=lambda g: (FAMILY_ORDER.index(family(g)), names.index(g)))


def connection_type(group, alg):
    """classical / pure PQC / hybrid, as the published table; `mixed` when
    one side is classical and the other post-quantum."""
    kex = family(group)
    if "hybrid" in kex or alg.kind == "hybrid":
        return "hybrid"
    if kex == "ECDHE":
        return "classical" if alg.kind == "classical" else "mixed"
    return "pure PQC" if alg.kind == "pure PQC" else "mixed"


def _ms(s, key="mean"):
    return f"{s[key] / 1e6:.2f}" if s.get("n") else "–"


def measure(lab, args, broker, listeners, groups, iterations):
    configs = [(name, g) for name in listeners for g in groups]
    random.Random(7).shuffle(configs)  # drift spreads over all rows
    results = {}
    for i, (name, g) in enumerate(configs):
        lab.progress("mqtt", i, len(configs), f"{g} / {name}")
        files = listeners[name]
        recs = run_client(lab.build.dir, broker.ports[name], g, files["ca"][0], files["client"], iterations,
                          args.qos, args.payload, args.timeout_ms, broker.host)
        good, errors = [], collections.Counter()
        for r in recs:
            lab.raw("mqtt", dict(r, kex=g, sig=name))
            if r.get("ok") and r.get("group", "").lower() == g.lower():
                good.append(r)
            elif r.get("ok"):
                errors[f"negotiated {r.get('group')} instead"] += 1
            else:
                errors[r.get("error", "failed")] += 1
        tls = summarize([r["tls_ns"] for r in good])
        connack = summarize([r["tcp_ns"] + r["tls_ns"] + r["connack_ns"] for r in good])
        rtt = summarize([r["roundtrip_ns"] for r in good])
        row = lab.row("mqtt", kex=g, kex_family=family(g), sig=name, type=connection_type(g, files["alg"]),
                      port=broker.ports[name], attempts=iterations, ok=len(good), success=len(good) / iterations,
                      tls_mean_ns=tls.get("mean"), tls_sd_ns=tls.get("sd"), tls_median_ns=tls.get("median"),
                      connack_mean_ns=connack.get("mean"), connack_sd_ns=connack.get("sd"),
                      connack_median_ns=connack.get("median"), roundtrip_median_ns=rtt.get("median"),
                      server_cert_der=good[0]["server_cert_der"] if good else None,
                      errors="; ".join(f"{n}× {e}" for e, n in errors.items()))
        results[(name, g)] = (row, tls, connack, rtt)
    lab.progress("mqtt", len(configs), len(configs))
    return results


def broker_reason(log):
    lines = [ln.split("]: ", 1)[-1] for ln in log.splitlines() if "OpenSSL Error" in ln]
    return " / ".join(dict.fromkeys(lines)) or "–"


def bad_configurations(lab, args, broker, pki, listeners, group):
    """Each must be refused with a reason; the broker must serve a good client right after."""
    rows = []
    for name, files in listeners.items():
        try:
            bad = pki.bad_clients(files["alg"], files["ca"])
        except PkiError as e:
            rows.append([name, "bad certificates", "not run", str(e), "–", "–"])
            continue
        cases = [("unknown group " + UNKNOWN_GROUP, UNKNOWN_GROUP, files["client"]),
                 ("no client certificate", group, None),
                 ("client certificate from another CA", group, bad["other CA"]),
                 ("expired client certificate", group, bad["expired"])]
        for case, g, client in cases:
            offset = broker.log_offset()
            recs = run_client(lab.build.dir, broker.ports[name], g, files["ca"][0], client, 1,
                              timeout_ms=args.timeout_ms)
            refused = not any(r.get("ok") for r in recs)
            reason = next((r.get("error") for r in recs if not r.get("ok")), "accepted")
            time.sleep(0.2)  # the broker logs after it has closed the connection
            server_side = broker_reason(broker.log_since(offset))
            after = run_client(lab.build.dir, broker.ports[name], group, files["ca"][0], files["client"], 1,
                               timeout_ms=args.timeout_ms)
            serving = broker.alive() and any(r.get("ok") for r in after)
            lab.row("mqtt_reject", sig=name, case=case, refused=refused, client_reason=reason,
                    broker_reason=server_side, broker_serving_after=serving)
            rows.append([name, case, "refused" if refused else "**ACCEPTED**", reason, server_side,
                         "yes" if serving else "**NO**"])
    return rows


def report(lab, broker, listeners, unavailable, groups, results, rejects, iterations, where="on loopback"):
    order = list(listeners)
    rows = []
    for (name, g), (row, tls, connack, rtt) in sorted(
            results.items(), key=lambda kv: (order.index(kv[0][0]), groups.index(kv[0][1]))):
        rows.append([g, name, row["type"], f"{100 * row['success']:.0f}%",
                     f"{_ms(tls)} ± {_ms(tls, 'sd')}" if tls.get("n") else "–", _ms(tls, "median"),
                     f"{_ms(connack)} ± {_ms(connack, 'sd')}" if connack.get("n") else "–",
                     f"{rtt['median'] / 1e3:.0f}" if rtt.get("n") else "–"])
    lab.section(f"MQTT over mutual TLS 1.3: Mosquitto {broker.version}, {iterations} connections per row",
                md_table(["key exchange", "signature", "type", "success", "TLS handshake ms (mean ± sd)",
                          "median ms", "TCP+TLS+CONNECT→CONNACK ms (mean ± sd)", "publish round trip µs (median)"],
                         rows) +
                "\n\nTLS handshake: client side, from ClientHello to the client's Finished (server certificate "
                "verified). In TLS 1.3 the broker checks the client certificate after that, so the second time "
                "(TCP connect, handshake, CONNECT until CONNACK) is the one that includes mutual authentication.")
    matrix = [[g] + [_ms(results[(n, g)][1], "median") if (n, g) in results else "–" for n in order] for g in groups]
    lab.section("Median TLS handshake (ms) by key exchange and listener certificate",
                md_table(["key exchange"] + order, matrix))
    lrows = []
    for name, files in listeners.items():
        lrows.append([broker.ports[name], name, "serving", der_size(files["ca"][0]), der_size(files["server"][0]),
                      der_size(files["client"][0])])
        lab.row("mqtt_listener", sig=name, port=broker.ports[name], status="serving",
                ca_der=der_size(files["ca"][0]), server_der=der_size(files["server"][0]),
                client_der=der_size(files["client"][0]))
    for name, why in unavailable.items():
        lrows.append(["–", name, f"**unavailable**: {why}", "–", "–", "–"])
        lab.row("mqtt_listener", sig=name, status="unavailable", reason=why)
    lab.section("Broker listeners (one server-certificate algorithm each) and certificate sizes (DER bytes)",
                md_table(["port", "signature", "status", "CA", "server", "client"], lrows))
    lab.section("Refused configurations (the broker must refuse each and keep serving)",
                md_table(["listener", "configuration", "outcome", "client's reason", "broker's log",
                          "serves a good client after"], rejects) +
                "\n\nThe broker checks a client certificate as soon as it arrives; with large certificates "
                "(AIMer) the client may still be sending when the broker refuses and closes, and the alert is "
                "lost with the reset connection. The broker's log then gives the reason.")
    failed = [[n, g, r[0]["errors"]] for (n, g), r in results.items() if r[0]["errors"]]
    if failed:
        lab.section("Failed connections", md_table(["listener", "key exchange", "errors"], failed))
    pub = pathlib.Path(__file__).resolve().parents[1] / "published" / "mqtt_pqc.csv"
    prow = []
    for p in csv.DictReader(open(pub)):
        ours = results.get((p["sig"], p["kex"]))
        prow.append([p["kex"], p["sig"], p["type"], f"{p['handshake_ms']} ± {p['sd_ms']}",
                     f"{_ms(ours[1])} ± {_ms(ours[1], 'sd')}" if ours else "–",
                     f"{_ms(ours[2])} ± {_ms(ours[2], 'sd')}" if ours else "–"])
    lab.section("Published MQTT table beside ours (ms, mean ± sd)",
                md_table(["key exchange", "signature", "type", "published handshake", "ours: TLS handshake",
                          "ours: TCP+TLS+CONNACK"], prow) +
                "\n\nThe published figures came from a client on another machine with OpenSSL 3.6; ours are "
                f"{where}" + (", so absolute times are lower and the differences between rows are the cryptography."
                              if where == "on loopback" else "."))
    # The plot keeps one group per family at level 1 (all rows are in the tables).
    shown = [g for g in PLOTTED_GROUPS if g in groups]
    plots.mqtt_handshakes(lab, [results[k][0] for k in sorted(results, key=lambda k: (order.index(k[0]),
                                                                                       groups.index(k[1])))
                                if k[1] in shown])


def run(args, lab):
    iterations = 5 if args.quick else args.iterations
    table = algorithms.table()
    if args.remote:
        return run_remote(args, lab, table, iterations)
    algs = wanted_listeners(table, args.sigs)
    groups = kex_groups(lab.build, table, args.groups)
    pki = Pki(lab.build.dir, lab.dir / "mqtt-pki")
    listeners, unavailable = prepare_listeners(pki, algs, offered_signatures(lab.build.openssl))
    if not listeners:
        raise SystemExit("kpqc-bench mqtt: no listener could be set up: " + "; ".join(unavailable.values()))
    # The broker accepts every measured group (and the usual ECDHE ones).
    accepted = groups + [g for g in ("secp256r1", "secp384r1", "X448") if g not in groups]
    try:
        with Broker(lab.build.dir, lab.dir / "mqtt-broker", listeners, accepted) as broker:
            results = measure(lab, args, broker, listeners, groups, iterations)
            probe = next((g for g in ("x25519_smaugt1", "X25519") if g in groups), groups[0])
            rejects = bad_configurations(lab, args, broker, pki, listeners, probe)
            alive = broker.alive()
    except BrokerError as e:
        raise SystemExit(f"kpqc-bench mqtt: {e}")
    report(lab, broker, listeners, unavailable, groups, results, rejects, iterations)
    if not alive:
        lab.section("Broker", "**The broker was no longer running at the end of the run.**")
    return results


def run_remote(args, lab, table, iterations):
    """The same against the broker of a `kpqc-bench serve` agent (lab/mqtt_remote.py)."""
    host, port = control.host_port(args.remote)
    groups = kex_groups(lab.build, table, args.groups)
    algs = {a.name: a for a in wanted_listeners(table, args.sigs)}
    try:
        with control.Client(host, port, args.token, args.fingerprint) as agent:
            broker, listeners, unavailable = mqtt_remote.agent_broker(agent, lab.dir / "mqtt-remote", algs, groups)
            results = measure(lab, args, broker, listeners, groups, iterations)
    except control.ControlError as e:
        raise SystemExit(f"kpqc-bench mqtt: the agent: {e}")
    me, there = socket.gethostname(), f"{agent.env.get('host', '?')} ({broker.host})"
    for row, *_ in results.values():
        row.update(client_host=me, server_host=agent.env.get("host"), server_addr=broker.host,
                   server_cpu=agent.env.get("cpu"), server_openssl=agent.env.get("openssl"),
                   server_provider=agent.env.get("provider"))
    not_run = [["all", "refused configurations", "not run", f"the broker runs on {there}: its log is there", "–",
                "–"]]
    lab.section("Client and broker", f"Client: {me}, {lab.env.get('cpu')}. Broker: {there}, {agent.env.get('cpu')}, "
                f"{agent.env.get('openssl')}, kpqcprovider {agent.env.get('provider')}, commit "
                f"{agent.env.get('commit')}.")
    report(lab, broker, listeners, unavailable, groups, results, not_run, iterations, f"from {me} to {there}")
    return results
