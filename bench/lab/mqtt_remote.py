"""The MQTT suite across two machines: `kpqc-bench mqtt --remote HOST:PORT`
asks a `kpqc-bench serve` agent for a Mosquitto broker with one listener
per certificate algorithm (start_broker runs on the agent) and measures it
from here with kpqc-mqtt (lab/mqtt.py, run_remote), as the published
benchmark ran its broker on one host and its clients on another.

The agent makes each listener's CA, server and client certificates (a new
set for every session) and hands the client the CA and the client's
certificate and key; the client writes them only under the names it asked
for.  The checks of refused configurations need the broker's log and so run
only in the local suite.
"""
import pathlib
import tempfile

from . import algorithms, control
from .mqtt_broker import Broker
from .mqtt_pki import Pki, offered_signatures, prepare_listeners, wanted_listeners

FILES = {"ca": "ca.pem", "server": "server.pem", "client": "client.pem", "client_key": "client.key"}


def start_broker(agent, req):
    """On the agent: a broker for the listeners `req["sigs"]` (all if empty)
    accepting `req["groups"]`; returns (broker, answer)."""
    sigs, groups = req.get("sigs", []), req.get("groups", [])
    if not isinstance(sigs, list) or not isinstance(groups, list) or not groups or len(groups) > 64 or len(sigs) > 32:
        raise ValueError("groups: a list of 1..64 names, sigs: a list of at most 32")
    for v in sigs + groups:
        control.plain_name("name", v)
    unknown = [g for g in groups if g.lower() not in agent.groups]
    if unknown:
        raise ValueError(f"groups not offered by the agent's build: {', '.join(unknown)}")
    algs = wanted_listeners(algorithms.table(), ",".join(sigs))
    if not algs:
        raise ValueError(f"no listener algorithm among {', '.join(sigs)}")
    here = pathlib.Path(tempfile.mkdtemp(prefix="mqtt-", dir=agent.lab.dir))  # sessions run at once
    pki = Pki(agent.build.dir, here / "pki")
    listeners, unavailable = prepare_listeners(pki, algs, offered_signatures(agent.build.openssl))
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


def agent_broker(agent, where, algs, groups):
    """On the client: asks the agent (a control.Client) for a broker with the
    listeners `algs` ({name: SigAlg}) and writes each listener's certificates
    under where/NAME; (broker, listeners, unavailable).  An answer with a
    listener or a file the client did not ask for is refused whole."""
    answer = agent.call("mqtt", sigs=list(algs), groups=groups)
    sent = control.accepted_files(answer.get("files"), set(algs), kind=dict)
    for texts in sent.values():
        control.accepted_files(texts, set(FILES), kind=str)
        if set(texts) != set(FILES):
            raise control.ControlError(f"a listener's files are {sorted(texts)}, not {sorted(FILES)}: answer refused")
    listeners = {}
    for name, texts in sent.items():
        d = where / name
        d.mkdir(parents=True, exist_ok=True)
        paths = {k: d / FILES[k] for k in FILES}
        for k, path in paths.items():
            path.write_text(texts[k])
        paths["client_key"].chmod(0o600)
        listeners[name] = {"ca": (paths["ca"], None), "server": (paths["server"], None),
                           "client": (paths["client"], paths["client_key"]), "alg": algs[name]}
    return RemoteBroker(agent.sock.getpeername()[0], answer), listeners, answer.get("unavailable", {})
