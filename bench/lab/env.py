"""Where the build's programs are, and the environment every run records."""
import datetime
import json
import os
import pathlib
import platform
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Build:
    def __init__(self, build_dir):
        self.dir = pathlib.Path(build_dir).resolve()
        self.env_cmd = str(self.dir / "kpqc-env")
        self.openssl = str(self.dir / "kpqc-openssl")
        self.prims = str(self.dir / "bench" / "kpqc-prims")
        self.handshake = str(self.dir / "bench" / "kpqc-handshake")
        missing = [p for p in (self.env_cmd, self.prims, self.handshake) if not os.path.exists(p)]
        if missing:
            raise SystemExit(f"kpqc-bench: not built: {', '.join(missing)} (run `make build`)")

    def run_json(self, argv, timeout=3600, env=None):
        """Runs a measurement program in the provider's environment; returns its JSON lines."""
        out = subprocess.run([self.env_cmd] + argv, capture_output=True, text=True, timeout=timeout,
                             env=dict(os.environ, **(env or {})))
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {out.stderr.strip()[-500:]}")
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _cmd(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def environment(build):
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
        "compiler": _cmd(["cc", "--version"]).splitlines()[0] if _cmd(["cc", "--version"]) else "",
        "openssl": _cmd([build.openssl, "version"]),
        "commit": _cmd(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "kpqc_impl": os.environ.get("KPQC_IMPL", "auto"),
    }
