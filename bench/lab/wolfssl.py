"""Suite `wolfssl`: wolfSSL's PQC tables reproduced with our stack: bytes on
the wire of a TLS 1.3 handshake with mutual authentication, and heap use,
for classical, NIST PQC and KpqC authentication and key exchange."""
import csv

from . import handshake
from .env import ROOT
from .results import md_table

# (certificate, group): wolfSSL's rows with today's algorithms, then KpqC.
CONFIGS = [("EC:P-256", "P-256"), ("EC:P-256", "MLKEM512"), ("EC:P-256", "MLKEM768"), ("EC:P-256", "MLKEM1024"),
           ("EC:P-256", "SecP256r1MLKEM768"), ("ML-DSA-44", "P-256"), ("ML-DSA-65", "P-256"), ("ML-DSA-87", "P-256"),
           ("EC:P-256", "smaugt1"), ("EC:P-256", "timer"), ("EC:P-256", "ntruplus768"), ("EC:P-256", "smaugt5"),
           ("EC:P-256", "p256_smaugt1"), ("EC:P-256", "p256_ntruplus768"),
           ("haetae2", "P-256"), ("haetae3", "P-256"), ("haetae5", "P-256"), ("aimer128f", "P-256"),
           ("aimer128s", "P-256"), ("p256_haetae2", "P-256"), ("haetae2", "smaugt1"), ("aimer128s", "ntruplus768"),
           ("p256_haetae2", "p256_smaugt1")]


PRESETS = {"paper": {}}


def add_arguments(p):
    p.add_argument("--count", type=int, default=20, help="handshakes per configuration")


def run(args, lab):
    count = args.count
    have_groups = handshake.available_groups(lab.build)
    rows, skipped = [], []
    for i, (sig, group) in enumerate(CONFIGS):
        lab.progress("wolfssl", i, len(CONFIGS), f"{sig} / {group}")
        if group.lower() not in have_groups and group != "P-256":
            skipped.append(f"{sig}/{group}")
            continue
        try:
            setup, hs = handshake.inproc(lab, group, sig, count, mutual=True, heap=True)
        except RuntimeError:
            skipped.append(f"{sig}/{group}")
            continue
        last = hs[-1]
        r = lab.row("wolfssl", sig=sig, group=group, bytes_total=last["bytes"], heap_peak=last["heap_peak"],
                    allocs=last["allocs"], alloc_bytes=last["alloc_bytes"], cert_der=setup["cert_der"])
        rows.append(r)
    lab.progress("wolfssl", len(CONFIGS), len(CONFIGS))
    base = next((r["bytes_total"] for r in rows if r["sig"] == "EC:P-256" and r["group"] == "P-256"), None)
    lab.section("Bytes on the wire, TLS 1.3 with mutual authentication (wolfSSL's table, our stack)",
                md_table(["authentication (both sides)", "key exchange", "handshake bytes", "vs ECDSA+P-256"],
                         [[r["sig"], r["group"], r["bytes_total"], f"{r['bytes_total'] / base:.1f}×" if base else "–"]
                          for r in rows]) + published("wire") +
                ("\n\nNot measured (not in this build): " + ", ".join(skipped) if skipped else ""))
    lab.section("Heap per mutual-TLS handshake (wolfSSL's table, our stack)",
                md_table(["authentication", "key exchange", "peak KiB (client+server)", "allocations",
                          "KiB allocated in total"],
                         [[r["sig"], r["group"], f"{r['heap_peak'] / 1024:.0f}", r["allocs"],
                           f"{r['alloc_bytes'] / 1024:.0f}"] for r in rows]) + published("heap"))
    return rows


def published(table):
    rows = [r for r in csv.DictReader(open(ROOT / "bench" / "published" / "wolfssl.csv")) if r["table"] == table]
    body = md_table(["authentication", "key exchange", "metric", "published"],
                    [[r["authentication"], r["key_exchange"], r["metric"], r["value"]] for r in rows])
    how = ("wolfSSL summed tcp.len of the whole connection (handshake with mutual authentication and two short "
           "application messages) in Wireshark; ours counts the TLS records of the handshake itself, so ours is "
           "a little smaller for the same algorithms" if table == "wire" else
           "wolfSSL reports each side separately with its own allocator; ours is OpenSSL's, client and server "
           "in one process, so the peak covers both at once")
    return f"\n\nPublished (wolfSSL PQC notes, liboqs-era algorithms):\n\n{body}\n\n{how}."
