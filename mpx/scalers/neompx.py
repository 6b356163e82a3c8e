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

**Post-processing fixes** (NeoMPX applies them in this order around any estimator: ΔE fix, estimation,
outlier fix, missing-value fix); each is an option of every read-window scaler (`te_fix`, `outlier_fix`,
`missing_fix` below), and each makes the scaler offline:

- `te_fix`: 1-D k-means (k = 3, initial centres at positions 0, ⌊(W−1)/2⌋, 2⌊(W−1)/2⌋, iterated until
  the centres move less than 1e−5) on each event's per-window ΔE; values outside the most populated
  cluster are replaced by that cluster's centre (timer jitter). mpx keeps an empty cluster's old centre
  (the C code divides by zero there). mpx's ΔE has no jitter but the last, shorter window *is* replaced
  by the common length — faithful, and visible in the last window's error.
- `outlier_fix`: per event, the smallest k in 0..5 such that ≥ 98% of the window estimates are below
  mean + k·σ (population σ; 5 if none), then estimates above mean + k·σ are clipped to it. The C code's
  lower clip is a no-op statement (``seq[i] < low_thre;``), so only the upper clip happens here too.
- `missing_fix`: per event, only when at least about a third of the windows are ≤ 0 (the sorted
  estimate at index ⌊W/3⌋ is not > 0): each window i in 3..W−3 whose estimate is 0 gets the mean of the
  six windows i−3..i+2 (NeoMPX's ``knn_mean`` with k = 5; itself included, earlier fills included, integer
  division), in order. NaN (not-counted) windows count as zeros.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.scalers.interpolation import InterpolatingScaler

__all__ = ["CamScaler", "DcamScaler", "cam", "dcam", "missing_fix", "outlier_fix", "te_fix"]


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


# -- the post-processing fixes ----------------------------------------------------------------------


def _kmeans_1d(p: np.ndarray, k: int = 3, tol: float = 1e-5, max_iter: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``KMeans`` on one sequence: (labels, centres)."""
    n = p.size
    step = (n - 1) // (k - 1)
    centres = p[np.arange(k) * step].astype(float)
    for _ in range(max_iter):
        labels = np.argmin(np.abs(p[:, None] - centres[None, :]), axis=1)  # first minimum on ties, like C
        sums = np.bincount(labels, weights=p, minlength=k)
        sizes = np.bincount(labels, minlength=k)
        new = np.where(sizes > 0, sums / np.maximum(sizes, 1), centres)
        if np.all(np.abs(new - centres) <= tol):
            centres = new
            break
        centres = new
    labels = np.argmin(np.abs(p[:, None] - centres[None, :]), axis=1)
    return labels, centres


def te_fix(enabled: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``te_fix`` per event column of ΔE ``[W, E]``: (fixed copy, mask of replaced values)."""
    out = np.array(enabled, dtype=np.float64)
    changed = np.zeros(out.shape, dtype=bool)
    if out.shape[0] < 2:
        return out, changed
    for j in range(out.shape[1]):
        col = out[:, j]
        if np.all(col == col[0]):
            continue
        labels, centres = _kmeans_1d(col, k)
        mode = int(np.argmax(np.bincount(labels, minlength=k)))
        off = labels != mode
        col[off] = centres[mode]
        changed[:, j] = off
    return out, changed


def outlier_fix(est: np.ndarray, integer: bool = True, share: float = 0.98,
                max_k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``outlier_fix`` per event column (NaN windows ignored): (fixed copy, clipped mask)."""
    out = np.array(est, dtype=np.float64)
    if out.shape[0] == 0:
        return out, np.zeros(out.shape, dtype=bool)
    fin = np.isfinite(out)
    cnt = fin.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(cnt > 0, np.where(fin, out, 0.0).sum(axis=0) / np.maximum(cnt, 1), 0.0)
        var = np.where(fin, (out - mean) ** 2, 0.0).sum(axis=0) / np.maximum(cnt, 1)
    std = np.sqrt(var)
    ks = np.arange(max_k + 1, dtype=float)
    thr = mean[None, :] + ks[:, None] * std[None, :]                      # [K, E]
    below = (np.where(fin, out, np.inf)[None, :, :] < thr[:, None, :]).sum(axis=1)  # [K, E]
    ok = below >= share * np.maximum(cnt, 1)[None, :]
    k_sel = np.where(ok.any(axis=0), np.argmax(ok, axis=0), max_k)
    high = mean + k_sel * std
    if integer:
        high = np.trunc(high)
    clipped = fin & (out > high[None, :])
    out = np.where(clipped, np.broadcast_to(high, out.shape), out)
    return out, clipped


def missing_fix(est: np.ndarray, integer: bool = True, knn_k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``missing_fix`` per event column (NaN counts as 0): (fixed copy, filled mask)."""
    out = np.array(est, dtype=np.float64)
    w, e = out.shape
    filled = np.zeros(out.shape, dtype=bool)
    if w == 0:
        return out, filled
    d = np.where(np.isfinite(out), out, 0.0)
    third = np.sort(d, axis=0)[w // 3]
    cols = np.flatnonzero(~(third > 0))
    x, y = knn_k // 2 + 1, w - 1 - knn_k // 2
    lo, hi = int(np.ceil(knn_k / 2.0)), knn_k // 2
    if cols.size == 0 or x > y:
        return out, filled
    sub = d[:, cols]
    was_zero = sub == 0
    rows = np.flatnonzero(was_zero[x:y + 1].any(axis=1)) + x
    for i in rows:
        z = sub[i] == 0
        if not z.any():
            continue
        s, t = max(i - lo, 0), min(i + hi, w - 1)
        total = sub[s:t + 1, z].sum(axis=0)
        val = total / (t - s + 1)
        sub[i, z] = np.trunc(val) if integer else val
    changed = was_zero & ((sub != 0) | ~np.isfinite(out[:, cols]))
    changed[:x] = False
    changed[y + 1:] = False
    block = out[:, cols]
    block[changed] = sub[changed]
    out[:, cols] = block
    filled[:, cols] = changed
    return out, filled
