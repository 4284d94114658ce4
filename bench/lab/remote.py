"""Suite `remote`: TLS 1.3 handshakes from this machine to a `kpqc-bench
serve` agent on another one.

For every GROUP/CERT the agent starts a TLS server (its certificates are
handed over the control connection) and this machine runs the client
(kpqc-handshake client).  Handshakes run in paired rounds: each round runs
every algorithm once, in a new random order, count / rounds handshakes
each, so that drift of the machines or the path falls on all rows alike;
each row's ratio to the first algorithm is taken within each round
(lab/stats.py: median over rounds with a bootstrap CI over rounds).
Per row: p50/p95 of connect() -> client Finished, the path's RTT as the
kernel measured it (TCP_INFO, least RTT of each connection), the bytes and
data segments each side's kernel sent for its flights, the agent's CPU
time per handshake, handshakes/s with --concurrency C clients at once,
and the prediction of the network suite's model for the measured RTT
beside the measurement.
"""
import socket

import numpy as np

from . import control, handshake, network
from .results import md_table
from .stats import fmt_ratio, interleave, over_rounds, summarize

DEFAULT_ALGORITHMS = "X25519/EC:P-256,X25519MLKEM768/EC:P-256,x25519_smaugt1/EC:P-256,x25519_ntruplus768/EC:P-256," \
                     "x25519_smaugt1/haetae2,x25519_smaugt1/aimer128f"


def add_arguments(p):
    p.add_argument("--server", required=True, help="HOST:PORT of `kpqc-bench serve`")
    p.add_argument("--token", default="", help="the agent's token")
    p.add_argument("--fingerprint", default="", help="the agent's certificate fingerprint, as `serve` printed it")
    p.add_argument("--algorithms", default=DEFAULT_ALGORITHMS, help="GROUP/CERT,... (the first is the baseline)")
    p.add_argument("--count", type=int, default=100, help="handshakes per algorithm (latency)")
    p.add_argument("--rounds", type=int, default=5, help="paired rounds the count is spread over")
    p.add_argument("--mutual", action="store_true", help="the client authenticates itself too")
    p.add_argument("--chain", action="store_true", help="leaf and intermediate sent, only the root trusted")
    p.add_argument("--concurrency", type=int, default=1,
                   help="clients at once for the throughput run (1: no throughput run)")
    p.add_argument("--timeout-ms", type=int, default=10000, help="bound on one handshake")
    p.add_argument("--cpu-count", type=int, default=50, help="in-process handshakes for the model's CPU time")
    p.add_argument("--link-mbit", type=float, default=0.0, help="the path's rate for the model (0: not modelled)")


def client_run(lab, agent_ip, srv, prof, pki, count, clients, timeout_ms):
    argv = [lab.build.handshake, "client", "--group", prof["group"], "--sig", prof["sig"], "--pki", str(pki),
            "--address", agent_ip, "--port", str(srv["port"]), "--count", str(count), "--clients", str(clients),
            "--timeout-ms", str(timeout_ms)] + (["--mutual"] if prof["mutual"] else [])
    recs = lab.build.run_json(argv, timeout=(count + 1) * (timeout_ms / 1e3 + 1) + 60)
    return [r for r in recs if r.get("mode") == "link"], next((r for r in recs if r.get("mode") == "clients"), None)


def _median(xs):
    return float(np.median(xs)) if xs else None


def run(args, lab):
    if args.count < 1 or args.rounds < 1 or args.concurrency < 1:
        raise SystemExit("kpqc-bench remote: --count, --rounds and --concurrency must be at least 1")
    rounds = min(args.rounds, args.count)
    host, port = control.host_port(args.server)
    algorithms = network.parse_algorithms(args.algorithms)
    have = handshake.available_groups(lab.build)
    profiles = [network.profile(lab, fam, g, s, have, args.cpu_count, args.chain, args.mutual)
                for fam, g, s in algorithms]
    missing = [f"{p['group']} / {p['sig']}: {p['reason']}" for p in profiles if p["status"] != "ok"]
    if missing:
        raise SystemExit("kpqc-bench remote: cannot run here: " + "; ".join(missing))
    try:
        return measure(args, lab, profiles, rounds, host, port)
    except control.ControlError as e:
        raise SystemExit(f"kpqc-bench remote: the agent: {e}")


def measure(args, lab, profiles, rounds, host, port):
    """Against the agent at host:port: paired rounds, then the throughput run; the rows and the report."""
    me = socket.gethostname()
    with control.Client(host, port, args.token, args.fingerprint,
                        timeout=args.timeout_ms / 1e3 * (args.count + 10) + 600) as agent:
        agent_ip = agent.sock.getpeername()[0]
        there = f"{agent.env.get('host', '?')} ({agent_ip})"
        servers = []
        for i, prof in enumerate(profiles):
            # every worker may be handed all handshakes, warm-ups included
            bound = args.count + rounds + (args.count + 1 if args.concurrency > 1 else 0)
            srv = agent.call("tls", group=prof["group"], sig=prof["sig"], mutual=prof["mutual"], chain=prof["chain"],
                             count=bound, concurrency=min(args.concurrency, agent.limits.get("concurrency", 1)))
            wanted = {"anchor.pem"} | (set(control.CLIENT_FILES) if prof["mutual"] else set())
            files = control.accepted_files(srv.get("files"), wanted)
            if "anchor.pem" not in files:
                raise control.ControlError("the agent sent no trust anchor")
            pki = lab.dir / "remote-pki" / str(i)
            pki.mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (pki / name).write_text(text)
                if name == "key.pem":
                    (pki / name).chmod(0o600)
            servers.append((prof, srv, pki))
        samples = {i: [] for i in range(len(servers))}
        served = {i: [] for i in range(len(servers))}  # the agent's records of each server
        blocks = [0] * len(servers)  # blocks run so far per algorithm: the round of the next

        def block(i):
            """One round's handshakes of algorithm i; their median (ms)."""
            prof, srv, pki = servers[i]
            r = blocks[i]
            blocks[i] += 1
            recs, _ = client_run(lab, agent_ip, srv, prof, pki, args.count // rounds + (r < args.count % rounds), 1,
                                 args.timeout_ms)
            for rec in recs:
                lab.raw("remote", dict(rec, sig=prof["sig"], round=r, mutual=prof["mutual"]))
            samples[i] += recs
            served[i] += agent.call("served", id=srv["id"])["records"]
            ok = [rec["hs_ns"] / 1e6 for rec in recs if rec["ok"]]
            return _median(ok)

        per_round = interleave(list(range(len(servers))), block, rounds, seed=11,
                               progress=lambda d, t, w: lab.progress("remote", d, t,
                                                                     servers[int(w)][0]["group"] if w else ""))
        throughput = {}
        if args.concurrency > 1:
            for i, (prof, srv, pki) in enumerate(servers):
                lab.progress("remote load", i, len(servers), prof["group"])
                recs, wall = client_run(lab, agent_ip, srv, prof, pki, args.count, args.concurrency, args.timeout_ms)
                good = sum(rec["ok"] for rec in recs)
                throughput[i] = {"per_second": good / wall["seconds"] if wall and wall["seconds"] else None,
                                 "failures": len(recs) - good}
            lab.progress("remote load", len(servers), len(servers))
        for i, (_, srv, _) in enumerate(servers):
            served[i] = [rec for rec in served[i] + agent.call("served", id=srv["id"])["records"]
                         if rec.get("mode") == "served"]
    paired = over_rounds(per_round, {"first": 0})
    rows = []
    for i, (prof, srv, _) in enumerate(servers):
        recs = samples[i]
        ok = [r for r in recs if r["ok"]]
        s = summarize([r["hs_ns"] / 1e6 for r in ok])
        rtt = _median([r["min_rtt_us"] / 1e3 for r in ok if r["min_rtt_us"]])
        mss = ok[0]["mss"] if ok and ok[0]["mss"] else 1448
        srv_ok = [r for r in served[i] if r["ok"]]
        # the CPU time of each end on its own machine: the client's share of
        # the in-process handshake here, the agent's measured there
        client_cpu = prof["cpu_ms"] - prof["server_cpu_ms"]
        server_cpu = _median([r["cpu_ns"] / 1e6 for r in srv_ok])
        cpu = client_cpu + (server_cpu if server_cpu is not None else prof["server_cpu_ms"])
        m = network.model(rtt or 0.0, args.link_mbit, mss, cpu, prof["client_hello"], prof["server_flight"],
                          prof["hrr"]) if rtt is not None else {}
        row = lab.row("remote", client_host=me, server_host=agent.env.get("host"), server_addr=agent_ip,
                      server_cpu=agent.env.get("cpu"), server_openssl=agent.env.get("openssl"),
                      server_provider=agent.env.get("provider"), server_commit=agent.env.get("commit"),
                      family=prof["family"], group=prof["group"], sig=prof["sig"], mutual=prof["mutual"],
                      chain=prof["chain"], rounds=rounds, count=len(recs), n=len(ok), failures=len(recs) - len(ok),
                      timeouts=sum(r["timeout"] for r in recs), retrans_client=sum(r["retrans"] for r in recs),
                      retrans_server=sum(r["retrans"] for r in served[i]),
                      p50_ms=s.get("median"), p95_ms=s.get("p95"), ci_low_ms=s.get("ci_low"),
                      ci_high_ms=s.get("ci_high"), connect_p50_ms=_median([r["connect_ns"] / 1e6 for r in ok]),
                      rtt_ms=rtt, srtt_ms=_median([r["rtt_us"] / 1e3 for r in ok]), mss=mss,
                      client_bytes=_median([r["bytes_sent"] for r in ok]),
                      client_segments=_median([r["data_segs"] for r in ok]),
                      server_flight_bytes=_median([r["flight_bytes"] for r in srv_ok]),
                      server_flight_segments=_median([r["flight_segments"] for r in srv_ok]),
                      server_cpu_ms=server_cpu, client_cpu_ms=client_cpu, model_cpu_ms=cpu,
                      inproc_cpu_ms=prof["cpu_ms"], client_hello=prof["client_hello"],
                      server_flight=prof["server_flight"],
                      model_ms=m.get("model_ms"), model_rounds=m.get("rounds"),
                      p50_over_rounds_ms=paired[i]["median"], vs_first=paired[i]["ratio_to"].get("first"),
                      per_second=throughput.get(i, {}).get("per_second"),
                      load_failures=throughput.get(i, {}).get("failures"), concurrency=args.concurrency)
        rows.append(row)
    report(lab, rows, me, there, agent.env, args)
    return rows


def _f(x, fmt="{:.2f}"):
    return fmt.format(x) if x is not None else "–"


def report(lab, rows, me, there, env, args):
    first = f"{rows[0]['group']} / {rows[0]['sig']}" if rows else ""
    table = [[f"{r['group']} / {r['sig']}", r["family"], f"{r['n']}/{r['count']}", r["failures"], _f(r["p50_ms"]),
              _f(r["p95_ms"]),
              "baseline" if r is rows[0] else fmt_ratio(r["vs_first"]),
              _f(r["rtt_ms"], "{:.3f}"), _f(r["model_ms"]),
              f"{_f(r['client_bytes'], '{:.0f}')} / {_f(r['client_segments'], '{:.0f}')}",
              f"{_f(r['server_flight_bytes'], '{:.0f}')} / {_f(r['server_flight_segments'], '{:.0f}')}",
              _f(r["server_cpu_ms"]), _f(r["per_second"], "{:.0f}")] for r in rows]
    what = ("mutual TLS, " if args.mutual else "") + ("chains, " if args.chain else "")
    lab.section(f"Handshakes from {me} to {there} ({what}{rows[0]['rounds'] if rows else 0} paired rounds)",
                f"Client: {me}, {lab.env.get('cpu')}, {lab.env.get('openssl')}. Server: {there}, {env.get('cpu')}, "
                f"{env.get('openssl')}, kpqcprovider {env.get('provider')}, commit {env.get('commit')}.\n\n" +
                md_table(["group / certificate", "family", "completed", "failures", "p50 ms", "p95 ms",
                          f"× {first} (paired rounds, 95 % CI)", "RTT ms (TCP_INFO)", "model ms",
                          "client sent B / segments", "server flight B / segments", "server CPU ms",
                          f"handshakes/s ({args.concurrency} clients)"], table) +
                "\n\nLatency: connect() to the client's Finished. RTT: the kernel's least RTT of each connection, "
                "median. Model: the network suite's (round trips × RTT + CPU time + serialisation at --link-mbit, "
                "one more round trip per slow-start window the server's flight spills into), with the CPU time of "
                "each end on its own machine: the client's share of the in-process handshake here, the agent's "
                "measured there. Client bytes and segments include the one-byte application record that confirms "
                "the handshake; the server's flight is counted when its handshake completes. Server CPU: the "
                "agent's thread CPU time for its side of each handshake.")
