"""The lab's remote agent and its clients against a rogue peer: a rogue
agent (a test double that speaks the control protocol and answers as an
attacker would: names with `../`, files nobody asked for, deeply nested
JSON) cannot make a client write outside its lab directory, and rogue
clients (idle and trickling connections, floods of wrong tokens, deep
JSON, names with a trailing newline) cannot lock out a client with the
token, grow the agent's logs without bound or crash its sessions."""
import json
import pathlib
import socket
import ssl
import subprocess
import threading
import time

import pytest

from test_remote import BENCH, TOKEN, Agent, connect, python, raw_session, remote
from lab import control  # noqa: E402  (test_remote put bench/ on the path)


class RogueAgent:
    """Speaks `kpqc-bench serve`'s protocol over TLS with a certificate of its
    own; answers hello as an agent of the same code would, then each request
    with answers[op] (an object, or raw bytes sent as they are).  Records the
    tokens it was sent."""

    def __init__(self, tmp, answers, hello=None):
        cert, key, self.fingerprint = control.make_certificate(tmp / "rogue-tls")
        self.tls, self.answers, self.hello = control.server_context(cert, key), answers, hello
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port, self.tokens = self.listener.getsockname()[1], []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
                ch = control.Channel(self.tls.wrap_socket(conn, server_side=True))
            except (OSError, ssl.SSLError):
                if self.listener.fileno() < 0:
                    return
                continue
            try:
                hello = ch.recv()
                if hello is None:
                    continue
                self.tokens.append(hello.get("token"))
                self._answer(ch, self.hello or {"ok": True, "identity": control.identity(), "env": {"host": "rogue"},
                                                "limits": {"concurrency": 1}})
                while (req := ch.recv()) is not None and req.get("op") != "bye":
                    self._answer(ch, self.answers.get(req.get("op"), {"ok": False, "error": "no"}))
            except (OSError, control.ControlError):
                pass
            finally:
                ch.close()

    @staticmethod
    def _answer(ch, answer):
        if isinstance(answer, bytes):
            ch.sock.sendall(answer)
        else:
            ch.send(answer)

    def close(self):
        self.listener.close()


def files_outside(root, inside):
    """Files under root that are not under `inside`."""
    return [p for p in pathlib.Path(root).rglob("*") if p.is_file() and inside not in p.parents]


def test_a_rogue_agents_file_names_are_refused(lab, tmp_path):
    """remote: a name with ../, an absolute name, a name not asked for; mqtt
    --remote: a listener named ../../.. and one not asked for.  Each answer
    is refused whole, nothing is written outside the client's lab directory,
    and the client says why."""
    work = tmp_path / "work"
    anchor = "-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n"
    for bad in ({"anchor.pem": anchor, "../../../escaped.pem": "x"}, {"anchor.pem": anchor, "/tmp/escaped.pem": "x"},
                {"anchor.pem": anchor, "evil.pem": "x"}, {"anchor.pem\n": anchor}):
        rogue = RogueAgent(tmp_path, {"tls": {"ok": True, "id": "s1", "port": 9, "files": bad}})
        try:
            out = work / "remote" / "deep" / "er"
            r = remote(lab, out, f"127.0.0.1:{rogue.port}", "--fingerprint", rogue.fingerprint, "--algorithms",
                       "X25519/EC:P-256", "--count", "1", "--cpu-count", "1")
        finally:
            rogue.close()
        assert r.returncode != 0 and "not asked for" in r.stderr and "Traceback" not in r.stderr, (bad, r.stderr)
        assert not files_outside(work, out), files_outside(work, out)
        assert not list(work.rglob("*escaped*")) and not list(work.rglob("evil.pem"))
    assert not pathlib.Path("/tmp/escaped.pem").exists()

    pem = {"ca": anchor, "server": anchor, "client": anchor, "client_key": "k"}
    for bad in ({"../../../../escaped": pem}, {"ECDSA-P256": pem, "NOT-ASKED": pem},
                {"ECDSA-P256": dict(pem, **{"../key": "x"})}):
        rogue = RogueAgent(tmp_path, {"mqtt": {"ok": True, "ports": {"ECDSA-P256": 9}, "version": "2",
                                               "unavailable": {}, "files": bad}})
        try:
            out = tmp_path / "mq" / "deep" / "er"
            r = subprocess.run([python(lab.build), BENCH, "--build-dir", str(lab.build), "--out", str(out), "mqtt",
                                "--remote", f"127.0.0.1:{rogue.port}", "--token", TOKEN, "--fingerprint",
                                rogue.fingerprint, "--sigs", "ECDSA-P256", "--groups", "X25519", "--iterations", "1"],
                               capture_output=True, text=True, timeout=300)
        finally:
            rogue.close()
        assert r.returncode != 0 and "not asked for" in r.stderr and "Traceback" not in r.stderr, (bad, r.stderr)
        assert not files_outside(tmp_path / "mq", out) and not list(tmp_path.rglob("*escaped*")), bad


def test_the_pinned_fingerprint_guards_the_token(lab, tmp_path):
    """A client sends its token only to the agent whose certificate it pinned."""
    rogue = RogueAgent(tmp_path, {})
    try:
        other = "ab" * 32
        r = remote(lab, tmp_path / "o", f"127.0.0.1:{rogue.port}", "--fingerprint", other, "--count", "1",
                   "--algorithms", "X25519/EC:P-256", "--cpu-count", "1")
        assert r.returncode != 0 and "not the pinned" in r.stderr, r.stderr
        r = remote(lab, tmp_path / "n", f"127.0.0.1:{rogue.port}", "--count", "1", "--algorithms", "X25519/EC:P-256",
                   "--cpu-count", "1")
        assert r.returncode != 0 and "--fingerprint is needed" in r.stderr, r.stderr
        assert rogue.tokens == []
    finally:
        rogue.close()


def test_a_rogue_agents_deep_json_is_an_error(lab, tmp_path):
    deep = b"[" * 200000 + b"]" * 200000 + b"\n"
    rogue = RogueAgent(tmp_path, {}, hello=deep)
    try:
        r = remote(lab, tmp_path / "d", f"127.0.0.1:{rogue.port}", "--fingerprint", rogue.fingerprint, "--count", "1",
                   "--algorithms", "X25519/EC:P-256", "--cpu-count", "1")
    finally:
        rogue.close()
    assert r.returncode != 0 and "nested deeper" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]


@pytest.fixture
def agent(lab, tmp_path):
    a = Agent(lab, tmp_path)
    yield a
    a.stop()


def test_idle_and_trickling_peers_do_not_lock_out_a_client(lab, agent, tmp_path):
    """More idle connections than the agent has places, from the client's own
    address and from another: the client with the token still gets its
    session at once; a peer trickling its hello is cut at the hello's
    deadline, whatever its pace."""
    idle = [socket.create_connection(("127.0.0.1", agent.port), source_address=(src, 0))
            for src in ("127.0.0.1", "127.0.0.2") for _ in range(12)]
    half = [connect(agent) for _ in range(4)]  # TLS done, no hello
    try:
        ch, answer = raw_session(agent)
        assert answer["ok"], answer
        ch.send({"op": "tls", "group": "X25519", "count": 5})
        assert ch.recv()["ok"]
        ch.close()
    finally:
        for s in idle:
            s.close()
        for ch in half:
            ch.close()

    trickle = connect(agent)
    hello = json.dumps(dict(control.identity(), op="hello", token=TOKEN)).encode()
    cut = None
    for i in range(40):  # one byte every half second: 20 s, twice the hello's deadline
        try:
            trickle.sock.sendall(hello[i:i + 1])
        except OSError:
            cut = i
            break
        time.sleep(0.5)
    if cut is None:  # the agent may have closed without the send failing yet
        trickle.sock.settimeout(5)
        try:
            cut = -1 if trickle.sock.recv(1) == b"" else None
        except TimeoutError:  # still open: not cut
            pass
        except (OSError, ssl.SSLError):
            cut = -1
    trickle.close()
    assert cut is not None, "a trickling hello was served past its deadline"
    assert agent.alive()


def test_wrong_tokens_are_throttled_counted_and_bounded(lab, tmp_path):
    """A flood of wrong tokens from one address: only the first few are
    checked (then one each time a wait that doubles has passed), the rest are
    refused unchecked; the agent logs one line per kind and counts them in
    its report; a client with the token from another address is served at
    once."""
    agent = Agent(lab, tmp_path)
    try:
        answers = []
        for _ in range(60):
            ch, answer = raw_session(agent, token="guess", source="127.0.0.2")
            answers.append(answer["error"])
            ch.close()
        checked = answers.count("wrong token")
        assert 1 <= checked <= 12, answers  # 4 + log2 of the flood's seconds
        assert all("too many wrong tokens" in a for a in answers if a != "wrong token")
        ch, answer = raw_session(agent)
        assert answer["ok"], answer
        ch.close()
        ch, answer = raw_session(agent, source="127.0.0.2")  # while throttled, no token is checked
        assert not answer["ok"] and "too many wrong tokens" in answer["error"]
        ch.close()
        assert agent.log().count("127.0.0.2") <= 3, agent.log()
    finally:
        agent.stop()
    report = next(pathlib.Path(agent.out).rglob("report.md")).read_text()
    counts = {line.split("|")[2].strip(): int(line.split("|")[3]) for line in report.splitlines()
              if line.startswith("| 127.0.0.2")}
    assert counts.get("wrong token") == checked and sum(counts.values()) == 61, report


def test_deep_json_and_newline_names_are_answered_with_errors(lab, agent, tmp_path):
    ch, answer = raw_session(agent)
    assert answer["ok"]
    ch.sock.sendall(b"[" * 100000 + b"]" * 100000 + b"\n")
    assert "nested deeper" in ch.recv()["error"]
    ch.sock.sendall(b'{"op": "tls", "group": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    assert "nested deeper" in ch.recv()["error"]
    for bad, what in (({"op": "tls", "group": "X25519\n"}, "bad group"),
                      ({"op": "tls", "group": "X25519", "sig": "EC:P-256\n"}, "bad sig"),
                      ({"op": "tls", "group": "X25519", "sig": ".."}, "bad sig"),
                      ({"op": "mqtt", "groups": ["X25519\n"]}, "bad name")):
        ch.send(bad)
        answer = ch.recv()
        assert not answer["ok"] and what in answer["error"], (bad, answer)
    ch.send({"op": "tls", "group": "X25519", "count": 5})
    assert ch.recv()["ok"]  # the session survived all of it
    ch.close()

    ch = connect(agent)  # deep JSON as the hello
    ch.sock.sendall(b"{" * 100000 + b"\n")
    assert ch.recv() is None
    ch.close()
    assert agent.alive()


def test_each_mutual_tls_session_gets_its_own_client_key(lab, agent, tmp_path):
    keys = []
    for _ in range(2):
        ch, answer = raw_session(agent)
        ch.send({"op": "tls", "group": "X25519", "count": 5, "mutual": True})
        answer = ch.recv()
        assert answer["ok"], answer
        assert set(answer["files"]) == {"anchor.pem", "leaf.pem", "key.pem"}
        keys.append(answer["files"]["key.pem"])
        ch.close()
    server_keys = {p.read_text() for p in pathlib.Path(agent.out).rglob("pki/*/key.pem")}
    assert server_keys and keys[0] != keys[1] and not server_keys & set(keys)
