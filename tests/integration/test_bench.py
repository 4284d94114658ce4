"""The benchmark lab runs end to end on a tiny configuration and writes its
outputs (structure only: performance is measured, never asserted)."""
import csv
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_handshake_suite_writes_report(lab, tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(lab.build), "--out",
                        str(out), "handshake", "--count", "3", "--rounds", "3", "--levels", "1", "--groups",
                        "x25519_smaugt1,p256_ntruplus768,secp256r1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    report = (out / "report.md").read_text()
    assert "x25519_smaugt1" in report and "X25519MLKEM768" in report
    rows = list(csv.DictReader(open(out / "summary.csv")))
    groups = {row["group"] for row in rows if row["suite"] == "handshake"}
    assert {"x25519_smaugt1", "p256_ntruplus768", "secp256r1"} <= groups
    for row in rows:
        if row["suite"] == "handshake":
            assert float(row["median_ns"]) > 0 and int(row["bytes_total"]) > 0
    samples = [json.loads(line) for line in open(out / "samples.jsonl")]
    assert any(s.get("negotiated") == "x25519_smaugt1" for s in samples)
    assert (out / "handshake.png").stat().st_size > 1000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["environment"]["openssl"].startswith("OpenSSL 3.5")
    # The contract other tools read: every handshake row's ratio to each
    # named baseline of its level, with its interval, and its instructions.
    hs = [row for row in summary["rows"] if row["suite"] == "handshake"]
    assert {row["group"] for row in hs} == {"x25519_smaugt1", "p256_ntruplus768", "secp256r1", "X25519",
                                            "X25519MLKEM768"}
    for row in hs:
        assert set(row["ratio_to"]) == {"X25519", "X25519MLKEM768"}
        for ratio in row["ratio_to"].values():
            assert set(ratio) >= {"median", "ci_low", "ci_high"}
            assert 0 < ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]
        assert row["instructions"] > 1e6  # a handshake is millions of instructions, set-up subtracted
        assert row["rounds"] == 3
    assert "ratio to X25519MLKEM768 [95 % CI]" in report and "Split-half agreement" in report


def test_prims_carry_the_ratio_to_the_reference_code(lab, tmp_path):
    pytest.importorskip("kpqc")  # scripts/requirements.txt installs it into the lab's venv
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(lab.build), "--out",
                        str(out), "prims", "--iterations", "20", "--slow-iterations", "2", "--filter", "ntruplus768",
                        "--reference-rounds", "3"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads((out / "summary.json").read_text())["rows"]
    prims = [row for row in rows if row["suite"] == "prims"]
    assert {row["op"] for row in prims} == {"keygen", "encaps", "decaps"}
    assert {row["impl"] for row in prims} >= {"portable"}
    for row in prims:
        ratio = row["ratio_to_reference"]
        assert 0 < ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]
        assert ratio["rounds"] == 3
    ref = [row for row in rows if row["suite"] == "reference"]
    assert {row["op"] for row in ref} == {"keygen", "encaps", "decaps"} and all(row["median_ns"] > 0 for row in ref)
    report = (out / "report.md").read_text()
    assert "NTRU+768" in report and "call overhead" in report and "decaps / verify | reference µs" not in report  # no quoted figures


def test_measurement_programs_refuse_unknown_options(lab):
    for prog, mode in (("kpqc-prims", []), ("kpqc-handshake", ["inproc"]), ("kpqc-instructions", []),
                       ("kpqc-mqtt", ["--port", "1", "--ca", "none"])):
        path = lab.build / "bench" / prog
        if not path.exists():
            continue
        r = subprocess.run(lab.env_cmd + [str(path)] + mode + ["--iteration", "3"], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode != 0 and "unknown option" in r.stderr, prog


def test_chains_suite_validates_every_signature_beside_ecdsa_and_ml_dsa(lab, tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(lab.build), "--out",
                        str(out), "chains", "--count", "1", "--rounds", "2"], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [row for row in json.loads((out / "summary.json").read_text())["rows"] if row["suite"] == "chains"]
    sys.path.insert(0, str(ROOT / "tools"))
    import kpqc_table
    t = kpqc_table.load(lab.build)
    assert {row["sig"] for row in rows} >= {s["id"] for s in t["SIG"]} | {c["id"] for c in t["COMPOSITE"]} | {
        "EC:P-256", "ML-DSA-44", "EC:P-521", "ML-DSA-87"}
    for row in rows:
        assert set(row["ratio_to"]) == ({"EC:P-256", "ML-DSA-44"} if row["level"] == 1 else
                                        {"EC:P-384", "ML-DSA-65"} if row["level"] == 3 else {"EC:P-521", "ML-DSA-87"})
        assert row["median_ns"] > 0 and row["chain_der"] > 0
    assert (out / "chains_L1.png").stat().st_size > 1000


def test_instructions_per_primitive_repeat_exactly_on_seeded_inputs(lab, tmp_path):
    if not (lab.build / "bench" / "kpqc-instructions").exists():
        pytest.skip("kpqc-instructions needs valgrind's headers")
    counts = []
    for run in ("a", "b"):
        out = tmp_path / run
        r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(lab.build), "--out",
                            str(out), "prims", "--iterations", "20", "--slow-iterations", "2", "--filter", "ntruplus768",
                            "--reference-rounds", "0", "--callgrind", "--callgrind-iterations", "2"],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        rows = json.loads((out / "summary.json").read_text())["rows"]
        counts.append({(row["alg"], row["impl"], row["op"]): row["instructions"] for row in rows
                       if row["suite"] == "prims" and row.get("instructions")})
    assert {op for _, _, op in counts[0]} == {"keygen", "encaps", "decaps"}
    assert all(v > 1000 for v in counts[0].values())
    assert counts[0] == counts[1]


def test_paths_suite_pairs_the_paths_and_the_ml_dsa_counterpart(lab, tmp_path):
    best = subprocess.run([str(lab.build / "kpqc-kat"), "--impl"], capture_output=True, text=True).stdout.strip()
    paths = ["portable", "avx2", "avx512"][: ["portable", "avx2", "avx512"].index(best) + 1]
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "kpqc-bench"), "--build-dir", str(lab.build), "--out",
                        str(out), "paths", "--rounds", "2", "--filter", "haetae2", "--paths", ",".join(paths),
                        "--iterations", "5", "--slow-iterations", "2", "--rejection-iterations", "3"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [row for row in json.loads((out / "summary.json").read_text())["rows"] if row["suite"] == "paths"]
    assert {row["op"] for row in rows} == {"keygen", "sign", "verify"}
    for row in rows:
        assert row["alg"] == "haetae2" and row["counterpart"] == "ML-DSA-44" and row["rounds"] == 2
        assert all(row[f"{p}_ns"] > 0 for p in paths) and row["openssl_ns"] > 0
        for p in paths:
            ratio = row[f"{p}_over_openssl"]
            assert 0 < ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]
        if "avx512" in paths:
            assert 0 < row["avx512_over_avx2"]["median"]
    # signing, rejection-sampled on both sides, takes the larger sample count
    samples = [json.loads(line) for line in open(out / "samples.jsonl")]
    signs = [s for s in samples if s.get("op") == "sign"]
    assert signs and all(len(s["ns"]) == 3 for s in signs)
    report = (out / "report.md").read_text()
    assert "haetae2" in report and "3 per HAETAE and ML-DSA signature operation" in report


def test_footprint_program_counts_stack_heap_and_code(lab, tmp_path):
    """kpqc-footprint, linked as the footprint suite links it (here against
    the build's own libkpqc.a): a KpqC KEM's operations take stack and,
    like SMAUG-T and NTRU+, no heap; OpenSSL's ML-KEM through EVP
    allocates, so the counting sees allocations where there are some; the
    linker's map attributes the kept code to libkpqc.a."""
    sys.path.insert(0, str(ROOT / "bench"))
    from lab import footprint
    table = json.loads((lab.build / "algorithms.json").read_text())
    kems = [k for k in table["kems"] if k["family"] in ("smaugt", "ntruplus")]
    if not kems:
        pytest.skip("no SMAUG-T or NTRU+ set in this build")
    cc = footprint.compiler(lab.build)
    exe, link_map = footprint.program(cc, tmp_path / "kem", [f"-DFOOTPRINT_KEM={kems[0]['name']}"],
                                      [ROOT / "src", ROOT / "src" / "common", ROOT / "include",
                                       lab.build / "generated"], lab.build / "libkpqc.a")
    ops = footprint.measure(exe, {"KPQC_IMPL": "portable"})
    assert [o["op"] for o in ops] == ["keygen", "encaps", "decaps"] and all(o["ok"] for o in ops)
    assert all(1000 < o["stack"] < 1 << 20 and o["allocs"] == 0 and o["heap_peak"] == 0 for o in ops)
    assert footprint.kept_bytes(link_map, r"libkpqc\.a\(") > 5000
    prefix = footprint._cache(lab.build, "KPQC_OPENSSL_PREFIX")
    exe, _ = footprint.program(cc, tmp_path / "mlkem", ['-DFOOTPRINT_OPENSSL_KEM="ML-KEM-768"'],
                               [f"{prefix}/include"], f"{prefix}/lib/libcrypto.a")
    ops = footprint.measure(exe, {"OPENSSL_CONF": "/dev/null"})
    assert all(o["ok"] and o["allocs"] > 0 and o["heap_peak"] > 0 for o in ops)
