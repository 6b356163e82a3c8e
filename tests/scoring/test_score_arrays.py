"""`mpx.scoring.score.score` on arrays: the tidy tables are made from the arrays (same numbers, one provenance),
a truth binned once by the caller gives the same scores, and one replay's scalers share it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mpx import scalers
from mpx.conformance.scalers import generic_observation, generic_trace
from mpx.errors import ConfigError
from mpx.scoring.score import METRIC_WINDOW_ARRAYS, WINDOW_ARRAYS, score, true_windows
from mpx.scoring.measures import masked_median
from mpx.metrics import Catalog, Metric
from mpx.scoring.replay import score_scalers


def _setup():
    tr = generic_trace()
    obs = generic_observation(tr)
    cat = Catalog([Metric.from_expr("ratio", f"{tr.events[0]} / {tr.events[1]}"),
                   Metric.from_expr("both", f"{tr.events[0]} + {tr.events[2]}")])
    return tr, obs, cat


def test_tables_are_the_arrays_with_one_provenance():
    tr, obs, cat = _setup()
    est = scalers.get("linear").estimate(obs)
    sc = score(est, tr, cat)
    w, e = est.counts.shape
    assert sc.windows["truth"].shape == (w, e) and set(sc.windows) == set(WINDOW_ARRAYS)
    for k in WINDOW_ARRAYS:
        np.testing.assert_array_equal(sc.rows[k].to_numpy().reshape(w, e), sc.windows[k])
    for k, v in sc.per_event.items():
        np.testing.assert_array_equal(sc.events[k].to_numpy(), v)
    m = len(sc.metric_names)
    assert m == 2 and set(sc.metric_windows) == set(METRIC_WINDOW_ARRAYS)
    for k in METRIC_WINDOW_ARRAYS:
        np.testing.assert_array_equal(sc.metric_rows[k].to_numpy().reshape(w, m), sc.metric_windows[k])
    for table in (sc.rows, sc.events, sc.metric_rows, sc.metrics):
        for k, v in sc.provenance.items():
            assert (table[k] == v).all() or (v is None and table[k].isna().all())
    assert sc.rows is sc.rows  # made once


def test_truth_given_once_scores_the_same():
    tr, obs, cat = _setup()
    est = scalers.get("linear").estimate(obs)
    truth = true_windows(tr, est.events, est.edges)
    memo: dict = {}
    a = score(est, tr, cat)
    b = score(est, tr, cat, truth=truth, truth_metrics=memo)
    c = score(est, tr, cat, truth=truth, truth_metrics=memo)  # the true metric values from the memo
    assert set(memo) == {"ratio", "both"}
    for other in (b, c):
        assert other.summary == a.summary  # finite floats or None: identical
        pd.testing.assert_frame_equal(other.events, a.events)
        pd.testing.assert_frame_equal(other.metrics, a.metrics)
    with pytest.raises(ConfigError, match="shape"):
        score(est, tr, truth=truth[:-1])


def test_score_scalers_bins_the_truth_once(monkeypatch):
    tr, obs, cat = _setup()
    import mpx.scoring.replay as replay

    calls = []
    real = replay.true_windows
    monkeypatch.setattr(replay, "true_windows", lambda *a: calls.append(1) or real(*a))
    got = list(score_scalers(obs, tr, [("linear", {}), ("dira", {}), ("cam", {})], cat))
    assert len(calls) == 1 and all(r.status == "done" for r in got)
    for r in got:
        alone = score(r.estimate, tr, cat)
        assert r.scores.summary == alone.summary


def test_masked_median_is_numpys_nanmedian():
    rng = np.random.default_rng(7)
    for _ in range(200):
        x = rng.lognormal(size=(rng.integers(1, 30), 6))
        x[rng.random(x.shape) < 0.2] = np.nan
        mask = rng.random(x.shape) < 0.6
        want = np.array([np.nanmedian(np.where(mask[:, j], x[:, j], np.nan)) if (mask[:, j] & ~np.isnan(x[:, j])).any()
                         else np.nan for j in range(x.shape[1])])
        np.testing.assert_array_equal(masked_median(x, mask), want)
