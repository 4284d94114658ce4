"""The control protocol between `kpqc-bench remote` (or `mqtt --remote`)
and `kpqc-bench serve`: JSON objects, one per line, over TLS 1.3.

The agent presents a certificate of its own (made when it starts) and
prints its SHA-256 fingerprint; the client pins that fingerprint and sends
nothing before the agent's certificate matched it.  The client's first line
is {"op": "hello", "token", "commit", "table"}; the agent compares the token
in constant time and both ends compare the kpqc-tls commit and the digest
of the algorithm table, so that the two machines measure the same code.
Every later request is {"op": ..., ...} and every answer {"ok": true, ...}
or {"ok": false, "error": "why"}.

This module is the leaf both ends share: the wire format, the names that
may cross it (NAME, plain_name) and the check of files an agent hands over
(accepted_files).
"""
import hashlib
import hmac
import json
import re
import socket
import ssl
import subprocess

from .env import ROOT

PROTOCOL = 2
MAX_LINE = 1 << 20      # a request or an answer (certificates included) is smaller
MAX_DEPTH = 16          # nesting of a request or an answer (they use 3)
DEFAULT_PORT = 4443
# Groups, key types, listener and file names: never an option, never a path.
CLIENT_FILES = ("leaf.pem", "key.pem", "intermediate.pem")  # a mutual-TLS client's own certificates, per session
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:.\-]{0,63}")


class ControlError(RuntimeError):
    pass


def plain_name(what, value):
    """value when it is a NAME as a whole (no trailing newline, no '/'), else ValueError."""
    if not isinstance(value, str) or not NAME.fullmatch(value) or value in (".", ".."):
        raise ValueError(f"bad {what} {value!r}")
    return value


def accepted_files(files, wanted, kind=str):
    """The files of an agent's answer ({name: content}) when every name is one
    the client asked for (`wanted`), as a plain file name, and every content
    a `kind`; otherwise ControlError, and the whole answer is refused."""
    if not isinstance(files, dict):
        raise ControlError("the agent's answer has no files")
    for name, content in files.items():
        if name not in wanted or plain_name("file name", name) != name or not isinstance(content, kind):
            raise ControlError(f"the agent sent a file {name!r} that was not asked for: answer refused")
    return files


def nesting_depth(line):
    """How deeply the JSON text `line` (bytes) nests, brackets inside strings
    not counted; stops counting past MAX_DEPTH."""
    depth = deepest = 0
    in_string = escaped = False
    for b in line:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # quote
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                break
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest


def fingerprint(der):
    """SHA-256 of a certificate's DER, as the agent prints it."""
    return hashlib.sha256(der).hexdigest()


def same_fingerprint(a, b):
    norm = lambda f: f.replace(":", "").strip().lower().encode()  # noqa: E731
    return hmac.compare_digest(norm(a), norm(b))


def make_certificate(directory):
    """The agent's own certificate and key (ECDSA P-256, self-signed) in
    `directory`; (cert path, key path, fingerprint)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "agent.pem", directory / "agent.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=kpqc-bench serve", "-days", "3650", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    key.chmod(0o600)
    return cert, key, fingerprint(ssl.PEM_cert_to_DER_cert(cert.read_text()))


def server_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(cert, key)
    return ctx


def client_context():
    """TLS 1.3 without a CA: the agent's certificate is checked by its pinned fingerprint."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


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
        if nesting_depth(line) > MAX_DEPTH:
            raise ControlError(f"nested deeper than {MAX_DEPTH} levels")
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
    """`with Client(host, port, token, pin) as agent:` a checked session with
    the agent whose certificate has the fingerprint `pin`; agent.env is the
    agent's environment, agent.call(op, **fields) a request."""

    def __init__(self, host, port, token, pin, timeout=600):
        if not pin:
            raise SystemExit("kpqc-bench: --fingerprint is needed: the one `kpqc-bench serve` printed when it started")
        try:
            sock = socket.create_connection((host, port), timeout=30)
            sock = client_context().wrap_socket(sock)
        except (OSError, ssl.SSLError) as e:
            raise SystemExit(f"kpqc-bench: cannot reach the agent at {host}:{port}: {e}")
        theirs = fingerprint(sock.getpeercert(binary_form=True))
        if not same_fingerprint(theirs, pin):
            sock.close()
            raise SystemExit(f"kpqc-bench: the agent at {host}:{port} presents the certificate {theirs}, not the "
                             f"pinned {pin}: nothing sent")
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
