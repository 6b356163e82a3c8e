"""Fuse's behaviour-clustering merge, adapted to single-threaded traces (Neill, Drebes & Pop, TACO 2017).

Fuse multiplexes counters across executions of task-parallel programs: it matches tasks between runs
and, in its most accurate policy, clusters tasks by behaviour and gives a task of the reference the
counts that tasks of the same cluster showed in the run that counted the event. A single-threaded trace
has no tasks and no task creation graph, so here a **read window is a task** and its behaviour is the
anchor's rate (e.g. instructions per cycle): windows of every run are clustered together (k-means on the
log rate, ``n_clusters`` clusters), and reference window ``i`` of cluster ``c`` gets, from run ``r``,
``length_i`` × (the run's counts in its cluster-``c`` windows ÷ their total length). Kept: the merge by
behaviour cluster instead of by position. Dropped: task matching through the task creation graph, and
per-task (rather than per-time) profiles; order in time is ignored on purpose — that is the method.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.aligners.base import Aligner, AnchorSeries
from mpx.params import Interval


class FuseAligner(Aligner):
    name = "fuse"
    source = "Neill, Drebes, Pop, 'Fuse', ACM TACO 14(4) 2017 (behaviour-clustering merge policy)"
    needs_rate = True
    exact_on_identical_runs = False  # a window gets its cluster's mean rate, not its own counts
    param_constraints: ClassVar[dict] = {**Aligner.param_constraints, "n_clusters": [Interval(int, 1, None)],
                                         "seed": [Interval(int, 0, None)]}

    def __init__(self, n_clusters: int = 8, seed: int = 0, merge: str = "reference"):
        self.n_clusters = n_clusters
        self.seed = seed
        self.merge = merge

    def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
        from sklearn.cluster import KMeans

        x = np.log(np.maximum(np.concatenate([ref.rate, run.rate]), 1e-300))[:, None]
        k = min(self.n_clusters, np.unique(x).size)
        labels = KMeans(n_clusters=k, n_init=4, random_state=self.seed).fit_predict(x)
        lr, lu = labels[:ref.n], labels[ref.n:]
        t = np.zeros((ref.n, run.n))
        covered = np.zeros(ref.n, dtype=bool)
        for c in range(k):
            mine = lu == c
            length = run.lengths[mine].sum()
            if length <= 0:
                continue
            rows = lr == c
            t[np.ix_(rows, mine)] = ref.lengths[rows, None] / length
            covered |= rows
        return t, covered
