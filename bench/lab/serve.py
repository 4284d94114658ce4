"""Suite `serve`: the server agent that `kpqc-bench remote` and `kpqc-bench
mqtt --remote` measure against from another machine.

`kpqc-bench serve --listen ADDR:PORT [--token T]` listens for control
connections (lab/control.py, TLS 1.3 with a certificate made at start whose
fingerprint it prints for the clients to pin) on ADDR only (loopback by
default).  A client that presents the token and runs the same commit and
algorithm table may ask for TLS servers (kpqc-handshake server: one per
group and certificate, reporting its CPU time per handshake) and for a
Mosquitto broker with one listener per certificate algorithm; they listen
on ADDR too, and the agent stops them when the client says bye, disconnects
or goes silent.  Server certificates are made once per algorithm and
reused; they are throwaway test certificates.  For mutual TLS each session
gets a client key and certificate of its own, which only that session's
servers trust.

Everything a client asks for is bounded (sessions, servers, handshakes,
time), and so is what a peer that never authenticates can take: the whole
hello (TLS handshake, token, identity) has one deadline, unauthenticated
connections are bounded per peer address and in all and hold no session
slot, wrong tokens are throttled per peer address, and refusals are
counted, not listed.  A wrong token, a malformed request or a vanished
client ends only that client's session.  Ctrl-C stops the agent.
"""
import collections
import hmac
import json
import re
import secrets
import shutil
import signal
import socket
import socketserver
import subprocess
import ssl
import sys
import threading
import time

from . import control, mqtt_remote
from .handshake import available_groups
from .results import md_table
from .servers import stop_process

LIMITS = {"connections": 8,         # authenticated sessions at once
          "hellos": 64,             # connections not yet authenticated, in all
          "hellos_per_peer": 4,     # the same, from one peer address
          "servers": 32,            # TLS servers per session
          "handshakes": 100000,     # per TLS server worker
          "concurrency": 16,        # worker processes per TLS server
          "workers": 64,            # worker processes of all TLS servers of all sessions
          "session_s": 4 * 3600,    # a session's whole life, and the longest wait for a request
          "hello_s": 10}            # the whole hello: TLS handshake, token and identity
KEEPALIVE = (60, 10, 6)  # idle s, interval s, probes: a vanished client machine is noticed in 2 minutes
FREE_TRIES = 3           # wrong tokens from one address before it must wait
LONGEST_WAIT_S = 60      # the wait doubles with each further wrong token, up to this
PEERS_REMEMBERED = 4096  # addresses the throttle and the refusal counts keep (the oldest go first)
LOG_LINES = 1000         # events the agent keeps for its report


def add_arguments(p):
    p.add_argument("--listen", default=f"127.0.0.1:{control.DEFAULT_PORT}",
                   help="ADDR:PORT of the control connection and the servers (default loopback)")
    p.add_argument("--token", default="", help="shared secret the clients present (default: a random one, printed)")


class Throttle:
    """Wrong tokens per peer address: FREE_TRIES free, then a wait that
    doubles with each one.  An attempt counts as wrong from the moment it is
    admitted (until its token proves right), so that connections in parallel
    gain nothing; an address's count ends with a right token."""

    def __init__(self):
        self.lock, self.peers = threading.Lock(), collections.OrderedDict()  # address -> (wrong, not before)

    def admit(self, address):
        """0 when a token from address may be checked now, else the seconds to wait."""
        now = time.monotonic()
        with self.lock:
            wrong, not_before = self.peers.pop(address, (0, 0.0))
            wait = max(0.0, not_before - now)
            if not wait:
                wrong += 1
                if wrong > FREE_TRIES:
                    not_before = now + min(2.0 ** (wrong - FREE_TRIES - 1), LONGEST_WAIT_S)
            self.peers[address] = (wrong, not_before)
            while len(self.peers) > PEERS_REMEMBERED:
                self.peers.popitem(last=False)
            return wait

    def right(self, address):
        with self.lock:
            self.peers.pop(address, None)


class Admission:
    """Connections not yet authenticated, at most LIMITS["hellos_per_peer"]
    per peer address and LIMITS["hellos"] in all.  A newcomer over a bound
    cuts the oldest (of its address, else of all): a peer that holds
    connections idle only delays itself, never a client with the token."""

    def __init__(self):
        self.lock, self.pending, self.ids = threading.Lock(), collections.OrderedDict(), iter(range(1, 1 << 62))

    def enter(self, address, cut):
        """Admits a connection; cut() ends it when a newcomer needs its place.  Its ticket."""
        with self.lock:
            mine = [t for t, (a, _) in self.pending.items() if a == address]
            if len(mine) >= LIMITS["hellos_per_peer"]:
                _, oldest = self.pending.pop(mine[0])
            elif len(self.pending) >= LIMITS["hellos"]:
                _, (_, oldest) = self.pending.popitem(last=False)
            else:
                oldest = None
            ticket = next(self.ids)
            self.pending[ticket] = (address, cut)
        if oldest is not None:
            oldest()
        return ticket

    def leave(self, ticket):
        with self.lock:
            self.pending.pop(ticket, None)


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
        self.admission, self.throttle = Admission(), Throttle()
        self.live = set()  # open sessions, closed also when the agent stops
        self.workers, self.workers_lock = 0, threading.Lock()
        self.log_lock = threading.Lock()
        self.sessions = collections.deque(maxlen=LOG_LINES)
        self.refusals = collections.Counter()  # (peer address, why) -> count
        self.tls = None  # the control channel's server context
        self.session_ids = iter(range(1, 1 << 62))

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

    def refuse(self, address, why):
        """Counts a refusal; only the first of each kind from an address is logged."""
        key = (address, why)
        with self.log_lock:
            if key not in self.refusals and len(self.refusals) >= PEERS_REMEMBERED:
                key = ("(others)", why)
            first = key not in self.refusals
            self.refusals[key] += 1
        if first:
            self.log(address, f"refused: {why} (further refusals of this kind are counted)")

    def pki(self, sig, chain, under=None):
        """The certificates of sig under `under` (the agent's server
        certificates by default), made on first use, then reused."""
        d = (under or self.pki_dir) / f"{sig.replace(':', '-')}{'-chain' if chain else ''}"
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

    def __init__(self, agent, group, sig, mutual, chain, count, concurrency, client_pki=None):
        """client_pki (mutual TLS): the certificates of the session's client,
        whose anchor alone the server trusts for client certificates."""
        self.pki, self.client_pki = agent.pki(sig, chain), client_pki
        argv = [agent.build.env_cmd, agent.build.handshake, "server", "--group", group, "--sig", sig,
                "--pki", str(self.pki), "--address", agent.address, "--count", str(count),
                "--clients", str(concurrency), "--timeout-ms", "30000"]
        if mutual:
            argv += ["--mutual", "--client-anchor", str(client_pki / "anchor.pem")]
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
        """What the client needs: the server's anchor, and for mutual TLS the
        session's own client certificate, its chain and key."""
        files = {"anchor.pem": (self.pki / "anchor.pem").read_text()}
        if self.mutual:
            files.update({n: (self.client_pki / n).read_text() for n in control.CLIENT_FILES
                          if (self.client_pki / n).exists()})
        return files

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
        self.dir = agent.lab.dir / "sessions" / str(next(agent.session_ids))  # its client certificates

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
        group, sig = control.plain_name("group", req.get("group")), control.plain_name("sig", req.get("sig", "EC:P-256"))
        if group.lower() not in self.agent.groups:
            raise ValueError(f"group {group} is not offered by the agent's build")
        count, concurrency = req.get("count", 100), req.get("concurrency", 1)
        for what, v, top in (("count", count, LIMITS["handshakes"]),
                             ("concurrency", concurrency, LIMITS["concurrency"])):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= top:
                raise ValueError(f"{what} must be an integer 1..{top}")
        if len(self.servers) >= LIMITS["servers"]:
            raise ValueError(f"at most {LIMITS['servers']} servers per session")
        mutual, chain = bool(req.get("mutual")), bool(req.get("chain"))
        client_pki = self.agent.pki(sig, chain, under=self.dir) if mutual else None
        self.agent.reserve(concurrency)
        try:
            s = TlsServer(self.agent, group, sig, mutual, chain, count, concurrency, client_pki)
        except BaseException:
            self.agent.release(concurrency)
            raise
        sid = f"s{len(self.servers) + 1}-{s.port}"
        self.servers[sid] = s
        self.agent.log(self.peer, f"TLS server {group} / {sig} on port {s.port}")
        return {"id": sid, "port": s.port, "files": s.files()}

    def mqtt(self, req):
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
        shutil.rmtree(self.dir, ignore_errors=True)


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        agent, address = self.server.agent, self.client_address[0]
        twin = self.request.dup()  # the same connection, for others to cut whatever wraps it by then
        ticket = agent.admission.enter(address, lambda: _shut(twin))
        cut = threading.Timer(LIMITS["hello_s"], _shut, (twin,))
        cut.start()
        try:
            ch = self.hello(agent, address)
        finally:
            cut.cancel()
            agent.admission.leave(ticket)
            twin.close()
        if ch is None:
            return
        peer, session = f"{address}:{self.client_address[1]}", None
        try:
            agent.log(peer, "session opened")
            session = Session(agent, peer)
            agent.live.add(session)
            self.serve(ch, session)
        except (OSError, control.ControlError) as e:  # the client went away or sent garbage
            agent.log(peer, f"connection ended: {e}")
        finally:
            if session is not None:
                agent.live.discard(session)
                session.close()
                agent.log(peer, "session closed, its servers stopped")
            ch.close()
            agent.slots.release()

    def hello(self, agent, address):
        """The TLS handshake, the token and the identity, all within one
        deadline (a timer cuts the connection when it passes, however slowly
        the peer trickles its bytes); the channel of an authenticated client
        that holds a session slot, else None."""
        raw, ch = self.request, None
        try:
            raw.settimeout(LIMITS["hello_s"])
            ch = control.Channel(agent.tls.wrap_socket(raw, server_side=True))
            hello = ch.recv()
            if not isinstance(hello, dict) or hello.get("op") != "hello":
                agent.refuse(address, "no hello")
                ch.send({"ok": False, "error": "the first request must be hello"})
                return ch.close()
            wait = agent.throttle.admit(address)
            if wait:
                agent.refuse(address, "throttled after wrong tokens")
                ch.send({"ok": False, "error": f"too many wrong tokens from {address}: try again in {wait:.0f} s"})
                return ch.close()
            token = hello.get("token") if isinstance(hello.get("token"), str) else ""
            if not hmac.compare_digest(token.encode(), agent.token.encode()):
                agent.refuse(address, "wrong token")
                ch.send({"ok": False, "error": "wrong token"})
                return ch.close()
            agent.throttle.right(address)
            why = control.mismatch(agent.identity, hello)
            if why:
                agent.refuse(address, f"other code: {why}")
                ch.send({"ok": False, "error": f"the client runs other code: {why}", "identity": agent.identity})
                return ch.close()
            if not agent.slots.acquire(blocking=False):
                agent.refuse(address, "busy")
                ch.send({"ok": False, "error": f"busy: {LIMITS['connections']} sessions are open"})
                return ch.close()
            ch.send({"ok": True, "identity": agent.identity, "env": agent.env, "limits": LIMITS})
            return ch
        except (OSError, ssl.SSLError, control.ControlError, ValueError):  # gone, garbage, too slow or cut
            agent.refuse(address, "hello not completed")
            (ch or raw).close()
            return None

    def serve(self, ch, session):
        # A client is silent while it measures: TCP keepalive, not a
        # timeout on requests, tells a busy client from a vanished one.
        ch.sock.settimeout(LIMITS["session_s"])
        ch.sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for opt, value in zip((socket.TCP_KEEPIDLE, socket.TCP_KEEPINTVL, socket.TCP_KEEPCNT), KEEPALIVE):
            ch.sock.setsockopt(socket.IPPROTO_TCP, opt, value)
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


def _shut(sock):
    """Ends a connection from another thread (a blocked read returns)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


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
    cert, key, pin = control.make_certificate(lab.dir / "agent-tls")
    agent.tls = control.server_context(cert, key)
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
        print(f"fingerprint: {pin}", flush=True)
        print(f"client: kpqc-bench remote --server {host}:{port} --token {'<token>' if args.token else token} "
              f"--fingerprint {pin}", flush=True)
        signal.signal(signal.SIGTERM, _stop)
        try:
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            for session in list(agent.live):
                session.close()
    lab.section("Agent sessions", md_table(["time", "client", "event"], list(agent.sessions)) +
                (f"\n\n(the last {LOG_LINES} events)" if len(agent.sessions) == LOG_LINES else ""))
    if agent.refusals:
        lab.section("Refused connections", md_table(["client address", "why", "times"],
                                                     [[a, why, n] for (a, why), n in agent.refusals.most_common()]))
    return []
