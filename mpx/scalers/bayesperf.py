"""BayesPerf: joint Bayesian inference of multiplexed events through the relations among them.

Source: S. S. Banerjee, S. Jha, Z. Kalbarczyk, R. K. Iyer, "BayesPerf: Minimizing Performance Monitoring
Errors Using Bayesian Statistics", ASPLOS 2021 (doi 10.1145/3445814.3446739). There is no public code;
this is mpx's reading of the paper, with the choices it leaves open stated below.

**Factor graph.** Variables: each event's rate in each read window (plus latent variables: events that
relations mention but the problem does not measure). Factors: one measurement likelihood per event and
window it ran in; one factor per relation and window — exact identities ``A x = 0`` (TMA slot splits,
gem5 ``::total``, metric formulas that define a measured event) and inequalities ``B x <= 0`` (misses <=
accesses); ``x >= 0`` for every counter; and, to link windows, a Gaussian random walk of each event's
rate (the paper expands the graph along the chain of scheduled configurations and runs EP over the k
most recent slices). Relations come from the ``relations`` hyper-parameter — prior knowledge like
vendor formulas, never counts of the trace — see `mpx.scalers.inference.relations`.

**Measurement likelihood.** An event that ran in ``N`` quanta of a window gives ``N`` samples, its
per-quantum rates. With their mean ``mu`` and standard deviation ``S`` the paper's marginal of the true
rate is a Student-t, ``mu + (S/sqrt(N))·t(N-1)``. mpx adds:

- ``S²`` is shrunk towards the event's pooled within-window variance ``S0²`` with ``prior_dof`` pseudo
  degrees of freedom (the conjugate normal/scaled-inverse-chi² update ``S_eff² = ((N-1)S² + nu0 S0²) /
  (N-1+nu0)``, Student-t with ``N-1+nu0`` degrees of freedom): without it ``N = 1`` has no ``S``,
  ``N = 2, 3`` have no variance, and a window whose few samples happen to agree would claim a precision
  it does not have. The pool uses past windows only in the filter, all windows in the smoother.
- ``pool="dispersion"`` (default) pools a quasi-Poisson dispersion instead of one variance:
  ``S0² = phi * mu / d`` for quanta of length ``d``, ``phi = sum(ss * d) / sum(df * mu)``, and the
  random walk below is relative (``q = rho * level²``). On the shipped callgrind datasets (bursty
  events: cold-miss bursts thousands of times the quiet rate) one pooled variance per event made the
  quiet windows' measurements uninformative, and the truncation at 0 of such a wide Gaussian then put
  the posterior mean near ``0.8 * std`` — thousands of counts where the truth was 0-2 (mean window
  error 27x); ``pool="variance"`` is the homoscedastic pool (the paper's model read literally).
- a finite-population correction: the window's rate is the time-weighted mean over *all* its quanta, of
  which the measured ones are a sample, so the spread is ``S_eff² (1/N - 1/n)`` for ``N`` of ``n`` equal
  quanta (``sum_q (w_q - d_q/T)²`` in general): it shrinks with the time the event ran and vanishes
  when it ran the whole window. Floors: ``min_rel_std`` relative std, and one count over the time it
  did not run.
- ``drift=True`` (off by default) adds the variance of a random walk of the rate *inside* the window
  (`window_measurements`, fitted on the variogram of the samples). The within-run ``S`` only sees fast
  noise; when rates drift (phases, bursts) the extrapolation error of a contiguous run is larger — on
  the synthetic ``tma`` preset the paper's likelihood underestimates it up to 5x (z-scores with std
  3-5), with ``drift`` the z-scores have std ~1. Calibrated variances do not give better *means* there,
  though (events' extrapolation errors are correlated through shared phases, which neither model
  has), so the paper's model stays the default; see ``benchmarks/bench_bayesperf.py``.

The location is the time-weighted mean ``raw/running`` — perf's linear estimate — so with no relation
and no neighbour BayesPerf returns what linear scaling returns. The Student-t is moment-matched to a
Gaussian for EP: variance ``scale²·nu/(nu-2)``, finite because ``prior_dof > 2``.

**Random walk.** ``x_t - x_{t-1} ~ N(0, q)`` per event; ``process="auto"`` estimates ``q`` by moments
from successive measured windows (``E[(mu_b - mu_a)²] = (b-a) q + var_a + var_b``; past windows only in
the filter; with ``drift`` at least the ``2/3 beta T`` the within-window walk implies), a number sets
``q = (process·level)²``. Floors: ``min_rel_std`` of the level, and one count per window (the resolution
of a count; a walk frozen below it next to busy events made the information matrices singular on gem5).

**Inference.** Gaussian EP (`mpx.scalers.inference.ep`): identities exactly (null-space coordinates), truncation
factors by moment matching of truncated Gaussians, each window's estimate from the ``k`` windows up to
it (`BayesPerfScaler`, causal) or the ``k`` windows on either side (`BayesPerfSmoother`, offline). Events
no relation ties are independent chains, solved together. With only identities (no binding truncation)
the posterior is the exact Gaussian one: constrained least squares / Kalman filter and smoother.

**Point estimate** (``point``). ``"mode"`` (default, the paper's): the posterior maximum, as BayesPerf
reports it — window ``r``'s block of the maximum of its sub-problem's truncated posterior, the convex
quadratic programme ``min 0.5 z'Λz - η'z`` subject to every identity, inequality and ``x >= 0`` of every
window in it, on the same Gaussian information ``(Λ, η)`` EP starts from, solved exactly
(`mpx.scalers.inference.mode`). Where no truncation binds it is the Gaussian posterior mean; where one
binds the estimate sits on the boundary (e.g. 0, or ``misses == accesses``). ``"mean"``: EP's posterior
mean — **a deviation from the paper** (mpx's former default), kept as an option: the mean of a
truncated posterior is pulled inside the feasible set, by ~0.8 std for a rate measured at ~0 with a wide
posterior (the quickstart on callgrind, median window MAPE over its cells: 86.8 % with the mean, 29.4 %
with the mode). The count is the point estimate times the window length; ``std`` is EP's
posterior standard deviation in both cases (the mode has no spread of its own).

**Relation members no counter measures** (issue 28). The paper's relations are among *measured*
events: its scheduler chains configurations so that the members of an identity are counted together and
one counted configuration pins the others; it says nothing of a member that is never counted, so nothing
in it implies a prior for one. mpx's default (``latent="flat"``) is the prior that carries no information
but that a count is not negative: flat on ``x >= 0``, integrated out exactly, which turns an identity
through such a member into the inequality its non-negativity implies (``demandHits`` never measured:
``demandMisses <= demandAccesses``). The earlier choice (``latent="zero"``: a Gaussian centred at 0)
claimed the member is probably near 0 and pulled the identity's other members towards it
(`experiments/analyses/bayesperf_latent.py`, gem5 catalog's relations, 2 generic counters: the WAPE of
``icache.demandMisses`` on gem5-compute 3,820 % with the 0-centred prior, 100 % flat, as without relations;
on gem5-xz 1,003 % and 93 %; the mean over events on gem5-compute 154.9 % and 63.9 %). An identity
among measured events is kept only when some read window counts all but one of its members
(``identities="informative"``); where that happens in a few windows only, the identity is still
conditioned on in every window (a per-window rule is not built): on the gem5 catalog at 2 counters the
rename-stage identity still spreads the residual of its large terms onto ``serializeStallCycles``.

**Not estimated.** A window is flagged ``not_estimated`` when the posterior variance of the event's rate
is not below a tenth of the prior's: nothing informed it (it did not run within the sub-problem's
windows and no relation determines it). The count there is the point estimate under the diffuse prior
centred on the last measured rate (the carried rate), or NaN if the event never ran before.

**Known limit: deterministic counts with phase changes** (gem5 per-interval stats, e.g. L2
``demandAccesses::data``: quanta ``155, 155, 153, 156`` within a phase, ``2, 2, 61, 754`` at a phase
change). The pooled dispersion is a ratio of sums, so one phase-change window sets it for every later
window: there the measurement std is typically ~20x the actual error of ``raw/running`` (median
``|z|`` 0.05 instead of 0.67), and the moment estimate of the random walk goes negative (``q`` at its
``min_rel_std`` floor), so the chain follows level changes slowly. With ``point="mean"`` the ``x >= 0``
truncation of those wide posteriors also pushes small rates up (``N(20, 234²)`` truncated at 0 has mean
~190); the mode stays at 20 (or at 0 where the Gaussian's maximum is below it), so what remains with the
default is the slow chain and the over-wide ``std``. Note also
that BayesPerf fills in the windows where an event did not run (the random walk informs them) while
linear scaling leaves them missing: after a burst or a start-up transient such a window is not
predictable from the counts (carrying the last rate forward is off by 130% there too); compare them on
common window sets (`docs/scoring.md`).

**Known limit: EP's sites travel between sub-problems** (what ``point="mean"`` and ``std`` inherit; the
mode uses no site). A window's truncation sites are fitted in its own sub-problem and reused in every
overlapping one (`mpx.scalers.inference.ep`). Where a window's Gaussian sits near 0 the site is a strong
pseudo-measurement near 0, and with a nearly frozen random walk each later window's site is fitted
against a cavity it already dragged down: on callgrind ``kernels`` (perf, 4 counters, a read every 10
quanta, ``Bi``, windows 117-128) one window measured at 2 ± 191 leaves EP at 578 ± 246 eleven windows
later, where the measurement is 48,814 ± 27,942, the untruncated posterior 45,522 ± 9,869, the mode
45,522 and the truth 34,181. Per-sub-problem EP (each sub-problem its own sites) would remove it at
about ``k`` times the cost.

After `~mpx.scalers.base.Scaler.estimate`: ``relations_`` (the `RelationSet`), ``components_`` (per
connected component: size, dimension, inequalities, EP iterations, convergence) and ``model_`` (the
Gaussian model as solved, per window and variable); each component's ``binding`` counts the sub-problems
whose mode a truncation moved (``point="mode"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.linalg

from mpx.params import Interval, StrOptions
from mpx.scalers.base import Estimate, Scaler, ScalerError
from mpx.scalers.inference.ep import ep_chain
from mpx.scalers.inference.mode import chain_mode
from mpx.scalers.inference.relations import RelationSet, informative_identities, marginalize_latent, relation_set

__all__ = ["BayesPerfScaler", "BayesPerfSmoother", "Measurements", "window_measurements"]

_SOURCE = ("Banerjee, Jha, Kalbarczyk, Iyer: BayesPerf: Minimizing Performance Monitoring Errors Using Bayesian "
           "Statistics, ASPLOS 2021, doi 10.1145/3445814.3446739 (factor graph of event relations, Student-t "
           "measurement model, EP over the k most recent slices)")


@dataclass(frozen=True, eq=False)
class Measurements:
    """Per read window ``r`` and event ``e`` (arrays ``[R, E]`` unless noted): ``mu`` (time-weighted mean
    rate of the quanta it ran in, NaN if none), ``var`` (moment-matched variance of the Student-t for the
    window's rate; inf if it did not run), ``n`` (quanta run), ``level`` (mean measured rate so far, or
    overall), ``white`` (finite-population factor ``sum_q (w_q - d_q/T)²``), ``drift_factor`` (``G``, the
    variance of the window mean's error per unit diffusion; 0 without ``drift``), ``beta`` (diffusion of
    the rate's random walk per time unit; 0 without ``drift``), ``length[R]`` (window length), ``broken``
    (running quanta with a non-finite count, skipped)."""

    mu: np.ndarray
    var: np.ndarray
    n: np.ndarray
    level: np.ndarray
    white: np.ndarray
    drift_factor: np.ndarray
    beta: np.ndarray
    length: np.ndarray
    broken: int


def _running_or_total(a: np.ndarray, causal: bool) -> np.ndarray:
    """Sum over windows ``<= r`` (causal) or over all windows, per window."""
    if causal:
        return np.cumsum(a, axis=0)
    return np.broadcast_to(a.sum(axis=0), a.shape)


def _prefix_in_window(v: np.ndarray, first: np.ndarray) -> np.ndarray:
    """For samples sorted by window, the sum of ``v`` over the *earlier* samples of the same window
    (``first[i]``: index of the first sample of sample i's window)."""
    cs = np.cumsum(v)
    return cs - v - (cs[first] - v[first])


def _event_samples(c: np.ndarray, ran: np.ndarray, dur: np.ndarray, a0: np.ndarray, win: np.ndarray,
                   mid: np.ndarray, n_win: int, drift: bool) -> dict[str, np.ndarray]:
    """Per-window sufficient statistics of one event's samples (compressed: only the quanta it ran).

    ``a0[q]``: start of quantum q relative to its window's start; ``win[q]``: its window. Returns
    ``n, run, csum, ss`` (sum of squared deviations of the quantum rates from their window mean),
    ``r2`` (sum of d²), ``gi1`` (``int int 1r(s)1r(u) min(s,u)``), ``gi2`` (``int 1r(s)(T s - s²/2)``
    without the T: ``s2`` and ``s3`` parts), and the variogram sums of successive samples.
    """
    idx = np.flatnonzero(ran)
    out: dict[str, np.ndarray] = {}
    if idx.size == 0:
        z = np.zeros(n_win)
        return {k: z for k in ("n", "run", "csum", "ss", "r2", "i1", "b2", "b3", "vn", "vx", "vxx", "vy", "vxy")}
    cc, d, w = c[idx], dur[idx], win[idx]
    rate = cc / d
    first = np.searchsorted(w, w, side="left")
    ref = rate[first]  # the window's first sample: keeps the sums of squares free of cancellation
    dev = rate - ref
    bc = lambda x: np.bincount(w, weights=x, minlength=n_win)  # noqa: E731
    out["n"] = np.bincount(w, minlength=n_win).astype(np.float64)
    out["run"] = bc(d)
    out["csum"] = bc(cc)
    sdev = bc(dev)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ss"] = np.maximum(bc(dev * dev) - sdev * sdev / np.maximum(out["n"], 1.0), 0.0)
    out["r2"] = bc(d * d)
    if drift:
        a = a0[idx]
        b = a + d
        half = 0.5 * (b * b - a * a)
        out["i1"] = bc(a * d * d + d**3 / 3.0 + 2.0 * d * _prefix_in_window(half, first))
        out["b2"] = bc(half)  # int s ds over the run
        out["b3"] = bc((b**3 - a**3) / 6.0)  # int s²/2 ds over the run
        if idx.size > 1:
            x = np.diff(mid[idx])
            y = np.diff(rate) ** 2
            wl = w[1:]
            for key, v in (("vn", np.ones_like(x)), ("vx", x), ("vxx", x * x), ("vy", y), ("vxy", x * y)):
                out[key] = np.bincount(wl, weights=v, minlength=n_win)
        else:
            for key in ("vn", "vx", "vxx", "vy", "vxy"):
                out[key] = np.zeros(n_win)
    return out


def window_measurements(counts: np.ndarray, running: np.ndarray, quantum_edges: np.ndarray,
                        read_quanta: np.ndarray, *, prior_dof: float, min_rel_std: float,
                        causal: bool, drift: bool = False, pool: str = "dispersion") -> Measurements:
    """The measurement likelihood of every event in every read window (module docstring), vectorised.

    ``counts[Q, E]`` raw count per quantum (NaN where the event did not run), ``running[Q, E]``,
    ``quantum_edges[Q+1]``, ``read_quanta[R+1]`` (quantum index of each read).

    The window's true rate is the time-weighted mean of the rate over the window ``[0, T]``; ``mu``
    weights it by ``1r(t)/run`` (``1r``: the event ran; ``run``: time it ran), so the error is
    ``int w(t) rho(t) dt`` with ``w = 1r/run - 1/T``. Its variance has a white part
    ``S_eff² sum_q (w_q d_q)²`` (the finite-population correction ``S²/N (1 - N/n)`` for equal quanta) and,
    with ``drift``, a random-walk part ``beta * G``, ``G = int_0^T W(t)² dt``, ``W(t) = int_t^T w`` (the
    variance of a weighted mean of a Brownian motion of diffusion ``beta``), computed in closed form per
    window from the intervals the event ran. ``beta`` comes from the variogram of successive samples
    ``E[(rho_b - rho_a)²] = 2 sigma² + beta (t_b - t_a)``, fitted by least squares over the pairs whose
    later sample is in a window ``<= r`` (causal) or anywhere (offline); 0 while the lags seen cannot
    separate the two terms (an event that always runs).
    """
    counts = np.asarray(counts, dtype=np.float64)
    edges = np.asarray(quantum_edges, dtype=np.float64)
    dur = np.diff(edges)
    ran_all = np.asarray(running, dtype=bool)
    ran_all = ran_all & np.isfinite(counts)
    broken = int((np.asarray(running, dtype=bool) & ~np.isfinite(counts)).sum())
    rq = np.asarray(read_quanta, dtype=np.intp)
    n_win, n_ev = rq.size - 1, counts.shape[1]
    sizes = np.diff(rq)
    win = np.repeat(np.arange(n_win), sizes)
    length = edges[rq[1:]] - edges[rq[:-1]]
    a0 = edges[:-1] - np.repeat(edges[rq[:-1]], sizes)
    mid = 0.5 * (edges[:-1] + edges[1:])
    keys = ("n", "run", "csum", "ss", "r2") + (("i1", "b2", "b3", "vn", "vx", "vxx", "vy", "vxy") if drift else ())
    st = {k: np.empty((n_win, n_ev)) for k in keys}
    for e in range(n_ev):
        one = _event_samples(counts[:, e], ran_all[:, e], dur, a0, win, mid, n_win, drift)
        for k in keys:
            st[k][:, e] = one[k]
    n, run_t = st["n"], st["run"]
    has = n > 0
    run1 = np.where(has, run_t, 1.0)
    T = length[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(has, st["csum"] / run1, np.nan)
    df = np.maximum(n - 1.0, 0.0)
    mu0 = np.where(has, mu, 0.0)
    cnt = _running_or_total(has.astype(np.float64), causal)
    level = np.where(cnt > 0, _running_or_total(np.abs(mu0), causal) / np.maximum(cnt, 1.0), 0.0)
    pool_df = _running_or_total(df, causal)
    if pool == "variance":
        s0 = np.where(pool_df > 0, _running_or_total(st["ss"], causal) / np.maximum(pool_df, 1.0), level**2)
    else:  # "dispersion": quasi-Poisson, Var(rate of a quantum of length d) = phi * mu / d
        dbar = run1 / np.maximum(n, 1.0)
        mu_f = np.maximum(mu0, 1.0 / run1)  # at least one count over the time it ran
        num = _running_or_total(np.where(df > 0, st["ss"] * dbar, 0.0), causal)
        den = _running_or_total(np.where(df > 0, df * mu_f, 0.0), causal)
        phi = np.where(den > 0, num / np.maximum(den, 1e-300), 1.0)
        s0 = np.maximum(phi, 1e-12) * mu_f / dbar
    s_eff = (st["ss"] + prior_dof * s0) / (df + prior_dof)
    nu = df + prior_dof
    d2 = np.add.reduceat(dur * dur, rq[:-1])[:, None]
    white = d2 / T**2 + st["r2"] * (1.0 / run1**2 - 2.0 / (run1 * T))
    white = np.maximum(white, 0.0)
    var = s_eff * white
    beta = np.zeros_like(var)
    g = np.zeros_like(var)
    if drift:
        sn, sx, sxx, sy, sxy = (_running_or_total(st[k], causal) for k in ("vn", "vx", "vxx", "vy", "vxy"))
        with np.errstate(invalid="ignore", divide="ignore"):
            cxx = sxx - sx * sx / np.maximum(sn, 1.0)
            beta = (sxy - sx * sy / np.maximum(sn, 1.0)) / cxx
        beta = np.where((sn >= 3) & (cxx > 1e-9 * np.maximum(sxx, 1e-300)), np.maximum(beta, 0.0), 0.0)
        # G = I1/run² - (2/T) I2/run + T/3, I2 = T*int s - int s²/2 over the run
        g = np.maximum(st["i1"] / run1**2 - 2.0 / T * (T * st["b2"] - st["b3"]) / run1 + T / 3.0, 0.0)
        g = np.where(has, g, 0.0)
        var = var + beta * g
    with np.errstate(invalid="ignore", divide="ignore"):
        var = var * nu / (nu - 2.0)
    # count resolution: nothing below one count over the time it did not run
    resolution = ((1.0 - np.clip(run_t / T, 0.0, 1.0)) / run1) ** 2
    floor = (min_rel_std * np.maximum(np.maximum(np.abs(mu0), level), 1.0 / T)) ** 2
    var = np.where(has, np.maximum(var, np.maximum(floor, resolution)), np.inf)
    return Measurements(mu=mu, var=var, n=n, level=level, white=np.where(has, white, 0.0), drift_factor=g, beta=beta,
                        length=length, broken=broken)


def _random_walk(m: Measurements, causal: bool, process: Any, min_rel_std: float,
                 pool: str = "dispersion") -> np.ndarray:
    """Random-walk variance ``q[R, E]`` of each event's rate for the step into window r.

    ``pool="variance"``: one variance per event for the whole run (pooled excess of successive
    differences). ``pool="dispersion"``: a relative one, ``q_r = rho * l_r²`` with ``l_r²`` the mean
    square of the last two measured rates at or before r (bursty real events: a step's size scales with
    the rate, a burst must not make the walk of the quiet phases explode). Either way no event walks by
    less than one count per window (``q >= 1/T²``), the resolution of a count."""
    has = np.isfinite(m.mu)
    n_win = has.shape[0]
    eps = 1.0 / m.length[:, None]
    base = np.maximum(m.level, eps)
    if process != "auto":
        return _count_resolution(np.maximum((float(process) * base) ** 2, (min_rel_std * base) ** 2), eps)
    idx = np.where(has, np.arange(n_win)[:, None], -1)
    last = np.maximum.accumulate(idx, axis=0)
    prev = np.vstack([np.full((1, has.shape[1]), -1), last[:-1]])  # last measured window before r
    pair = has & (prev >= 0)
    pc = np.maximum(prev, 0)
    cols = np.arange(has.shape[1])[None, :]
    mu0 = np.where(has, m.mu, 0.0)
    var0 = np.where(has, m.var, 0.0)
    excess = np.where(pair, (mu0 - mu0[pc, cols]) ** 2 - var0 - var0[pc, cols], 0.0)
    gap = np.where(pair, np.arange(n_win)[:, None] - prev, 0.0)
    tot_ex = _running_or_total(excess, causal)
    if pool == "variance":
        tot_gap = _running_or_total(gap, causal)
        q = np.where(tot_gap > 0, tot_ex / np.maximum(tot_gap, 1.0), base**2)
    else:
        lvl2 = np.where(pair, 0.5 * (mu0**2 + mu0[pc, cols] ** 2), 0.0) + eps**2
        tot_w = _running_or_total(gap * lvl2, causal)
        rho = np.where(tot_w > 0, tot_ex / np.maximum(tot_w, 1e-300), 1.0)
        cur = np.where(last >= 0, mu0[np.maximum(last, 0), cols], 0.0)
        before = np.where(prev >= 0, mu0[pc, cols], cur)
        q = rho * (0.5 * (cur**2 + before**2) + eps**2)
    # the within-window random walk (diffusion beta) moves window means by (2/3) beta T per window
    q = np.maximum(q, (2.0 / 3.0) * m.beta * m.length[:, None])
    q = np.maximum(q, (min_rel_std * base) ** 2)
    return _count_resolution(q, eps)


def _count_resolution(q: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The random walk's floor: one count per window (``eps = 1/T``), never ``min_rel_std`` of a rare
    event's rate. A walk frozen below a count (1e-3 counts per window for an event that counts less than
    one per window) next to busy events tied to it by an identity spreads the walk's precisions over 1e18 in the
    null-space coordinates: the information matrices are singular in floating point (gem5 icache
    ``demandMisses`` beside ``demandAccesses``/``demandHits`` on gem5-compute)."""
    return np.maximum(q, eps**2)


class BayesPerfScaler(Scaler):
    """BayesPerf, causal filter: each read window from EP over the ``k`` windows up to it (module
    docstring).

    Hyper-parameters: ``relations`` (anything `mpx.scalers.inference.relations.relation_set` reads: a catalog or
    its name, relations, relation text, synthetic identities, ``"gem5-totals"``; None: each event alone
    with its random walk and ``x >= 0``), ``k`` (windows per sub-problem), ``prior_dof`` (> 2: pseudo
    degrees of freedom of the pooled sample variance), ``drift`` (add the within-window random walk to
    the measurement variance), ``process`` (``"auto"`` or the random walk's relative std per window),
    ``nonnegative`` (truncate every rate at 0), ``ep_iterations`` (outer EP iterations, 0: no
    truncation), ``damping`` (0 < d <= 1), ``tol`` (site change that counts as converged, in cavity
    std), ``min_rel_std`` (floor of a measurement's relative std), ``prior_scale`` (the prior's std in
    units of the component's rate level), ``pool`` (``"dispersion"`` or ``"variance"``: how the
    measurement variance and random walk are pooled, see the module docstring), ``point`` (``"mode"``,
    the paper's posterior maximum, or ``"mean"``, EP's posterior mean: mpx's deviation, see the module
    docstring; ``std`` is EP's either way). ``ep_iterations = 0`` leaves the truncations out of EP (the
    mean and std); the mode honours them whatever ``ep_iterations``. ``latent``: the prior of a relation's
    member that no counter measures — ``"flat"`` (default): a flat prior on ``x >= 0``, integrated out
    exactly (`mpx.scalers.inference.relations.marginalize_latent`: an identity through it becomes the
    inequality its non-negativity implies); ``"zero"``: mpx's earlier choice, a Gaussian centred at 0 with
    std ``prior_scale`` times the component's rate level and a random walk as loose, which pulls the
    latent towards 0 and the identity's other members with it (issue 28). ``identities``: ``"informative"``
    (default, with ``latent="flat"``) keeps an identity only when some read window counts all but one of its
    members (`mpx.scalers.inference.relations.informative_identities`: otherwise it pins nothing and only
    spreads its large terms' residual onto its small ones); ``"all"`` keeps every one.
    """

    name: ClassVar[str] = "bayesperf"
    causal: ClassVar[bool] = True
    view: ClassVar[str] = "quantum"
    source: ClassVar[str] = _SOURCE
    _smooth: ClassVar[bool] = False
    needs_relations: ClassVar[bool] = True
    param_constraints: ClassVar[dict] = {
        "k": Interval(int, 1, None), "prior_dof": Interval(float, 2, None, closed="neither"), "drift": "boolean",
        "process": [StrOptions(("auto",)), Interval(float, 0, None)], "nonnegative": "boolean",
        "ep_iterations": Interval(int, 0, None), "damping": Interval(float, 0, 1, closed="right"),
        "tol": Interval(float, 0, None, closed="neither"), "min_rel_std": Interval(float, 0, None, closed="neither"),
        "prior_scale": Interval(float, 0, None, closed="neither"), "pool": StrOptions(("dispersion", "variance")),
        "point": StrOptions(("mode", "mean")), "latent": StrOptions(("flat", "zero")),
        "identities": StrOptions(("informative", "all"))}

    def __init__(self, relations: Any = None, k: int = 4, prior_dof: float = 4.0, drift: bool = False,
                 process: Any = "auto", nonnegative: bool = True, ep_iterations: int = 30, damping: float = 1.0,
                 tol: float = 1e-3, min_rel_std: float = 1e-3, prior_scale: float = 10.0, pool: str = "dispersion",
                 point: str = "mode", latent: str = "flat", identities: str = "informative"):
        self.relations = relations
        self.k = k
        self.prior_dof = prior_dof
        self.drift = drift
        self.process = process
        self.nonnegative = nonnegative
        self.ep_iterations = ep_iterations
        self.damping = damping
        self.tol = tol
        self.min_rel_std = min_rel_std
        self.prior_scale = prior_scale
        self.pool = pool
        self.point = point
        self.latent = latent
        self.identities = identities

    # -- the estimate ------------------------------------------------------------------------------

    def _estimate(self, obs: Any) -> Estimate:
        try:
            return self._estimate_model(obs)
        except np.linalg.LinAlgError as exc:  # a clear refusal, never a LAPACK traceback (issue 27)
            raise ScalerError(
                f"{self.name}: the Gaussian model of these {len(obs.events)} events is numerically singular "
                f"({exc}): an event whose rate is frozen at the count resolution for some windows and busy in "
                "others puts precisions 1e16 apart in one sub-problem (e.g. every one of gem5's ~1,500 stats); "
                "score fewer events (the catalog's: mpx evaluate's default for a gem5 trace)") from None

    def _estimate_model(self, obs: Any) -> Estimate:
        causal = not self._smooth
        rs = relation_set(self.relations, obs.events)
        if self.latent == "flat":
            rs = marginalize_latent(rs, nonnegative=bool(self.nonnegative))
            if self.identities == "informative":
                rs = informative_identities(rs, np.asarray(obs.reads.running) > 0)
        self.relations_: RelationSet = rs
        m = window_measurements(obs.quanta.counts, obs.quanta.running, obs.quanta.edges, obs.reads.quanta,
                                prior_dof=float(self.prior_dof), min_rel_std=float(self.min_rel_std), causal=causal,
                                drift=self.drift, pool=self.pool)
        n_win, n_ev = m.mu.shape
        n_var = len(rs.variables)
        n_lat = n_var - n_ev
        q_ev = _random_walk(m, causal, self.process, float(self.min_rel_std), self.pool)

        def widen(a: np.ndarray, fill: float) -> np.ndarray:
            return np.hstack([a, np.full((n_win, n_lat), fill)]) if n_lat else a

        mu = widen(np.where(np.isfinite(m.mu), m.mu, 0.0), 0.0)
        prec = widen(np.where(np.isfinite(m.var), 1.0 / m.var, 0.0), 0.0)
        eps = 1.0 / m.length[:, None]
        level = widen(np.maximum(m.level, eps), 0.0)
        # carried rate: the last measured mean at or before r (the fallback where nothing informs r)
        has = np.isfinite(m.mu)
        idx = np.maximum.accumulate(np.where(has, np.arange(n_win)[:, None], -1), axis=0)
        carried = np.where(idx >= 0, m.mu[np.maximum(idx, 0), np.arange(n_ev)[None, :]], np.nan)
        m0 = widen(np.where(np.isfinite(carried), carried, 0.0), 0.0)

        # the prior of each window's sub-problem: diffuse, on the largest rate level of the component
        # (latent variables have none of their own); latent variables get a random walk as loose
        tied, singles = [], []
        p0 = np.zeros((n_win, n_var))
        q = widen(q_ev, np.nan)
        for comp in rs.components():
            eq, ineq = self._rows_of(rs, comp)
            (tied if comp.size > 1 or eq.shape[0] or ineq.shape[0] else singles).append((comp, eq, ineq))
            p0[:, comp] = (float(self.prior_scale) * level[:, comp].max(axis=1))[:, None] ** 2
        q = np.where(np.arange(n_var)[None, :] >= n_ev, p0, q)
        #: the Gaussian model as solved (inspection and tests): per window and variable
        self.model_ = {"variables": rs.variables, "mu": mu, "precision": prec, "q": q, "m0": m0, "p0": p0,
                       "length": m.length}
        x_mean = np.zeros((n_win, n_var))
        x_var = np.zeros((n_win, n_var))
        info: list[dict] = []
        for comp, eq, ineq in tied:
            mean, var, stats = self._solve_component(comp, eq, ineq, mu, prec, q[:, comp], m0, p0[:, comp])
            x_mean[:, comp], x_var[:, comp] = mean, var
            info.append({"events": [rs.variables[i] for i in comp], **stats})
        free = np.array([int(c[0]) for c, _, _ in singles], dtype=np.intp)
        if free.size:
            mean, var, stats = self._solve_free(free, mu, prec, q[:, free], m0, p0[:, free])
            x_mean[:, free], x_var[:, free] = mean, var
            info.append({"events": [rs.variables[i] for i in free], "independent": True, **stats})
        self.components_ = info

        length = m.length[:, None]
        rate = x_mean[:, :n_ev]
        informed = x_var[:, :n_ev] < 0.1 * p0[:, :n_ev]
        fallback = np.where(np.isfinite(carried), rate, np.nan)
        counts = np.where(informed, rate, fallback) * length
        std = np.sqrt(np.maximum(x_var[:, :n_ev], 0.0)) * length
        std = np.where(informed, std, np.nan)
        notes = list(rs.notes)
        n_fb = int((~informed & np.isfinite(carried)).sum())
        if n_fb:
            notes.append(f"{n_fb} event-windows not informed by any measurement or relation: carried rate of the "
                         "last window the event ran in")
        if m.broken:
            notes.append(f"{m.broken} running quanta with a non-finite count were skipped")
        for c in info:
            if not c.get("converged", True):
                notes.append(f"EP did not converge in {c['iterations']} iterations for {c['events'][:4]}...")
        est = self.make_estimate(obs, counts, not_estimated=~informed, std=std, notes=notes)
        dropped = list(est.meta.get("dropped", []) or [])
        dropped += list(rs.dropped)
        if m.broken:
            dropped.append({"what": f"{m.broken} quantum samples", "why": "running but the count is not finite"})
        if dropped:
            est.meta["dropped"] = dropped
        est.meta["bayesperf"] = {"components": [{k: v for k, v in c.items() if k != "events"} | {"n": len(c["events"])}
                                                for c in info],
                                 "equalities": list(rs.eq_names), "inequalities": list(rs.ineq_names)}
        return est

    @staticmethod
    def _rows_of(rs: RelationSet, comp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        inside = np.zeros(len(rs.variables), dtype=bool)
        inside[comp] = True
        eq = rs.eq[(rs.eq[:, inside] != 0).any(axis=1)][:, comp] if rs.eq.size else np.zeros((0, comp.size))
        ineq = rs.ineq[(rs.ineq[:, inside] != 0).any(axis=1)][:, comp] if rs.ineq.size else np.zeros((0, comp.size))
        return eq, ineq

    def _ep(self, J, h, W, J0, h0, C):
        return ep_chain(J, h, W, J0, h0, C, int(self.k), self._smooth, max_iter=int(self.ep_iterations),
                        damping=float(self.damping), tol=float(self.tol))

    def _point(self, post: Any, J, h, W, J0, h0, C) -> tuple[np.ndarray, dict]:
        """The point estimate of ``z_r`` per window: the posterior mode (`chain_mode`) or EP's mean."""
        if self.point == "mean":
            return post.mean, {}
        z, binding = chain_mode(J, h, W, J0, h0, C, int(self.k), self._smooth)
        return z, {"binding": binding}

    def _solve_component(self, comp, eq, ineq, mu, prec, q, m0, p0):
        """EP on one connected component: rates ``x = N z`` with ``N`` an orthonormal basis of the null
        space of the component's identities."""
        n_win = mu.shape[0]
        N = scipy.linalg.null_space(eq) if eq.shape[0] else np.eye(comp.size)
        d = N.shape[1]
        if d == 0:  # the identities force every variable to 0
            return np.zeros((n_win, comp.size)), np.zeros((n_win, comp.size)), {"dim": 0, "iterations": 0}
        rows = [ineq @ N] + ([-N] if self.nonnegative else [])
        C = np.vstack(rows) if rows else np.zeros((0, d))
        C = C[np.linalg.norm(C, axis=1) > 1e-12 * max(1.0, np.abs(C).max(initial=0.0))]
        Nt = N.T
        w = prec[:, comp]
        J = (Nt[None] * w[:, None, :]) @ N
        h = (w * mu[:, comp]) @ N
        W = (Nt[None] * (1.0 / q)[:, None, :]) @ N
        J0 = (Nt[None] * (1.0 / p0)[:, None, :]) @ N
        h0 = (m0[:, comp] / p0) @ N
        post = self._ep(J, h, W, J0, h0, C)
        z, extra = self._point(post, J, h, W, J0, h0, C)
        mean = z @ Nt
        var = ((post.cov @ Nt) * Nt).sum(axis=-2)
        return mean, var, {"dim": int(d), "inequalities": int(C.shape[0]), "iterations": int(post.iterations),
                           "converged": bool(post.converged), **extra}

    def _solve_free(self, free, mu, prec, q, m0, p0):
        """Events no relation ties: independent scalar chains, solved as one batch."""
        def stack(a: np.ndarray) -> np.ndarray:  # [R, n] -> [n, R, 1, 1]
            return a.T[:, :, None, None]

        w = prec[:, free]
        J, W, J0 = stack(w), stack(1.0 / q), stack(1.0 / p0)
        h = (w * mu[:, free]).T[:, :, None]
        h0 = (m0[:, free] / p0).T[:, :, None]
        C = -np.ones((1, 1)) if self.nonnegative else np.zeros((0, 1))
        post = self._ep(J, h, W, J0, h0, C)
        z, extra = self._point(post, J, h, W, J0, h0, C)
        return z[..., 0].T, post.cov[..., 0, 0].T, {"dim": 1, "inequalities": int(C.shape[0]),
                                                    "iterations": int(post.iterations),
                                                    "converged": bool(post.converged), **extra}


class BayesPerfSmoother(BayesPerfScaler):
    """BayesPerf, offline smoother: each read window from EP over the ``k`` windows on either side
    (and the pooled statistics of the whole run); otherwise as `BayesPerfScaler`."""

    name: ClassVar[str] = "bayesperf_smooth"
    causal: ClassVar[bool] = False
    _smooth: ClassVar[bool] = True
