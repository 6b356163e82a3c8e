"""NeoMPX's estimators DCAM and CAM, and its three post-processing fixes.

Source: NeoMPX (Wang et al., "NeoMPX: Characterizing and Improving Estimation of Multiplexing Hardware
Counters for PAPI", IEEE CLUSTER 2020; github.com/SJTU-HPC/NeoMPX, ``src/papi_accurate_multiplexing.c``
and ``src/dataprocessing_utils.c``). Notation as in `mpx.scalers.interpolation` (a = c_i, b = the next
window's count, n = ΔE/ΔR, f = ⌊n⌋, r = n − f).

- **DCAM** (``dcam_raw_to_est``): geometric growth from a towards b across the n slices:
  a = b → a·n; a = 0 → Σ_{k=0}^{max(f−2,0)} m^k with m = b^{1/(n−1+1e−10)} (growth from 1 to b);
  b = 0 → a·Σ_{k=0}^{max(f−1,0)} m^k with m = (1/a)^{1/(n−1+1e−10)} (decay from a to 1);
  otherwise m = (b/a)^{1/n}, a·Σ_{k=0}^{max(f−1,0)} m^k + r·a·m^n. The last window uses b = 0. Offline.
- **CAM** (``cam``, ``time_to_time``): t = b/a (1 when a = 0), est = a·n·(t − 1)/ln t (a·n when t = 1):
  the integral of an exponential rate. The last window is scaled linearly (a·ΔE/ΔR, or a when ΔR = 0).
  A next count of 0 gives t = 0 and an estimate of 0 — the degenerate case ``gaps="bridge"`` avoids.
  With n = 1 (an event counted all the time) CAM still returns the logarithmic mean (b − a)/ln(b/a) of
  this window's and the next window's counts, not a: it changes counts that were never multiplexed.

Both truncate each window to an integer in the C code (``integer=True``). The ``gaps`` / ``fill``
options for windows where the event did not run are those of `mpx.scalers.interpolation`.

NeoMPX's post-processing fixes (ΔE fix, outlier fix, missing-value fix) are options of every
read-window scaler; they live in `mpx.scalers.fixes`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.scalers.interpolation import InterpolatingScaler

__all__ = ["CamScaler", "DcamScaler", "cam", "dcam"]


def _geometric(m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Σ_{j=0}^{k} m^j, stable near m = 1; 1 where k = 0 (even for m = inf)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lm = np.log(m)
        g = np.expm1((k + 1.0) * lm) / np.expm1(lm)
    g = np.where(lm == 0, k + 1.0, g)
    return np.where(k == 0, 1.0, g)


def dcam(a: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """NeoMPX's ``dcam_raw_to_est`` elementwise (closed form of its loops)."""
    a, b, n = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float), np.asarray(n, float))
    f = np.floor(n)
    r = n - f
    eq = a == b
    a0 = (a == 0) & ~eq
    b0 = (b == 0) & ~eq & ~a0
    gen = ~(eq | a0 | b0)
    out = np.where(eq, a * n, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if a0.any():
            m = b[a0] ** (1.0 / (n[a0] - 1.0 + 1e-10))
            out[a0] = _geometric(m, np.maximum(f[a0] - 2.0, 0.0))
        if b0.any():
            m = (1.0 / a[b0]) ** (1.0 / (n[b0] - 1.0 + 1e-10))
            out[b0] = a[b0] * _geometric(m, np.maximum(f[b0] - 1.0, 0.0))
        if gen.any():
            ag, ng = a[gen], n[gen]
            m = (b[gen] / ag) ** (1.0 / ng)
            out[gen] = ag * _geometric(m, np.maximum(f[gen] - 1.0, 0.0)) + r[gen] * ag * m ** ng
    return out


def cam(a: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """NeoMPX's CAM for a window that has a next one: ``a · n(t − 1)/ln t``, t = b/a (1 if a = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(a != 0, b / np.where(a != 0, a, 1.0), 1.0)
        x = np.log(t)
        factor = np.where(x == 0, n, n * np.expm1(x) / np.where(x == 0, 1.0, x))
    return a * factor


class DcamScaler(InterpolatingScaler):
    """DCAM: geometric growth between this window's count and the next one's (NeoMPX ``dcam``); offline."""

    name: ClassVar[str] = "dcam"
    source: ClassVar[str] = "NeoMPX src/papi_accurate_multiplexing.c dcam_raw_to_est (github.com/SJTU-HPC/NeoMPX)"

    def _formula(self, a, nb, n, edge, enabled, running):
        return dcam(a, np.where(edge, 0.0, nb), n)


class CamScaler(InterpolatingScaler):
    """CAM: integral of an exponential rate between this window and the next (NeoMPX ``cam``); offline."""

    name: ClassVar[str] = "cam"
    source: ClassVar[str] = "NeoMPX src/papi_accurate_multiplexing.c cam, time_to_time (github.com/SJTU-HPC/NeoMPX)"

    def _formula(self, a, nb, n, edge, enabled, running):
        ran = running > 0
        last = np.where(ran, a * enabled / np.where(ran, running, 1.0), a)
        return np.where(edge, last, cam(a, nb, n))
