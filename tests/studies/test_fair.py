"""Issue 34: the headline on fair terms (each side on its own best schedule), null baselines, schedules that
are identical folded into one, collapsed methods marked: hand-made score rows."""

from __future__ import annotations

import pandas as pd
import pytest

from mpx.studies.compare import fair_headline, identical_schedulers, null_baselines
from mpx.studies.fair import fair_table, merge_identical, null_nulls
from mpx.studies.report import scaler_tables

WL = ("a", "b", "c", "d")


def _rows(pairs: dict, causal: dict | None = None) -> pd.DataFrame:
    rows = []
    for (sched, scaler), errs in pairs.items():
        for wl, err in zip(WL, errs):
            rows.append({"scheduler": sched, "scaler": scaler, "workload": wl, "seed": 0, "counters": 4,
                         "causal": (causal or {}).get(scaler, True), "wape_all": err, "coverage_all": 1.0,
                         "window_mape": err})
    return pd.DataFrame(rows)


# the method is best under "mine" (0.20); the best baseline pair is dcam under "theirs" (0.10), while under
# "mine" the best other scaler is linear at 0.40: the same-schedule ratio flatters the method (0.5x), fair terms 2x
PAIRS = {("mine", "new"): (0.2, 0.2, 0.2, 0.2), ("theirs", "new"): (0.5, 0.5, 0.5, 0.5),
         ("mine", "linear"): (0.4, 0.4, 0.4, 0.4), ("mine", "dcam"): (0.6, 0.6, 0.6, 0.6),
         ("theirs", "dcam"): (0.1, 0.1, 0.1, 0.1), ("theirs", "linear"): (0.9, 0.9, 0.9, 0.9)}


def test_fair_terms_put_each_side_on_its_own_best_schedule():
    h = fair_headline(_rows(PAIRS), ["new"]).iloc[0]
    assert (h["method_scheduler"], h["baseline"], h["baseline_scheduler"]) == ("mine", "dcam", "theirs")
    assert h["ratio"] == pytest.approx(2.0) and h["ratio_lo"] == pytest.approx(2.0)
    assert h["same_baseline"] == "linear" and h["same_ratio"] == pytest.approx(0.5)
    assert h["method_p"] == 1.0 and h["baseline_p"] == 1.0


def test_a_causal_method_meets_causal_baselines_only():
    h = fair_headline(_rows(PAIRS, causal={"dcam": False}), ["new"]).iloc[0]
    assert h["baseline"] == "linear" and h["ratio"] == pytest.approx(0.5)


def test_the_fair_interval_redoes_both_choices_in_each_resample():
    pairs = {("s1", "new"): (0.1, 0.5, 0.1, 0.5), ("s2", "new"): (0.5, 0.1, 0.5, 0.1),
             ("s1", "base"): (0.3, 0.3, 0.3, 0.3)}
    h = fair_headline(_rows(pairs), ["new"]).iloc[0]
    # the apparent best schedule of "new" has mean 0.3 (ratio 1), but a resample re-chooses the better one
    assert h["ratio"] == pytest.approx(1.0)
    assert h["ratio_lo"] < 1.0 and h["ratio_hi"] == pytest.approx(1.0)


def test_null_baselines_each_on_their_best_schedule_and_the_verdict():
    pairs = {("p", "good"): (0.1, 0.12, 0.1, 0.11), ("p", "bad"): (0.5, 0.6, 0.5, 0.55),
             ("p", "constant_rate_causal"): (0.4, 0.45, 0.4, 0.42), ("q", "constant_rate_causal"): (0.3, 0.3, 0.3, 0.3)}
    nt = null_baselines(_rows(pairs), {"good": ["constant_rate_causal"], "bad": ["constant_rate_causal"]})
    nt = nt.set_index("scaler")
    assert nt.loc["good", "verdict"] == "beats" and nt.loc["bad", "verdict"] == "does not beat"
    assert nt.loc["bad", "null_scheduler"] == "q" and nt.loc["bad", "null_error"] == pytest.approx(0.3)
    assert null_nulls(_rows(pairs))["good"] == ["constant_rate_causal"]
    assert null_nulls(_rows({("p", "dcam"): (0.1,) * 4}, causal={"dcam": False}))["dcam"] == [
        "constant_rate", "linear_interpolate"]


def test_identical_schedules_are_listed_once_and_collapse_is_marked():
    pairs = {("hypergraph", "x"): (0.2, 0.3, 0.2, 0.3), ("fusion_aware", "x"): (0.2, 0.3, 0.2, 0.3),
             ("hypergraph", "y"): (0.25, 0.3, 0.2, 0.3), ("fusion_aware", "y"): (0.25, 0.3, 0.2, 0.3),
             ("perf", "x"): (0.2, 0.3, 0.2, 0.31), ("perf", "y"): (30.0, 30.0, 30.0, 30.0)}
    ok = _rows(pairs)
    assert identical_schedulers(ok) == {"hypergraph": "fusion_aware"}
    merged, same = merge_identical(ok)
    assert set(merged["scheduler"]) == {"fusion_aware = hypergraph", "perf"}
    out = scaler_tables(ok)
    title = next(k for k in out if k.startswith("headline measure"))
    piv = out[title]
    assert "fusion_aware = hypergraph" in piv.columns and "hypergraph" not in piv.columns
    assert piv.loc["y", "perf"] == "3000.00 !" and "! collapsed" in title and "hypergraph is fusion_aware" in title
    # one bit of difference: two schedules
    ok.loc[(ok["scheduler"] == "hypergraph") & (ok["scaler"] == "y") & (ok["workload"] == "a"), "wape_all"] = 0.2500001
    assert identical_schedulers(ok) == {}


def test_the_fair_table_prints_both_ratios_labelled():
    out = fair_table(_rows(PAIRS), ["new"])
    (t1, fair), (t2, won) = out.items()
    assert "FAIR TERMS" in t1 and "SAME-SCHEDULE" in t1
    assert fair.loc["new", "FAIR ratio"] == 2.0 and fair.loc["new", "same-schedule ratio"] == 0.5
    assert won.loc["new", "method on"] == "mine" and won.loc["new", "baseline on"] == "theirs"


def test_a_group_without_the_method_is_left_out_not_a_traceback():
    """A store whose experiments differ (the claims store): in one counters group the method never ran; it used
    to raise KeyError from the method's causal flag in `mpx report`'s fair table."""
    with_new = _rows(PAIRS)
    without = _rows({k: v for k, v in PAIRS.items() if k[1] != "new"}, causal={"dcam": False}).assign(counters=2)
    h = fair_headline(pd.concat([with_new, without], ignore_index=True), ["new"])
    assert list(h["counters"]) == [4]
