"""The measures on common window sets, on the hand-worked example of ``docs/scoring.md``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpx.scoring.measures import MEASURES, WINDOW_SETS, charge, coverage, event_measures, window_sets

# docs/scoring.md, "A worked example": one event, four read windows
TRUTH = np.array([[10.0], [20.0], [0.5], [40.0]])
EST = np.array([[12.0], [np.nan], [1.0], [30.0]])  # window 1: the scaler gave no value
RAN = np.array([[True], [False], [True], [True]])
FLOOR = np.array([1.0])

EXPECTED = {
    "ran": {"mape": (0.2 + 0.25) / 2, "wape": 12.5 / 50.5, "mdape": 0.225,
            "lnq": (math.log(13 / 11) + math.log(2 / 1.5) + math.log(41 / 31)) / 3, "coverage": 1.0},
    "unran": {"mape": 1.0, "wape": 1.0, "mdape": 1.0, "lnq": math.log(21), "coverage": 0.0},
    "all": {"mape": (0.2 + 1.0 + 0.25) / 3, "wape": 32.5 / 70.5, "mdape": 0.25,
            "lnq": (math.log(13 / 11) + math.log(21) + math.log(2 / 1.5) + math.log(41 / 31)) / 4,
            "coverage": 0.75},
}


@pytest.mark.parametrize("name", WINDOW_SETS)
def test_worked_example(name):
    mask = window_sets(RAN)[name]
    got = dict(event_measures(EST, TRUTH, mask, FLOOR))
    got["coverage"] = coverage(EST, mask)
    for m, want in EXPECTED[name].items():
        assert got[m][0] == pytest.approx(want, rel=1e-12), (name, m)


def test_missing_values_are_charged_and_the_denominator_never_shrinks():
    assert charge(EST).tolist() == [[12.0], [0.0], [1.0], [30.0]]
    # a scaler that fills window 1 exactly is better on every measure over "all", never worse
    filled = EST.copy()
    filled[1, 0] = 20.0
    mask = window_sets(RAN)["all"]
    a, b = event_measures(EST, TRUTH, mask, FLOOR), event_measures(filled, TRUTH, mask, FLOOR)
    assert all(b[m][0] < a[m][0] for m in MEASURES)


def test_sets_partition_the_windows_and_empty_sets_give_nan():
    s = window_sets(RAN)
    assert (s["ran"] ^ s["unran"]).all() and s["all"].all()
    none_ran = window_sets(np.zeros_like(RAN))
    got = event_measures(EST, TRUTH, none_ran["ran"], FLOOR)
    assert all(math.isnan(got[m][0]) for m in MEASURES) and math.isnan(coverage(EST, none_ran["ran"])[0])


def test_lnq_is_symmetric_and_defined_on_empty_windows():
    t = np.array([[10.0], [0.0]])
    over = event_measures(np.array([[20.0], [0.0]]), t, np.ones((2, 1), bool), np.array([1.0]))["lnq"][0]
    under = event_measures(np.array([[5.0], [0.0]]), t, np.ones((2, 1), bool), np.array([1.0]))["lnq"][0]
    assert over == pytest.approx((math.log(21 / 11)) / 2) and under == pytest.approx(math.log(11 / 6) / 2)


def test_score_reports_every_measure_on_common_windows():
    from mpx.conformance.scalers import generic_observation, generic_trace
    from mpx.scoring.score import score
    from mpx.scalers import get

    trace = generic_trace()
    obs = generic_observation(trace, read_every=4)
    linear = score(get("linear").estimate(obs), trace)
    dira = score(get("dira").estimate(obs), trace)
    for sc in (linear, dira):
        for name in WINDOW_SETS:
            for m in (*MEASURES, "coverage"):
                assert f"{m}_{name}" in sc.summary and f"{m}_{name}" in sc.events
    # the same windows for both: linear leaves the unran windows empty (charged), DIRA fills them
    ran = np.asarray(obs.reads.running) > 0
    never = linear.events["never_estimated"].to_numpy()
    assert never.any()  # this observation has events never counted: no scaler has a value for them
    # ... and they stay in the window-set measures (the denominator never shrinks): DIRA fills every
    # unran window of the events that ran somewhere, none of those that never ran
    unran = ~ran
    assert linear.summary["coverage_unran"] == 0.0
    assert dira.summary["coverage_unran"] == pytest.approx(unran[:, ~never].sum() / unran.sum())
    assert linear.summary["coverage_ran"] == dira.summary["coverage_ran"] == 1.0
    assert linear.summary["mape_unran"] == pytest.approx(1.0)  # every charged window is 100 % off
    assert linear.summary["coverage_all"] == pytest.approx(ran.mean())  # linear: values where it ran
