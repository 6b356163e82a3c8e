"""NeoMPX's post-processing fixes (src/papi_accurate_multiplexing.c te_fix, outlier_fix, missing_fix;
src/dataprocessing_utils.c) on hand-computed sequences, and as scaler options."""

from __future__ import annotations

import numpy as np
import pytest

from mpx import scalers
from mpx.conformance.scalers import observation_from_reads
from mpx.scalers.fixes import missing_fix, outlier_fix, te_fix


def test_te_fix_replaces_values_outside_the_mode_cluster():
    e = np.array([10, 10, 10, 10, 13, 10, 10, 10, 7, 10], float)[:, None]
    fixed, changed = te_fix(e)
    # initial centres at positions 0, 4, 8 (10, 13, 7): three clusters; the 10s are the most populated
    np.testing.assert_array_equal(fixed[:, 0], np.full(10, 10.0))
    assert changed[:, 0].tolist() == [False] * 4 + [True] + [False] * 3 + [True, False]


def test_te_fix_mode_centre_is_the_cluster_mean():
    e = np.array([10, 11, 10, 11, 30, 10, 11, 10, 11, 10], float)[:, None]
    fixed, changed = te_fix(e)
    # centres start at 10, 30 (pos 4), 11 (pos 8); {10s} and {11s} and {30}: the 10s win (5 vs 4 vs 1)
    assert changed[:, 0].sum() == 5
    np.testing.assert_array_equal(fixed[changed[:, 0], 0], 10.0)


def test_te_fix_leaves_constant_and_short_columns():
    e = np.full((5, 2), 7.0)
    fixed, changed = te_fix(e)
    assert not changed.any() and (fixed == 7).all()
    assert not te_fix(np.array([[3.0]]))[1].any()


def test_outlier_fix_smallest_k_and_upper_clip_only():
    x = np.array([10.0] * 49 + [1000.0])[:, None]
    # mean 29.8: already 98% of the values are below mean + 0·σ, so k = 0 and 1000 is clipped to 29.8
    fixed, clipped = outlier_fix(x, integer=False)
    assert fixed[-1, 0] == pytest.approx(29.8) and clipped[:, 0].sum() == 1
    assert outlier_fix(x)[0][-1, 0] == 29  # (long long) in the C code
    # a value far below is not touched (the C lower clip is a no-op statement)
    y = np.array([100.0] * 60 + [-5000.0])[:, None]
    assert outlier_fix(y, integer=False)[0][-1, 0] == -5000


def test_outlier_fix_needs_a_larger_k():
    x = np.array([10.0] * 95 + [40.0, 50.0, 60.0, 70.0, 80.0])[:, None]
    mean, std = x.mean(), x.std()
    fixed, clipped = outlier_fix(x, integer=False)
    # mean 12.5, σ ≈ 11.35: k = 0..2 leave 95% below, k = 3 (≈ 46.5) 96%, k = 4 (≈ 57.9) 97%,
    # k = 5 (≈ 69.2) 98% → clip the 70 and the 80 at mean + 5σ
    thr = mean + 5 * std
    assert clipped[:, 0].tolist() == [False] * 98 + [True, True]
    assert fixed[-1, 0] == pytest.approx(thr)


def test_outlier_fix_ignores_nan():
    x = np.array([10.0] * 49 + [1000.0, np.nan])[:, None]
    fixed, _ = outlier_fix(x, integer=False)
    assert np.isnan(fixed[-1, 0]) and fixed[-2, 0] == pytest.approx(29.8)


def test_missing_fix_fills_zeros_in_order():
    x = np.array([6, 6, 6, 0, 0, 0, 0, 6, 6], float)[:, None]
    fixed, filled = missing_fix(x)
    # i = 3: (6+6+6+0+0+0)/6 = 3; i = 4: (6+6+3+0+0+0)/6 → 2; i = 5: (6+3+2+0+0+6)/6 → 2; i = 6: (3+2+2+0+6+6)/6 → 3
    np.testing.assert_array_equal(fixed[:, 0], [6, 6, 6, 3, 2, 2, 3, 6, 6])
    assert filled[:, 0].tolist() == [False] * 3 + [True] * 4 + [False] * 2
    fixed_f, _ = missing_fix(x, integer=False)
    assert fixed_f[3, 0] == 3 and fixed_f[4, 0] == pytest.approx(2.5)


def test_missing_fix_needs_a_third_of_zeros_and_keeps_the_edges():
    x = np.array([5, 5, 5, 0, 0, 0, 5, 5, 5], float)[:, None]  # sorted[3] = 5 > 0: left alone
    fixed, filled = missing_fix(x)
    assert not filled.any() and (fixed == x).all()
    y = np.array([0, 0, 0, 0, 0, 9, 9, 9, 0], float)[:, None]  # windows 0..2 and the last two are never filled
    fixed, filled = missing_fix(y)
    # i = 3: (0+0+0+0+0+9)/6 → 1; i = 4: (0+0+1+0+9+9)/6 → 3
    np.testing.assert_array_equal(fixed[:, 0], [0, 0, 0, 1, 3, 9, 9, 9, 0])


def test_missing_fix_treats_nan_as_zero():
    x = np.array([6, 6, 6, np.nan, np.nan, np.nan, np.nan, 6, 6], float)[:, None]
    fixed, filled = missing_fix(x)
    np.testing.assert_array_equal(fixed[:, 0], [6, 6, 6, 3, 2, 2, 3, 6, 6])


def test_fixes_as_scaler_options_make_it_offline():
    raw = np.array([100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100], float)
    run = np.where(raw > 0, 5.0, 0.0)
    obs = observation_from_reads(["x"], np.arange(17) * 10.0, raw[:, None], np.full((16, 1), 10.0), run[:, None])
    plain = scalers.get("linear", fill="zero").estimate(obs)
    fixed = scalers.get("linear", fill="zero", missing_fix=True).estimate(obs)
    assert not scalers.get("linear", missing_fix=True).causal and scalers.get("linear").causal
    np.testing.assert_array_equal(plain.counts[:, 0], np.where(raw > 0, 200, 0))
    # zeros 3..13 filled from their neighbourhoods; flags stay (the method had nothing there)
    assert (fixed.counts[3:14, 0] > 0).all()
    np.testing.assert_array_equal(fixed.not_estimated, plain.not_estimated)
    assert any(n.startswith("missing_fix") for n in fixed.notes)
