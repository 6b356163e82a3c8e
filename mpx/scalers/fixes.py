"""NeoMPX's three post-processing fixes of read-window estimates.

Source: NeoMPX (Wang et al., IEEE CLUSTER 2020; github.com/SJTU-HPC/NeoMPX, ``src/dataprocessing_utils.c``).
NeoMPX applies them in this order around any estimator: ΔE fix, estimation, outlier fix, missing-value
fix. Each is an option of every read-window scaler (`mpx.scalers.reads.ReadScaler`: ``te_fix``,
``outlier_fix``, ``missing_fix``), and each makes the scaler offline:

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

import numpy as np

__all__ = ["missing_fix", "outlier_fix", "te_fix"]


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
