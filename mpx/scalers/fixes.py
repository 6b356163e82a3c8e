"""NeoMPX's three post-processing fixes of read-window estimates.

Source: NeoMPX (Wang et al., IEEE CLUSTER 2020; github.com/SJTU-HPC/NeoMPX, ``src/dataprocessing_utils.c``).
NeoMPX applies them in this order around any estimator: ΔE fix, estimation, outlier fix, missing-value
fix. Each is an option of every read-window scaler (`mpx.scalers.reads.ReadScaler`: ``te_fix``,
``outlier_fix``, ``missing_fix``), and each makes the scaler offline:

- `te_fix`: NeoMPX's 1-D k-means (``KMeans``, ``dataprocessing_utils.c`` lines 151–192: k = 3, initial
  centres at positions 0, ⌊(n−1)/2⌋, 2⌊(n−1)/2⌋, iterated until no centre moves more than 1e−5) on each
  event's ΔE of windows 1..W−1 (``te_fix``, ``papi_accurate_multiplexing.c`` lines 133–152: the differences
  of the cumulative ``Te`` samples; window 0 is ``Te[0]`` itself, never clustered nor changed); values outside
  the most populated cluster are replaced by that cluster's centre (timer jitter). An **empty cluster** is
  handled as the C code does: ``GetCenter`` (line 56–65) divides a zero sum by a zero length, so its centre
  becomes NaN; ``Distance`` to NaN is NaN and ``MinArrayIndex`` (lines 18–33, ``temp > a[i]``) never picks a
  NaN distance after the first, so a NaN centre at index ≥ 1 is dead for good, while a NaN centre at index 0
  takes every point (its NaN distance is never beaten); ``Equal`` (lines 68–78, ``fabs(a−b) > thr``) treats
  a NaN difference as converged. The C code stores the centre into an integer ΔE (truncating ns); mpx's ΔE is
  in the trace's time unit, so the centre is kept unrounded. mpx's ΔE has no jitter, but the last, shorter
  window *is* replaced by the common length — faithful, and visible in the last window's error.
- `outlier_fix`: per event, the smallest k in 0..5 such that ≥ 98% of the window estimates are below
  mean + k·σ (population σ; 5 if none), then estimates above mean + k·σ are clipped to it. The C code's
  lower clip is a no-op statement (``seq[i] < low_thre;``), so only the upper clip happens here too.
- `missing_fix`: per event, only when at least about a third of the windows are ≤ 0 (the sorted
  estimate at index ⌊W/3⌋ is not > 0): each window i in 3..W−3 whose estimate is 0 gets the mean of the
  six windows i−3..i+2 (NeoMPX's ``knn_mean`` with k = 5; itself included, earlier fills included, integer
  division), in order. NaN (not-counted) windows count as zeros.
"""

from __future__ import annotations

import numpy as np

__all__ = ["kmeans_1d", "missing_fix", "nearest_centre", "outlier_fix", "te_fix"]


def nearest_centre(p: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """NeoMPX's labelling (``dataprocessing_utils.c`` ``Cluster`` lines 89–97, ``MinArrayIndex`` lines 18–33):
    per point the first centre whose distance is strictly below every earlier one; NaN distances (an empty
    cluster's centre) lose every ``temp > a[i]`` comparison, and a NaN first distance is never replaced."""
    best = np.zeros(p.size, dtype=np.intp)
    with np.errstate(invalid="ignore"):
        temp = np.abs(p - centres[0])
        for j in range(1, centres.size):
            d = np.abs(p - centres[j])
            better = temp > d  # False whenever either side is NaN, as in C
            best[better] = j
            temp = np.where(better, d, temp)
    return best


def kmeans_1d(p: np.ndarray, k: int = 3, tol: float = 1e-5, max_iter: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``KMeans`` on one sequence (``dataprocessing_utils.c`` lines 151–192): (labels, centres).
    An empty cluster's centre is NaN (``GetCenter``'s 0/0, lines 56–65) and stays out of the labelling;
    NaN differences count as converged (``Equal``, lines 68–78). ``max_iter`` only guards the loop the C
    code runs until convergence."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"kmeans_1d needs a non-empty 1-D sequence, got shape {p.shape}")
    if k < 2:
        raise ValueError(f"kmeans_1d needs k >= 2 (the C code divides by k - 1), got {k}")
    step = (p.size - 1) // (k - 1)
    old = p[np.arange(k) * step].copy()
    for _ in range(max_iter):
        labels = nearest_centre(p, old)
        sums = np.bincount(labels, weights=p, minlength=k)
        sizes = np.bincount(labels, minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = sums / sizes  # 0/0 = NaN for an empty cluster, as GetCenter computes it
            moved = np.abs(new - old) > tol  # NaN: False, as Equal compares
        if not moved.any():
            old = new
            break
        old = new
    return nearest_centre(p, old), old


def te_fix(enabled: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """NeoMPX's ``te_fix`` per event column of ΔE ``[W, E]``: (fixed copy, mask of replaced values). Windows
    1..W−1 are clustered and fixed (NeoMPX clusters the differences of cumulative samples); window 0 is
    kept. The mode cluster is the first most populated one (``Mode``, ``MaxArrayIndex``)."""
    out = np.array(enabled, dtype=np.float64)
    changed = np.zeros(out.shape, dtype=bool)
    if out.shape[0] < 2:
        return out, changed
    for j in range(out.shape[1]):
        col = out[1:, j]
        labels, centres = kmeans_1d(col, k)
        mode = int(np.argmax(np.bincount(labels, minlength=k)))
        off = labels != mode
        col[off] = centres[mode]
        changed[1:, j] = off
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
