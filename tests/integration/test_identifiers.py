"""Names, OIDs and code points at run time: kpqcprovider beside the default
provider registers no name or OID twice, and openssl.cnf can move any OID
or code point (and a malformed one stops the provider from loading)."""
import os
import pathlib
import re
import subprocess

import pytest


def entries(listing):
    """(names, provider) per entry of `openssl list -...-algorithms`."""
    out = []
    for m in re.finditer(r"\{ ([^}]*) \} @ (\S+)", listing):
        out.append(([n.strip().lower() for n in m.group(1).split(",")], m.group(2)))
    for m in re.finditer(r"^\s+(\S+) @ (\S+)$", listing, re.M):
        out.append(([m.group(1).lower()], m.group(2)))
    return out


def test_no_name_or_oid_shared_with_another_provider(lab):
    for kind in ("-kem-algorithms", "-signature-algorithms", "-key-managers"):
        owner = {}
        for names, provider in entries(lab.run("list", kind).stdout):
            for name in names:
                assert owner.setdefault(name, provider) == provider, (kind, name, owner[name], provider)
        assert "kpqcprovider" in owner.values(), kind


def test_tls_group_names_are_unique(lab):
    groups = [g.lower() for g in lab.built_groups()]
    assert len(groups) == len(set(groups))


def oid_der(dotted):
    arcs = [int(a) for a in dotted.split(".")]
    body = b""
    for arc in [40 * arcs[0] + arcs[1]] + arcs[2:]:
        chunk = [arc & 0x7F]
        while arc > 0x7F:
            arc >>= 7
            chunk.insert(0, 0x80 | (arc & 0x7F))
        body += bytes(chunk)
    return bytes([0x06, len(body)]) + body


def override_config(lab, lines):
    base = (lab.build / "openssl.cnf").read_text()
    text = re.sub(r"(module = \S*kpqcprovider\.so\n)", lambda m: m.group(1) + "".join(l + "\n" for l in lines), base)
    path = lab.tmp / f"override-{abs(hash(tuple(lines)))}.cnf"
    path.write_text(text)
    return dict(os.environ, KPQC_OPENSSL_CONF=str(path))


def test_openssl_cnf_overrides_oids_and_code_points(lab, table):
    listed = lab.run("list", "-signature-algorithms").stdout
    sig = next((s for s in table["SIG"] if s["id"] in listed), None)
    if sig is None:
        pytest.skip("no KpqC signature built")
    new_oid = "1.3.9999.410.99.1"
    env = override_config(lab, [f"{sig['id']}.oid = {new_oid}", "x25519_smaugt1.codepoint = 0xFEB7"])
    listing = lab.run("list", "-signature-algorithms", env=env).stdout
    assert new_oid in listing and sig["oid"] not in listing

    # A certificate made under the override carries the new OID.
    key, cert = lab.tmp / "ovr.key", lab.tmp / "ovr.crt"
    lab.run("req", "-x509", "-newkey", sig["id"], "-nodes", "-keyout", str(key), "-out", str(cert),
            "-subj", "/CN=override", "-days", "1", env=env)
    der = subprocess.run(lab.env_cmd + ["openssl", "x509", "-in", str(cert), "-outform", "DER"], env=env,
                         capture_output=True, check=True).stdout
    # tbsCertificate.signature, the key and the outer signatureAlgorithm
    assert der.count(oid_der(new_oid)) == 3 and oid_der(sig["oid"]) not in der

    # The group's key share goes out under the new code point (0xFEB7).
    port = lab.free_port()
    server = subprocess.Popen(lab.env_cmd + ["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-naccept",
                                             "1", "-www", "-groups", "x25519_smaugt1",
                                             "-cert", lab.ecdsa_cert()[0], "-key", lab.ecdsa_cert()[1]],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        line = server.stdout.readline()
        while line and "ACCEPT" not in line:
            line = server.stdout.readline()
        r = subprocess.run(lab.env_cmd + ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-groups",
                                          "x25519_smaugt1", "-msg"], input="", capture_output=True, text=True,
                           timeout=30, env=env)
    finally:
        server.kill()
        server.wait()
    assert "Negotiated TLS1.3 group: x25519_smaugt1" in r.stdout, r.stdout + r.stderr
    hello = r.stdout.split("ClientHello")[1].split("<<<")[0]
    assert "fe b7" in hello.lower()


def test_malformed_override_keeps_the_provider_out(lab):
    env = override_config(lab, ["smaugt1.oid = 1.3.not-an-oid"])
    assert "kpqcprovider" not in lab.run("list", "-providers", env=env).stdout
    assert "smaugt1" not in lab.run("list", "-kem-algorithms", env=env).stdout
    # With the same configuration but no override the provider loads.
    assert "kpqcprovider" in lab.run("list", "-providers", env=override_config(lab, [])).stdout


@pytest.mark.parametrize("line, reason", [
    # another of our groups / signature schemes / OIDs
    ("x25519_smaugt1.codepoint = 0xFE8F", "x25519_smaugt3 both have code point 0xFE8F"),
    ("smaugt1.oid = 1.3.9999.410.1.2", "both have OID 1.3.9999.410.1.2"),
    # the default provider's X25519MLKEM768 and an OID libcrypto knows (ecdsa-with-SHA256)
    ("x25519_smaugt1.codepoint = 0x11EC", "is the default provider's X25519MLKEM768"),
    ("smaugt1.oid = 1.2.840.10045.4.3.2", "is already ecdsa-with-SHA256"),
])
def test_colliding_override_keeps_the_provider_out(lab, table, line, reason):
    name = line.split(".")[0]
    if name not in lab.run("list", "-kem-algorithms").stdout:
        pytest.skip(f"{name} not built")
    env = override_config(lab, [line])
    assert "kpqcprovider" not in lab.run("list", "-providers", env=env).stdout
    # OpenSSL drops the errors of a provider the configuration activates; one
    # loaded by name with the same section shows why it refused.
    conf = pathlib.Path(env["KPQC_OPENSSL_CONF"])
    head, _, tail = conf.read_text().partition("[kpqc_sect]")
    conf.write_text(head + "[kpqc_sect]" + tail.replace("activate = 1", "activate = 0", 1))
    r = lab.run("list", "-providers", "-provider", "kpqcprovider", env=env, check=False)
    assert r.returncode != 0 and reason in r.stderr, r.stderr


@pytest.mark.parametrize("key", ["ntru_plus_kem768.oid", "NTRUPLUS768.oid", "NTRU_PLUS_KEM768.oid", "ntru+768.oid"])
def test_override_under_any_name_of_the_algorithm(lab, key):
    """An alias or another letter case names the same algorithm: the override applies."""
    if "ntruplus768" not in lab.run("list", "-kem-algorithms").stdout:
        pytest.skip("ntruplus768 not built")
    new_oid = "1.3.9999.410.99.5"
    listing = lab.run("list", "-kem-algorithms", env=override_config(lab, [f"{key} = {new_oid}"])).stdout
    assert new_oid in listing and "1.3.9999.410.1.5" not in listing, listing


def refusal(lab, lines):
    """The reason the provider gives for refusing a configuration (loaded by name)."""
    env = override_config(lab, lines)
    assert "kpqcprovider" not in lab.run("list", "-providers", env=env).stdout
    conf = pathlib.Path(env["KPQC_OPENSSL_CONF"])
    head, _, tail = conf.read_text().partition("[kpqc_sect]")
    conf.write_text(head + "[kpqc_sect]" + tail.replace("activate = 1", "activate = 0", 1))
    r = lab.run("list", "-providers", "-provider", "kpqcprovider", env=env, check=False)
    assert r.returncode != 0
    return r.stderr


def test_two_names_of_one_algorithm_set_two_ways_are_refused(lab):
    if "ntruplus768" not in lab.run("list", "-kem-algorithms").stdout:
        pytest.skip("ntruplus768 not built")
    why = refusal(lab, ["ntruplus768.codepoint = 0x2F01", "NTRU_PLUS_KEM768.codepoint = 0x2F02"])
    assert "ntruplus768.codepoint = 0x2F01 and NTRU_PLUS_KEM768.codepoint = 0x2F02" in why, why


@pytest.mark.parametrize("oid", ["1.3.18446744073709551616", "2.18446744073709551615", "1.3.99999999999999999999999",
                                 "1.3.01"])
def test_oid_arcs_the_encoder_cannot_write_are_refused(lab, oid):
    if "smaugt1" not in lab.run("list", "-kem-algorithms").stdout:
        pytest.skip("smaugt1 not built")
    assert f"smaugt1.oid = {oid} is not a dotted OID" in refusal(lab, [f"smaugt1.oid = {oid}"])


@pytest.mark.parametrize("line", ["ntruplus768.codepiont = 0x2F01", "ntru_plus768x.codepoint = 0x2F01",
                                  "NtruPlus768.oid = 1.3.9999.410.99.5", "haetae2.oidd = 1.3.9999.410.99.6"])
def test_keys_that_name_no_setting_keep_the_provider_out(lab, line):
    """A misspelt attribute, a name no algorithm has, or a name in mixed case
    is refused, naming the key, rather than leaving the default in place."""
    key = line.split(" = ")[0]
    assert f"{key} = " in refusal(lab, [line]) and "names no setting" in refusal(lab, [line])
