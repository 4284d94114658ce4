"""`kpqc-bench serve` and `kpqc-bench remote`: the agent and the client on
loopback and in two network namespaces joined by a routed link; the agent
keeps serving after a wrong token, malformed requests, other code and a
client that vanishes mid-run.  Counts, bytes and contracts are asserted,
never times."""
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from lab import control, netns  # noqa: E402
from lab.link import Link, LinkConfig  # noqa: E402
from lab.mqtt_broker import mosquitto_binary  # noqa: E402

BENCH = str(ROOT / "bench" / "kpqc-bench")
TOKEN = "test-token-4f1c"
ACCEPTANCE = "X25519/EC:P-256,x25519_smaugt1/haetae2"


def python(build):
    venv = pathlib.Path(build) / "venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


class Agent:
    """`kpqc-bench serve` as a child process (optionally inside a namespace)."""

    def __init__(self, lab, tmp, address="127.0.0.1", port=None, ns=None, token=TOKEN):
        self.lab, self.address = lab, address
        self.port = port or lab.free_port()
        self.err, self.out = tmp / f"agent-{self.port}.err", tmp / f"agent-{self.port}"
        argv = [python(lab.build), BENCH, "--build-dir", str(lab.build), "--out", str(self.out),
                "serve", "--listen", f"{address}:{self.port}"] + (["--token", token] if token else [])
        if ns:
            argv = ["ip", "netns", "exec", ns] + argv
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(self.err, "w"), text=True)
        self.banner = [self.proc.stdout.readline() for _ in range(4)]
        assert "listening on" in self.banner[0], self.banner + [self.err.read_text()]
        self.fingerprint = self.banner[2].split("fingerprint:")[1].strip()

    def log(self):
        return self.err.read_text()

    def wait_log(self, text, times=1, timeout=30):
        """Whether `text` is in the agent's log `times` times within `timeout` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log().count(text) >= times:
                return True
            time.sleep(0.1)
        return False

    def alive(self):
        return self.proc.poll() is None

    def servers(self):
        """pids of the processes of this agent's servers (their certificates are under its directory)."""
        found = []
        for d in pathlib.Path("/proc").glob("[0-9]*"):
            try:
                if str(self.out).encode() in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
        return found

    def stop(self):
        """Stops the agent; none of its servers may outlive it."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        deadline = time.monotonic() + 10
        while self.servers() and time.monotonic() < deadline:
            time.sleep(0.1)
        left = self.servers()
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"server processes outlived the agent: {left}"


@pytest.fixture
def agent(lab, tmp_path):
    a = Agent(lab, tmp_path)
    yield a
    a.stop()


def remote(lab, out, server, *extra, token=TOKEN, ns=None, timeout=600, fingerprint=None):
    """`kpqc-bench remote` against server (the agent's fingerprint in `extra` or `fingerprint`)."""
    pin = fingerprint
    argv = [python(lab.build), BENCH, "--build-dir", str(lab.build), "--out", str(out), "remote",
            "--server", server, "--token", token, *extra] + (["--fingerprint", pin] if pin else [])
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def rows(out):
    return [r for r in json.loads((pathlib.Path(out) / "summary.json").read_text())["rows"] if r["suite"] == "remote"]


def same_flight(row):
    """What the agent's kernel sent for the server's flight is the in-process
    handshake's flight, but for the lengths of its signatures (the same
    algorithm, other keys): DER-encoded ECDSA and HAETAE's compressed
    signatures vary by some bytes each."""
    return abs(row["server_flight_bytes"] - row["server_flight"]) <= 64


def connect(agent, source="127.0.0.1"):
    """A TLS control connection to the agent from address `source`, its certificate pinned."""
    sock = socket.create_connection((agent.address, agent.port), timeout=30, source_address=(source, 0))
    sock = control.client_context().wrap_socket(sock)
    assert control.same_fingerprint(control.fingerprint(sock.getpeercert(binary_form=True)), agent.fingerprint)
    return control.Channel(sock)


def raw_session(agent, token=TOKEN, source="127.0.0.1", **hello):
    """A control connection by hand: (channel, the agent's answer to hello)."""
    ch = connect(agent, source)
    ch.send(dict(control.identity(), op="hello", token=token, **hello))
    return ch, ch.recv()


def test_acceptance_twice_against_one_agent(lab, agent, tmp_path):
    for run in (1, 2):
        r = remote(lab, tmp_path / f"run{run}", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint,
                   "--algorithms", ACCEPTANCE,
                   "--count", "20")
        assert r.returncode == 0, r.stderr[-2000:]
        got = rows(tmp_path / f"run{run}")
        assert [f"{x['group']}/{x['sig']}" for x in got] == ACCEPTANCE.split(",")
        for x in got:
            assert x["n"] >= 20 and x["failures"] == 0, x
            assert x["client_host"] == socket.gethostname() and x["server_addr"] == "127.0.0.1"
            assert same_flight(x)
            assert x["server_cpu_ms"] > 0 and x["model_ms"] > 0
        assert "Handshakes from" in (tmp_path / f"run{run}" / "report.md").read_text()
    assert agent.alive()


def test_mutual_tls_chains_and_concurrency(lab, agent, tmp_path):
    r = remote(lab, tmp_path / "m", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint, "--algorithms", "x25519_smaugt1/EC:P-256",
               "--count", "8", "--rounds", "2", "--mutual", "--chain", "--concurrency", "2")
    assert r.returncode == 0, r.stderr[-2000:]
    (x,) = rows(tmp_path / "m")
    assert x["mutual"] and x["chain"] and x["n"] == 8 and x["failures"] == 0
    assert x["load_failures"] == 0 and x["per_second"] > 0
    assert same_flight(x)


def test_wrong_token_bad_requests_and_other_code_leave_it_serving(lab, agent, tmp_path):
    ch, answer = raw_session(agent, token="wrong")
    assert answer == {"ok": False, "error": "wrong token"}
    ch.close()
    r = remote(lab, tmp_path / "w", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint, "--count", "2", token="wrong")
    assert r.returncode != 0 and "wrong token" in r.stderr
    r = remote(lab, tmp_path / "big", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint, "--algorithms", "X25519/EC:P-256",
               "--count", "200000")
    assert r.returncode != 0 and "count must be an integer" in r.stderr and "Traceback" not in r.stderr

    ch, answer = raw_session(agent, commit="0" * 40)
    assert not answer["ok"] and "commit" in answer["error"]
    ch.close()

    ch, answer = raw_session(agent)
    assert answer["ok"] and answer["env"]["provider"]
    ch.sock.sendall(b"this is not json\n")
    assert "bad request" in ch.recv()["error"]
    ch.sock.sendall(b"[1, 2]\n")
    assert "bad request" in ch.recv()["error"]
    for bad in ({"op": "launch"}, {"op": "tls", "group": "--help"}, {"op": "tls", "group": "nosuchgroup"},
                {"op": "tls", "group": "X25519", "count": 10 ** 9}, {"op": "tls", "group": "X25519", "count": "5"},
                {"op": "tls", "group": "X25519", "sig": "nosuchsig"}, {"op": "served", "id": "s9"},
                {"op": "mqtt", "groups": []}, {"op": "mqtt", "groups": ["-v"]}, {"op": "mqtt", "groups": "X25519"},
                {"op": "mqtt", "groups": ["X25519"], "sigs": ["NOSUCHSIG"]}):
        ch.send(bad)
        answer = ch.recv()
        assert answer["ok"] is False and answer["error"], bad
    ch.send({"op": "tls", "group": "X25519", "count": 5})
    assert ch.recv()["ok"]  # the same session still works after all that
    ch.close()

    # the agent's bound on server processes, over all sessions; stopped servers give theirs back
    first, _ = raw_session(agent)
    second, _ = raw_session(agent)
    ids = []
    for ch in (first, first, second, second):
        ch.send({"op": "tls", "group": "X25519", "count": 5, "concurrency": 16})
        answer = ch.recv()
        assert answer["ok"], answer
        ids.append(answer["id"])
    second.send({"op": "tls", "group": "X25519", "count": 5, "concurrency": 1})
    assert "server processes already" in second.recv()["error"]
    first.send({"op": "stop", "id": ids[0]})
    assert first.recv()["ok"]
    second.send({"op": "tls", "group": "X25519", "count": 5, "concurrency": 1})
    assert second.recv()["ok"]
    first.close()
    second.close()

    ch = connect(agent)  # a line without end, then gone
    ch.sock.sendall(b'{"op": "hello", "token": "')
    ch.close()
    r = remote(lab, tmp_path / "after", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint, "--algorithms", "X25519/EC:P-256",
               "--count", "4", "--rounds", "1")
    assert r.returncode == 0, r.stderr[-2000:]
    assert rows(tmp_path / "after")[0]["failures"] == 0
    assert agent.alive()


def test_client_vanishing_mid_run_stops_its_servers(lab, agent, tmp_path):
    ch, answer = raw_session(agent)
    ch.send({"op": "tls", "group": "X25519", "count": 100})
    port = ch.recv()["port"]
    socket.create_connection(("127.0.0.1", port), timeout=10).close()  # the server is up
    ch.close()  # gone without a goodbye
    assert agent.wait_log("session closed")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=10).close()

    argv = [python(lab.build), BENCH, "--build-dir", str(lab.build), "--out", str(tmp_path / "killed"), "remote",
            "--server", f"127.0.0.1:{agent.port}", "--token", TOKEN, "--fingerprint", agent.fingerprint,
            "--algorithms", "X25519/EC:P-256",
            "--count", "50000", "--rounds", "1"]
    client = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    assert agent.wait_log("TLS server X25519", times=2)
    time.sleep(1)  # handshakes under way
    assert client.poll() is None
    os.killpg(client.pid, signal.SIGKILL)
    client.wait()
    assert agent.wait_log("session closed", times=2)
    r = remote(lab, tmp_path / "next", f"127.0.0.1:{agent.port}", "--fingerprint", agent.fingerprint, "--algorithms", "X25519/EC:P-256",
               "--count", "4", "--rounds", "1")
    assert r.returncode == 0 and rows(tmp_path / "next")[0]["failures"] == 0, r.stderr[-2000:]


def test_random_token_is_printed_and_required(lab, tmp_path):
    a = Agent(lab, tmp_path, token="")
    try:
        token = a.banner[1].split("token:")[1].strip()
        assert len(token) >= 20
        ch, answer = raw_session(a, token="")
        assert not answer["ok"]
        ch.close()
        ch, answer = raw_session(a, token=token)
        assert answer["ok"]
        ch.close()
    finally:
        a.stop()


@pytest.mark.skipif(mosquitto_binary() is None, reason="mosquitto is not installed")
def test_mqtt_against_the_agents_broker(lab, agent, tmp_path):
    out = tmp_path / "mqtt"
    r = subprocess.run([python(lab.build), BENCH, "--build-dir", str(lab.build), "--out", str(out), "mqtt",
                        "--remote", f"127.0.0.1:{agent.port}", "--token", TOKEN, "--fingerprint", agent.fingerprint, "--sigs", "ECDSA-P256,HAETAE2",
                        "--groups", "X25519,x25519_smaugt1", "--iterations", "3"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    got = [x for x in json.loads((out / "summary.json").read_text())["rows"] if x["suite"] == "mqtt"]
    assert sorted((x["sig"], x["kex"]) for x in got) == [(s, g) for s in ("ECDSA-P256", "HAETAE2")
                                                         for g in ("X25519", "x25519_smaugt1")]
    for x in got:
        assert x["ok"] == 3 and x["success"] == 1 and x["server_addr"] == "127.0.0.1", x
    assert agent.wait_log("session closed")
    for x in got:  # the broker went with the session
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", x["port"]), timeout=10).close()


@pytest.mark.skipif(netns.unusable_reason() is not None, reason=str(netns.unusable_reason()))
def test_agent_and_client_in_two_namespaces(lab, tmp_path):
    """The agent in one namespace, the client in the other, each knowing the
    other only by its address on the link between them (10 ms RTT)."""
    with netns.Topology() as topo, Link(topo, LinkConfig(rtt_ms=10), lab.build):
        a = Agent(lab, tmp_path, address=topo.server_addr, port=control.DEFAULT_PORT, ns=topo.server)
        try:
            r = remote(lab, tmp_path / "ns", f"{topo.server_addr}:{control.DEFAULT_PORT}", "--fingerprint", a.fingerprint,
                       "--algorithms",
                       ACCEPTANCE, "--count", "10", "--rounds", "2", ns=topo.client)
            assert r.returncode == 0, r.stderr[-2000:]
            for x in rows(tmp_path / "ns"):
                assert x["n"] == 10 and x["failures"] == 0, x
                assert x["server_addr"] == topo.server_addr
                assert same_flight(x)
                assert x["rtt_ms"] is not None and x["model_rounds"] == 2
            if mosquitto_binary() is not None:  # the MQTT suite against the agent's broker, across the link
                out = tmp_path / "ns-mqtt"
                r = subprocess.run(["ip", "netns", "exec", topo.client, python(lab.build), BENCH, "--build-dir",
                                    str(lab.build), "--out", str(out), "mqtt", "--remote",
                                    f"{topo.server_addr}:{control.DEFAULT_PORT}", "--token", TOKEN, "--fingerprint",
                                    a.fingerprint, "--sigs",
                                    "HAETAE2", "--groups", "x25519_smaugt1", "--iterations", "3"],
                                   capture_output=True, text=True, timeout=600)
                assert r.returncode == 0, r.stderr[-2000:]
                (x,) = [x for x in json.loads((out / "summary.json").read_text())["rows"] if x["suite"] == "mqtt"]
                assert x["ok"] == 3 and x["server_addr"] == topo.server_addr
            # the agent is not reachable from the namespace's own loopback: it binds where told
            r = remote(lab, tmp_path / "lo", f"127.0.0.1:{control.DEFAULT_PORT}", "--count", "2", ns=topo.server,
                       fingerprint=a.fingerprint)
            assert r.returncode != 0 and "cannot reach the agent" in r.stderr
        finally:
            a.stop()
