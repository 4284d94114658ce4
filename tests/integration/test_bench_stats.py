"""The lab's statistics against values known in advance (paired ratios over
interleaved rounds, their bootstrap intervals, split halves), and the
shape of its suites (registry, presets)."""
import math
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from lab import registry, stats  # noqa: E402


def test_a_constant_ratio_survives_any_drift():
    # The machine's speed changes threefold between rounds; the two
    # configurations of a round share it, so the ratio is exact.
    drift = [300, 900, 450, 610, 880, 333, 700]
    r = stats.paired_ratio([0.85 * d for d in drift], drift)
    assert r["rounds"] == len(drift)
    assert math.isclose(r["median"], 0.85) and math.isclose(r["ci_low"], 0.85) and math.isclose(r["ci_high"], 0.85)
    assert not stats.no_measurable_difference(r)


def test_median_and_interval_of_known_ratios():
    r = stats.paired_ratio([1, 2, 3, 4, 5, 6, 7, 8, 9], [1] * 9)
    assert r["median"] == 5
    assert 1 <= r["ci_low"] <= 5 <= r["ci_high"] <= 9
    assert r == stats.paired_ratio([1, 2, 3, 4, 5, 6, 7, 8, 9], [1] * 9)  # fixed seed: reproducible


def test_interval_width_matches_the_median_standard_error():
    # Log-normal ratios around 1.2 with sigma 0.1: the median of n has a
    # standard error of sqrt(pi/2) * sigma / sqrt(n) (in log space), so the
    # 95 % interval is about 2 * 1.96 times that wide.
    rng = np.random.default_rng(5)
    n, sigma = 400, 0.1
    ratios = 1.2 * np.exp(rng.normal(0, sigma, n))
    base = rng.uniform(400, 900, n)
    r = stats.paired_ratio(list(ratios * base), list(base))
    expected = 2 * 1.96 * math.sqrt(math.pi / 2) * sigma / math.sqrt(n) * 1.2
    assert 0.7 * expected < r["ci_high"] - r["ci_low"] < 1.3 * expected
    assert r["ci_low"] < 1.2 < r["ci_high"]


def test_pairing_removes_the_shared_drift():
    # Same data, pairs broken by shuffling the baseline's rounds: the
    # interval widens several fold.
    rng = np.random.default_rng(2)
    drift = rng.uniform(300, 900, 40)
    values = list(0.9 * drift * np.exp(rng.normal(0, 0.02, 40)))
    paired = stats.paired_ratio(values, list(drift))
    unpaired = stats.paired_ratio(values, list(rng.permutation(drift)))
    assert paired["ci_high"] - paired["ci_low"] < 0.03
    assert unpaired["ci_high"] - unpaired["ci_low"] > 5 * (paired["ci_high"] - paired["ci_low"])


def test_missing_rounds_leave_only_their_pair_out():
    r = stats.paired_ratio([2, None, 2, 2], [1, 1, None, 1])
    assert r["rounds"] == 2 and r["median"] == 2
    assert stats.paired_ratio([None], [1]) is None


def test_an_interval_containing_one_is_no_measurable_difference():
    assert stats.no_measurable_difference({"median": 1.02, "ci_low": 0.97, "ci_high": 1.05})
    assert not stats.no_measurable_difference({"median": 0.9, "ci_low": 0.85, "ci_high": 0.95})
    assert stats.fmt_ratio({"median": 1.02, "ci_low": 0.97, "ci_high": 1.05}).startswith("≈")
    assert stats.fmt_ratio({"median": 0.9, "ci_low": 0.85, "ci_high": 0.95}) == "0.90 [0.85, 0.95]"


def test_interleave_runs_every_configuration_once_per_round_in_shuffled_orders():
    seen = []
    per_round = stats.interleave(["a", "b", "c", "d"], lambda c: seen.append(c) or len(seen), rounds=6, seed=3)
    rounds = [seen[i:i + 4] for i in range(0, 24, 4)]
    assert all(sorted(r) == ["a", "b", "c", "d"] for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1
    assert {c: len(v) for c, v in per_round.items()} == {"a": 6, "b": 6, "c": 6, "d": 6}
    again = []
    stats.interleave(["a", "b", "c", "d"], lambda c: again.append(c), rounds=6, seed=3)
    assert again == seen


def test_over_rounds_names_each_baseline_and_splits_halves():
    per_round = {"base": [100, 200, 100, 200], "x": [80, 160, 90, 200]}  # ratios .8 .8 .9 1
    out = stats.over_rounds(per_round, {"Base": "base", "absent": "nothing"})
    assert set(out["x"]["ratio_to"]) == {"Base"}
    assert out["x"]["median"] == 125 and out["x"]["rounds"] == 4
    assert math.isclose(out["x"]["ratio_to"]["Base"]["median"], 0.85)
    assert [round(h, 9) for h in out["x"]["split_half"]["Base"]] == [0.85, 0.9]  # even rounds, odd rounds
    assert out["base"]["ratio_to"]["Base"]["median"] == 1.0 and out["base"]["split_half"] == {}
    assert "0.050 (median) and 0.050 (largest)" in stats.agreement(out.values())


def test_every_suite_has_the_interface_and_every_report_entry_exists():
    suites = registry.suites()
    assert {"handshake", "chains", "prims", "sizes", "spawn", "published"} <= set(suites)
    for name, suite_list in registry.REPORTS.items():
        for suite, preset in suite_list:
            mod = suites[suite]
            assert preset in mod.PRESETS, (suite, preset)
            args = registry.arguments(mod, preset)  # raises on an option the suite does not have
            for key, value in mod.PRESETS[preset].items():
                assert getattr(args, key) == value
    assert registry.QUICK[0] == ("handshake", "quick")  # the report leads with the ratio tables


def test_a_preset_with_an_unknown_option_is_refused():
    class Fake:
        __name__ = "fake"
        PRESETS = {"quick": {"no_such_option": 1}}

        @staticmethod
        def add_arguments(p):
            p.add_argument("--count", type=int, default=3)
    try:
        registry.arguments(Fake, "quick")
    except KeyError as e:
        assert "no_such_option" in str(e)
    else:
        raise AssertionError("accepted an unknown option")
