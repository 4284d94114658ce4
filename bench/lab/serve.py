"""Suite `serve`: the server agent that `kpqc-bench remote` and `kpqc-bench
mqtt --remote` measure against from another machine.

`kpqc-bench serve --listen ADDR:PORT [--token T]` listens for control
connections (lab/control.py) on ADDR only (loopback by default).  A client
that presents the token and runs the same commit and algorithm table may
ask for TLS servers (kpqc-handshake server: one per group and certificate,
reporting its CPU time per handshake) and for a Mosquitto broker with one
listener per certificate algorithm; they listen on ADDR too, and the
agent stops them when the client says bye, disconnects or goes silent.
Certificates are made once per algorithm and reused; they are throwaway
test certificates, and the agent hands a client the keys it needs for
mutual TLS.  Everything a client asks for is bounded (sessions, servers,
handshakes, time); a wrong token, a malformed request or a vanished client
ends only that client's session.  Ctrl-C stops the agent.
"""
import hmac
import json
import re
import secrets
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

from . import control
from .handshake import available_groups
from .results import md_table
from .servers import stop_process

LIMITS = {"connections": 8,         # control connections at once, authenticated or not
          "servers": 32,            # TLS servers per session
          "handshakes": 100000,     # per TLS server worker
          "concurrency": 16,        # worker processes per TLS server
          "workers": 64,            # worker processes of all TLS servers of all sessions
          "session_s": 4 * 3600,    # a session's whole life, and the longest wait for a request
          "hello_s": 10}            # to present the token
KEEPALIVE = (60, 10, 6)  # idle s, interval s, probes: a vanished client machine is noticed in 2 minutes
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_:.\-]{0,63}$")  # groups and key types, never an option


def add_arguments(p):
    p.add_argument("--listen", default=f"127.0.0.1:{control.DEFAULT_PORT}",
                   help="ADDR:PORT of the control connection and the servers (default loopback)")
    p.add_argument("--token", default="", help="shared secret the clients present (default: a random one, printed)")


def provider_version(build):
    out = subprocess.run([build.openssl, "list", "-providers"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"kpqcprovider\n\s+name:.*\n\s+version: (\S+)", out)
    return m.group(1) if m else ""


class Agent:
    """State shared by all sessions: the build, where certificates are kept,
    the address the servers bind to."""

    def __init__(self, lab, address, token):
        self.lab, self.build, self.address, self.token = lab, lab.build, address, token
        self.identity = control.identity()
        self.env = dict(lab.env, host=socket.gethostname(), provider=provider_version(lab.build))
        self.groups = available_groups(lab.build)
        self.pki_dir = lab.dir / "pki"
        self.pki_lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(LIMITS["connections"])
        self.live = set()  # open sessions, closed also when the agent stops
        self.workers, self.workers_lock = 0, threading.Lock()
        self.log_lock = threading.Lock()
        self.sessions = []

    def reserve(self, n):
        """n more server worker processes, if the agent's bound allows."""
        with self.workers_lock:
            if self.workers + n > LIMITS["workers"]:
                raise ValueError(f"the agent runs {self.workers} server processes already (at most "
                                 f"{LIMITS['workers']}): try later or with less concurrency")
            self.workers += n

    def release(self, n):
        with self.workers_lock:
            self.workers -= n

    def log(self, peer, what):
        with self.log_lock:
            self.sessions.append((time.strftime("%H:%M:%S"), peer, what))
            sys.stderr.write(f"[serve] {peer}: {what}\n")

    def pki(self, sig, chain):
        """The certificates of sig (made on first use, then reused)."""
        d = self.pki_dir / f"{sig.replace(':', '-')}{'-chain' if chain else ''}"
        with self.pki_lock:
            if not (d / "anchor.pem").exists():
                tmp = d.with_name(d.name + ".new")
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(parents=True)
                try:
                    self.build.run_json([self.build.handshake, "pki", "--sig", sig, "--pki", str(tmp)]
                                        + (["--chain"] if chain else []), timeout=300)
                except RuntimeError as e:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise ValueError(f"cannot make {sig} certificates: {str(e).splitlines()[-1][-200:]}")
                tmp.rename(d)
        return d


class TlsServer:
    """A kpqc-handshake server process and the records it prints, collected by a thread."""

    def __init__(self, agent, group, sig, mutual, chain, count, concurrency):
        self.pki = agent.pki(sig, chain)
        argv = [agent.build.env_cmd, agent.build.handshake, "server", "--group", group, "--sig", sig,
                "--pki", str(self.pki), "--address", agent.address, "--count", str(count),
                "--clients", str(concurrency), "--timeout-ms", "30000"] + (["--mutual"] if mutual else [])
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     text=True)
        self.records, self.lock, self.port = [], threading.Lock(), None
        for line in self.proc.stdout:
            if '"listening"' in line:
                self.port = json.loads(line)["port"]
                break
        if self.port is None:
            err = self.stop()
            raise ValueError(f"the TLS server did not start: {err.strip()[-300:]}")
        threading.Thread(target=self._collect, daemon=True).start()
        self.mutual, self.agent, self.workers = mutual, agent, concurrency

    def _collect(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                with self.lock:
                    self.records.append(json.loads(line))

    def drain(self):
        with self.lock:
            out, self.records = self.records, []
        return out

    def files(self):
        """What the client needs: the anchor, and for mutual TLS the leaf, its chain and key."""
        names = ["anchor.pem"] + (["leaf.pem", "key.pem", "intermediate.pem"] if self.mutual else [])
        return {n: (self.pki / n).read_text() for n in names if (self.pki / n).exists()}

    def stop(self):
        """Stops the server (once); its stderr."""
        if getattr(self, "agent", None) is not None:
            self.agent.release(self.workers)
            self.agent = None
        stop_process(self.proc)
        return self.proc.stderr.read() if self.proc.stderr else ""


class Session:
    """One authenticated client: its servers and broker, all stopped at the end."""

    def __init__(self, agent, peer):
        self.agent, self.peer = agent, peer
        self.servers, self.broker = {}, None
        self.started = time.monotonic()

    def handle(self, req):
        op = req.get("op")
        if op == "tls":
            return self.tls(req)
        if op == "served":
            return {"records": self.server(req).drain()}
        if op == "stop":
            self.server(req)
            self.servers.pop(req["id"]).stop()
            return {}
        if op == "mqtt":
            return self.mqtt(req)
        raise ValueError(f"unknown request {op!r} (tls, served, stop, mqtt, bye)")

    def server(self, req):
        s = self.servers.get(req.get("id"))
        if s is None:
            raise ValueError(f"no server {req.get('id')!r} in this session")
        return s

    def tls(self, req):
        group, sig = req.get("group"), req.get("sig", "EC:P-256")
        for what, v in (("group", group), ("sig", sig)):
            if not isinstance(v, str) or not NAME.match(v):
                raise ValueError(f"bad {what} {v!r}")
        if group.lower() not in self.agent.groups:
            raise ValueError(f"group {group} is not offered by the agent's build")
        count, concurrency = req.get("count", 100), req.get("concurrency", 1)
        for what, v, top in (("count", count, LIMITS["handshakes"]),
                             ("concurrency", concurrency, LIMITS["concurrency"])):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= top:
                raise ValueError(f"{what} must be an integer 1..{top}")
        if len(self.servers) >= LIMITS["servers"]:
            raise ValueError(f"at most {LIMITS['servers']} servers per session")
        self.agent.reserve(concurrency)
        try:
            s = TlsServer(self.agent, group, sig, bool(req.get("mutual")), bool(req.get("chain")), count, concurrency)
        except BaseException:
            self.agent.release(concurrency)
            raise
        sid = f"s{len(self.servers) + 1}-{s.port}"
        self.servers[sid] = s
        self.agent.log(self.peer, f"TLS server {group} / {sig} on port {s.port}")
        return {"id": sid, "port": s.port, "files": s.files()}

    def mqtt(self, req):
        from . import mqtt_remote
        if self.broker is not None:
            raise ValueError("this session already has a broker")
        self.broker, answer = mqtt_remote.start_broker(self.agent, req)
        self.agent.log(self.peer, f"Mosquitto broker with {len(answer['ports'])} listeners")
        return answer

    def close(self):
        for s in self.servers.values():
            s.stop()
        self.servers = {}
        if self.broker is not None:
            self.broker.stop()
            self.broker = None


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        agent = self.server.agent
        peer = f"{self.client_address[0]}:{self.client_address[1]}"
        if not agent.slots.acquire(blocking=False):
            control.Channel(self.request).send({"ok": False, "error": "busy: too many connections"})
            return
        ch, session = control.Channel(self.request), None
        try:
            self.request.settimeout(LIMITS["hello_s"])
            hello = ch.recv()
            if not isinstance(hello, dict) or hello.get("op") != "hello":
                return ch.send({"ok": False, "error": "the first request must be hello"})
            token = hello.get("token") if isinstance(hello.get("token"), str) else ""
            if not hmac.compare_digest(token.encode(), agent.token.encode()):
                agent.log(peer, "refused: wrong token")
                return ch.send({"ok": False, "error": "wrong token"})
            why = control.mismatch(agent.identity, hello)
            if why:
                agent.log(peer, f"refused: {why}")
                return ch.send({"ok": False, "error": f"the client runs other code: {why}",
                                "identity": agent.identity})
            ch.send({"ok": True, "identity": agent.identity, "env": agent.env, "limits": LIMITS})
            agent.log(peer, "session opened")
            session = Session(agent, peer)
            agent.live.add(session)
            # A client is silent while it measures: TCP keepalive, not a
            # timeout on requests, tells a busy client from a vanished one.
            self.request.settimeout(LIMITS["session_s"])
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            for opt, value in zip((socket.TCP_KEEPIDLE, socket.TCP_KEEPINTVL, socket.TCP_KEEPCNT), KEEPALIVE):
                self.request.setsockopt(socket.IPPROTO_TCP, opt, value)
            while time.monotonic() - session.started < LIMITS["session_s"]:
                try:
                    req = ch.recv()
                except control.ControlError as e:
                    ch.send({"ok": False, "error": f"bad request: {e}"})
                    continue
                if req is None or req.get("op") == "bye":
                    break
                try:
                    ch.send(dict(session.handle(req), ok=True))
                except (ValueError, KeyError, TypeError, RuntimeError, OSError,
                        subprocess.SubprocessError) as e:  # that request fails, the session goes on
                    ch.send({"ok": False, "error": str(e) or type(e).__name__})
        except (OSError, control.ControlError) as e:  # the client went away or sent garbage
            agent.log(peer, f"connection ended: {e}")
        finally:
            if session is not None:
                agent.live.discard(session)
                session.close()
                agent.log(peer, "session closed, its servers stopped")
            ch.close()
            agent.slots.release()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 16


def _stop(signum, frame):
    raise KeyboardInterrupt


def run(args, lab):
    host, port = control.host_port(args.listen)
    try:  # the measured servers (kpqc-handshake) speak IPv4
        host = socket.gethostbyname(host)
    except OSError:
        raise SystemExit(f"kpqc-bench serve: --listen needs an IPv4 address or a name of one, not {host}")
    token = args.token or secrets.token_urlsafe(18)
    agent = Agent(lab, host, token)
    try:
        srv = Server((host, port), Handler)
    except OSError as e:
        raise SystemExit(f"kpqc-bench serve: cannot listen on {host}:{port}: {e.strerror}")
    with srv:
        srv.agent = agent
        port = srv.server_address[1]
        print(f"kpqc-bench serve: listening on {host}:{port}, commit {agent.identity['commit'][:12]}, "
              f"table {agent.identity['table'][:12]}", flush=True)
        print(f"token: {token}" if not args.token else "token: as given by --token", flush=True)
        print(f"client: kpqc-bench remote --server {host}:{port} --token {'<token>' if args.token else token}",
              flush=True)
        signal.signal(signal.SIGTERM, _stop)
        try:
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            for session in list(agent.live):
                session.close()
    lab.section("Agent sessions", md_table(["time", "client", "event"], agent.sessions))
    return []
