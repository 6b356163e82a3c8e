"""CounterMiner's cleaning over a read-window scaler: the Gumbel test on a hand case, filling, and the rule
Tintin's code intended (../shared/peers/tintin/kernel/arch-x86-events-core.c.lines40-240, original lines
arch/x86/events/core.c:180-235)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.observation import Observation
from mpx.scalers import get
from mpx.scalers.counterminer import gumbel_outliers, tintin_clean


def test_gumbel_test_hand_case():
    """x = 10 ones and one 10: mean 1.818, s = 2.714, β = s·√6/π = 2.116, μ = 1.818 − 0.5772·2.116 = 0.597;
    the upper tail at 10 is 1 − exp(−exp(−(10 − 0.597)/2.116)) = 0.0117: an outlier at alpha 0.05, not at 0.01."""
    x = np.r_[np.ones(10), 10.0]
    s = np.std(x, ddof=1)
    beta = s * np.sqrt(6) / np.pi
    mu = x.mean() - 0.5772156649 * beta
    assert 1 - np.exp(-np.exp(-(10 - mu) / beta)) == pytest.approx(0.0117, abs=5e-4)
    assert gumbel_outliers(x, 0.05).tolist() == [False] * 10 + [True]
    assert not gumbel_outliers(x, 0.01).any()


def test_tintin_rule_replaces_above_mean_plus_5_sigma_after_10_values():
    """arch/x86/events/core.c:181 (more than 10 values), :217-220 (> mean + 5σ → mean), :222 (the cleaned
    value enters the history);
    a spike among the first 11 values is kept. With a trailing window of 6 (all 100: σ = 0) the second
    spike is replaced; with 8 the window holds the first spike (mean 212.5, σ 297.6: bound 1700) and it is kept."""
    x = np.r_[np.full(5, 100.0), 1000.0, np.full(6, 100.0), 1000.0, 100.0]
    assert not tintin_clean(x, window=8)[1].any()
    y, rep = tintin_clean(x, window=6)
    assert rep.tolist() == [False] * 12 + [True, False]
    assert y[12] == pytest.approx(100.0) and y[5] == 1000.0


def _outlier_and_gap() -> Observation:
    """Two events at 100 per quantum, read every 2: event a has an outlier (5000) in quantum 17, event b is not
    counted in quanta 20-23."""
    counts = np.full((40, 2), 100.0)
    counts[17, 0] = 5000.0
    running = np.ones((40, 2), bool)
    running[20:24, 1] = False
    return Observation.from_quanta(["a", "b"], np.arange(41.0), np.where(running, counts, np.nan), running, 2,
                                   time_unit="intervals")


def test_wrapper_fills_missing_and_replaces_outliers():
    obs = _outlier_and_gap()
    lin = get("linear").estimate(obs)
    cm = get("counterminer", alpha=0.01).estimate(obs)
    assert lin.counts[8, 0] == pytest.approx(5100.0)
    assert cm.counts[8, 0] == pytest.approx(200.0)                 # replaced by the mean rate × ΔE
    assert np.isnan(lin.counts[10, 1]) and cm.counts[10, 1] == pytest.approx(200.0)   # filled
    assert cm.not_estimated[10, 1] and not cm.causal
    tt = get("counterminer", variant="tintin").estimate(obs)
    assert np.isnan(tt.counts[10, 1]) and tt.causal                # no filling


@pytest.mark.parametrize("scale", [2.0**-10, 2.0**20])
def test_tintin_variant_is_unit_free(scale):
    """The same counts on a time axis in another unit (ns for intervals, say): the same estimate. The
    (max − min)/√n window rule runs on counts, which have no time unit (on rates it gave a window of 0 or
    of the whole history, depending on the unit)."""
    rng = np.random.default_rng(3)
    counts = rng.poisson(100.0, (60, 3)).astype(float)
    counts[45, 0] = 20000.0
    running = rng.random((60, 3)) < 0.6
    def est(edges):
        obs = Observation.from_quanta(["a", "b", "c"], edges, np.where(running, counts, np.nan), running, 2,
                                      time_unit="intervals")
        return get("counterminer", variant="tintin").estimate(obs).counts
    base = est(np.arange(61.0))
    other = est(np.arange(61.0) * scale)
    assert np.allclose(base, other, rtol=1e-9, equal_nan=True)


def test_fill_variant_fills_like_the_paper_and_replaces_no_outlier():
    """variant='fill' (the fill-matched baseline of issue 34): the missing windows filled as the paper variant
    fills them, the outlier left as linear scaling gives it."""
    obs = _outlier_and_gap()
    lin = get("linear").estimate(obs)
    cm = get("counterminer", alpha=0.01).estimate(obs)
    fill = get("counterminer", variant="fill").estimate(obs)
    assert fill.counts[8, 0] == pytest.approx(lin.counts[8, 0]) == pytest.approx(5100.0)   # kept
    assert fill.counts[10, 1] == pytest.approx(cm.counts[10, 1]) == pytest.approx(200.0)   # filled
    np.testing.assert_allclose(fill.counts[:, 1], cm.counts[:, 1])
    assert "0 outlier windows replaced, 2 missing windows filled" in fill.notes[-1]
