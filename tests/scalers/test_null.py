"""The null baselines of counts (`mpx.scalers.null`, issue 34) on hand-worked cases."""

from __future__ import annotations

import numpy as np

from mpx import scalers
from mpx.conformance.scalers import observation_from_reads
from mpx.scalers.null import fill_matched


def one(raw, enabled, running):
    w = len(raw)
    return observation_from_reads(["x"], np.arange(w + 1) * 20.0, np.reshape(raw, (w, 1)),
                                  np.reshape(enabled, (w, 1)), np.reshape(running, (w, 1)))


# an event counted 10 of 20 time units in window 0 (raw 30), not at all in window 1, 20 of 20 in window 2 (raw 50)
OBS = one([30.0, 0.0, 50.0], [20.0, 20.0, 20.0], [10.0, 0.0, 20.0])


def test_constant_rate_is_the_whole_run_rate_times_the_window():
    # whole-run rate (30 + 50) / (10 + 20) = 8/3 per unit; every window 20 units long
    e = scalers.get("constant_rate").estimate(OBS)
    np.testing.assert_allclose(e.counts[:, 0], [160 / 3] * 3)
    assert not e.causal and not e.not_estimated.any()


def test_constant_rate_causal_uses_the_rate_so_far():
    e = scalers.get("constant_rate_causal").estimate(OBS)
    np.testing.assert_allclose(e.counts[:, 0], [60.0, 60.0, 160 / 3])   # 3/unit, 3/unit, then 8/3
    assert e.causal
    late = scalers.get("constant_rate_causal").estimate(one([0.0, 30.0], [20.0, 20.0], [0.0, 10.0]))
    assert late.not_estimated[0, 0] and np.isnan(late.counts[0, 0]) and late.counts[1, 0] == 60.0


def test_fill_matched_baselines_fill_like_their_scalers():
    # linear in windows 0 and 2 (30 * 20/10 = 60, 50); window 1 interpolates the rate 3 -> 2.5 at the midpoint
    np.testing.assert_allclose(scalers.get("linear_interpolate").estimate(OBS).counts[:, 0], [60, 55, 50])
    np.testing.assert_allclose(scalers.get("linear_carry").estimate(OBS).counts[:, 0], [60, 60, 50])
    assert fill_matched(scalers.get("counterminer")) == "linear_interpolate"
    assert fill_matched(scalers.get("counterminer", variant="tintin")) is None
    assert fill_matched(scalers.get("dcam")) == "linear_interpolate"
    assert fill_matched(scalers.get("tam")) == "linear_carry"
    assert fill_matched(scalers.get("linear")) is None and fill_matched(scalers.get("bayesperf")) is None
    assert fill_matched(scalers.get("linear_interpolate")) is None


def test_never_ran_is_not_estimated():
    e = scalers.get("constant_rate").estimate(one([0.0, 0.0], [20.0, 20.0], [0.0, 0.0]))
    assert e.not_estimated.all()
