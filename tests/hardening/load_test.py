#!/usr/bin/env python3
"""Load and soak test: a TLS 1.3 server with kpqcprovider (kpqc-handshake's
pre-forked server processes) under many concurrent clients over loopback,
across a mix of KpqC groups and server certificates (ECDSA, HAETAE, AIMer,
composites when built).  Counts failed handshakes and samples the
server processes' resident memory at the start, middle and end of each
round; fails if any handshake fails or memory keeps growing.

  load_test.py --build-dir build [--handshakes 20000] [--clients 32]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

# (group, server certificate); KpqC certificates fall back to ECDSA when
# their family is not built.
MIX = [("x25519_smaugt1", "EC:P-256"), ("p256_ntruplus768", "haetae2"), ("smaugt3", "aimer128f"),
       ("x448_ntruplus864", "p384_haetae3"), ("p521_smaugt5", "haetae5"), ("timer", "p256_aimer128f")]


def available(build, sig):
    if sig.startswith("EC:"):
        return True
    listed = subprocess.run([str(build / "kpqc-openssl"), "list", "-signature-algorithms"], capture_output=True,
                            text=True).stdout
    return f" {sig}" in listed


def children_rss(pid):
    """Resident KiB of the direct children of pid (the server processes)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != pid:
                continue
            cmd = open(f"/proc/{entry}/cmdline", "rb").read()
            if b"load" not in cmd:
                continue
            for line in open(f"/proc/{entry}/status"):
                if line.startswith("VmRSS:"):
                    total = max(total, int(line.split()[1]))
        except (OSError, ValueError, IndexError):
            continue
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--handshakes", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=32)
    args = ap.parse_args()
    build = pathlib.Path(args.build_dir).resolve()
    per_group = max(args.clients, args.handshakes // len(MIX))
    failures, done, report = 0, 0, []
    for group, sig in MIX:
        sig = sig if available(build, sig) else "EC:P-256"
        samples = []
        p = subprocess.Popen([str(build / "kpqc-env"), str(build / "bench" / "kpqc-handshake"), "load", "--group",
                              group, "--sig", sig, "--count", str(per_group), "--clients", str(args.clients)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                # kpqc-env execs, so p.pid is kpqc-handshake itself.
                rss = children_rss(p.pid)
                if rss:
                    samples.append(rss)
                time.sleep(0.05)

        t = threading.Thread(target=sample)
        t.start()
        try:
            out, err = p.communicate(timeout=1200)
        finally:
            stop.set()
            t.join()
        if p.returncode != 0:
            print(f"{group}+{sig}: kpqc-handshake failed: {err[-500:]}")
            return 1
        result = [json.loads(l) for l in out.splitlines() if '"mode":"load"' in l][0]
        failures += result["failures"]
        done += result["handshakes"]
        third = max(1, len(samples) // 3)
        start = samples[0] if samples else 0
        middle = samples[len(samples) // 2] if samples else 0
        end = max(samples[-third:]) if samples else 0
        label = f"{group}+{sig}"
        report.append((label, result["handshakes"], result["failures"], result["per_second"], start, middle, end))
        print(f"{label:32s} {result['handshakes']:6d} handshakes  {result['failures']} failed  "
              f"{result['per_second']:7.0f}/s  server RSS KiB start {start} middle {middle} end {end}")
    growth = [r for r in report if r[4] and r[6] > r[5] * 1.2 + 2048]
    print(f"total: {done} handshakes, {failures} failed, {args.clients} concurrent clients")
    if growth:
        print("memory grew during:", ", ".join(r[0] for r in growth))
    return 1 if failures or growth else 0


if __name__ == "__main__":
    sys.exit(main())
