"""Gaussian Expectation Propagation on a chain of read windows, vectorised with numpy.

The model (what `mpx.scalers.bayesperf` builds; Banerjee et al., "BayesPerf", ASPLOS 2021, §4, with the
Gaussian family the paper uses as EP's approximating family):

- one latent vector per read window ``r``: the event rates ``x_r``. Exact linear identities ``A x_r = 0``
  are imposed exactly by writing ``x_r = N z_r`` with ``N`` an orthonormal basis of the null space of
  ``A`` (Gaussian conditioning on ``A x_r = 0`` is the density restricted to that subspace), so all the
  work happens on ``z_r`` (dimension ``d``);
- Gaussian data factors per window in information form, ``exp(-z'J_r z/2 + h_r'z)`` (the measurement
  likelihoods, moment-matched Student-t's, see `mpx.scalers.bayesperf`);
- a random walk between consecutive windows, ``exp(-(z_t - z_{t-1})' W_t (z_t - z_{t-1})/2)``;
- a weak Gaussian prior ``(J0, h0)`` on the first window of each sub-problem;
- truncation factors ``1[c_j' z_r <= 0]`` (inequalities ``B x <= 0``, counters ``x >= 0``), approximated
  by EP with one Gaussian site per window and inequality, ``exp(-tau u^2/2 + nu u)`` on ``u = c_j' z_r``
  (Minka 2001; the tilted distribution is a truncated Gaussian whose moments are closed-form,
  `truncnorm_upper_moments`, where BayesPerf drew MCMC samples).

**Windows.** BayesPerf runs EP over the ``k`` most recent time slices. Here the estimate of window ``r``
comes from its own sub-problem: windows ``r-k+1 .. r`` (causal filter) or ``r-k .. r+k`` (smoother),
with the prior on the sub-problem's first window. All sub-problems are solved at once: the recursion
runs over the ``k`` positions inside a sub-problem, each step a batched ``[R, d, d]`` linear-algebra
call over every window ``R`` (information-form Kalman filter; the smoother adds a backward information
filter, the two-filter form). With ``k >= R`` the filter is the exact Kalman filter and the smoother the
exact Rauch-Tung-Striebel/two-filter smoother of the whole run — without truncation factors, EP then
returns the exact Gaussian posterior (tests check it against dense constrained least squares).

**EP schedule** (`ep_chain`). A site is updated from the marginal of its own window's sub-problem.
Within a window, the own sites enter the marginal's information matrix additively, so EP on them (the
others held fixed) is exact and cheap (one ``d x d`` solve per inner iteration); the chain is then
recomputed for the windows whose sub-problem contains a changed site, and so on until no site moves by
more than ``tol``. Windows are weakly coupled through the random walk: a few outer iterations suffice.
Sites more than ``skip`` cavity standard deviations inside the feasible side are exactly zero. A site
restarts only when its own sub-problem changed, so a filtered window never depends on how long later
windows took to converge (the filter stays causal).

Leading batch dimensions (``[..., R, d, d]``) are allowed everywhere: independent chains of the same
shape (e.g. the events that no relation ties together, ``d = 1`` each) are solved in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erfcx

__all__ = [
    "ChainPosterior",
    "chain_information",
    "ep_chain",
    "information_to_moments",
    "truncnorm_upper_moments",
]

_SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))
_CF_SWITCH = 5.0  # beyond this many std below the bound, use the continued fraction
_CF_TERMS = 60


def truncnorm_upper_moments(mean: np.ndarray, var: np.ndarray, upper: float | np.ndarray = 0.0
                            ) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of ``N(mean, var)`` truncated to ``(-inf, upper]``, elementwise.

    With ``b = (upper - mean)/sd`` and ``lam = phi(b)/Phi(b)``: mean ``mean - sd*lam``, variance
    ``var*(1 - lam*(b + lam))`` (Johnson, Kotz & Balakrishnan, *Continuous Univariate Distributions*,
    §10.1). ``lam`` comes from ``erfcx``, so it is exact in both tails; far below the bound
    (``b < -5``) the variance factor is computed from the continued fraction of Mills' ratio
    (Abramowitz & Stegun 26.2.14) as ``g*(h - g)``, ``g = lam + b``, which avoids the cancellation in
    ``1 - lam*(b + lam)``. For a lower bound use symmetry: ``X >= a`` is ``-X <= -a``.
    """
    mean = np.asarray(mean, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    sd = np.sqrt(var)
    b = (np.asarray(upper, dtype=np.float64) - mean) / sd
    lam = _SQRT_2_OVER_PI / erfcx(-b / np.sqrt(2.0))
    factor = 1.0 - lam * (b + lam)
    far = b < -_CF_SWITCH
    if np.any(far):
        x = -b[far]
        # tail(n) = n/(x + (n+1)/(x + ...)); g = 1/(x + tail(2)), h = tail(2) = 2/(x + tail(3))...
        t = np.zeros_like(x)
        for n in range(_CF_TERMS, 2, -1):
            t = n / (x + t)
        h = 2.0 / (x + t)
        g = 1.0 / (x + h)
        factor = np.array(factor, copy=True)
        factor[far] = g * (h - g)
    return mean - sd * lam, var * np.clip(factor, 0.0, 1.0)


# -- the windowed chain in information form -----------------------------------------------------------


def _sym(a: np.ndarray) -> np.ndarray:
    return 0.5 * (a + np.swapaxes(a, -1, -2))


def _marginalise(lam: np.ndarray, eta: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pass information ``(lam, eta)`` about ``z_a`` through the random walk of precision ``w`` to
    ``z_b``: ``W - W (lam + W)^-1 W`` and ``W (lam + W)^-1 eta``."""
    m = lam + w
    d = w.shape[-1]
    if d == 1:
        f = w[..., 0, 0] / m[..., 0, 0]
        return (w[..., 0, 0] * (1.0 - f))[..., None, None], f[..., None] * eta
    rhs = np.concatenate([w, eta[..., :, None]], axis=-1)
    x = np.linalg.solve(m, rhs)
    wx = w @ x
    return w - wx[..., :d], wx[..., d]


def _take(a: np.ndarray, idx: np.ndarray, core: int) -> np.ndarray:
    """``a`` indexed by ``idx`` on the window axis (the one before the last ``core`` axes)."""
    return a[(Ellipsis, idx) + (slice(None),) * core]


def _put(a: np.ndarray, mask: np.ndarray, value: np.ndarray, core: int) -> np.ndarray:
    """``a`` with the windows in ``mask`` replaced by ``value`` (full size, or the masked rows only)."""
    if mask.all():
        return value
    out = np.array(a, copy=True)
    sel = (Ellipsis, mask) + (slice(None),) * core
    out[sel] = value if value.shape[-core - 1] == int(mask.sum()) else value[sel]
    return out


def chain_information(J: np.ndarray, h: np.ndarray, W: np.ndarray, J0: np.ndarray, h0: np.ndarray, k: int,
                      smooth: bool, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Posterior information ``(Lam, eta)`` of ``z_r`` in the sub-problem of each window ``r``.

    ``J[..., R, d, d]``, ``h[..., R, d]``: data factors per window; ``W[..., R, d, d]``: random-walk
    precision of the step into window ``t`` (``W[..., 0]`` is not used); ``J0``, ``h0`` (same shapes as
    ``J``, ``h``): the prior of window ``r``'s sub-problem, placed on its first window. Filter
    (``smooth=False``): windows ``max(0, r-k+1) .. r``; smoother: ``max(0, r-k) .. min(R-1, r+k)``.
    ``rows`` restricts the computation to those windows (the result then has ``len(rows)`` rows).
    """
    n_win = J.shape[-3]
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if rows is None or len(rows) > n_win // 2:
        lam, eta = _chain_all(J, h, W, J0, h0, k, smooth)
        return (lam, eta) if rows is None else (_take(lam, rows, 2), _take(eta, rows, 1))
    r = np.asarray(rows, dtype=np.intp)
    batch = J.shape[:-3]
    d = J.shape[-1]
    span = k + 1 if smooth else k  # forward part: the first window is r - span + 1
    start = np.maximum(0, r - span + 1)
    lam = np.zeros(batch + (r.size, d, d))
    eta = np.zeros(batch + (r.size, d))
    for j in range(span):
        t = r - span + 1 + j
        tc = np.clip(t, 0, n_win - 1)
        on = t >= start  # inside the sub-problem
        if not on.any():
            continue
        first = t == start
        later = on & ~first
        if later.any():
            sub = later if not later.all() else slice(None)
            lp, ep = _marginalise(_take(lam, sub, 2), _take(eta, sub, 1), _take(W, tc[sub], 2))
            lam, eta = _put(lam, later, lp, 2), _put(eta, later, ep, 1)
        add_l = _take(J, tc, 2)
        add_e = _take(h, tc, 1)
        if first.any():
            add_l = add_l + np.where(first[:, None, None], _take(J0, r, 2), 0.0)
            add_e = add_e + np.where(first[:, None], _take(h0, r, 1), 0.0)
        if on.all():
            lam, eta = lam + add_l, eta + add_e
        else:
            lam = lam + np.where(on[:, None, None], add_l, 0.0)
            eta = eta + np.where(on[:, None], add_e, 0.0)
    if not smooth:
        return lam, eta
    # backward information filter over r+1 .. min(R-1, r+k), then one step back to r
    lb = np.zeros_like(lam)
    eb = np.zeros_like(eta)
    started = np.zeros(r.size, dtype=bool)
    for j in range(k):
        t = r + k - j
        on = t <= n_win - 1
        if not on.any():
            continue
        tc = np.clip(t, 0, n_win - 1)
        if started.any():
            sub = started if not started.all() else slice(None)
            lm, em = _marginalise(_take(lb, sub, 2), _take(eb, sub, 1),
                                  _take(W, np.clip(t + 1, 0, n_win - 1)[sub], 2))
            lb, eb = _put(lb, started, lm, 2), _put(eb, started, em, 1)
        if on.all():
            lb, eb = lb + _take(J, tc, 2), eb + _take(h, tc, 1)
        else:
            lb = lb + np.where(on[:, None, None], _take(J, tc, 2), 0.0)
            eb = eb + np.where(on[:, None], _take(h, tc, 1), 0.0)
        started |= on
    if started.any():
        sub = started if not started.all() else slice(None)
        lm, em = _marginalise(_take(lb, sub, 2), _take(eb, sub, 1), _take(W, np.clip(r + 1, 0, n_win - 1)[sub], 2))
        if started.all():
            lam, eta = lam + lm, eta + em
        else:
            lam = np.array(lam, copy=True)
            eta = np.array(eta, copy=True)
            lam[..., started, :, :] += lm
            eta[..., started, :] += em
    return lam, eta


def _chain_all(J: np.ndarray, h: np.ndarray, W: np.ndarray, J0: np.ndarray, h0: np.ndarray, k: int,
               smooth: bool) -> tuple[np.ndarray, np.ndarray]:
    """`chain_information` for every window, with slices instead of gathers: at step ``j`` of the
    forward pass, windows ``r >= span-1-j`` are inside their sub-problem and see window
    ``t = r - span + 1 + j``, a contiguous range."""
    n_win = J.shape[-3]
    span = k + 1 if smooth else k
    lam = np.zeros(J.shape)
    eta = np.zeros(h.shape)
    for j in range(span):
        lo = max(0, span - 1 - j)  # first window inside its sub-problem at this step
        if lo >= n_win:
            continue
        t0, t1 = lo - span + 1 + j, n_win - span + 1 + j  # t for rows lo .. n_win-1
        if j > 0:  # windows that started before: pass through the random walk into t
            a = max(lo, span - j)  # rows that started at an earlier step (t > start)
            if a < n_win:
                ta = a - span + 1 + j
                lp, ep = _marginalise(lam[..., a:, :, :], eta[..., a:, :], W[..., ta:t1, :, :])
                lam[..., a:, :, :], eta[..., a:, :] = lp, ep
        lam[..., lo:, :, :] += J[..., t0:t1, :, :]
        eta[..., lo:, :] += h[..., t0:t1, :]
        # the prior of each window's sub-problem enters at its first window
        if j == 0:
            lam[..., lo:, :, :] += J0[..., lo:, :, :]
            eta[..., lo:, :] += h0[..., lo:, :]
        elif lo == span - 1 - j:  # window lo starts at t = 0 at this step
            lam[..., lo, :, :] += J0[..., lo, :, :]
            eta[..., lo, :] += h0[..., lo, :]
    if not smooth:
        return lam, eta
    lb = np.zeros(J.shape)
    eb = np.zeros(h.shape)
    for j in range(k):
        # window r's backward filter is at t = r + k - j; valid while t <= n_win - 1
        hi = n_win - (k - j)  # rows 0 .. hi-1 are inside
        if hi <= 0:
            continue
        started_hi = max(0, n_win - k + j - 1) if j > 0 else 0  # rows inside at the previous step
        if started_hi > 0:
            lm, em = _marginalise(lb[..., :started_hi, :, :], eb[..., :started_hi, :],
                                  W[..., k - j + 1:k - j + 1 + started_hi, :, :])
            lb[..., :started_hi, :, :], eb[..., :started_hi, :] = lm, em
        lb[..., :hi, :, :] += J[..., k - j:k - j + hi, :, :]
        eb[..., :hi, :] += h[..., k - j:k - j + hi, :]
    n_b = n_win - 1  # windows with a next window
    if n_b > 0:
        lm, em = _marginalise(lb[..., :n_b, :, :], eb[..., :n_b, :], W[..., 1:, :, :])
        lam[..., :n_b, :, :] += lm
        eta[..., :n_b, :] += em
    return lam, eta


def information_to_moments(lam: np.ndarray, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean ``lam^-1 eta`` and covariance ``lam^-1`` (batched; ``lam`` symmetric positive definite)."""
    d = lam.shape[-1]
    if d == 1:
        v = 1.0 / lam
        return v[..., 0] * eta, v
    eye = np.broadcast_to(np.eye(d), lam.shape)
    x = np.linalg.solve(lam, np.concatenate([eye, eta[..., :, None]], axis=-1))
    return x[..., d], _sym(x[..., :d])


@dataclass(frozen=True, eq=False)
class ChainPosterior:
    """EP's result: per window ``mean[..., R, d]`` and ``cov[..., R, d, d]`` of ``z_r``, the sites
    ``tau``/``nu`` ``[..., R, m]`` on ``u = C z``, and the EP iterations run."""

    mean: np.ndarray
    cov: np.ndarray
    tau: np.ndarray
    nu: np.ndarray
    iterations: int
    converged: bool


def _rows_times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for ``a[n, p]``, ``b[p, q]``, row by row in a fixed order. A 2-D BLAS product of ``n``
    rows may round a row differently depending on ``n`` (edge kernels), and ``n`` here is the number of
    windows being updated, which depends on *later* windows: the causal filter must not (bit for bit)."""
    return (a[:, :, None] * b[None, :, :]).sum(axis=1)


def _dilate(changed: np.ndarray, k: int, smooth: bool) -> np.ndarray:
    """Windows whose sub-problem contains a changed window (changed: bool ``[R]``)."""
    n = changed.size
    c = np.concatenate([[0], np.cumsum(changed)])
    r = np.arange(n)
    if smooth:  # window r sees r-k .. r+k
        lo, hi = np.maximum(0, r - k), np.minimum(n, r + k + 1)
    else:  # window r sees r-k+1 .. r
        lo, hi = np.maximum(0, r - k + 1), r + 1
    return (c[hi] - c[lo]) > 0


def _site_update(um: np.ndarray, uv: np.ndarray, tau: np.ndarray, nu: np.ndarray, skip: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """EP update of truncation sites ``u <= 0`` from the marginal ``N(um, uv)`` of ``u`` (which includes
    the sites ``tau``, ``nu``): returns the new sites, the cavity precision and whether the cavity is
    proper. Sites whose cavity is more than ``skip`` std inside the feasible side become 0."""
    uv = np.maximum(uv, 1e-300)
    tau_c = 1.0 / uv - tau
    nu_c = um / uv - nu
    ok = tau_c > 0
    tc = np.where(ok, tau_c, 1.0)
    mc, vc = nu_c / tc, 1.0 / tc
    mt, vt = truncnorm_upper_moments(mc, vc)
    vt = np.maximum(vt, 1e-300)
    far = -mc / np.sqrt(vc) > skip
    t_new = np.where(far, 0.0, np.maximum(1.0 / vt - tc, 0.0))
    n_new = np.where(far, 0.0, mt / vt - nu_c)
    return t_new, n_new, tc, ok


def ep_chain(J: np.ndarray, h: np.ndarray, W: np.ndarray, J0: np.ndarray, h0: np.ndarray, C: np.ndarray, k: int,
             smooth: bool, *, max_iter: int = 30, damping: float = 1.0, tol: float = 1e-3, skip: float = 4.0,
             inner: int = 30) -> ChainPosterior:
    """Gaussian EP for the chain of `chain_information` times the truncations ``C z_r <= 0`` (``C[m, d]``,
    one row per inequality, every window).

    Schedule (sites start at zero): each outer iteration takes the windows whose sub-problem changed,
    and runs EP on their own sites with everything else held fixed — a window's own sites enter its
    marginal's information matrix additively, so the local marginal is exact and costs one ``d x d``
    solve per inner iteration; then it recomputes the chain for the windows whose sub-problem holds a
    changed site. A site moves a fraction ``damping`` of the way to its EP update (natural parameters),
    halved each time its update changes direction; it stops when the change is below ``tol`` (in units
    of the cavity) or its cavity is improper (the standard safeguard: keep the site). A site whose
    cavity is more than ``skip`` std inside the feasible side is zero (at 4 the truncation would move
    the mean by 1.3e-4 std). Windows are weakly coupled through the random walk, so few outer
    iterations are needed; a site only restarts when its own sub-problem changed, so in the filter a
    window never depends on how long later windows took to converge.
    """
    batch = J.shape[:-3]
    n_win, d = J.shape[-3], J.shape[-1]
    m = C.shape[0]
    nb = int(np.prod(batch, dtype=np.int64))
    lam, eta = chain_information(J, h, W, J0, h0, k, smooth)
    if m == 0:
        mean, cov = information_to_moments(lam, eta)
        return ChainPosterior(mean, cov, np.zeros(batch + (n_win, 0)), np.zeros(batch + (n_win, 0)), 0, True)
    lam_f = np.ascontiguousarray(lam).reshape(nb * n_win, d, d)
    eta_f = np.ascontiguousarray(eta).reshape(nb * n_win, d)
    Jt = np.array(J, copy=True)
    ht = np.array(h, copy=True)
    Jt_f, ht_f = Jt.reshape(nb * n_win, d, d), ht.reshape(nb * n_win, d)
    tau = np.zeros((nb * n_win, m))
    nu = np.zeros((nb * n_win, m))
    step = np.full((nb * n_win, m), float(damping))
    last = np.zeros((nb * n_win, m))
    fresh = np.arange(nb * n_win)
    Ct = C.T
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        # which sites of the fresh windows need EP at all
        mean_r, cov_r = information_to_moments(lam_f[fresh], eta_f[fresh])
        um = _rows_times(mean_r, Ct)
        uv = np.maximum(((cov_r @ Ct) * Ct).sum(axis=-2), 1e-300)
        tc = 1.0 / uv - tau[fresh]
        cav_beta = -(um / uv - nu[fresh]) / np.sqrt(np.where(tc > 0, tc, 1.0))
        act = (tau[fresh] != 0) | (nu[fresh] != 0) | (cav_beta <= skip)
        sel = act.any(axis=1)
        aw, act = fresh[sel], act[sel]
        if aw.size == 0:
            converged = True
            break
        t0, n0 = tau[aw], nu[aw]
        l_rest = lam_f[aw] - (Ct * t0[:, None, :]) @ C
        e_rest = eta_f[aw] - _rows_times(n0, C)
        t_cur, n_cur = t0.copy(), n0.copy()
        st, ls = step[aw], last[aw]
        for _ in range(inner):
            rows_in = np.flatnonzero(act.any(axis=1))
            if rows_in.size == 0:
                break
            mloc, cloc = information_to_moments(l_rest[rows_in] + (Ct * t_cur[rows_in, None, :]) @ C,
                                                 e_rest[rows_in] + _rows_times(n_cur[rows_in], C))
            um = _rows_times(mloc, Ct)
            uv = ((cloc @ Ct) * Ct).sum(axis=-2)
            tr, nr = t_cur[rows_in], n_cur[rows_in]
            t_new, n_new, tcav, ok = _site_update(um, uv, tr, nr, skip)
            a = act[rows_in] & ok
            s_r = st[rows_in]
            flip = (n_new - nr) * ls[rows_in] < 0
            s_r = np.where(a & flip, 0.5 * s_r, s_r)
            t_new = (1.0 - s_r) * tr + s_r * t_new
            n_new = (1.0 - s_r) * nr + s_r * n_new
            # a move below tol is not made: the site is converged (so outer iterations end)
            a &= np.maximum(np.abs(t_new - tr) / tcav, np.abs(n_new - nr) / np.sqrt(tcav)) > tol
            st[rows_in] = s_r
            ls[rows_in] = np.where(a, n_new - nr, ls[rows_in])
            t_cur[rows_in] = np.where(a, t_new, tr)
            n_cur[rows_in] = np.where(a, n_new, nr)
            act[rows_in] = a
        step[aw], last[aw] = st, ls
        dt, dn = t_cur - t0, n_cur - n0
        moved = (dt != 0).any(axis=1) | (dn != 0).any(axis=1)
        tau[aw], nu[aw] = t_cur, n_cur
        if not moved.any():
            converged = True
            break
        mv = aw[moved]
        Jt_f[mv] += (Ct * dt[moved, None, :]) @ C
        ht_f[mv] += _rows_times(dn[moved], C)
        changed = np.zeros(n_win, dtype=bool)
        changed[mv % n_win] = True
        rows = np.flatnonzero(_dilate(changed, k, smooth))
        lr, er = chain_information(Jt, ht, W, J0, h0, k, smooth, rows=rows)
        flat = (np.arange(nb)[:, None] * n_win + rows[None, :]).ravel()
        lam_f[flat] = lr.reshape(-1, d, d)
        eta_f[flat] = er.reshape(-1, d)
        fresh = flat
    mean, cov = information_to_moments(lam_f, eta_f)
    return ChainPosterior(mean.reshape(batch + (n_win, d)), cov.reshape(batch + (n_win, d, d)),
                          tau.reshape(batch + (n_win, m)), nu.reshape(batch + (n_win, m)), it, bool(converged))
