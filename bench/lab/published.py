"""Suite `published`: the figures of the source documents quoted beside
ours (TLS/X.509 paper, MQTT mutual-TLS table), from bench/published/."""
import csv

from .env import ROOT
from .results import md_table

PRESETS = {"quick": {}, "paper": {}}


def add_arguments(p):
    pass


def run(args, lab):
    pub = ROOT / "bench" / "published"
    rows = list(csv.DictReader(open(pub / "paper_tls_x509.csv")))
    lab.section("Published figures quoted beside ours (TLS/X.509 paper)",
                md_table(["table", "row", "metric", "published", "unit", "note"],
                         [[r["table"], r["row"], r["metric"], r["value"], r["unit"], r["note"]] for r in rows]))
    rows = list(csv.DictReader(open(pub / "mqtt_pqc.csv")))
    lab.section("Published MQTT mutual-TLS table (Mosquitto, 30 iterations)",
                md_table(["key exchange", "signature", "type", "success", "handshake ms", "± sd"],
                         [[r["kex"], r["sig"], r["type"], r["success"], r["handshake_ms"], r["sd_ms"]] for r in rows]))
    return rows
