"""The MQTT suite across two machines: `kpqc-bench mqtt --remote HOST:PORT`
asks a `kpqc-bench serve` agent for a Mosquitto broker with one listener
per certificate algorithm (start_broker runs on the agent) and measures it
from here with kpqc-mqtt, as the published benchmark ran its broker on one
host and its clients on another.

The agent makes each listener's CA, server and client certificates and
hands the client the CA and the client's certificate and key.  The checks
of refused configurations need the broker's log and so run only in the
local suite.
"""
import pathlib
import socket
import tempfile

from . import algorithms, control, serve
from .mqtt_broker import Broker
from .mqtt_pki import Pki, offered_signatures

FILES = {"ca": "ca.pem", "server": "server.pem", "client": "client.pem", "client_key": "client.key"}


def start_broker(agent, req):
    """On the agent: a broker for the listeners `req["sigs"]` (all if empty)
    accepting `req["groups"]`; returns (broker, answer)."""
    from . import mqtt
    sigs, groups = req.get("sigs", []), req.get("groups", [])
    if not isinstance(sigs, list) or not isinstance(groups, list) or not groups or len(groups) > 64 or len(sigs) > 32:
        raise ValueError("groups: a list of 1..64 names, sigs: a list of at most 32")
    for v in sigs + groups:
        if not isinstance(v, str) or not serve.NAME.match(v):
            raise ValueError(f"bad name {v!r}")
    unknown = [g for g in groups if g.lower() not in agent.groups]
    if unknown:
        raise ValueError(f"groups not offered by the agent's build: {', '.join(unknown)}")
    algs = mqtt.wanted_listeners(algorithms.table(), ",".join(sigs))
    if not algs:
        raise ValueError(f"no listener algorithm among {', '.join(sigs)}")
    here = pathlib.Path(tempfile.mkdtemp(prefix="mqtt-", dir=agent.lab.dir))  # sessions run at once
    pki = Pki(agent.build.dir, here / "pki")
    listeners, unavailable = mqtt.prepare_listeners(pki, algs, offered_signatures(agent.build.openssl))
    if not listeners:
        raise ValueError("no listener could be set up: " + "; ".join(unavailable.values()))
    broker = Broker(agent.build.dir, here / "broker", listeners, groups, host=agent.address)
    broker.start()
    files = {name: {"ca": pathlib.Path(f["ca"][0]).read_text(), "server": pathlib.Path(f["server"][0]).read_text(),
                    "client": pathlib.Path(f["client"][0]).read_text(),
                    "client_key": pathlib.Path(f["client"][1]).read_text()} for name, f in listeners.items()}
    return broker, {"ports": broker.ports, "version": broker.version, "unavailable": unavailable, "files": files}


class RemoteBroker:
    """What the suite's measure() and report() read of a broker, for one on the agent."""

    def __init__(self, host, answer):
        self.host, self.ports, self.version = host, answer["ports"], answer["version"]


def run(args, lab, table, iterations):
    from . import mqtt
    host, port = control.host_port(args.remote)
    groups = mqtt.kex_groups(lab.build, table, args.groups)
    algs = {a.name: a for a in mqtt.wanted_listeners(table, args.sigs)}
    with control.Client(host, port, args.token) as agent:
        try:
            answer = agent.call("mqtt", sigs=list(algs), groups=groups)
        except control.ControlError as e:
            raise SystemExit(f"kpqc-bench mqtt: the agent's broker: {e}")
        broker = RemoteBroker(agent.sock.getpeername()[0], answer)
        listeners = {}
        for name, texts in answer["files"].items():
            d = lab.dir / "mqtt-remote" / name
            d.mkdir(parents=True, exist_ok=True)
            paths = {k: d / FILES[k] for k in FILES}
            for k, path in paths.items():
                path.write_text(texts[k])
            paths["client_key"].chmod(0o600)
            listeners[name] = {"ca": (paths["ca"], None), "server": (paths["server"], None),
                               "client": (paths["client"], paths["client_key"]), "alg": algs[name]}
        results = mqtt.measure(lab, args, broker, listeners, groups, iterations)
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
    mqtt.report(lab, broker, listeners, answer["unavailable"], groups, results, not_run, iterations,
                f"from {me} to {there}")
    return results

