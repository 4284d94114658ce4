"""KpqC key exchange in real TLS 1.3 with the openssl CLI, beside OpenSSL's
own ML-KEM groups, and with another client (Python's ssl module)."""
import os
import subprocess
import sys

import pytest


def test_provider_lists_every_kem_and_group(lab, table):
    kems = lab.run("list", "-kem-algorithms").stdout
    groups = lab.built_groups()
    built = [k["id"] for k in table["KEM"] if k["id"] in kems]
    assert built, "no KpqC KEM listed"
    for k in table["KEM"]:
        if k["id"] in built:
            assert k["id"] in groups
            for alias in k["aliases"]:
                assert alias in kems
    for h in table["HYBRID"]:
        if h["kem"] in built:
            assert h["id"] in groups, h["id"]
    # OpenSSL's own groups are still there: no clash of names or code points.
    for native in ("X25519MLKEM768", "MLKEM768", "x25519"):
        assert native in groups


def _handshake(lab, server_groups, client_groups):
    server, port = lab.server("-groups", server_groups)
    try:
        result = lab.client(port, "-groups", client_groups)
    finally:
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    return result.stdout + result.stderr


def test_every_group_handshakes(lab, table):
    groups = [g for g in lab.built_groups() if any(g == r["id"] for r in table["KEM"] + table["HYBRID"])]
    assert len(groups) >= 7
    for g in groups:
        out = _handshake(lab, g, g)
        assert f"Negotiated TLS1.3 group: {g}" in out, out


def test_aliases_of_the_deployment_notes(lab, table):
    for h in table["HYBRID"]:
        if h["id"] in lab.built_groups() and h["aliases"]:
            out = _handshake(lab, h["id"], h["aliases"][0])
            assert f"Negotiated TLS1.3 group: {h['id']}" in out, out
            return
    pytest.skip("no hybrid with an alias built")


def test_beside_native_mlkem(lab):
    both = "X25519MLKEM768:x25519_smaugt1:x25519_ntruplus768"
    assert "group: x25519_smaugt1" in _handshake(lab, both, "x25519_smaugt1")
    assert "group: X25519MLKEM768" in _handshake(lab, both, "X25519MLKEM768")
    assert "group: x25519_ntruplus768" in _handshake(lab, both, "x25519_ntruplus768:X25519MLKEM768")


def test_no_common_group_fails_cleanly(lab):
    out = _handshake(lab, "X25519", "x25519_smaugt1")
    assert "Negotiated TLS1.3 group" not in out
    assert "handshake failure" in out or "alert" in out


def test_unknown_group_name_is_an_error(lab):
    r = lab.run("s_client", "-groups", "x25519_smaugt9", "-connect", "127.0.0.1:9", check=False)
    assert r.returncode != 0
    assert "group" in (r.stdout + r.stderr).lower()


def test_python_ssl_client(lab, tmp_path):
    """A different client: CPython's ssl, on the private OpenSSL via LD_LIBRARY_PATH,
    groups chosen through OPENSSL_CONF."""
    cnf = tmp_path / "client.cnf"
    base = (lab.build / "openssl.cnf").read_text()
    cnf.write_text(base.replace("Groups = x25519_smaugt1:X25519MLKEM768:X25519:secp256r1",
                                "Groups = p256_ntruplus768"))
    server, port = lab.server("-groups", "p256_ntruplus768")
    code = ("import socket, ssl; c = ssl.create_default_context(); c.check_hostname = False; "
            "c.verify_mode = ssl.CERT_NONE; "
            f"s = c.wrap_socket(socket.create_connection(('127.0.0.1', {port})), server_hostname='localhost'); "
            "print(ssl.OPENSSL_VERSION, s.version()); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); "
            "print(s.recv(4096).decode(errors='replace'))")
    env = dict(os.environ, KPQC_OPENSSL_CONF=str(cnf))
    r = subprocess.run(lab.env_cmd + ["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                       timeout=30, env=env)
    server.wait(timeout=10)
    assert "OpenSSL 3.5" in r.stdout and "TLSv1.3" in r.stdout, r.stdout + r.stderr
    assert "p256_ntruplus768" in r.stdout  # s_server -www reports the negotiated group
