"""The installed prefix as an administrator deploys it (docs/deploy.md):

- self-contained: the private OpenSSL the provider needs is installed in
  P/<libdir>/kpqc-tls (found through RUNPATH, readable by all, apart from
  the libraries every program searches), so the service account `nobody`,
  who cannot read the builder's cache, serves and probes HAETAE over a KpqC
  group;
- never silently classical: with a wrong module path in the installed
  configuration curl, Python, nginx and kpqc-probe fail instead of falling
  back to X25519 and ECDSA;
- one nginx server with an ECDSA and a HAETAE certificate: KpqC clients get
  HAETAE, classical clients (Debian's own curl and Python on OpenSSL 3.0, a
  client with OpenSSL's default signature algorithms) ECDSA; composite
  certificates as the third way;
- HAProxy terminating TLS with a HAETAE certificate;
- kpqc-probe: JSON, names of code points, exit status.
Servers listen on 127.0.0.1 and are stopped by each test."""
import json
import os
import pathlib
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from lab.servers import free_ports, stop_process  # noqa: E402

HYBRID = "x25519_smaugt1"  # the first group of the installed configuration
CLASSICAL = ("--groups", "X25519", "--sigalgs", "ecdsa_secp256r1_sha256")


def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing (scripts/install-deps.sh installs it)")


def _free_port():
    return free_ports(1)[0]


def _wait_listening(port, proc, log, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_process(proc)
            raise RuntimeError(f"server did not start: {pathlib.Path(log).read_text() if log else ''}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def work():
    """A directory every user can read (certificates for `nobody`)."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="kpqc-deploy-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Chain:
    """A CA and a leaf for localhost/127.0.0.1, made with the installed openssl."""

    def __init__(self, installed, d, name, alg):
        run = installed.openssl
        newkey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"] if alg == "ecdsa" else ["-newkey", alg]
        self.ca, ca_key = d / f"{name}-ca.crt", d / f"{name}-ca.key"
        run("req", "-x509", *newkey, "-nodes", "-keyout", str(ca_key), "-out", str(self.ca), "-days", "2",
            "-subj", f"/CN=kpqc-tls {name} CA")
        self.cert, self.key, csr = d / f"{name}.crt", d / f"{name}.key", d / f"{name}.csr"
        run("req", "-new", *newkey, "-nodes", "-keyout", str(self.key), "-out", str(csr), "-subj", "/CN=localhost")
        ext = d / f"{name}.ext"
        ext.write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                       "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n")
        run("x509", "-req", "-in", str(csr), "-CA", str(self.ca), "-CAkey", str(ca_key), "-out", str(self.cert),
            "-days", "2", "-extfile", str(ext))
        self.key.chmod(0o644)  # test keys, read by servers running as nobody


@pytest.fixture(scope="module")
def chains(installed, work):
    sigs = installed.openssl("list", "-signature-algorithms").stdout
    if "haetae2" not in sigs:
        pytest.skip("HAETAE not built")
    made = {name: Chain(installed, work, name, alg)
            for name, alg in (("ecdsa", "ecdsa"), ("haetae", "haetae2"), ("composite", "p256_haetae2"))}
    return made


def _probe(installed, target, *args, env=None, run_as=()):
    argv = [*run_as, str(installed.bin / "kpqc-probe"), "--json", *args, target]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env or _clean_env())
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _clean_env(**extra):
    """What a service gets: no OpenSSL or library path of the builder."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/nonexistent",
           "LC_ALL": "C.UTF-8"}
    env.update(extra)
    return env


def _as(user):
    pw = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]


# --- the installed layout ---------------------------------------------------

def test_private_openssl_in_a_directory_of_its_own(installed):
    if not (installed.private / "bin" / "openssl").exists():
        pytest.skip("built against the system's OpenSSL: nothing private to install")
    libs = sorted(p.name for p in installed.private.glob("lib*.so*"))
    assert [n.split(".so")[0] for n in libs] == ["libcrypto", "libssl"], libs
    # Nothing beside the libraries every program searches, no `openssl` on PATH.
    assert not list(installed.libdir.glob("libssl*")) and not list(installed.libdir.glob("libcrypto*"))
    assert not (installed.bin / "openssl").exists()
    for exe, runpath in ((installed.private / "bin" / "openssl", "$ORIGIN/.."),
                         (installed.bin / "kpqc-probe", "$ORIGIN/../" +
                          str(installed.private.relative_to(installed.prefix)))):
        dyn = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True, check=True).stdout
        assert f"(RUNPATH)            Library runpath: [{runpath}]" in dyn, dyn
    # RUNPATH alone: no library path from the environment.
    r = subprocess.run([str(installed.private / "bin" / "openssl"), "version"], env=_clean_env(),
                       capture_output=True, text=True, check=True)
    assert r.stdout.startswith("OpenSSL 3.") and not r.stdout.startswith("OpenSSL 3.0"), r.stdout


def test_everything_installed_is_readable_by_all(installed):
    for path in [installed.prefix, *installed.prefix.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        want = stat.S_IROTH | (stat.S_IXOTH if path.is_dir() or mode & stat.S_IXUSR else 0)
        assert mode & want == want, f"{path}: {oct(mode)}"


def test_installed_configuration_is_loud(installed):
    text = (installed.share / "openssl.cnf").read_text()
    assert "\nconfig_diagnostics = 1\n" in text
    assert f"\nGroups = {HYBRID}:" in text and "\nnodejs_conf = openssl_init\n" in text
    sigalgs = next(line for line in text.splitlines() if line.startswith("SignatureAlgorithms = "))
    names = sigalgs.split(" = ")[1].split(":")
    assert names.index("haetae2") < names.index("ecdsa_secp256r1_sha256")
    assert "[req]" in text and "[v3_ca]" in text


# --- as the service account `nobody` ----------------------------------------

@pytest.fixture(scope="module")
def nobody(installed):
    """The command prefix running a program as `nobody` with the builder's
    OpenSSL cache and the build tree out of reach: hidden under empty
    directories in a mount namespace of its own (as if deleted), else at
    least unreadable to nobody."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("running as another user needs root and setpriv")
    try:
        as_nobody = _as("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    cache = pathlib.Path(installed.cache["KPQC_OPENSSL_PREFIX"]).parent
    hide = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount -t tmpfs kpqc-hidden "$1" && mount -t tmpfs kpqc-hidden "$2" && shift 2 && exec "$@"', "sh",
            str(cache), str(installed.build)]
    lib = f"{installed.cache['KPQC_OPENSSL_PREFIX']}/lib"
    if subprocess.run(hide + ["test", "!", "-e", lib], env=_clean_env(), capture_output=True).returncode == 0:
        return hide + as_nobody
    if subprocess.run(as_nobody + ["test", "-r", lib], env=_clean_env()).returncode == 0:
        pytest.skip(f"{cache} is readable by nobody and cannot be hidden: the test would prove nothing")
    return as_nobody


def _s_server(installed, port, *args, run_as=()):
    argv = [*run_as, str(installed.bin / "kpqc-openssl"), "s_server", "-accept", f"127.0.0.1:{port}", "-naccept", "1",
            "-www", *args]
    p = subprocess.Popen(argv, env=_clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    line = p.stdout.readline()
    while line and "ACCEPT" not in line:
        line = p.stdout.readline()
    if "ACCEPT" not in line:
        stop_process(p)
        raise RuntimeError("s_server did not start")
    return p


def test_nobody_serves_and_probes_haetae(installed, chains, nobody):
    haetae = chains["haetae"]
    port = _free_port()
    server = _s_server(installed, port, "-cert", str(haetae.cert), "-key", str(haetae.key), run_as=nobody)
    try:
        # The server runs on the installed OpenSSL, nothing of the cache.
        maps = pathlib.Path(f"/proc/{server.pid}/maps").read_text()
        assert str(installed.private / "libcrypto.so") in maps, maps
        assert installed.cache["KPQC_OPENSSL_PREFIX"] not in maps
        got = _probe(installed, f"127.0.0.1:{port}", "--CAfile", str(haetae.ca), "--servername", "localhost",
                     run_as=nobody)
    finally:
        stop_process(server)
    assert got["protocol"] == "TLSv1.3" and got["group"] == HYBRID, got
    assert got["signature_algorithm"] == "haetae2" and got["verified"] is True, got
    assert [c["key_algorithm"] for c in got["chain"]] == ["haetae2"], got
    assert got["chain"][0]["subject"] == "CN=localhost" and got["chain"][0]["signature_algorithm"] == "haetae2"


# --- never silently classical -----------------------------------------------

@pytest.fixture
def broken_conf(installed, tmp_path):
    """The installed configuration with a module path that does not exist."""
    text = (installed.share / "openssl.cnf").read_text()
    module = str(installed.libdir / "ossl-modules" / "kpqcprovider.so")
    assert f"module = {module}\n" in text
    conf = tmp_path / "openssl.cnf"
    conf.write_text(text.replace(module, "/nonexistent/kpqcprovider.so"))
    return conf


def _env_cmd(installed, conf, *argv):
    return subprocess.run([str(installed.bin / "kpqc-env"), *argv], env=_clean_env(KPQC_OPENSSL_CONF=str(conf)),
                          capture_output=True, text=True, timeout=60)


CURL = ("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--resolve")
PYTHON = ("import ssl, sys, urllib.request; "
          "ctx = ssl.create_default_context(cafile=sys.argv[2]); "
          "print(urllib.request.urlopen(f'https://localhost:{sys.argv[1]}/', context=ctx, timeout=20).status)")


@pytest.mark.parametrize("client", ["curl", "python3", "openssl"])
def test_wrong_provider_path_fails_the_client(installed, chains, broken_conf, client):
    if client != "openssl":
        _need(client)
    ecdsa = chains["ecdsa"]
    for conf, ok in ((installed.share / "openssl.cnf", True), (broken_conf, False)):
        port = _free_port()
        server = _s_server(installed, port, "-cert", str(ecdsa.cert), "-key", str(ecdsa.key))
        try:
            if client == "curl":
                r = _env_cmd(installed, conf, *CURL, f"localhost:{port}:127.0.0.1", "--cacert", str(ecdsa.ca),
                             f"https://localhost:{port}/")
            elif client == "python3":
                r = _env_cmd(installed, conf, "python3", "-c", PYTHON, str(port), str(ecdsa.ca))
            else:  # the installed openssl (kpqc-env puts it first on PATH)
                r = subprocess.run([str(installed.bin / "kpqc-env"), "openssl", "s_client", "-connect",
                                    f"127.0.0.1:{port}", "-CAfile", str(ecdsa.ca), "-verify_return_error",
                                    "-ign_eof"],  # read the answer to the end, not only until stdin's end
                                   input="GET / HTTP/1.0\r\n\r\n", env=_clean_env(KPQC_OPENSSL_CONF=str(conf)),
                                   capture_output=True, text=True, timeout=60)
        finally:
            stop_process(server)
        if ok:  # the same client with the right path: it is the path that fails it
            assert r.returncode == 0 and "200" in r.stdout, r.stderr
        else:
            assert r.returncode != 0, r.stdout
            assert "bad value" in r.stderr or "system default config" in r.stderr, r.stderr


def test_wrong_provider_path_stops_nginx_haproxy_and_the_probe(installed, chains, broken_conf, tmp_path):
    _need("nginx", "haproxy")
    ecdsa = chains["ecdsa"]
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"error_log {tmp_path}/error.log;\npid {tmp_path}/nginx.pid;\nevents {{}}\nhttp {{\n"
                    f"  server {{ listen 127.0.0.1:{_free_port()} ssl; ssl_certificate {ecdsa.cert}; "
                    f"ssl_certificate_key {ecdsa.key}; }}\n}}\n")
    nginx_t = ("nginx", "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(conf))
    assert _env_cmd(installed, installed.share / "openssl.cnf", *nginx_t).returncode == 0
    r = _env_cmd(installed, broken_conf, *nginx_t)
    assert r.returncode != 0 and "SSL_CTX_new() failed" in r.stderr, r.stderr
    pem = tmp_path / "haproxy.pem"
    pem.write_text(ecdsa.cert.read_text() + ecdsa.key.read_text())
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(f"frontend tls\n    mode http\n    bind 127.0.0.1:{_free_port()} ssl crt {pem}\n")
    assert _env_cmd(installed, installed.share / "openssl.cnf", "haproxy", "-c", "-f", str(cfg)).returncode == 0
    r = _env_cmd(installed, broken_conf, "haproxy", "-c", "-f", str(cfg))
    assert r.returncode != 0 and "unable to allocate SSL context" in r.stdout + r.stderr, r.stdout + r.stderr
    # The check for ExecStartPre names the provider.
    check = [str(installed.bin / "kpqc-probe"), "--check-config"]
    good = subprocess.run(check + [str(installed.share / "openssl.cnf")], capture_output=True, text=True,
                          env=_clean_env())
    assert good.returncode == 0 and HYBRID in good.stdout, good.stderr
    bad = subprocess.run(check + [str(broken_conf)], capture_output=True, text=True, env=_clean_env())
    assert bad.returncode != 0 and "(not kpqcprovider)" in bad.stderr, bad.stderr


def test_systemd_drop_in_names_the_installed_files(installed):
    text = (installed.share / "systemd" / "kpqc-tls.conf").read_text()
    conf = installed.share / "openssl.cnf"
    assert f"Environment=OPENSSL_CONF={conf}\n" in text
    assert f"ExecStartPre={installed.bin / 'kpqc-probe'} --check-config {conf}\n" in text
    if (installed.private / "bin" / "openssl").exists():
        assert f"Environment=LD_LIBRARY_PATH={installed.private}\n" in text


# --- ECDSA and HAETAE from one nginx server ----------------------------------

@pytest.fixture(scope="module")
def dual_nginx(installed, chains, tmp_path_factory):
    """nginx on the installed environment: one server with the ECDSA and the
    HAETAE chain (two ssl_certificate lines, nothing more), one with a
    composite certificate."""
    _need("nginx")
    d = tmp_path_factory.mktemp("nginx")
    ports = {"dual": _free_port(), "composite": _free_port()}
    ecdsa, haetae, composite = chains["ecdsa"], chains["haetae"], chains["composite"]
    conf = d / "nginx.conf"
    conf.write_text(f"""daemon off;
master_process off;
error_log {d}/error.log info;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    # nginx before 1.23.4 leaves TLS 1.3 off unless told.
    ssl_protocols TLSv1.2 TLSv1.3;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    server {{
        listen 127.0.0.1:{ports['dual']} ssl;
        ssl_certificate     {ecdsa.cert};
        ssl_certificate_key {ecdsa.key};
        ssl_certificate     {haetae.cert};
        ssl_certificate_key {haetae.key};
        location / {{ return 200 "curve=$ssl_curve\\n"; }}
    }}
    server {{
        listen 127.0.0.1:{ports['composite']} ssl;
        ssl_certificate     {composite.cert};
        ssl_certificate_key {composite.key};
        location / {{ return 200 "curve=$ssl_curve\\n"; }}
    }}
}}
""")
    proc = subprocess.Popen([str(installed.bin / "kpqc-env"), "nginx", "-p", str(d), "-e", str(d / "error.log"),
                             "-c", str(conf)], env=_clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for port in ports.values():
            _wait_listening(port, proc, d / "error.log")
        yield ports
    finally:
        stop_process(proc)


def test_nginx_dual_certificates_kpqc_client_gets_haetae(installed, chains, dual_nginx):
    got = _probe(installed, f"127.0.0.1:{dual_nginx['dual']}", "--CAfile", str(chains["haetae"].ca))
    assert got["group"] == HYBRID and got["signature_algorithm"] == "haetae2" and got["verified"], got
    # nginx logs the group as its code point; the probe names it.
    port = dual_nginx["dual"]
    r = _env_cmd(installed, installed.share / "openssl.cnf", "curl", "-sS", "--cacert", str(chains["haetae"].ca),
                 "--resolve", f"localhost:{port}:127.0.0.1", f"https://localhost:{port}/")
    assert r.returncode == 0, r.stderr
    codepoint = r.stdout.split("curve=")[1].split()[0]
    name = subprocess.run([str(installed.bin / "kpqc-probe"), "--name", codepoint], capture_output=True,
                          text=True, env=_clean_env(), check=True).stdout.strip()
    assert name == HYBRID, (codepoint, name)


def test_nginx_dual_certificates_classical_clients_get_ecdsa(installed, chains, dual_nginx, tmp_path):
    port, ecdsa = dual_nginx["dual"], chains["ecdsa"]
    got = _probe(installed, f"127.0.0.1:{port}", "--CAfile", str(ecdsa.ca), *CLASSICAL)
    assert got["group"].lower() == "x25519" and got["signature_algorithm"] == "ecdsa_secp256r1_sha256", got
    assert got["verified"] and got["chain"][0]["key_algorithm"] == "EC", got
    # OpenSSL's default signature algorithms (provider loaded, no
    # SignatureAlgorithms line) list the provider's last: ECDSA too.
    provider_only = tmp_path / "openssl.cnf"
    provider_only.write_text(f"openssl_conf = openssl_init\n.include {installed.share / 'kpqc-provider.cnf'}\n")
    got = _probe(installed, f"127.0.0.1:{port}", "--CAfile", str(ecdsa.ca),
                 env=_clean_env(OPENSSL_CONF=str(provider_only)))
    assert got["signature_algorithm"] == "ecdsa_secp256r1_sha256", got
    # Debian's own curl and Python (OpenSSL 3.0, no provider) verify the ECDSA chain.
    stock = _clean_env(OPENSSL_CONF="/dev/null")
    r = subprocess.run(["/usr/bin/curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", str(ecdsa.ca),
                        "--resolve", f"localhost:{port}:127.0.0.1", f"https://localhost:{port}/"],
                       capture_output=True, text=True, timeout=60, env=stock)
    assert r.returncode == 0 and r.stdout == "200", r.stderr
    r = subprocess.run(["/usr/bin/python3", "-c", PYTHON, str(port), str(ecdsa.ca)], capture_output=True, text=True,
                       timeout=60, env=stock)
    assert r.returncode == 0 and r.stdout.strip() == "200", r.stderr


def test_nginx_composite_certificate(installed, chains, dual_nginx):
    """The third way: one composite (ECDSA + HAETAE) certificate; only KpqC
    clients can use it."""
    port, composite = dual_nginx["composite"], chains["composite"]
    got = _probe(installed, f"127.0.0.1:{port}", "--CAfile", str(composite.ca))
    assert got["signature_algorithm"] == "p256_haetae2" and got["verified"], got
    r = subprocess.run([str(installed.bin / "kpqc-probe"), *CLASSICAL, f"127.0.0.1:{port}"], capture_output=True,
                       text=True, timeout=60, env=_clean_env())
    assert r.returncode != 0  # a classical client has nothing to verify it with


# --- HAProxy -----------------------------------------------------------------

def test_haproxy_terminates_tls_with_haetae(installed, chains, tmp_path):
    _need("haproxy")
    haetae = chains["haetae"]
    pem = tmp_path / "haproxy.pem"
    pem.write_text(haetae.cert.read_text() + haetae.key.read_text())
    port = _free_port()
    conf = tmp_path / "haproxy.cfg"
    conf.write_text(f"""global
    log stderr format raw local0 info
defaults
    mode http
    timeout client 10s
    timeout connect 10s
    timeout server 10s
frontend tls
    bind 127.0.0.1:{port} ssl crt {pem} ssl-min-ver TLSv1.3
    http-request return status 200 content-type text/plain string "ok\\n"
""")
    check = _env_cmd(installed, installed.share / "openssl.cnf", "haproxy", "-c", "-f", str(conf))
    assert check.returncode == 0, check.stdout + check.stderr
    log = tmp_path / "haproxy.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([str(installed.bin / "kpqc-env"), "haproxy", "-db", "-f", str(conf)],
                                env=_clean_env(), stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, proc, log)
        got = _probe(installed, f"127.0.0.1:{port}", "--CAfile", str(haetae.ca))
        r = _env_cmd(installed, installed.share / "openssl.cnf", "curl", "-sS", "--cacert", str(haetae.ca),
                     "--resolve", f"localhost:{port}:127.0.0.1", f"https://localhost:{port}/")
    finally:
        stop_process(proc)
    assert got["group"] == HYBRID and got["signature_algorithm"] == "haetae2" and got["verified"], got
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr


# --- kpqc-probe ----------------------------------------------------------------

def test_probe_names_every_code_point_of_the_table(installed, table):
    probe = str(installed.bin / "kpqc-probe")
    rows = [(r["codepoint"], r["id"]) for r in table["KEM"] + table["HYBRID"]]
    assert (0xFE8E, HYBRID) in rows
    for codepoint, name in rows:
        r = subprocess.run([probe, "--name", f"0x{codepoint:04x}"], capture_output=True, text=True,
                           env=_clean_env())
        assert r.returncode == 0 and r.stdout.strip() == name, (codepoint, r.stdout, r.stderr)
    # OpenSSL's own groups by OpenSSL's names; nonsense refused.
    r = subprocess.run([probe, "--name", "0x11ec"], capture_output=True, text=True, env=_clean_env())
    assert r.stdout.strip() == "X25519MLKEM768", r.stderr
    for bad in ("0x0a0a", "0xfeff", "banana"):
        assert subprocess.run([probe, "--name", bad], capture_output=True, env=_clean_env()).returncode != 0


def test_probe_fails_when_the_connection_fails(installed):
    probe = str(installed.bin / "kpqc-probe")
    r = subprocess.run([probe, "--json", f"127.0.0.1:{_free_port()}"], capture_output=True, text=True,
                       timeout=30, env=_clean_env())
    assert r.returncode == 1 and r.stdout == "" and "cannot connect" in r.stderr
    assert subprocess.run([probe, "--bogus"], capture_output=True, env=_clean_env()).returncode == 2
