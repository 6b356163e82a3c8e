"""The posterior mode (maximum a posteriori) of the windowed Gaussian chain under truncations.

BayesPerf's point estimate is the posterior maximum (Banerjee et al., "BayesPerf", ASPLOS 2021, §4: the
most likely value of each event given the measurements and the relations). The model is the one of
`mpx.scalers.inference.ep`: window ``r``'s sub-problem holds windows ``s..e`` (``r-k+1..r`` for the
causal filter, ``r-k..r+k`` for the smoother), a Gaussian in information form (data ``J_t, h_t``,
random walk ``W_t``, the prior ``J0_r, h0_r`` on its first window) times the truncations
``C z_t <= 0`` of every window ``t`` in it. Its log density is a concave quadratic on a polyhedron, so
its maximum is the solution of the convex quadratic programme

    minimise 0.5 z'Λz - η'z   subject to   G z <= 0,

``z`` the stacked ``z_s..z_e``, ``(Λ, η)`` the sub-problem's (block tridiagonal) information, ``G`` the
block diagonal of ``C``. Window ``r``'s mode is its block of the solution (the joint maximum, not the
maximum of the marginal).

**Solver** (`qp_mode`). Where the unconstrained maximum ``Λ^-1 η`` is feasible no truncation binds and it
is the answer (the mode is then the untruncated Gaussian's mean). Elsewhere, the dual: with
``Λ = L L'``, ``y = L^-1 η`` and ``M = L^-1 G'`` it is the non-negative least-squares problem
``λ = argmin_{λ >= 0} ||M λ - y||`` and ``z = L^-T (y - M λ)`` (Lawson & Hanson, *Solving Least
Squares Problems*, 1974, ch. 23, least distance programming). NNLS's optimality conditions are the
QP's KKT conditions (``G z = M'(y - M λ) <= 0``, ``λ >= 0``, ``λ_i (G z)_i = 0``, ``Λ z - η + G'λ = 0``),
and Lawson & Hanson's active-set method (`scipy.optimize.nnls`) reaches them in finitely many steps;
``z`` is unique (``Λ`` is positive definite) even where ``λ`` is not (dependent constraints).
Each sub-problem is solved on its own (``(e-s+1)·d`` unknowns): a window never depends on how many
others are solved with it, so the filter stays causal to the last bit.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize

__all__ = ["chain_mode", "qp_mode", "subproblem_information"]

#: largest number of matrix elements built at once (windows are processed in chunks of this size)
_CHUNK_ELEMENTS = 4_000_000


def qp_mode(lam: np.ndarray, eta: np.ndarray, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solution ``z`` and multipliers ``λ`` of ``min 0.5 z'lam z - eta'z`` s.t. ``G z <= 0``.

    ``lam[n, n]`` symmetric positive definite, ``eta[n]``, ``G[p, n]`` (module docstring: the dual is
    a non-negative least-squares problem). Raises ``numpy.linalg.LinAlgError`` if ``lam`` is not
    positive definite.
    """
    lam = np.asarray(lam, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    G = np.asarray(G, dtype=np.float64).reshape(-1, eta.size)
    z0 = np.linalg.solve(lam, eta)
    if G.shape[0] == 0 or not np.any(G @ z0 > 0):
        return z0, np.zeros(G.shape[0])
    L = scipy.linalg.cholesky(lam, lower=True)
    y = scipy.linalg.solve_triangular(L, eta, lower=True)
    M = scipy.linalg.solve_triangular(L, G.T, lower=True)
    mult, _ = scipy.optimize.nnls(M, y, maxiter=50 * max(G.shape[0], 1))
    z = scipy.linalg.solve_triangular(L.T, y - M @ mult, lower=False)
    return z, mult


def _windows(r: np.ndarray, n_win: int, k: int, smooth: bool) -> tuple[np.ndarray, np.ndarray]:
    """First and last window of each window's sub-problem (as `mpx.scalers.inference.ep`)."""
    if smooth:
        return np.maximum(0, r - k), np.minimum(n_win - 1, r + k)
    return np.maximum(0, r - k + 1), r


def subproblem_information(J: np.ndarray, h: np.ndarray, W: np.ndarray, J0: np.ndarray, h0: np.ndarray, k: int,
                           smooth: bool, rows: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dense information of each window's whole sub-problem (every window in it, not only its own).

    Arrays as in `mpx.scalers.inference.ep.chain_information` (``J[..., R, d, d]`` ...). Returns
    ``lam[..., nr, L*d, L*d]``, ``eta[..., nr, L*d]`` for the windows ``rows`` (default all), the
    unknowns ordered window by window from the sub-problem's first window; ``valid[nr, L]`` marks the
    slots that hold a window (a sub-problem cut by the run's start or end has fewer: the others are
    decoupled unit blocks with ``eta = 0``) and ``pos[nr]`` is the slot of window ``r`` itself.
    """
    n_win, d = J.shape[-3], J.shape[-1]
    r = np.arange(n_win) if rows is None else np.asarray(rows, dtype=np.intp)
    span = min(2 * k + 1 if smooth else k, n_win)
    start, stop = _windows(r, n_win, k, smooth)
    batch = J.shape[:-3]
    n = span * d
    lam = np.zeros(batch + (r.size, n, n))
    eta = np.zeros(batch + (r.size, n))
    valid = np.zeros((r.size, span), dtype=bool)
    eye = np.eye(d)
    for i in range(span):
        t = start + i
        on = t <= stop
        valid[:, i] = on
        tc = np.minimum(t, n_win - 1)
        cur = slice(i * d, (i + 1) * d)
        m3, m2 = on[:, None, None], on[:, None]
        block = np.where(m3, J[..., tc, :, :], eye)
        vec = np.where(m2, h[..., tc, :], 0.0)
        if i == 0:
            block = block + J0[..., r, :, :]
            vec = vec + h0[..., r, :]
        else:  # the random walk from the previous slot into this one
            prev = slice((i - 1) * d, i * d)
            w = np.where(m3, W[..., tc, :, :], 0.0)
            block = block + w
            lam[..., prev, prev] += w
            lam[..., prev, cur] -= w
            lam[..., cur, prev] -= w
        lam[..., cur, cur] += block
        eta[..., cur] += vec
    return lam, eta, valid, r - start


def chain_mode(J: np.ndarray, h: np.ndarray, W: np.ndarray, J0: np.ndarray, h0: np.ndarray, C: np.ndarray, k: int,
               smooth: bool) -> tuple[np.ndarray, int]:
    """Mode of ``z_r`` in each window's sub-problem under ``C z_t <= 0`` for every window ``t`` of it.

    Arrays as in `mpx.scalers.inference.ep.ep_chain` (leading batch dimensions allowed). Returns the
    modes ``[..., R, d]`` and the number of sub-problems in which a truncation binds (solved by
    `qp_mode`; the others are their unconstrained maximum).
    """
    batch = J.shape[:-3]
    n_win, d = J.shape[-3], J.shape[-1]
    C = np.asarray(C, dtype=np.float64).reshape(-1, d)
    nb = int(np.prod(batch, dtype=np.int64))
    flat = [np.reshape(a, (nb,) + a.shape[len(batch):]) for a in (J, h, W, J0, h0)]
    span = min(2 * k + 1 if smooth else k, n_win)
    n = span * d
    chunk = max(1, _CHUNK_ELEMENTS // max(1, nb * n * n))
    out = np.zeros((nb, n_win, d))
    binding = 0
    for lo in range(0, n_win, chunk):
        rows = np.arange(lo, min(n_win, lo + chunk))
        lam, eta, valid, pos = subproblem_information(*flat, k, smooth, rows)
        z = np.linalg.solve(lam, eta[..., None])[..., 0]  # one LAPACK call per matrix: no cross-window rounding
        sel = (np.arange(nb)[:, None], np.arange(rows.size)[None, :])
        if C.shape[0]:
            # C u for every slot, elementwise (no BLAS product whose rounding depends on the batch)
            u = (z.reshape(nb, rows.size, span, 1, d) * C[None, None, None]).sum(axis=-1)
            bad = ((u > 0) & valid[None, :, :, None]).any(axis=(2, 3))
            for b, i in zip(*np.nonzero(bad)):
                G = np.kron(np.diag(valid[i].astype(np.float64)), C)
                G = G[np.repeat(valid[i], C.shape[0])]
                z[b, i], _ = qp_mode(lam[b, i], eta[b, i], G)
            binding += int(bad.sum())
        zz = z.reshape(nb, rows.size, span, d)
        out[:, rows] = zz[sel[0], sel[1], pos[None, :]]
    return out.reshape(batch + (n_win, d)), binding
