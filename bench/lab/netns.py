"""Two Linux network namespaces, a server's and a client's, that are always
removed again: on leaving the `with` block, on Ctrl-C or SIGTERM, at
interpreter exit, and -- for runs that were killed outright -- by the next
run, which deletes the namespaces of processes that no longer exist.

Names are kpqc-<pid>-<n>-srv / -cli, so concurrent runs never collide and a
stale namespace can be told from a live one by its pid.  Each namespace
holds only its own loopback and the link device; nothing leaves them.
"""
import atexit
import ctypes
import os
import re
import signal
import socket
import subprocess

SERVER_ADDR, CLIENT_ADDR = "10.77.0.1", "10.77.0.2"
NAME = re.compile(r"^kpqc-(\d+)-(\d+)-(srv|cli|probe)$")

_live = []       # topologies not yet closed in this process
_counter = [0]


def ip(*args, check=True, ns=None):
    argv = ["ip"] + (["-n", ns] if ns else []) + list(args)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip()}")
    return r


def unusable_reason():
    """Why namespaces with TUN devices cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    try:
        ip("-V")
    except (OSError, RuntimeError) as e:
        return f"no usable `ip` command ({e})"
    return None


def namespaces():
    out = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def delete(name):
    """Ends the processes inside namespace `name` (only ever started by the
    lab, since the name is the lab's own) and deletes it."""
    pids = ip("netns", "pids", name, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    ip("netns", "delete", name, check=False)


def remove_stale():
    """Deletes kpqc-* namespaces left behind by runs that no longer exist."""
    gone = []
    for name in namespaces():
        m = NAME.match(name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            delete(name)
            gone.append(name)
    return gone


def fresh_base():
    _counter[0] += 1
    return f"kpqc-{os.getpid()}-{_counter[0]}"


def _close_all():
    for topo in list(_live):
        topo.close()


def _on_terminate(signum, frame):
    # SystemExit unwinds every `with` block (and so every cleanup) on the way out.
    raise SystemExit(128 + signum)


def _install_handlers():
    atexit.register(_close_all)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            try:
                signal.signal(sig, _on_terminate)
            except ValueError:  # not the main thread: atexit still cleans up
                pass


class Topology:
    """`with Topology() as t:` -- t.server and t.client are namespace names;
    the link between them is made separately (lab.link)."""

    def __init__(self):
        n = fresh_base()
        self.server, self.client = f"{n}-srv", f"{n}-cli"
        self.server_addr, self.client_addr = SERVER_ADDR, CLIENT_ADDR
        self.closed = False

    def __enter__(self):
        reason = unusable_reason()
        if reason:
            raise RuntimeError(reason)
        if not _live:
            _install_handlers()
        remove_stale()
        _live.append(self)
        try:
            for ns in (self.server, self.client):
                ip("netns", "add", ns)
                ip("link", "set", "lo", "up", ns=ns)
                # No IPv6 on the link: no router solicitations or MLD reports
                # among the measured packets.
                self.sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
                self.sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @staticmethod
    def sysctl(ns, key, value):
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"], capture_output=True,
                       timeout=30)

    def close(self):
        if self.closed:
            return
        self.closed = True
        for ns in (self.server, self.client):
            delete(ns)
        if self in _live:
            _live.remove(self)



def socket_in(ns, family, kind, proto=0):
    """A socket that lives in namespace `ns`, made from this process (the
    calling thread enters `ns` for the socket() call only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    clone_newnet = 0x40000000
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(target, clone_newnet) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
        try:
            return socket.socket(family, kind, proto)
        finally:
            if libc.setns(home, clone_newnet) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(home)
        os.close(target)
