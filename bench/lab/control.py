"""The control protocol between `kpqc-bench remote` (or `mqtt --remote`)
and `kpqc-bench serve`: JSON objects, one per line, over TCP.

The client's first line is {"op": "hello", "token", "commit", "table"}; the
agent compares the token in constant time and both ends compare the
kpqc-tls commit and the digest of the algorithm table, so that the two
machines measure the same code.  Every later request is {"op": ..., ...}
and every answer {"ok": true, ...} or {"ok": false, "error": "why"}.
"""
import hashlib
import json
import socket
import subprocess

from .env import ROOT

PROTOCOL = 1
MAX_LINE = 1 << 20      # a request or an answer (certificates included) is smaller
DEFAULT_PORT = 4443


class ControlError(RuntimeError):
    pass


def identity():
    """What both ends must share: the commit and the algorithm table."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    table = hashlib.sha256((ROOT / "src" / "algorithms.def").read_bytes()).hexdigest()
    return {"protocol": PROTOCOL, "commit": commit or "unknown", "table": table}


def mismatch(mine, theirs):
    """A clear sentence when the two ends differ, else None."""
    if theirs.get("protocol") != mine["protocol"]:
        return f"control protocol {theirs.get('protocol')} against {mine['protocol']}"
    if theirs.get("commit") != mine["commit"]:
        return f"kpqc-tls commit {theirs.get('commit')} against {mine['commit']}: check out the same commit on both"
    if theirs.get("table") != mine["table"]:
        return (f"algorithm table {str(theirs.get('table'))[:12]} against {mine['table'][:12]} "
                "(src/algorithms.def differs)")
    return None


def host_port(text, default_host="127.0.0.1"):
    """'HOST:PORT', '[v6]:PORT' or ':PORT' -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise SystemExit(f"kpqc-bench: '{text}' is not HOST:PORT")
    return host.strip("[]") or default_host, int(port)


class Channel:
    """One end of a control connection: send(obj), recv() -> obj."""

    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile("rb")

    def send(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def recv(self):
        """The next object; None at end of stream; ControlError for a line
        too long or not a JSON object."""
        line = self.reader.readline(MAX_LINE + 1)
        if not line:
            return None
        if len(line) > MAX_LINE:
            raise ControlError(f"line longer than {MAX_LINE} bytes")
        try:
            obj = json.loads(line)
        except ValueError:
            raise ControlError("not JSON") from None
        if not isinstance(obj, dict):
            raise ControlError("not a JSON object")
        return obj

    def close(self):
        try:
            self.reader.close()
            self.sock.close()
        except OSError:
            pass


class Client(Channel):
    """`with Client(host, port, token) as agent:` a checked session;
    agent.env is the agent's environment, agent.call(op, **fields) a request."""

    def __init__(self, host, port, token, timeout=600):
        try:
            sock = socket.create_connection((host, port), timeout=30)
        except OSError as e:
            raise SystemExit(f"kpqc-bench: cannot reach the agent at {host}:{port}: {e}")
        sock.settimeout(timeout)
        super().__init__(sock)
        self.host = host
        mine = identity()
        self.send(dict(mine, op="hello", token=token or ""))
        answer = self.recv()
        if answer is None:
            raise SystemExit("kpqc-bench: the agent closed the connection")
        if not answer.get("ok"):
            raise SystemExit(f"kpqc-bench: the agent refused: {answer.get('error')}")
        why = mismatch(mine, answer.get("identity", {}))
        if why:
            raise SystemExit(f"kpqc-bench: the agent runs other code: {why}")
        self.env, self.limits = answer.get("env", {}), answer.get("limits", {})

    def call(self, op, **fields):
        self.send(dict(fields, op=op))
        answer = self.recv()
        if answer is None:
            raise ControlError("the agent closed the connection")
        if not answer.get("ok"):
            raise ControlError(answer.get("error", "refused"))
        return answer

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.send({"op": "bye"})
        except OSError:
            pass
        self.close()
        return False
