"""Debian's nginx, curl and Python's ssl module on the private OpenSSL 3.5
with the installed provider (loaded through the installed configuration
files, nothing of the build tree): KpqC and hybrid groups chosen with
nginx's ssl_ecdh_curve and curl's --curves, KpqC and composite certificate
chains, mutual TLS with ssl_verify_client.  Servers listen on 127.0.0.1
only and are stopped after the module."""
import pathlib
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from lab.servers import stop_process  # noqa: E402

GROUPS = ("x25519_smaugt1", "ntruplus768", "p256_ntruplus768")
# OpenSSL 3.5's own hybrid group (code point from tests/data/foreign_identifiers.tsv),
# offered beside ours by the same server.
NATIVE_GROUPS = {"X25519MLKEM768": 0x11EC}
# Certificate chains: (name, CA key type, server key type, client key type).
# "mixed": OpenSSL's own ML-DSA CA over KpqC leaves, in one handshake with a
# KpqC group or OpenSSL's ML-KEM.
CHAINS = (("kpqc", "haetae2", "aimer128f", "haetae2"),
          ("composite", "p256_haetae2", "p256_aimer128f", "p256_haetae2"),
          ("mixed", "ML-DSA-65", "haetae2", "p256_aimer128f"))


def _need(tool):
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is missing (scripts/install-deps.sh installs it)")


def _built(installed, table):
    groups = installed.openssl("list", "-tls-groups", "-tls1_3").stdout.strip().split(":")
    sigs = set(re.findall(r"[\w.-]+", installed.openssl("list", "-signature-algorithms").stdout))
    codepoints = {r["id"]: r["codepoint"] for r in table["KEM"] + table["HYBRID"]}
    ours = {g: codepoints[g] for g in GROUPS if g in groups}
    return ({**ours, **NATIVE_GROUPS} if ours else {}, [c for c in CHAINS if set(c[1:]) <= sigs])


class Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and a client
    certificate per chain, made with the installed provider."""

    def __init__(self, installed, tmp, chain):
        self.name, ca_alg, server_alg, client_alg = chain
        d = tmp / self.name
        d.mkdir()
        run = installed.openssl
        self.ca, self.ca_key = d / "ca.crt", d / "ca.key"
        run("req", "-x509", "-newkey", ca_alg, "-nodes", "-keyout", str(self.ca_key), "-out", str(self.ca),
            "-days", "2", "-subj", f"/CN=kpqc-tls test CA {self.name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        self.server, self.server_key = self._leaf(run, d, "server", server_alg, "localhost",
                                                  "subjectAltName=DNS:localhost,IP:127.0.0.1")
        self.client, self.client_key = self._leaf(run, d, "client", client_alg, "kpqc-client", None)

    def _leaf(self, run, d, name, alg, cn, san):
        key, csr, crt = d / f"{name}.key", d / f"{name}.csr", d / f"{name}.crt"
        run("req", "-new", "-newkey", alg, "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={cn}")
        ext = d / f"{name}.ext"
        ext.write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                       f"extendedKeyUsage={'serverAuth' if san else 'clientAuth'}\n" +
                       (f"{san}\n" if san else ""))
        run("x509", "-req", "-in", str(csr), "-CA", str(self.ca), "-CAkey", str(self.ca_key), "-out", str(crt),
            "-days", "2", "-extfile", str(ext))
        return crt, key


class Nginx:
    """nginx in the foreground, one process, two servers per chain: plain
    HTTPS and mutual TLS (ssl_verify_client on)."""

    def __init__(self, installed, tmp, pkis, groups):
        self.dir = tmp / "nginx"
        self.dir.mkdir()
        self.ports = {}
        servers = []
        for pki in pkis:
            for mutual in (False, True):
                port = _free_port()
                self.ports[(pki.name, mutual)] = port
                verify = (f"ssl_verify_client on; ssl_client_certificate {pki.ca};" if mutual else "")
                servers.append(f"""
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {pki.server};
        ssl_certificate_key {pki.server_key};
        ssl_protocols TLSv1.3;
        ssl_ecdh_curve {':'.join(groups)};
        {verify}
        location / {{ return 200 "curve=$ssl_curve client=$ssl_client_verify $ssl_client_s_dn\\n"; }}
    }}""")
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""daemon off;
master_process off;
error_log {self.dir}/error.log info;
pid {self.dir}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
{''.join(servers)}
}}
""")
        self.version = subprocess.run(["nginx", "-V"], env=installed.env(), capture_output=True, text=True).stderr
        self.proc = subprocess.Popen(["nginx", "-p", str(self.dir), "-e", str(self.dir / "error.log"), "-c",
                                      str(conf)], env=installed.env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        for port in self.ports.values():
            while not _listening(port):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"nginx did not start: {(self.dir / 'error.log').read_text()}")
                time.sleep(0.1)

    def stop(self):
        stop_process(self.proc)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def deployment(installed, table, tmp_path_factory):
    _need("nginx")
    groups, chains = _built(installed, table)
    if not groups or not chains:
        pytest.skip("no KpqC group or signature chain built")
    tmp = tmp_path_factory.mktemp("servers")
    pkis = [Pki(installed, tmp, c) for c in chains]
    server = Nginx(installed, tmp, pkis, list(groups))
    yield server, pkis, groups
    server.stop()


def _url(port):
    return f"https://localhost:{port}/"


def _curl(installed, port, pki, group, *extra):
    _need("curl")
    return subprocess.run(["curl", "-sS", "--max-time", "20", "--resolve", f"localhost:{port}:127.0.0.1",
                           "--cacert", str(pki.ca), "--curves", group, "-w", " http=%{http_code}", *extra,
                           _url(port)], env=installed.env(), capture_output=True, text=True, timeout=60)


def test_nginx_runs_on_the_private_openssl(deployment):
    server, _, _ = deployment
    assert "running with OpenSSL 3." in server.version and "nginx/" in server.version
    running = server.version.split("running with OpenSSL ")[1].split()[0]
    assert tuple(map(int, running.split(".")[:2])) >= (3, 5), server.version


def test_curl_every_group_and_chain(installed, deployment):
    server, pkis, groups = deployment
    for pki in pkis:
        port = server.ports[(pki.name, False)]
        for group, codepoint in groups.items():
            r = _curl(installed, port, pki, group)
            assert r.returncode == 0, r.stderr
            assert f"curve=0x{codepoint:04x}" in r.stdout.lower() and "http=200" in r.stdout, r.stdout


def test_curl_mutual_tls(installed, deployment):
    server, pkis, groups = deployment
    group = next(iter(groups))
    for pki in pkis:
        port = server.ports[(pki.name, True)]
        r = _curl(installed, port, pki, group, "--cert", str(pki.client), "--key", str(pki.client_key))
        assert r.returncode == 0, r.stderr
        assert "client=SUCCESS CN=kpqc-client" in r.stdout and "http=200" in r.stdout, r.stdout
        # Without a client certificate nginx answers 400.
        r = _curl(installed, port, pki, group)
        assert "http=400" in r.stdout, r.stdout


def test_curl_refuses_an_unknown_ca(installed, deployment):
    server, pkis, groups = deployment
    other = pkis[-1] if len(pkis) > 1 else None
    if other is None:
        pytest.skip("one chain only")
    r = _curl(installed, server.ports[(pkis[0].name, False)], other, next(iter(groups)))
    assert r.returncode != 0 and "http=000" in r.stdout


PYTHON_CLIENT = """
import ssl, sys, urllib.request
port, ca, cert, key = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
ctx = ssl.create_default_context(cafile=ca)
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
if cert:
    ctx.load_cert_chain(cert, key)
with urllib.request.urlopen(f"https://localhost:{port}/", context=ctx, timeout=20) as r:
    print(ssl.OPENSSL_VERSION, "|", r.status, r.read().decode().strip())
"""


def test_python_ssl(installed, deployment, tmp_path):
    """Python's ssl module cannot name provider groups; the configuration's
    Groups line does (an openssl.cnf pulling in the installed snippet)."""
    server, pkis, groups = deployment
    group, codepoint = next(iter(groups.items()))
    conf = tmp_path / "openssl.cnf"
    conf.write_text("openssl_conf = openssl_init\nconfig_diagnostics = 1\n\n[openssl_init]\nssl_conf = ssl_sect\n\n"
                    "[ssl_sect]\nsystem_default = system_default_sect\n\n"
                    f"[system_default_sect]\nGroups = {group}\n\n"
                    f".include {installed.share / 'kpqc-provider.cnf'}\n")
    for pki in pkis:
        for mutual in (False, True):
            port = server.ports[(pki.name, mutual)]
            cert = [str(pki.client), str(pki.client_key)] if mutual else ["", ""]
            r = subprocess.run([sys.executable, "-c", PYTHON_CLIENT, str(port), str(pki.ca), *cert],
                               env=installed.env(conf), capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            assert r.stdout.startswith("OpenSSL 3.") and f"| 200 curve=0x{codepoint:04x}" in r.stdout.lower(), r.stdout
            if mutual:
                assert "client=SUCCESS CN=kpqc-client" in r.stdout
