"""The aligners: hand-worked DTW, naive exact on identical runs, the merge rules, refusals."""

import numpy as np
import pytest

from mpx import aligners
from mpx.aligners.base import AnchorSeries, overlap_matrix
from mpx.aligners.dtw import path_matrix
from mpx.errors import ConfigError
from mpx.scalers.base import Estimate

EVENTS = ("anchor", "a", "b")


def run(anchor, a=None, b=None, edges=None):
    """An estimate of one run: NaN / None means the run did not count that event."""
    n = len(anchor)
    cols = [np.asarray(anchor, float)] + [np.full(n, np.nan) if x is None else np.asarray(x, float) for x in (a, b)]
    counts = np.stack(cols, axis=1)
    edges = np.arange(n + 1.0) if edges is None else np.asarray(edges, float)
    return Estimate(EVENTS, edges, counts, ~np.isfinite(counts), ran=np.isfinite(counts))


def test_overlap_matrix_is_the_share_of_each_run_window():
    # reference boundaries at run-window coordinates 0, 1.5, 3: window 1 of the run is split in halves
    t = overlap_matrix(np.array([0.0, 1.5, 3.0]), 3)
    assert t.tolist() == [[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]]


def test_naive_is_exact_on_identical_runs():
    ref = run([2, 4, 6, 8], a=[1, 2, 3, 4])
    other = run([2, 4, 6, 8], b=[10, 0, 5, 7])
    for anchor in ("time", "anchor"):
        est = aligners.get("naive").align([ref, other], anchor)
        assert np.array_equal(est.counts[:, 1], [1, 2, 3, 4])      # the reference's own counts, untouched
        assert np.array_equal(est.counts[:, 2], [10, 0, 5, 7])     # the other run's, one window each
        assert not est.not_estimated.any()


def test_naive_by_anchor_count_hand_worked():
    # the other run retires the same 20 anchor events at another pace: 5, 10, 5 per window.
    # Reference boundaries at cumulative 0, 10, 20 fall at run coordinates 0, 1.5, 3.
    ref = run([10, 10], a=[1, 1])
    other = run([5, 10, 5], b=[6, 8, 4])
    est = aligners.get("naive").align([ref, other], "anchor")
    assert est.counts[:, 2].tolist() == [6 + 4, 4 + 4]             # window 1 of the run split in halves
    # by time instead: reference windows are run windows 0 and 1 (same edges)
    est_t = aligners.get("naive").align([ref, other], "time")
    assert np.isnan(est_t.counts[:, 2]).tolist() == [False, False]
    assert est_t.counts[:, 2].tolist() == [6, 8]


def test_naive_leaves_windows_past_a_shorter_run_unestimated():
    ref = run([10, 10, 10], a=[1, 1, 1])
    other = run([10, 10], b=[3, 3])
    est = aligners.get("naive").align([ref, other], "anchor")
    assert est.not_estimated[:, 2].tolist() == [False, False, True]
    est = aligners.get("naive", by="share").align([ref, other], "anchor")   # stretched to the same share
    assert est.counts[:, 2] == pytest.approx([2, 2, 2])


def test_dtw_hand_worked():
    # anchor rates: reference 1 1 4 4 1, run 1 4 4 4 1 (the high phase starts one window earlier and
    # lasts one more). DTW (squared cost) matches ref0-run0, ref1-run0, ref2-run1, ref2-run2, ref3-run3,
    # ref4-run4: zero cost; run window 0 is shared by two reference windows (half each), reference
    # window 2 takes run windows 1 and 2 whole.
    ref = run([1, 1, 4, 4, 1], a=[0, 0, 0, 0, 0])
    other = run([1, 4, 4, 4, 1], b=[10, 20, 30, 40, 50])
    est = aligners.get("dtw", band=1.0).align([ref, other], "anchor")
    assert est.counts[:, 2].tolist() == [5, 5, 50, 40, 50]
    assert est.counts[:, 2].sum() == 150                            # every run window given out once


def test_path_matrix_gives_each_run_window_out_once():
    t = path_matrix([(0, 0), (1, 0), (2, 1), (2, 2)], 3, 3)
    assert t.sum(axis=0).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ConfigError, match="does not join"):
        path_matrix([(0, 0), (1, 1)], 3, 3)


def test_fuse_takes_counts_from_windows_of_the_same_behaviour():
    # two behaviours (anchor rate 1 and 10); the other run shows b = 2 per unit time at rate 1 and 30 at 10
    ref = run([1, 10, 1, 10], a=[0, 0, 0, 0])
    other = run([10, 1, 1, 10], b=[30, 2, 2, 30])
    est = aligners.get("fuse", n_clusters=2).align([ref, other], "anchor")
    assert est.counts[:, 2] == pytest.approx([2, 30, 2, 30])


def test_merge_mean_averages_every_run_including_the_reference():
    ref = run([1, 1], a=[2, 4], b=[0, 0])
    other = run([1, 1], a=[4, 8], b=[2, 2])
    est = aligners.get("naive", merge="mean").align([ref, other], "time")
    assert est.counts[:, 1].tolist() == [3, 6]
    est = aligners.get("naive").align([ref, other], "time")         # merge="reference": its own counts
    assert est.counts[:, 1].tolist() == [2, 4]


def test_rate_aligners_refuse_the_time_axis_and_an_uncounted_anchor():
    ref, other = run([1, 2], a=[1, 1]), run([1, 2], b=[1, 1])
    for name in ("dtw", "fuse"):
        with pytest.raises(ConfigError, match="constant rate"):
            aligners.get(name).align([ref, other], "time")
    gap = run([1, np.nan], b=[1, 1])
    with pytest.raises(ConfigError, match="no value of the anchor 'anchor' in some read window"):
        aligners.get("naive").align([ref, gap], "anchor")


def test_anchor_series_of_the_time_axis():
    s = AnchorSeries.of(run([5, 5], edges=[10, 12, 16]), "time", 0)
    assert s.cumulative.tolist() == [0, 2, 6] and s.rate.tolist() == [1, 1] and s.lengths.tolist() == [2, 4]


def test_registry_lists_the_builtins():
    assert {"naive", "dtw", "fuse"} <= set(aligners.available())
    with pytest.raises(ConfigError):
        aligners.get("naive", by="nonsense").align([run([1], a=[1])], "time")
