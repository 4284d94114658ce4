"""The commands of the Korean deployment notes (an oqs-provider fork with
KpqC), run as written with only the provider's name changed: no
configuration file, providers named on the command line, the notes'
spellings of the algorithm and group names.

  Case 1: ECDSA P-256 certificate, key exchange p256_smaug_t1
  Case 2: HAETAE2 certificate (genpkey/req with -provider), p256_smaug_t1
  Case 3: HAETAE2 certificate, pure smaug_t1
"""
import os
import subprocess

import pytest


def providers(lab):
    return ["-provider", "default", "-provider", "base", "-provider", "kpqcprovider",
            "-provider-path", str(lab.build / "providers")]


def notes_env(lab):
    # No configuration: nothing is loaded unless the command line says so.
    return dict(os.environ, KPQC_OPENSSL_CONF=os.devnull)


def openssl(lab, *args, **kw):
    return subprocess.run(lab.env_cmd + ["openssl", *args], capture_output=True, text=True, timeout=60,
                          env=notes_env(lab), **kw)


def server_and_client(lab, tmp, group, client_extra=()):
    port = lab.free_port()
    server = subprocess.Popen(lab.env_cmd + ["openssl", "s_server", "-accept", str(port), "-cert",
                                             str(tmp / "server.crt"), "-key", str(tmp / "server.key"), "-www",
                                             "-tls1_3", "-groups", group, "-naccept", "1", *providers(lab)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=notes_env(lab))
    try:
        line = server.stdout.readline()
        while line and "ACCEPT" not in line:
            line = server.stdout.readline()
        assert "ACCEPT" in line, "s_server did not start"
        client = subprocess.run(lab.env_cmd + ["openssl", "s_client", "-connect", f"localhost:{port}", "-tls1_3",
                                               "-groups", group, *providers(lab), *client_extra],
                                input="", capture_output=True, text=True, timeout=60, env=notes_env(lab))
    finally:
        server.kill()
        server.wait()
    return client.stdout + client.stderr


@pytest.fixture
def notes_dir(lab, tmp_path):
    return tmp_path


def test_case1_ecdsa_certificate_hybrid_group(lab, notes_dir):
    key, crt = notes_dir / "server.key", notes_dir / "server.crt"
    assert openssl(lab, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key)).returncode == 0
    assert openssl(lab, "req", "-x509", "-key", str(key), "-out", str(crt), "-nodes",
                   "-subj", "/CN=localhost").returncode == 0
    out = server_and_client(lab, notes_dir, "p256_smaug_t1")
    assert "Negotiated TLS1.3 group: p256_smaug" in out, out


def haetae_certificate(lab, d):
    r = openssl(lab, "genpkey", *providers(lab)[:6], "-algorithm", "haetae2", "-out", str(d / "server.key"))
    if r.returncode != 0 and "haetae2" not in openssl(lab, "list", "-signature-algorithms", *providers(lab)).stdout:
        pytest.skip("HAETAE not built")
    assert r.returncode == 0, r.stderr
    r = openssl(lab, "req", "-new", "-x509", *providers(lab)[:6], "-key", str(d / "server.key"), "-out",
                str(d / "server.crt"), "-days", "365", "-subj", "/CN=localhost")
    assert r.returncode == 0, r.stderr


def test_case2_haetae_certificate_hybrid_group(lab, notes_dir):
    haetae_certificate(lab, notes_dir)
    out = server_and_client(lab, notes_dir, "p256_smaug_t1",
                            ("-CAfile", str(notes_dir / "server.crt"), "-verify_return_error", "-msg"))
    assert "Negotiated TLS1.3 group: p256_smaug" in out, out
    assert "Peer signature type: haetae2" in out and "Verify return code: 0 (ok)" in out, out


def test_case3_haetae_certificate_pure_kpqc(lab, notes_dir):
    haetae_certificate(lab, notes_dir)
    out = server_and_client(lab, notes_dir, "smaug_t1", ("-CAfile", str(notes_dir / "server.crt")))
    assert "Negotiated TLS1.3 group: smaug" in out, out
    assert "Peer signature type: haetae2" in out, out
