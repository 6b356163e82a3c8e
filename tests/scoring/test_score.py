"""Scoring: truth per read window from the trace, relative error only where the truth is meaningful,
flagged and missing windows counted, totals, metric-level error, calibration, provenance columns."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpx
from mpx import scalers
from mpx.errors import ConfigError
from mpx.scoring.score import score, true_windows
from mpx.metrics import Catalog, Metric
from mpx.scalers.base import Estimate, ScalerError
from mpx.conformance.scalers import generic_observation, generic_trace
from mpx.trace import Trace


def trace2() -> Trace:
    # two events over 4 intervals of 10 us
    counts = np.array([[100, 10], [200, 0], [300, 20], [400, 30]], float)
    return Trace(["a", "b"], counts, np.arange(5) * 10.0, "us", meta={"workload": "w"})


def estimate(tr: Trace, counts, flagged=None, std=None, edges=None, **meta) -> Estimate:
    counts = np.asarray(counts, float)
    return Estimate(events=("a", "b"), edges=np.arange(counts.shape[0] + 1) * 20.0 if edges is None else edges,
                    counts=counts, not_estimated=np.isnan(counts) if flagged is None else flagged, std=std,
                    scaler="hand", params={"k": 1}, causal=True,
                    meta={"trace_checksum": tr.checksum(), "seed": 3, "scheduler": "perf", "quantum": 10.0,
                          "read_window": 20.0, "workload": "w", **meta})


def test_truth_per_window_and_apportioning():
    tr = trace2()
    np.testing.assert_array_equal(true_windows(tr, ["a", "b"], [0, 20, 40]), [[300, 10], [700, 50]])
    # a window edge inside an interval splits it uniformly in time
    np.testing.assert_allclose(true_windows(tr, ["a"], [0, 15, 40]), [[200], [800]])
    with pytest.raises(ConfigError, match="span"):
        true_windows(tr, ["a"], [0, 20])
    with pytest.raises(ConfigError, match="no event"):
        true_windows(tr, ["zz"], [0, 40])


def test_hand_computed_errors():
    tr = trace2()
    # truth per window: a = 300, 700; b = 10, 50
    sc = score(estimate(tr, [[330, 10], [630, 40]]), tr, floor_abs=1.0, floor_rel=0.0)
    ev = sc.events.set_index("event")
    assert ev.loc["a", "window_mape"] == pytest.approx((0.1 + 0.1) / 2)
    assert ev.loc["b", "window_mape"] == pytest.approx((0 + 0.2) / 2)
    assert sc.summary["window_mape"] == pytest.approx((0.1 + 0.1) / 2)
    assert ev.loc["a", "total_error"] == pytest.approx(40 / 1000)
    assert ev.loc["b", "total_error"] == pytest.approx(10 / 60)
    assert sc.summary["total_error"] == pytest.approx((0.04 + 10 / 60) / 2)
    assert sc.summary["flagged_share"] == 0 and sc.summary["missing_share"] == 0
    assert len(sc.rows) == 4 and set(sc.rows.columns) >= {"event", "window", "truth", "estimate", "rel_error"}


def test_total_error_uses_the_tools_own_total():
    tr = trace2()  # true totals a = 1000, b = 60
    counts = np.array([[330, np.nan], [630, 40]])
    plain = score(estimate(tr, counts), tr)
    # Mathur & Cook's share of windows off by more than 10 %: a is off by exactly 10 % twice, b is charged
    # 0 in window 0 and off by 20 % in window 1
    assert list(plain.events["over10_all"]) == [0.0, 1.0] and plain.summary["over10_all"] == 0.5
    # no rule of its own: the sum of the windows, a missing window adding 0
    assert plain.events.set_index("event").loc["b", "total_error"] == pytest.approx(20 / 60)
    e = estimate(tr, counts)
    tool = Estimate(**{**{k: getattr(e, k) for k in ("events", "edges", "counts", "not_estimated", "scaler",
                                                        "params", "causal", "meta")},
                       "run_totals": np.array([1100.0, np.nan])})
    ev = score(tool, tr).events.set_index("event")
    assert ev.loc["a", "total_error"] == pytest.approx(0.1)  # the tool's own end-of-run count
    assert ev.loc["b", "total_error"] == 1.0  # no total printed: charged as 0
    assert ev.loc["a", "total_error_windows"] == pytest.approx(40 / 1000)
    assert ev.loc["b", "total_error_windows"] == pytest.approx(20 / 60)
    with pytest.raises(ScalerError, match="run_totals"):
        Estimate(**{**{k: getattr(e, k) for k in ("events", "edges", "counts", "not_estimated")},
                    "run_totals": np.ones(3)})

def test_small_truths_are_reported_apart_and_never_inf():
    counts = np.array([[100, 0], [200, 0], [300, 0], [400, 1]], float)
    tr = Trace(["a", "b"], counts, np.arange(5) * 10.0, "us")
    # b's truth is 0 and 1: below the floor (1 count, 1% of its median) → absolute error only
    sc = score(estimate(tr, [[300, 5], [700, 0]]), tr, floor_abs=2.0)
    ev = sc.events.set_index("event")
    assert ev.loc["b", "n_meaningful"] == 0 and ev.loc["b", "n_small"] == 2
    assert ev.loc["b", "small_mae"] == pytest.approx((5 + 1) / 2)
    assert sc.summary["window_mape"] == 0.0  # only a: exact
    for v in sc.summary.values():
        assert v is None or (isinstance(v, (int, float)) and math.isfinite(v))
    assert sc.rows["rel_error"][sc.rows["event"] == "b"].isna().all()
    assert any("without a meaningful window" in n for n in sc.notes)


def test_flagged_and_missing_windows_are_counted():
    tr = trace2()
    flagged = np.array([[True, False], [True, True]])
    # a: window 0 filled with a fallback value, window 1 missing; b: window 1 missing
    sc = score(estimate(tr, [[270, 10], [np.nan, np.nan]], flagged=flagged), tr, floor_rel=0.0)
    s = sc.summary
    assert s["flagged_share"] == 0.75 and s["missing_share"] == 0.5
    ev = sc.events.set_index("event")
    assert ev.loc["a", "n_flagged"] == 2 and ev.loc["a", "n_missing"] == 1
    assert ev.loc["a", "window_mape"] == pytest.approx(0.1)   # the fallback value is scored
    assert np.isnan(ev.loc["a", "window_mape_ran"])            # no window where a ran
    assert ev.loc["a", "flagged_mape"] == pytest.approx(0.1)
    assert ev.loc["a", "total_error"] == pytest.approx(1 - 270 / 1000)  # missing adds 0
    assert s["window_mape_ran"] == pytest.approx(0.0)          # only b's window 0
    assert bool(ev.loc["a", "never_estimated"]) and s["n_events_never_estimated"] == 1
    assert s["window_mape"] == pytest.approx(0.0)              # a is left out of the means, and said so
    assert any("never counted" in n for n in sc.notes)


def test_window_mape_ran_scores_the_windows_where_the_event_ran_whatever_the_scaler_flags():
    # truth a = 300, 700; b = 10, 50. A scaler that fills (and does not flag) a window where the event did
    # not run is scored there by window_mape but not by window_mape_ran: scalers compare on equal windows
    tr = trace2()
    e = estimate(tr, [[330, 30], [770, 50]])
    ran = np.array([[True, False], [True, True]])
    filled = Estimate(**{**{k: getattr(e, k) for k in ("events", "edges", "counts", "not_estimated", "scaler",
                                                       "params", "causal", "meta")}, "ran": ran})
    ev = score(filled, tr, floor_abs=1.0, floor_rel=0.0).events.set_index("event")
    assert ev.loc["b", "window_mape"] == pytest.approx(1.0)        # (2 + 0) / 2
    assert ev.loc["b", "window_mape_ran"] == pytest.approx(0.0)    # only window 1, where b ran
    assert ev.loc["a", "window_mape_ran"] == pytest.approx(0.1)
    with pytest.raises(ScalerError, match="ran"):
        Estimate(**{**{k: getattr(e, k) for k in ("events", "edges", "counts", "not_estimated")}, "ran": ran[:1]})


def test_make_estimate_records_where_each_event_ran():
    obs = generic_observation()
    est = scalers.get("linear").estimate(obs)
    np.testing.assert_array_equal(est.ran, np.asarray(obs.reads.running) > 0)


def test_calibration_shares():
    tr = trace2()
    truth = np.array([[300, 10], [700, 50]], float)
    std = np.array([[10, 10], [10, 10]], float)
    # errors of 0.5σ, 1σ, 0.1σ and 3σ: inside the 50% interval (±0.674σ): 2 of 4; the 90% one (±1.645σ): 3 of 4
    est = truth + np.array([[5, 10], [1, 30]])
    sc = score(estimate(tr, est, std=std), tr)
    assert sc.summary["calibration_50"] == 0.5 and sc.summary["calibration_90"] == 0.75
    assert score(estimate(tr, est), tr).summary["calibration_50"] is None


def test_metric_level_error():
    tr = trace2()
    cat = Catalog([Metric.from_expr("ratio", "b / a"), Metric.from_expr("rate", "a / duration_time"),
                   Metric.from_expr("needs_c", "c / a")])
    sc = score(estimate(tr, [[300, 20], [700, 50]]), tr, cat, floor_rel=0.0)
    m = sc.metrics.set_index("metric")
    assert set(m.index) == {"ratio", "rate"}  # needs_c: c is not an estimated event
    assert m.loc["ratio", "window_mape"] == pytest.approx((1.0 + 0.0) / 2)  # 20/300 vs 10/300
    assert m.loc["rate", "window_mape"] == 0.0
    assert sc.summary["metric_mape"] == pytest.approx(0.25)
    assert len(sc.metric_rows) == 4
    with pytest.raises(ConfigError, match="lacks"):
        score(estimate(tr, [[300, 20], [700, 50]]), tr, cat, metrics=["needs_c"])
    # a metric that cannot be computed from the estimate counts as missing
    sc = score(estimate(tr, [[300, 20], [np.nan, 50]]), tr, cat, metrics=["ratio"])
    assert sc.summary["metric_missing_share"] == 0.5

    # ... and on the common metric-windows it is charged: b / a with a missing count of a (charged 0) is
    # undefined, so the metric value is charged as 0 (100 % off); "ran" keeps the window where a and b ran
    sc = score(estimate(tr, [[300, 15], [np.nan, 50]]), tr, cat, metrics=["ratio"], floor_rel=0.0)
    true0, true1 = 10 / 300, 50 / 700
    assert sc.summary["metric_mape_ran"] == pytest.approx(0.5)  # 15/300 against 10/300
    assert sc.summary["metric_mape_all"] == pytest.approx((0.5 + 1.0) / 2)
    assert sc.summary["metric_wape_all"] == pytest.approx((15 / 300 - true0 + true1) / (true0 + true1))
    assert sc.summary["metric_coverage_all"] == 0.5 and sc.summary["metric_coverage_ran"] == 1.0
    assert sc.metrics.set_index("metric").loc["ratio", "mdape_all"] == pytest.approx(0.75)


def test_wrong_trace_is_refused():
    tr = trace2()
    other = Trace(["a", "b"], np.asarray(tr.counts) + 1, tr.edges, "us")
    with pytest.raises(ConfigError, match="checksum"):
        score(estimate(tr, [[300, 10], [700, 50]]), other)
    assert score(estimate(tr, [[300, 10], [700, 50]]), other, check_trace=False).summary["window_mape"] > 0
    with pytest.raises(ConfigError):
        score(np.zeros((2, 2)), tr)


def test_provenance_columns():
    tr = trace2()
    sc = score(estimate(tr, [[300, 10], [700, 50]]), tr)
    for table in (sc.rows, sc.events, sc.summary_row()):
        for col in ("config_hash", "dataset_checksum", "code_version", "seed", "scheduler", "scaler", "quantum",
                    "read_window"):
            assert col in table.columns
    row = sc.summary_row().iloc[0]
    assert row["code_version"] == mpx.__version__ and row["dataset_checksum"] == tr.checksum()
    assert row["seed"] == 3 and row["scaler"] == "hand" and row["read_window"] == 20.0
    assert score(estimate(tr, [[300, 10], [700, 50]]), tr, config_hash="abc").provenance["config_hash"] == "abc"


def test_end_to_end_with_multiplexing():
    tr = generic_trace(n=240)
    obs = generic_observation(tr, read_every=5)
    sc = {n: score(scalers.get(n).estimate(obs), tr) for n in ("linear", "dira", "papi_sw")}
    for s in sc.values():
        assert s.summary["n_events_never_estimated"] == 1  # z
        assert s.summary["window_mape"] is not None and 0 <= s.summary["window_mape"] < 5
    # with 5 single events on 2 counters every event runs 2 of 5 quanta: per-window linear scaling
    # is unbiased over the run, so its total over the windows where it ran tracks the truth
    ev = sc["linear"].events.set_index("event")
    assert ev.loc["cycles", "window_mape"] == 0 and ev.loc["cycles", "total_error"] == 0


def test_tma_level_1_metric_error():
    from mpx.datasets import synthetic
    from mpx.metrics import builtin
    from mpx.multiplex import multiplex
    from mpx.problem import Problem

    tr = synthetic.generate(synthetic.PRESETS["tma"](), seed=2, intervals=400)
    cat = builtin("tma")
    level1 = ["tma_frontend_bound", "tma_backend_bound", "tma_bad_speculation", "tma_retiring"]
    events = sorted(cat.events_of(level1))
    obs = multiplex(tr, Problem(events, "generic-2"), "perf", quantum=float(tr.durations[0]), read_every=4)
    est = scalers.get("linear", fill="interpolate").estimate(obs)
    sc = score(est, tr, cat, metrics=level1)
    m = sc.metrics.set_index("metric")
    assert list(m.index) == level1
    assert (m["window_mape"] > 0).all() and sc.summary["metric_mape"] > 0  # estimated events, not the truth
    # the same metrics from an estimate equal to the truth: no error at all
    exact = Estimate(events=est.events, edges=est.edges, counts=true_windows(tr, est.events, est.edges),
                     not_estimated=np.zeros(est.counts.shape, bool), meta=dict(est.meta), scaler="exact")
    assert score(exact, tr, cat, metrics=level1).summary["metric_mape"] == 0.0


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_summary_is_never_inf_or_nan(data):
    w = data.draw(st.integers(1, 6))
    truth = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 5.0, 1e6]), min_size=2 * w * 2,
                                        max_size=2 * w * 2))).reshape(2 * w, 2)
    tr = Trace(["a", "b"], truth, np.arange(2 * w + 1) * 10.0, "us")
    cells = st.sampled_from([np.nan, 0.0, -3.0, 1.0, 1e9])
    counts = np.array(data.draw(st.lists(cells, min_size=w * 2, max_size=w * 2))).reshape(w, 2)
    flagged = np.isnan(counts) | np.array(data.draw(st.lists(st.booleans(), min_size=w * 2,
                                                             max_size=w * 2))).reshape(w, 2)
    std = None
    if data.draw(st.booleans()):
        std = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 1e12]), min_size=w * 2,
                                          max_size=w * 2))).reshape(w, 2)
    est = Estimate(events=("a", "b"), edges=np.arange(w + 1) * 20.0, counts=counts, not_estimated=flagged, std=std,
                   meta={"trace_checksum": tr.checksum()})
    cat = Catalog([Metric.from_expr("r", "a / b")])
    sc = score(est, tr, cat)
    for k, v in sc.summary.items():
        assert v is None or (isinstance(v, (int, float)) and math.isfinite(v)), (k, v)
    assert len(sc.rows) == w * 2
