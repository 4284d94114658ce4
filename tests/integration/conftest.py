"""Shared fixtures: the build tree's private openssl with kpqcprovider."""
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import kpqc_table  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--build-dir", default=str(ROOT / "build"))


def pytest_generate_tests(metafunc):
    """A test argument named after a family and a kind (`ntruplus_kem`,
    `haetae_sig`) runs once per algorithm of that family in the table."""
    for arg in metafunc.fixturenames:
        family, _, kind = arg.rpartition("_")
        if family and kind in ("kem", "sig"):
            rows = kpqc_table.from_build(metafunc.config.getoption("--build-dir"))[kind + "s"]
            names = [r["name"] for r in rows if r["family"] == family]
            if names:
                metafunc.parametrize(arg, names)


class Lab:
    def __init__(self, build, tmp):
        self.build = pathlib.Path(build).resolve()
        self.tmp = pathlib.Path(tmp)
        self.openssl = [str(self.build / "kpqc-openssl")]
        self.env_cmd = [str(self.build / "kpqc-env")]

    def run(self, *args, timeout=30, check=True, **kw):
        return subprocess.run(self.openssl + list(args), capture_output=True, text=True,
                              timeout=timeout, check=check, **kw)

    def built_groups(self):
        out = self.run("list", "-tls-groups", "-tls1_3").stdout.strip().split(":")
        return out

    @staticmethod
    def free_port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def server(self, *args):
        """An s_server for one connection; returns (process, port)."""
        port = self.free_port()
        cert, key = self.ecdsa_cert()
        p = subprocess.Popen(self.openssl + ["s_server", "-accept", f"127.0.0.1:{port}", "-cert", cert,
                                             "-key", key, "-naccept", "1", "-www", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # s_server prints ACCEPT once it listens (probing the port would use
        # up its single connection).
        line = p.stdout.readline()
        while line and "ACCEPT" not in line:
            line = p.stdout.readline()
        if "ACCEPT" not in line:
            p.kill()
            raise RuntimeError("s_server did not start")
        return p, port

    def ecdsa_cert(self):
        cert, key = self.tmp / "ec-cert.pem", self.tmp / "ec-key.pem"
        if not cert.exists():
            self.run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-keyout", str(key),
                     "-out", str(cert), "-days", "2", "-nodes", "-subj", "/CN=localhost")
        return str(cert), str(key)

    def client(self, port, *args, timeout=20):
        return subprocess.run(self.openssl + ["s_client", "-connect", f"127.0.0.1:{port}", "-brief", *args],
                              input="GET / HTTP/1.0\r\n\r\n", capture_output=True, text=True, timeout=timeout)


def _provider_build(request):
    """The build directory, when it has the provider (else the test is skipped)."""
    build = request.config.getoption("--build-dir")
    if not (pathlib.Path(build) / "kpqc-openssl").exists():
        pytest.skip("provider not built")
    return build


@pytest.fixture(scope="session")
def lab(request, tmp_path_factory):
    return Lab(_provider_build(request), tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="session")
def table(request):
    return kpqc_table.load(request.config.getoption("--build-dir"))


class Installed:
    """`cmake --install` of the build tree into a fresh prefix, and the
    environment of a program using it: the OpenSSL installed with it (the
    private one in P/<libdir>/kpqc-tls, else the build's), the installed
    provider loaded through the installed openssl.cnf (nothing of the build
    tree).  The prefix is open to every user, as /usr/local or /opt is."""

    def __init__(self, build, prefix):
        self.build = pathlib.Path(build).resolve()
        self.prefix = pathlib.Path(prefix)
        self.cache = cache = dict(re.findall(r"^(\w+):\w+=(.*)$", (self.build / "CMakeCache.txt").read_text(),
                                             re.M))
        self.cmake = cache["CMAKE_COMMAND"]
        self.libdir = self.prefix / cache["CMAKE_INSTALL_LIBDIR"]
        self.share = self.prefix / "share" / "kpqc-tls"
        self.bin = self.prefix / "bin"
        self.private = self.libdir / "kpqc-tls"
        # By an administrator whose umask keeps everything to themselves: what
        # is installed must still be readable by all.
        subprocess.run([self.cmake, "--install", str(self.build), "--prefix", str(self.prefix)],
                       check=True, capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.umask(0o077))
        if (self.private / "bin" / "openssl").exists():
            self.openssl_bin, self.openssl_lib = str(self.private / "bin" / "openssl"), self.private
        else:
            self.openssl_bin = cache["KPQC_OPENSSL_BIN"]
            self.openssl_lib = pathlib.Path(cache["KPQC_OPENSSL_PREFIX"]) / "lib"

    def env(self, conf=None):
        """The private OpenSSL first on the library path (programs linked
        against the system's libssl.so.3 run on it), the installed libkpqc
        next, OPENSSL_CONF the installed configuration (or `conf`)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENSSL_", "KPQC_OPENSSL", "SSL_CERT"))}
        env["LD_LIBRARY_PATH"] = f"{self.openssl_lib}:{self.libdir}"
        env["OPENSSL_CONF"] = str(conf or self.share / "openssl.cnf")
        return env

    def openssl(self, *args, conf=None, timeout=60, check=True, **kw):
        return subprocess.run([self.openssl_bin, *args], env=self.env(conf), capture_output=True, text=True,
                              timeout=timeout, check=check, **kw)


@pytest.fixture(scope="session")
def installed(request):
    build = _provider_build(request)
    # Not under pytest's temporary directory (open to its user only): other
    # users run the installed programs.
    prefix = pathlib.Path(tempfile.mkdtemp(prefix="kpqc-prefix-"))
    prefix.chmod(0o755)
    try:
        yield Installed(build, prefix)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
