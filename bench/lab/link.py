"""The emulated link between a Topology's two namespaces: `tc netem` on a
veth pair where the kernel has sch_netem, else kpqc-linkemu (two TUN
devices and a user-space forwarder).  Either way the kernels' own TCP runs
end to end; which of the two shaped a run is recorded as `method`.
"""
import dataclasses
import json
import os
import select
import subprocess
import time

from . import netns

DEV = "kpqc0"


@dataclasses.dataclass
class LinkConfig:
    rtt_ms: float
    loss_pct: float = 0.0        # per direction, Bernoulli
    rate_mbit: float = 0.0       # 0: unlimited
    mtu: int = 1500
    jitter_ms: float = 0.0
    jitter_dist: str = "uniform"
    queue_bytes: int = 0         # 0: 100 ms at the rate, at least 64 KiB
    seed: int = 1

    def label(self):
        rate = f"{self.rate_mbit / 1000:g} Gbit" if self.rate_mbit >= 1000 else f"{self.rate_mbit:g} Mbit"
        return f"RTT {self.rtt_ms:g} ms, loss {self.loss_pct:g} %, {rate if self.rate_mbit else 'unlimited'}, MTU {self.mtu}"


_netem = {}


def netem_available():
    """Tries a netem qdisc in a scratch namespace (the module may be absent
    or not loadable); the answer is kept for the process."""
    if "ok" not in _netem:
        name = netns.fresh_base() + "-probe"
        try:
            netns.ip("netns", "add", name)
            r = subprocess.run(["tc", "-n", name, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"],
                               capture_output=True, timeout=30)
            _netem["ok"] = r.returncode == 0
        except (OSError, RuntimeError, subprocess.TimeoutExpired):
            _netem["ok"] = False
        finally:
            netns.delete(name)
    return _netem["ok"]


class EmulatedLink:
    """kpqc-linkemu between the namespaces: A is the server's side, B the client's."""
    method = "kpqc-linkemu"

    def __init__(self, topo, conf, build_dir, duration_s=7200):
        exe = os.path.join(build_dir, "bench", "kpqc-linkemu")
        if not os.path.exists(exe):
            raise RuntimeError(f"not built: {exe}")
        argv = [exe, "--netns-a", topo.server, "--netns-b", topo.client, "--dev", DEV,
                "--addr-a", topo.server_addr, "--addr-b", topo.client_addr, "--mtu", str(conf.mtu),
                "--delay-ms", f"{conf.rtt_ms / 2:.6f}", "--jitter-ms", f"{conf.jitter_ms:.6f}",
                "--jitter-dist", conf.jitter_dist, "--loss", f"{conf.loss_pct:g}",
                "--rate-mbit", f"{conf.rate_mbit:g}", "--seed", str(conf.seed), "--duration", str(duration_s)]
        if conf.queue_bytes:
            argv += ["--queue-bytes", str(conf.queue_bytes)]
        # Its standard input is the control pipe: when this process goes away
        # for any reason, the emulator stops and its TUN devices vanish.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.stats = None
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline() if ready else ""
        if '"ready"' not in line:
            err = self.stop_process()
            raise RuntimeError(f"kpqc-linkemu did not start: {err.strip()[-500:]}")

    def stop_process(self):
        try:  # communicate() closes the control pipe first: the emulator stops
            out, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        for line in out.splitlines():
            if '"stopped"' in line:
                self.stats = json.loads(line)
        return err

    def close(self):
        if self.proc.poll() is None or self.stats is None:
            self.stop_process()


class NetemLink:
    """A veth pair, one end in each namespace, with a netem qdisc on both ends."""
    method = "tc netem"

    def __init__(self, topo, conf, build_dir=None):
        self.topo, self.stats = topo, None
        netns.ip("link", "add", DEV, "type", "veth", "peer", "name", DEV + "p", "netns", topo.client, ns=topo.server)
        netns.ip("link", "set", DEV + "p", "name", DEV, ns=topo.client)
        for ns, addr in ((topo.server, topo.server_addr), (topo.client, topo.client_addr)):
            netns.ip("link", "set", DEV, "mtu", str(conf.mtu), "up", ns=ns)
            netns.ip("addr", "add", f"{addr}/24", "dev", DEV, ns=ns)
            argv = ["tc", "-n", ns, "qdisc", "replace", "dev", DEV, "root", "netem", "limit", "10000",
                    "delay", f"{conf.rtt_ms / 2 * 1000:.0f}us"]
            if conf.jitter_ms:
                argv += [f"{conf.jitter_ms * 1000:.0f}us"] + (["distribution", "normal"]
                                                              if conf.jitter_dist == "normal" else [])
            if conf.loss_pct:
                argv += ["loss", "random", f"{conf.loss_pct:g}%"]
            if conf.rate_mbit:
                argv += ["rate", f"{conf.rate_mbit:g}mbit"]
            r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip()}")

    def close(self):
        netns.ip("link", "del", DEV, ns=self.topo.server, check=False)


class Link:
    """`with Link(topo, conf, build_dir) as link:` the shaped link is up inside."""

    def __init__(self, topo, conf, build_dir, method="auto"):
        self.topo, self.conf, self.build_dir = topo, conf, str(build_dir)
        if method == "auto":
            method = "netem" if netem_available() else "emulator"
        self.kind = NetemLink if method == "netem" else EmulatedLink
        self.impl = None

    def __enter__(self):
        self.impl = self.kind(self.topo, self.conf, self.build_dir)
        time.sleep(0.05)  # the new device's routes settle before the first packet
        return self

    def __exit__(self, *exc):
        self.impl.close()
        return False

    @property
    def method(self):
        return self.kind.method

    @property
    def stats(self):
        return self.impl.stats if self.impl else None
