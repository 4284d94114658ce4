"""One way to start a server process and wait until it serves.

    with Server(argv, log_path, ready=lambda log: "ACCEPT" in log) as s:
        ...   # s.alive(), s.log()

The server writes its output to log_path; start() polls that log until
ready(log) is true, and fails (ServerError, with the log's tail) when the
process exits first or the time runs out.  stop() always ends it.
"""
import os
import socket
import subprocess
import time


class ServerError(RuntimeError):
    pass


def free_ports(n, host="127.0.0.1"):
    """n ports free at this moment (another program may take one first)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def stop_process(proc, timeout=10):
    """Ends proc: SIGTERM, then SIGKILL if it has not exited within timeout seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)


class Server:
    def __init__(self, argv, log_path, ready, env=None, timeout=20, name=None):
        self.argv, self.log_path, self.ready, self.env, self.timeout = argv, log_path, ready, env, timeout
        self.name = name or os.path.basename(argv[0])
        self.proc, self._log = None, None

    def start(self):
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=self.env)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            log = self.log()
            if self.proc.poll() is not None:
                self.stop()
                raise ServerError(f"{self.name} exited ({self.proc.returncode}): {log.strip()[-800:]}")
            if self.ready(log):
                return self
            time.sleep(0.02)
        self.stop()
        raise ServerError(f"{self.name} did not start within {self.timeout} s: {self.log().strip()[-800:]}")

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
