"""Interpolating estimators on read windows: DIRA and TAM (and the base shared with DCAM and CAM).

Reference implementation: NeoMPX (Wang et al., IEEE CLUSTER 2020; github.com/SJTU-HPC/NeoMPX,
``src/papi_accurate_multiplexing.c``: ``dira_raw_to_est``, ``dira``, ``tam``). Per read window i, with
raw delta ``c_i``, ``ΔE_i``, ``ΔR_i`` and ``n_i = ΔE_i/ΔR_i`` (NeoMPX sets ``n_i = 1`` when ΔR_i = 0):

- **DIRA** (a = c_i, b = c_{i+1}, m = (b − a)/n):
  ``a + Σ_{k=1}^{⌊n⌋−1} (a + m·k) + (n − ⌊n⌋)(a + m·n)`` — a linear ramp from a towards b over the n
  "slices" of the window; the last window uses b = 0. Looks one window ahead: offline.
- **TAM** (α_i = n_i): ``est_0 = α_0·c_0/2``, ``est_i = α_i(c_{i−1} + c_i)/2 + (c_{i−1} − c_i)/2``.
  Note what the code does (and the reference table states): the neighbour is the *previous* window, so
  TAM is **causal**; for an event counted all the time (α = 1) it returns the previous window's count
  (a one-window lag) and halves the first window. mpx reproduces that.

NeoMPX truncates each window estimate to an integer (``(long long)``): ``integer=True``.

**Windows where the event did not run (ΔR = 0)** — ``gaps`` option:

- ``"neompx"``: the C code as is: n = 1 and the raw 0 of such a window enters its neighbours' formulas
  as a genuine zero count (a DIRA ramp towards 0, a CAM ratio of 0 that zeroes the estimate). Under
  perf's sliding window this is a large, systematic underestimate. The window's own value is what the
  formula gives (``fill="formula"``: DIRA(0, b, 1) = 0, TAM → the previous count, DCAM(0, b, 1) = 1,
  CAM → 0);
- ``"bridge"`` (default, an mpx fallback): a window's neighbour is the nearest window *where the event
  ran*, rescaled to this window's running time (``b = c_j·ΔR_i/ΔR_j``; equal to ``c_{i+1}`` when the
  event ran in the next window for as long as in this one, i.e. NeoMPX's setting); no such window → the
  end-of-run rule (b = 0, or TAM's first-window rule). The windows where it did not run are flagged and
  filled by ``fill`` (default ``"interpolate"`` for the offline DIRA/DCAM/CAM, ``"carry"`` for TAM).

Every window where ΔR = 0 is flagged in ``not_estimated`` whatever the mode.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import StrOptions
from mpx.scalers.reads import FILLS, ReadScaler, bfill_index, ffill_index, read_constraints

__all__ = ["DiraScaler", "InterpolatingScaler", "TamScaler", "dira", "tam"]

GAPS = ("bridge", "neompx")


def dira(a: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """NeoMPX's ``dira_raw_to_est`` elementwise (closed form of its loop)."""
    f = np.floor(n)
    r = n - f
    m = (b - a) / n
    k = np.maximum(f - 1.0, 0.0)  # the C loop runs max(⌊n⌋ − 1, 0) times
    return a + k * a + m * k * (k + 1.0) / 2.0 + r * (a + m * n)


def tam(prev: np.ndarray, c: np.ndarray, n: np.ndarray, first: np.ndarray) -> np.ndarray:
    """NeoMPX's ``tam`` elementwise, as its code computes it: ``n·(prev + c)/2 + (prev − c)/2``; ``first``
    marks windows with no previous one (``n·c/2``). At ``n = 1`` it returns ``prev``: a one-window lag."""
    return np.where(first, n * c / 2.0, n * (prev + c) / 2.0 + (prev - c) / 2.0)


def tam_trapezoid(prev: np.ndarray, c: np.ndarray, n: np.ndarray, first: np.ndarray) -> np.ndarray:
    """TAM as published, the trapezoid ``n·(prev + c)/2 + (c − prev)/2`` (the correction with the sign
    opposite to NeoMPX's code): at ``n = 1`` (no multiplexing) it returns the window's own count ``c``."""
    return np.where(first, n * c / 2.0, n * (prev + c) / 2.0 + (c - prev) / 2.0)


class InterpolatingScaler(ReadScaler):
    """Base of DIRA, TAM, DCAM, CAM: builds each window's (a, neighbour, n) by the ``gaps`` mode and calls
    ``_formula``. ``look`` is +1 (next window) or -1 (previous window)."""

    fills: ClassVar[tuple[str, ...]] = FILLS
    look: ClassVar[int] = +1
    core_causal: ClassVar[bool] = False
    param_constraints: ClassVar[dict] = {"gaps": StrOptions(GAPS), **read_constraints(FILLS)}

    def __init__(self, gaps: str = "bridge", fill: str = "interpolate", integer: bool = True, te_fix: bool = False,
                 outlier_fix: bool = False, missing_fix: bool = False):
        self.gaps = gaps
        self.fill = fill
        self.integer = integer
        self.te_fix = te_fix
        self.outlier_fix = outlier_fix
        self.missing_fix = missing_fix

    def _check_params(self) -> None:
        if self.fill == "formula" and self.gaps != "neompx":
            raise ConfigError(f"{type(self).__name__}: fill='formula' (the C code's value where the event did not "
                              "run) exists only with gaps='neompx'")

    def _formula(self, a: np.ndarray, nb: np.ndarray, n: np.ndarray, edge: np.ndarray,
                 enabled: np.ndarray, running: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _core(self, raw, enabled, running, observation: Any):
        w = raw.shape[0]
        ran = running > 0
        n = np.where(ran, enabled / np.where(ran, running, 1.0), 1.0)
        if w == 0:
            return np.zeros_like(raw), None
        if self.gaps == "neompx":
            nb = np.zeros_like(raw)
            edge = np.zeros(raw.shape, dtype=bool)
            if self.look > 0:
                nb[:-1] = raw[1:]
                edge[-1] = True
            else:
                nb[1:] = raw[:-1]
                edge[0] = True
        else:
            if self.look > 0:
                j = np.empty(raw.shape, dtype=np.intp)
                j[:-1] = bfill_index(ran)[1:]
                j[-1] = w
                edge = j >= w
            else:
                j = np.empty(raw.shape, dtype=np.intp)
                j[1:] = ffill_index(ran)[:-1]
                j[0] = -1
                edge = j < 0
            jj = np.clip(j, 0, w - 1)
            c_j = np.take_along_axis(raw, jj, axis=0)
            r_j = np.take_along_axis(running, jj, axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                nb = np.where(edge, 0.0, c_j * running / np.where(edge, 1.0, r_j))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            est = self._formula(raw, nb, n, edge, enabled, running)
        return est, (est if self.gaps == "neompx" else None)


class DiraScaler(InterpolatingScaler):
    """DIRA: a linear ramp from this window's count to the next one's (NeoMPX ``dira``); offline."""

    name: ClassVar[str] = "dira"
    source: ClassVar[str] = ("NeoMPX src/papi_accurate_multiplexing.c dira_raw_to_est (github.com/SJTU-HPC/NeoMPX); "
                             "likely Mathur & Cook, MASCOTS 2005")

    def _formula(self, a, nb, n, edge, enabled, running):
        return dira(a, np.where(edge, 0.0, nb), n)


class TamScaler(InterpolatingScaler):
    """TAM as NeoMPX's code computes it (`tam`: its correction term has the sign opposite to the
    published trapezoid, so at n = 1 it returns the previous window's count); causal. ``tam_paper``
    (`TamPaperScaler`) is the published formula."""

    name: ClassVar[str] = "tam"
    source: ClassVar[str] = "NeoMPX src/papi_accurate_multiplexing.c tam (github.com/SJTU-HPC/NeoMPX)"
    look: ClassVar[int] = -1
    core_causal: ClassVar[bool] = True

    def __init__(self, gaps: str = "bridge", fill: str = "carry", integer: bool = True, te_fix: bool = False,
                 outlier_fix: bool = False, missing_fix: bool = False):
        super().__init__(gaps=gaps, fill=fill, integer=integer, te_fix=te_fix, outlier_fix=outlier_fix,
                         missing_fix=missing_fix)

    def _formula(self, a, nb, n, edge, enabled, running):
        return tam(nb, a, n, edge)


class TamPaperScaler(TamScaler):
    """TAM as the NeoMPX paper writes it (`tam_trapezoid`): the trapezoid with the previous window,
    correction ``(c − prev)/2``, which returns the count itself when the event ran the whole window; causal.
    The registry keeps both so every result names which one it used."""

    name: ClassVar[str] = "tam_paper"
    source: ClassVar[str] = ("NeoMPX (IEEE CLUSTER 2020) TAM, the published trapezoid; NeoMPX's code "
                             "(src/papi_accurate_multiplexing.c tam) has the opposite sign: registered as tam")

    def _formula(self, a, nb, n, edge, enabled, running):
        return tam_trapezoid(nb, a, n, edge)
