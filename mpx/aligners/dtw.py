"""Dynamic time warping of the anchor's rate series (Hauswirth, Diwan, Sweeney, Mozer, OOPSLA 2005).

Hauswirth et al. repeat a run, each counting a subset of events, and align the traces with DTW on an
anchor metric present in every run. Here the series are the anchor's rate per read window (its count
per unit of time, e.g. instructions per cycle), divided by the reference's mean rate; the DTW is
`dtaidistance`'s (squared Euclidean cost, a Sakoe-Chiba band of ``band`` × the longer series, widened to
the length difference so that the path can reach the end). The warping path gives the correspondence: a
run window matched to ``c`` reference windows gives each ``1/c`` of its counts; a reference window
matched to several run windows gets their sum. Kept from the paper: the anchor, DTW, a band. Not kept:
their trace-level details (the paper's own metric set, Jikes RVM's samples), which have no meaning here.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from mpx.aligners.base import Aligner, AnchorSeries
from mpx.errors import ConfigError
from mpx.params import Interval, StrOptions


class DtwAligner(Aligner):
    name = "dtw"
    source = "Hauswirth et al., OOPSLA 2005 §4 (DTW on an anchor); DTW by dtaidistance (Meert et al.)"
    needs_rate = True
    param_constraints: ClassVar[dict] = {**Aligner.param_constraints, "band": [Interval(float, 0.0, 1.0)]}

    def __init__(self, band: float = 0.1, merge: str = "reference"):
        self.band = band
        self.merge = merge

    def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
        try:
            from dtaidistance import dtw
        except ImportError:  # pragma: no cover - a declared dependency
            raise ConfigError("the dtw aligner needs the dtaidistance package (pip install dtaidistance)") from None
        scale = max(float(ref.rate.mean()), 1e-300)
        a, b = ref.rate / scale, run.rate / scale
        window = max(abs(a.size - b.size) + 1, math.ceil(self.band * max(a.size, b.size)))
        path = dtw.warping_path(a.astype(np.double), b.astype(np.double), window=window)
        return path_matrix(path, a.size, b.size), np.ones(a.size, dtype=bool)


def path_matrix(path: list[tuple[int, int]], n_ref: int, n_run: int) -> np.ndarray:
    """``T[i, j] = 1/c_j`` for every pair (i, j) of the warping path, ``c_j`` the reference windows
    matched to run window ``j`` (so every run window's counts are given out exactly once)."""
    p = np.asarray(path, dtype=np.intp).reshape(-1, 2)
    if p.size == 0 or p[0].tolist() != [0, 0] or p[-1].tolist() != [n_ref - 1, n_run - 1]:
        raise ConfigError(f"DTW returned a path that does not join (0, 0) to ({n_ref - 1}, {n_run - 1})")
    t = np.zeros((n_ref, n_run))
    t[p[:, 0], p[:, 1]] = 1.0
    return t / t.sum(axis=0, keepdims=True)
