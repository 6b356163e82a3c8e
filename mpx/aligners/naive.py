"""Naive alignment by the anchor's cumulative count.

The same number of anchor events (instructions retired, by default the time axis) marks the same point
of the program in every run: a reference window ``[a, b)`` of the anchor's cumulative count takes, from
another run, what that run counted while its own anchor went from ``a`` to ``b`` (counts spread evenly
inside a run window). ``by="share"`` matches the anchor's share of each run's total instead (a run that
retired 4 % more instructions is stretched to the reference's length). Exact on identical runs. The
baseline every alignment paper improves on (Hauswirth et al., OOPSLA 2005 §4: "aligning by instruction
count" before warping).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.aligners.base import Aligner, AnchorSeries, overlap_matrix
from mpx.params import StrOptions


class NaiveAligner(Aligner):
    name = "naive"
    source = "Hauswirth, Diwan, Sweeney, Mozer, OOPSLA 2005 (alignment by the anchor's count, before DTW)"
    param_constraints: ClassVar[dict] = {**Aligner.param_constraints, "by": [StrOptions({"count", "share"})]}

    def __init__(self, by: str = "count", merge: str = "reference"):
        self.by = by
        self.merge = merge

    def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
        target = ref.cumulative
        if self.by == "share":
            target = target / max(ref.cumulative[-1], 1e-300) * run.cumulative[-1]
        # run-window coordinate where the run's anchor reaches each reference boundary
        x = np.interp(target, run.cumulative, np.arange(run.n + 1.0))
        covered = target[1:] <= run.cumulative[-1] * (1 + 1e-12)
        return overlap_matrix(x, run.n), covered
