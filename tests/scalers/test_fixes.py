"""NeoMPX's post-processing fixes (src/papi_accurate_multiplexing.c te_fix, outlier_fix, missing_fix;
src/dataprocessing_utils.c) on hand-computed sequences, and as scaler options."""

from __future__ import annotations

import numpy as np
import pytest

from mpx import scalers
from mpx.conformance.scalers import observation_from_reads
from mpx.scalers.fixes import kmeans_1d, missing_fix, nearest_centre, outlier_fix, te_fix


def test_te_fix_replaces_values_outside_the_mode_cluster():
    # window 0 (Te[0]) stays out; the clustered ΔE are windows 1..10
    e = np.array([99, 10, 10, 10, 10, 13, 10, 10, 10, 7, 10], float)[:, None]
    fixed, changed = te_fix(e)
    # initial centres at positions 0, 4, 8 of windows 1.. (10, 13, 7): three clusters; the 10s are the most populated
    np.testing.assert_array_equal(fixed[:, 0], [99] + [10.0] * 10)
    assert changed[:, 0].tolist() == [False] * 5 + [True] + [False] * 3 + [True, False]


def test_te_fix_mode_centre_is_the_cluster_mean():
    e = np.array([10, 10, 11, 10, 11, 30, 10, 11, 10, 11, 10], float)[:, None]
    fixed, changed = te_fix(e)
    # centres start at 10, 30 (pos 4), 11 (pos 8); {10s} and {11s} and {30}: the 10s win (5 vs 4 vs 1)
    assert changed[:, 0].sum() == 5 and not changed[0, 0]
    np.testing.assert_array_equal(fixed[changed[:, 0], 0], 10.0)


def test_te_fix_leaves_constant_and_short_columns():
    e = np.full((5, 2), 7.0)
    fixed, changed = te_fix(e)
    assert not changed.any() and (fixed == 7).all()
    assert not te_fix(np.array([[3.0]]))[1].any()


def test_te_fix_never_clusters_window_zero():
    # NeoMPX clusters diff(Te) (papi_accurate_multiplexing.c te_fix lines 141-151): window 0 is Te[0] itself.
    # Windows 1..4 alone: centres 10 (pos 0), 10 (pos 1), 10 (pos 2): clusters 1 and 2 start empty, so
    # nothing is replaced, not even the outlying first window
    e = np.array([[3.0], [10.0], [10.0], [10.0], [10.0]])
    fixed, changed = te_fix(e)
    assert not changed.any() and fixed[0, 0] == 3.0


def test_nearest_centre_is_c_minarrayindex_with_nan_centres():
    # dataprocessing_utils.c MinArrayIndex (lines 18-33): ret = 0, temp = d[0]; if (temp > d[i]) → i.
    # A NaN distance loses every comparison; a NaN first distance is never beaten.
    p = np.array([0.0, 3.0, 1.0, 2.0])
    np.testing.assert_array_equal(nearest_centre(p, np.array([3.0, np.nan, 1.0])), [2, 0, 2, 0])  # 2: tie → first
    np.testing.assert_array_equal(nearest_centre(p, np.array([np.nan, 5.0, 1.0])), [0, 0, 0, 0])


def test_kmeans_empty_cluster_at_index_one_is_dead_as_in_c():
    # p = 100, 110, 100, 104, 110; centres p[0], p[2], p[4] = 100, 100, 110.
    # Round 1: the 100s and 104 tie/are nearest to centre 0 (first minimum), the 110s to centre 2; cluster 1 is
    # empty: GetCenter's 0/0 = NaN (dataprocessing_utils.c lines 56-65). Centres 304/3 = 101.33, NaN, 110.
    # Round 2: same clusters (NaN never chosen), centres unchanged → converged (NaN compares as equal).
    p = np.array([100.0, 110.0, 100.0, 104.0, 110.0])
    labels, centres = kmeans_1d(p)
    np.testing.assert_array_equal(labels, [0, 2, 0, 0, 2])
    assert centres[0] == pytest.approx(304 / 3) and np.isnan(centres[1]) and centres[2] == 110
    # te_fix: the mode cluster is 0 (3 members): the 110s become 101.33; keeping the empty cluster's old
    # centre 100 instead would let it take the 100s, make cluster 1 the mode and flatten 104 and 110 to 100
    fixed, changed = te_fix(np.concatenate([[50.0], p])[:, None])
    np.testing.assert_allclose(fixed[:, 0], [50, 100, 304 / 3, 100, 104, 304 / 3])
    assert changed[:, 0].tolist() == [False, False, True, False, False, True]


def test_kmeans_empty_cluster_at_index_zero_takes_every_point_as_in_c():
    # p = 101, 101, 107, 109, 105, 106, 100 (n = 7, step 3): centres 101, 109, 100.
    # Round 1: {101, 101, 105 (tie 4/4 → first)} {107, 109, 106} {100}: 102.33, 107.33, 100.
    # Round 2: 101 → 100 (1 < 1.33); 105 → 107.33 (2.33 < 2.67): cluster 0 is empty → NaN; 106.75, 100.67.
    # Round 3: a NaN first distance is never beaten (MinArrayIndex): every point → cluster 0, centre 729/7,
    # clusters 1 and 2 empty → NaN; every difference involves a NaN → converged. One cluster: nothing changes.
    p = np.array([101.0, 101.0, 107.0, 109.0, 105.0, 106.0, 100.0])
    labels, centres = kmeans_1d(p)
    np.testing.assert_array_equal(labels, np.zeros(7))
    assert centres[0] == pytest.approx(729 / 7) and np.isnan(centres[1:]).all()
    fixed, changed = te_fix(np.concatenate([[101.0], p])[:, None])
    assert not changed.any()
    np.testing.assert_array_equal(fixed[1:, 0], p)


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
