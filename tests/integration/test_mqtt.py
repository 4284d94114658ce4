"""Mosquitto on the private OpenSSL 3.5 with kpqcprovider: mutual TLS 1.3
with KpqC key exchange, real MQTT clients (mosquitto_pub/mosquitto_sub,
paho-mqtt and kpqc-mqtt), a client from the wrong CA refused, the broker alive after.

The broker accepts KpqC groups only, so every connection that works went
through a KpqC key exchange; clients offer x25519_smaugt1 through their own
openssl.cnf (neither Mosquitto's programs nor paho-mqtt have an option for groups)."""
import pathlib
import subprocess
import sys
import uuid

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from lab.mqtt import client_binary, run_client  # noqa: E402
from lab.mqtt_broker import Broker, env_for, mosquitto_binary, openssl_cnf  # noqa: E402
from lab.mqtt_pki import Pki, SigAlg, offered_signatures  # noqa: E402

GROUP = "x25519_smaugt1"
BROKER_GROUPS = [GROUP, "p256_ntruplus768"]
# Client certificate algorithms: HAETAE and AIMer (each skipped, visibly,
# while the provider does not offer it) and ML-DSA-44 (OpenSSL's own), so
# that the broker path is exercised whatever the provider offers.
CERT_ALGS = ["haetae2", "aimer128f", "ML-DSA-44"]
TIMEOUT = 30


@pytest.fixture(scope="module")
def mqtt(lab, tmp_path_factory):
    if mosquitto_binary() is None:
        pytest.skip("mosquitto is not installed (scripts/install-deps.sh)")
    if not client_binary(lab.build).exists():
        pytest.skip("kpqc-mqtt not built")
    if not {g.lower() for g in BROKER_GROUPS} <= {g.lower() for g in lab.built_groups()}:
        pytest.skip("SMAUG-T / NTRU+ groups not built")
    tmp = tmp_path_factory.mktemp("mqtt")
    offered = offered_signatures(lab.openssl[0])
    pki = Pki(lab.build, tmp / "pki")
    listeners = {}
    for name in CERT_ALGS:
        if name.lower() in offered:
            alg = SigAlg(name, [name], "pure PQC")
            listeners[name] = dict(pki.listener_set(alg), alg=alg)
    with Broker(lab.build, tmp / "broker", listeners, BROKER_GROUPS) as broker:
        yield {"broker": broker, "pki": pki, "listeners": listeners, "offered": offered, "tmp": tmp,
               "client_cnf": openssl_cnf(lab.build, tmp / "client-openssl.cnf", [GROUP]),
               "x25519_cnf": openssl_cnf(lab.build, tmp / "x25519-openssl.cnf", ["X25519"])}
    assert not broker.alive()


def _listener(mqtt, name):
    if name not in mqtt["listeners"]:
        pytest.skip(f"{name} is not offered by kpqcprovider in this build")
    return mqtt["listeners"][name], mqtt["broker"].ports[name]


def _mosquitto(lab, program, cnf, port, files, client, *args):
    argv = [str(lab.build / "kpqc-env"), program, "-h", "localhost", "-p", str(port), "--tls-version", "tlsv1.3",
            "--cafile", str(files["ca"][0]), "--cert", str(client[0]), "--key", str(client[1]), *args]
    return argv, env_for(cnf)


def test_broker_serves_every_listener(lab, mqtt):
    assert mqtt["broker"].alive()
    assert mqtt["listeners"], "no listener could be set up"
    for name, files in mqtt["listeners"].items():
        recs = run_client(lab.build, mqtt["broker"].ports[name], GROUP, files["ca"][0], files["client"])
        assert recs[0]["ok"], recs
        assert recs[0]["group"] == GROUP


@pytest.mark.parametrize("alg", CERT_ALGS)
def test_publish_reaches_subscriber(lab, mqtt, alg):
    files, port = _listener(mqtt, alg)
    topic, message = f"kpqc/test/{uuid.uuid4().hex}", f"hello over {GROUP} with {alg}"
    argv, env = _mosquitto(lab, "mosquitto_sub", mqtt["client_cnf"], port, files, files["client"],
                           "-t", topic, "-C", "1", "-W", "20")
    sub = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Retained, so the subscriber gets it however its connection races the publisher's.
        argv, env = _mosquitto(lab, "mosquitto_pub", mqtt["client_cnf"], port, files, files["client"],
                               "-t", topic, "-m", message, "-q", "1", "-r")
        pub = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        assert pub.returncode == 0, pub.stderr
        out, err = sub.communicate(timeout=TIMEOUT)
    finally:
        if sub.poll() is None:
            sub.kill()
            sub.wait()
    assert sub.returncode == 0, err
    assert out.strip() == message


PAHO_PUBLISH = """
import ssl, sys
import paho.mqtt.client as mqtt
port, ca, cert, key, topic, message = sys.argv[1:]
c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
c.tls_set(ca_certs=ca, certfile=cert, keyfile=key, tls_version=ssl.PROTOCOL_TLS_CLIENT)
c.connect("localhost", int(port), keepalive=10)
c.loop_start()
info = c.publish(topic, message, qos=1, retain=True)
info.wait_for_publish(timeout=15)
print(ssl.OPENSSL_VERSION, c.socket().version(), info.is_published())
c.disconnect()
c.loop_stop()
"""


def test_paho_mqtt_client(lab, mqtt):
    """Python's paho-mqtt: CPython's ssl is linked against libssl.so.3, so
    kpqc-env puts it on OpenSSL 3.5 with the provider too."""
    pytest.importorskip("paho.mqtt.client")
    name, files = next(iter(mqtt["listeners"].items()))
    port = mqtt["broker"].ports[name]
    topic, message = f"kpqc/test/paho/{uuid.uuid4().hex}", "hello from paho-mqtt"
    r = subprocess.run([str(lab.build / "kpqc-env"), sys.executable, "-c", PAHO_PUBLISH, str(port),
                        str(files["ca"][0]), str(files["client"][0]), str(files["client"][1]), topic, message],
                       env=env_for(mqtt["client_cnf"]), capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert "OpenSSL 3.5" in r.stdout and "TLSv1.3 True" in r.stdout, r.stdout
    argv, env = _mosquitto(lab, "mosquitto_sub", mqtt["client_cnf"], port, files, files["client"],
                           "-t", topic, "-C", "1", "-W", "10")
    sub = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert sub.stdout.strip() == message, sub.stderr


def test_client_offering_only_classical_groups_is_refused(lab, mqtt):
    """The broker's groups come from its openssl.cnf, the client's from its own."""
    name, files = next(iter(mqtt["listeners"].items()))
    argv, env = _mosquitto(lab, "mosquitto_pub", mqtt["x25519_cnf"], mqtt["broker"].ports[name], files,
                           files["client"], "-t", "kpqc/test/x25519", "-m", "x")
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode != 0
    assert "handshake failure" in r.stderr or "TLS" in r.stderr, r.stderr


def test_client_from_wrong_ca_is_refused(lab, mqtt):
    name, files = next(iter(mqtt["listeners"].items()))
    port, broker = mqtt["broker"].ports[name], mqtt["broker"]
    rogue = mqtt["pki"].bad_clients(files["alg"], files["ca"])["other CA"]
    topic = f"kpqc/test/rogue/{uuid.uuid4().hex}"
    offset = broker.log_offset()
    argv, env = _mosquitto(lab, "mosquitto_pub", mqtt["client_cnf"], port, files, rogue,
                           "-t", topic, "-m", "must not arrive", "-q", "1", "-r")
    try:
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=10)
        assert r.returncode != 0, r.stdout
    except subprocess.TimeoutExpired:
        # mosquitto_pub sometimes waits forever once the broker has reset the
        # connection (the alert lost with it); the broker's side is what counts.
        pass
    recs = run_client(lab.build, port, GROUP, files["ca"][0], rogue)
    assert not recs[0]["ok"]
    assert "unknown ca" in recs[0]["error"] or "by the broker" in recs[0]["error"], recs
    assert "certificate verify failed" in broker.log_since(offset)
    # Nothing was published: a legitimate subscriber finds no retained message.
    argv, env = _mosquitto(lab, "mosquitto_sub", mqtt["client_cnf"], port, files, files["client"],
                           "-t", topic, "-C", "1", "-W", "3")
    sub = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert sub.stdout == "", sub.stdout
    assert "Timed out" in sub.stderr or sub.returncode == 27, sub.stderr


def test_broker_alive_after_refusals(lab, mqtt):
    broker = mqtt["broker"]
    name, files = next(iter(mqtt["listeners"].items()))
    assert broker.alive()
    recs = run_client(lab.build, broker.ports[name], GROUP, files["ca"][0], files["client"], count=3)
    assert [r["ok"] for r in recs] == [True] * 3, recs
