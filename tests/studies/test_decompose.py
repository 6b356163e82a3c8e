"""The 2 x 2 decomposition of a paired claim (`mpx.studies.decompose`) on hand-worked errors."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mpx.studies.decompose import decompose


def _per(cells: dict[str, tuple[float, ...]]) -> pd.DataFrame:
    return pd.DataFrame({k: list(v) for k, v in cells.items()}, index=["w1", "w2"]).T


def test_the_gain_is_all_schedule_when_the_estimator_changes_nothing():
    """perf + linear 0.40, perf + bp 0.40, bp + linear 0.20, bp + bp 0.20 (means over two workloads): the
    pairing 2x, schedule 2x, estimator 1x, the schedule 100 % of the log gain."""
    per = _per({"perf + linear": (0.3, 0.5), "perf + bp": (0.3, 0.5), "bp + linear": (0.1, 0.3),
                "bp + bp": (0.1, 0.3)})
    d = decompose(per, ("perf", "linear"), ("bp", "bp"))
    assert d.ratio[0] == pytest.approx(2.0) and d.ratio[1] <= 2.0 <= d.ratio[2]
    assert d.schedule == pytest.approx(2.0) and d.estimator == pytest.approx(1.0)
    assert d.schedule_share() == pytest.approx(1.0)
    assert d.workloads == 2 and "2.00x" in d.text("WAPE")


def test_shapley_factors_multiply_to_the_pairing_when_the_axes_interact():
    """bb 0.8, bm 0.4, mb 0.5, mm 0.1: schedule sqrt(0.8/0.5 * 0.4/0.1) = sqrt(6.4), estimator
    sqrt(0.8/0.4 * 0.5/0.1) = sqrt(10); their product 8 = 0.8 / 0.1; one at a time 1.6x and 2x."""
    per = _per({"a + x": (0.8, 0.8), "a + y": (0.4, 0.4), "b + x": (0.5, 0.5), "b + y": (0.1, 0.1)})
    d = decompose(per, ("a", "x"), ("b", "y"))
    assert d.schedule == pytest.approx(math.sqrt(6.4)) and d.estimator == pytest.approx(math.sqrt(10))
    assert d.schedule * d.estimator == pytest.approx(d.ratio[0]) == pytest.approx(8.0)
    assert d.schedule_alone == pytest.approx(1.6) and d.estimator_alone == pytest.approx(2.0)


def test_same_schedule_and_a_fill_matched_baseline():
    """CounterMiner's case: one schedule; linear 0.46, linear with the same fill 0.34, CounterMiner 0.35 —
    the fill 1.35x, the rest of the estimator 0.97x, the schedule 1x."""
    per = _per({"perf + linear": (0.46, 0.46), "perf + cm": (0.35, 0.35), "fill": (0.34, 0.34)})
    d = decompose(per, ("perf", "linear"), ("perf", "cm"), fill="fill")
    assert d.schedule == pytest.approx(1.0)
    assert d.fill == pytest.approx(0.46 / 0.34) and d.rest == pytest.approx(0.34 / 0.35)
    assert d.fill * d.rest == pytest.approx(d.same_schedule) == pytest.approx(0.46 / 0.35)
    assert "fill-matched (fill) 34.0 %" in d.text("WAPE")


def test_missing_rows_are_named():
    with pytest.raises(KeyError, match="b \\+ x"):
        decompose(_per({"a + x": (1, 1), "b + y": (1, 1), "a + y": (1, 1)}), ("a", "x"), ("b", "y"))


def test_no_share_when_the_axes_pull_opposite_ways():
    """Tintin on callgrind: the schedule 0.90x, the estimator 1.14x: no share of a ~1x gain is printed."""
    per = _per({"perf + linear": (0.235, 0.235), "perf + tintin": (0.204, 0.204), "tintin + linear": (0.259, 0.259),
                "tintin + tintin": (0.229, 0.229)})
    d = decompose(per, ("perf", "linear"), ("tintin", "tintin"))
    assert d.schedule < 1 < d.estimator and math.isnan(d.schedule_share())
    assert "of the log gain" not in d.text("total")
