"""KpqC on a stock system: Debian's own curl and python3 (the system's
OpenSSL 3.0, no private library in their path) complete TLS 1.3 with a KpqC
hybrid group, configured only by an openssl.cnf that includes the
stock-system snippet (installed as share/kpqc-tls/kpqc-stock-system.cnf), as a user's
/etc/ssl/openssl.cnf would.  Runs with the build of the system series
(`--build-dir build/openssl-3.0`); the snippet and the module are those
`cmake --install` puts under a fresh prefix."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

CURL, PYTHON = "/usr/bin/curl", "/usr/bin/python3"
HYBRID = "x25519_smaugt1"


@pytest.fixture(scope="module")
def stock(lab, tmp_path_factory):
    if not (lab.build / "kpqc-stock-system.cnf").exists():
        pytest.skip("not the build of the system's OpenSSL (build/openssl-3.0)")
    for program in (CURL, PYTHON):
        if not os.access(program, os.X_OK):
            pytest.skip(f"{program} not installed")
    main_build = lab.build.parent  # build/openssl-3.0 lives in the main build
    cache = dict(re.findall(r"^(\w+):\w+=(.*)$", (main_build / "CMakeCache.txt").read_text(), re.M))
    prefix = tmp_path_factory.mktemp("prefix")
    subprocess.run([cache["CMAKE_COMMAND"], "--install", str(main_build), "--prefix", str(prefix)],
                   check=True, capture_output=True, timeout=300)
    snippet = prefix / "share" / "kpqc-tls" / "kpqc-stock-system.cnf"
    assert f"module = {prefix}/" in snippet.read_text()  # the installed module, not the build tree's
    cnf = tmp_path_factory.mktemp("stock") / "openssl.cnf"
    # The system's own configuration with the one line a user appends.
    system_cnf = pathlib.Path("/etc/ssl/openssl.cnf")
    base = system_cnf.read_text() if system_cnf.exists() else "openssl_conf = openssl_init\n"
    cnf.write_text(f"{base}\n.include {snippet}\n")
    # Nothing but the configuration file: no private libraries, no module path.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LD_", "OPENSSL_", "KPQC_", "SSL_CERT"))}
    env["OPENSSL_CONF"] = str(cnf)
    return env, snippet.read_text()


def test_snippet_sets_the_hybrid_first_with_a_classical_fallback(stock):
    _, text = stock
    groups = re.search(r"^Groups = (.+)$", text, re.M).group(1).split(":")
    assert groups[0] == HYBRID and "X25519" in groups[1:]
    assert "MLKEM" not in text.split("[openssl_init]")[1]  # 3.0 has no ML-KEM


def kpqc_server(lab):
    """A server that speaks only the KpqC hybrid: a completed handshake is one with it."""
    return lab.server("-groups", HYBRID, "-tls1_3")


def finish(server):
    try:
        return server.communicate(timeout=15)[0]
    finally:
        if server.poll() is None:
            server.kill()


def test_debian_curl(lab, stock):
    env, _ = stock
    cert, _ = lab.ecdsa_cert()
    server, port = kpqc_server(lab)
    r = subprocess.run([CURL, "-sS", "-v", "--cacert", cert, "--resolve", f"localhost:{port}:127.0.0.1",
                        f"https://localhost:{port}/"], capture_output=True, text=True, timeout=30, env=env)
    finish(server)
    assert "OpenSSL/3.0" in subprocess.run([CURL, "-V"], capture_output=True, text=True).stdout
    assert r.returncode == 0, r.stderr
    assert "SSL connection using TLSv1.3" in r.stderr, r.stderr
    assert HYBRID in r.stdout, r.stdout  # s_server -www reports the shared group


def test_debian_python(lab, stock):
    env, _ = stock
    cert, _ = lab.ecdsa_cert()
    server, port = kpqc_server(lab)
    code = ("import socket, ssl, sys; c = ssl.create_default_context(cafile=sys.argv[2]); "
            "s = c.wrap_socket(socket.create_connection(('127.0.0.1', int(sys.argv[1]))), server_hostname='localhost'); "
            "print(ssl.OPENSSL_VERSION, s.version()); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); "
            "print(b''.join(iter(lambda: s.recv(4096), b'')).decode(errors='replace'))")
    r = subprocess.run([PYTHON, "-c", code, str(port), cert], capture_output=True, text=True, timeout=30, env=env)
    finish(server)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OpenSSL 3.0") and "TLSv1.3" in r.stdout, r.stdout
    assert HYBRID in r.stdout, r.stdout


def test_without_the_snippet_the_same_client_cannot_connect(lab, stock):
    """The guard: it is the snippet that brings KpqC, not something else."""
    env, _ = stock
    env = dict(env, OPENSSL_CONF="/dev/null")
    cert, _ = lab.ecdsa_cert()
    server, port = kpqc_server(lab)
    r = subprocess.run([CURL, "-sS", "--cacert", cert, "--resolve", f"localhost:{port}:127.0.0.1",
                        f"https://localhost:{port}/"], capture_output=True, text=True, timeout=30, env=env)
    finish(server)
    assert r.returncode != 0


def per_service_conf(stock, tmp_path, module=None):
    """A configuration of one service's own (systemd: Environment=OPENSSL_CONF=...):
    the system's, then the snippet, the system's file left as it is."""
    _, text = stock
    snippet = re.search(r"^\.include (\S+)$", pathlib.Path(stock[0]["OPENSSL_CONF"]).read_text(), re.M).group(1)
    if module is not None:
        moved = tmp_path / "kpqc-stock-system.cnf"
        moved.write_text(re.sub(r"^module = .*$", f"module = {module}", text, flags=re.M))
        snippet = str(moved)
    conf = tmp_path / "service.cnf"
    system_cnf = pathlib.Path("/etc/ssl/openssl.cnf")
    base = f".include {system_cnf}\n" if system_cnf.exists() else "openssl_conf = openssl_init\n"
    # Node.js reads the section named by nodejs_conf (a default-section line:
    # before the system's first section header).
    conf.write_text(f"nodejs_conf = openssl_init\n{base}.include {snippet}\n")
    return dict(stock[0], OPENSSL_CONF=str(conf))


def test_per_service_configuration(lab, stock, tmp_path):
    env = per_service_conf(stock, tmp_path)
    cert, _ = lab.ecdsa_cert()
    server, port = kpqc_server(lab)
    r = subprocess.run([CURL, "-sS", "--cacert", cert, "--resolve", f"localhost:{port}:127.0.0.1",
                        f"https://localhost:{port}/"], capture_output=True, text=True, timeout=30, env=env)
    finish(server)
    assert r.returncode == 0 and HYBRID in r.stdout, r.stderr


def test_openssl_3_0_is_silent_and_the_check_is_not(lab, stock, tmp_path):
    """On 3.0 a module that does not load leaves curl on X25519 without a
    word (config_diagnostics or not); kpqc-probe --check-config, run before
    the service starts, refuses that configuration and accepts the right one."""
    probe = lab.build.parent / "kpqc-probe"
    if not probe.exists():
        pytest.skip("kpqc-probe not built")
    (tmp_path / "good").mkdir()
    good = per_service_conf(stock, tmp_path / "good")
    broken = per_service_conf(stock, tmp_path, module="/nonexistent/kpqcprovider.so")
    cert, _ = lab.ecdsa_cert()
    server, port = lab.server("-tls1_3")  # a server with classical groups too
    r = subprocess.run([CURL, "-sS", "--cacert", cert, "--resolve", f"localhost:{port}:127.0.0.1",
                        f"https://localhost:{port}/"], capture_output=True, text=True, timeout=30, env=broken)
    finish(server)
    assert r.returncode == 0 and "Shared groups: x25519" in r.stdout and HYBRID not in r.stdout, r.stdout
    check = subprocess.run([str(probe), "--check-config", broken["OPENSSL_CONF"]], capture_output=True, text=True)
    assert check.returncode != 0 and "kpqcprovider" in check.stderr, check.stderr
    check = subprocess.run([str(probe), "--check-config", good["OPENSSL_CONF"]], capture_output=True, text=True)
    assert check.returncode == 0 and HYBRID in check.stdout, check.stderr


NODE_CLIENT = """
const tls = require('tls'), fs = require('fs');
const s = tls.connect({host: '127.0.0.1', port: +process.argv[1], servername: 'localhost',
                       ca: fs.readFileSync(process.argv[2])}, () => s.write('GET / HTTP/1.0\\r\\n\\r\\n'));
let body = '';
s.on('data', d => body += d);
s.on('end', () => console.log(process.versions.openssl, s.getProtocol(), body));
s.on('error', e => { console.error(e.message); process.exit(1); });
"""

NODE_SERVER = """
const https = require('https'), fs = require('fs');
const server = https.createServer({cert: fs.readFileSync(process.argv[2]), key: fs.readFileSync(process.argv[3])},
                                  (req, res) => { res.end('hello from node'); server.close(); });
server.listen(+process.argv[1], '127.0.0.1', () => console.log('listening'));
"""


def _node():
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.fail("node is missing (scripts/install-deps.sh installs nodejs)")
    return node


def test_node_client_and_server(lab, stock, tmp_path):
    """Node.js's https client and server on the system's OpenSSL (or its
    own 3.0), groups from the per-service configuration's nodejs_conf."""
    node = _node()
    env = per_service_conf(stock, tmp_path)
    cert, key = lab.ecdsa_cert()
    server, port = kpqc_server(lab)
    r = subprocess.run([node, "-e", NODE_CLIENT, str(port), cert], capture_output=True, text=True, timeout=30,
                       env=env)
    finish(server)
    assert r.returncode == 0 and "TLSv1.3" in r.stdout and HYBRID in r.stdout, r.stdout + r.stderr
    port = lab.free_port()
    server = subprocess.Popen([node, "-e", NODE_SERVER, str(port), cert, key], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert server.stdout.readline().strip() == "listening"
        r = lab.client(port, "-groups", HYBRID, "-tls1_3", "-ign_eof")  # a client offering the hybrid only
    finally:
        server.kill()
        server.wait()
    assert r.returncode == 0 and "hello from node" in r.stdout, r.stdout + r.stderr
