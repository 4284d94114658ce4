#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made with the project's own tools.

fuzz_kem_decaps / fuzz_sig_verify: genuine ciphertexts and signatures from
`kpqc-kat` records, prefixed with the target's selector bytes.
fuzz_kem_unpack / fuzz_haetae_unpack / fuzz_aimer_parse: the same genuine
ciphertexts and signatures of every parameter set, behind the set byte (the
set's index in the target's list, which follows the table's order).  Targets that
take DER/PEM or TLS bytes get their seeds from the provider's tools
(`kpqc-openssl`), when the build has them.  Which algorithm is a KEM or a
signature, and of which family, the algorithm table says
(algorithms.json beside kpqc-kat, or --table).
"""
import argparse
import json
import pathlib
import subprocess


def kat_records(tool, alg, count=2):
    out = subprocess.run([tool, alg, "--count", str(count)], capture_output=True, text=True, check=True).stdout
    rec = {}
    for line in out.splitlines():
        if " = " in line:
            key, value = line.split(" = ", 1)
            rec[key] = value
            if key in ("ss", "sig", "sm"):
                yield dict(rec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kat-tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--table", help="the build's algorithms.json (default: beside --kat-tool)")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    table = json.loads(pathlib.Path(args.table or pathlib.Path(args.kat_tool).parent / "algorithms.json").read_text())
    family = {r["name"]: r["family"] for r in table["kems"] + table["sigs"]}
    algs = subprocess.run([args.kat_tool, "--list"], capture_output=True, text=True, check=True).stdout.split()
    kem_names = {r["name"] for r in table["kems"]}
    kems = [a for a in algs if a in kem_names]
    sigs = [a for a in algs if a not in kem_names]
    d = out / "fuzz_kem_decaps"
    d.mkdir(parents=True, exist_ok=True)
    for i, alg in enumerate(kems):
        for j, rec in enumerate(kat_records(args.kat_tool, alg)):
            for mode in (0, 1, 2):
                (d / f"{alg}-{j}-{mode}").write_bytes(bytes([i, mode]) + bytes.fromhex(rec["ct"]) + bytes.fromhex(rec["sk"]))
    d = out / "fuzz_sig_verify"
    d.mkdir(parents=True, exist_ok=True)
    for i, alg in enumerate(sigs):
        for j, rec in enumerate(kat_records(args.kat_tool, alg, 1)):
            msg = bytes.fromhex(rec["msg"])
            sig = bytes.fromhex(rec["sig"]) if "sig" in rec else bytes.fromhex(rec["sm"])[len(msg):]
            (d / f"{alg}-{j}").write_bytes(bytes([i, 1, 0]) + sig + msg)
    decoder_seeds(args.kat_tool, out, kems, sigs, family)


def signature_of(rec):
    msg = bytes.fromhex(rec["msg"])
    return bytes.fromhex(rec["sig"]) if "sig" in rec else bytes.fromhex(rec["sm"])[len(msg):]


def decoder_seeds(tool, out, kems, sigs, family):
    """Two genuine encodings per parameter set for each decoder target."""
    targets = {
        "fuzz_kem_unpack": ([a for a in kems if family[a] == "ntruplus"] + [a for a in kems if family[a] != "ntruplus"],
                            "ct"),
        "fuzz_haetae_unpack": ([a for a in sigs if family[a] == "haetae"], "sig"),
        "fuzz_aimer_parse": ([a for a in sigs if family[a] == "aimer"], "sig"),
    }
    for target, (algs, field) in targets.items():
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        for i, alg in enumerate(algs):
            for j, rec in enumerate(kat_records(tool, alg)):
                body = bytes.fromhex(rec["ct"]) if field == "ct" else signature_of(rec)
                (d / f"{alg}-{j}").write_bytes(bytes([i]) + body)


if __name__ == "__main__":
    main()
