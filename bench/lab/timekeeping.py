"""Did the machine keep time while something was measured?

A wall-clock measurement on a shared machine (a virtual machine whose host
runs other guests, above all) can come out milliseconds late for reasons
outside the program measured.  `TimeProbe` runs beside such a measurement:
a separate process sleeps 1 ms at a time and records how late it wakes up
(what cyclictest does), and the CPU time the hypervisor took from this
machine (`steal` in /proc/stat) is read before and after.  A machine kept
time when the probe's wake-ups were late by well under a millisecond.

    with TimeProbe() as probe:
        measure()
    probe.kept_time, probe.summary()
"""
import json
import os
import subprocess
import sys

# The probe's own loop: one line of JSON when its standard input closes.
_PROBE = r"""
import json, select, sys, time
late = []
while not select.select([sys.stdin], [], [], 0)[0]:
    t = time.monotonic_ns()
    time.sleep(0.001)
    late.append(time.monotonic_ns() - t - 1_000_000)
late.sort()
q = lambda p: late[min(len(late) - 1, int(p * len(late)))] / 1e3 if late else 0.0
print(json.dumps({"wakeups": len(late), "p50_us": q(0.5), "p99_us": q(0.99), "max_us": q(1.0)}), flush=True)
"""

# Wake-ups of an idle 2-core guest come 50-150 us late; a host that lends
# the CPUs elsewhere makes them milliseconds late.
P99_LIMIT_US = 1000.0
MAX_LIMIT_US = 10000.0


def _cpu_ticks():
    """All CPUs' (user, nice, system, idle, iowait, irq, softirq, steal)
    ticks from /proc/stat, or None where there is none."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


def _steal_ms():
    t = _cpu_ticks()
    return t[7] * 1000 / os.sysconf("SC_CLK_TCK") if t and len(t) == 8 else 0.0


class MachineLoad:
    """How busy the machine was while a table was measured: the share of
    CPU time the hypervisor stole, the share spent busy (this run included:
    on 2 cores one busy measurement is ~50 %), and the 1-minute load average
    at the end.  `with MachineLoad() as m: ...; m.result`"""

    def __enter__(self):
        self._t0 = _cpu_ticks()
        return self

    def __exit__(self, *exc):
        t1 = _cpu_ticks()
        self.result = {"steal_pct": None, "busy_pct": None, "load1": round(os.getloadavg()[0], 2)}
        if self._t0 and t1 and len(t1) == 8:
            d = [b - a for a, b in zip(self._t0, t1)]
            total = sum(d) or 1
            self.result["steal_pct"] = round(100 * d[7] / total, 2)
            self.result["busy_pct"] = round(100 * (total - d[3] - d[4] - d[7]) / total, 1)
        return False

    def summary(self):
        r = self.result
        steal = "unknown" if r["steal_pct"] is None else f"{r['steal_pct']:.1f} %"
        busy = "unknown" if r["busy_pct"] is None else f"{r['busy_pct']:.0f} %"
        return f"CPU steal {steal}, CPUs busy {busy}, load average {r['load1']:.2f} ({os.cpu_count()} cores)"


class TimeProbe:
    def __init__(self):
        self.result, self.steal_ms = None, 0.0

    def __enter__(self):
        self._steal0 = _steal_ms()
        self._proc = subprocess.Popen([sys.executable, "-c", _PROBE], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        out, _ = self._proc.communicate(timeout=30)  # closing stdin stops the probe
        self.steal_ms = _steal_ms() - self._steal0
        lines = out.strip().splitlines()
        self.result = json.loads(lines[-1]) if lines else {"wakeups": 0, "p50_us": 0, "p99_us": 0, "max_us": 0}
        return False

    @property
    def kept_time(self):
        r = self.result
        return r["wakeups"] > 0 and r["p99_us"] <= P99_LIMIT_US and r["max_us"] <= MAX_LIMIT_US

    def summary(self):
        r = self.result
        return (f"1 ms sleeps woke {r['p50_us']:.0f} us late (median), {r['p99_us']:.0f} us (p99), "
                f"{r['max_us']:.0f} us (max) over {r['wakeups']} wake-ups; CPU steal {self.steal_ms:.0f} ms")
