"""Fusion: one Gaussian state-space model of every event's log-rate — time dynamics, learned cross-event
structure and catalog relations together — filtered causally or smoothed offline.

The open problem this answers (the thesis's survey): NeoMPX's interpolating estimators follow a
fixed shape between two reads and miss phase changes (Mathur & Cook 2005; NeoMPX, CLUSTER 2020);
BayesPerf (Banerjee et al., ASPLOS 2021) uses only explicit, formula-level relations, at a cost its
authors tamed with an FPGA. Here explicit relations and *implicit* interactions learned from other
workloads are combined in one linear-Gaussian model whose exact inference is a Kalman filter (Kalman
1960) or a Rauch–Tung–Striebel smoother (Rauch, Tung & Striebel 1965), O(k·E²) per quantum for k
events on counters (smoothed by the modified Bryson–Frazier pass, which needs no E×E solve); the same family as Manzke & Coghlan's MMSE
fusion of sequential counter observations (MASCOTS 2005). It works on the quantum view (the counts of
every rotation, as `mpx.scalers.bayesperf` does), not on the read view alone.

**State.** ``x[t, e] = log(rate of event e in quantum t + eps)``, ``rate = count / quantum length``,
``eps = 0.5 / quantum`` (keeps zero counts finite).

**Dynamics (time) and measurement.** ``x_t = x_{t-1} + eta_t``, ``eta_t ~ N(0, q_scale · Q)``: a local
level per event whose innovations are *correlated across events*; where event e ran in quantum t,
``y[t, e] = x[t, e] + noise``, ``noise ~ N(0, R_e)`` (white noise around the level: bursts that come
and go). ``C1`` = the Ledoit–Wolf (scikit-learn) covariance of successive quanta's log-rate changes in
the training workloads' ground truth ``= Q + 2 diag(R)``; a share ``noise_share`` of each event's
change variance is taken as noise, ``R = noise_share · diag(C1) / 2``, the rest as the walk,
``Q = (1 - noise_share) · C1`` (keeps the cross-event correlations). A phase change moves many events
at once; when some of them are on the counters, the correlated innovation carries it to the ones that
are not — implicit interactions (e.g. L1 and LL misses, loads and L1 misses) that no formula states.

**Prior.** ``x_0 ~ N(mu, prior_scale · Sigma)``: mean and Ledoit–Wolf covariance of the training
workloads' quantum log-rates — the cross-event structure of *levels*, so an event that has not run yet
is still predicted from the ones that have.

**Filter and smoother.** `FusionSmoother` (``fusion_smooth``, offline) runs the RTS smoother over the
whole run. `FusionScaler` (``fusion``, causal) runs the filter and, inside each read window, a backward
pass restarted at the window's last quantum: each window uses the quanta up to its own end, nothing
after (`mpx.scalers.inference.kalman.rts_smoother` with ``segment_ends``).

**Estimate.** A window's count is the sum of its quanta: the counted ones exactly, the others
``L · (exp(m) - eps)`` (the posterior median of the rate, clipped at 0; predicted rates are capped at
ten times the training data's highest, a guard against a diverging walk, and at the run's own highest
counted rate of the event: the coverage guard below). ``std`` is ``std_scale``
times the sum over the window's uncounted quanta of the log-normal's std ``L · exp(m) · sqrt(exp(v) - 1)``
(summed, not added in quadrature: the quanta share one walk, their errors are strongly correlated).
Windows where the event did not run are flagged ``not_estimated`` — as for every read-view scaler — but
carry the model's prediction; events in error (never enabled) are NaN.

**Relations (explicit).** Catalog identities ``A c = 0`` and inequalities ``B c <= 0`` over the window
counts (`mpx.scalers.inference.relations.relation_set`, as the BayesPerf scaler reads them) are imposed on each
window's estimate, with the window's count covariance from the delta method (summed std per event, the
mean cross-event correlation of its quanta): identities by Gaussian conditioning (mean and covariance),
violated inequalities by projecting the mean onto their boundary (active set; the truncated
posterior's mode), then counts >= 0. Relations through latent (unmeasured) variables are dropped with a
note. Only window w's own posterior is used, so ``fusion`` stays causal.

**Learning.** ``fit(traces)`` keeps the training traces' counts (never those of the workload scored:
leave-one-workload-out is the experiment runner's job); the statistics are computed at the
observation's quantum, from the training traces on the same time axis (`RateStructure.stats`, cached
per quantum, event list and ``noise_share``). Events unknown to the training data get a diffuse prior,
the median known variances and no cross-event terms.

**Coverage guard (issue 34).** A model learned on other programs says nothing about an event whose level those
programs never had: on ``gem5-long-phases`` (icache misses and memory-order violations near zero, trained on
sqlite, xz and awk) the walk pulled such events to the training level and fusion's mean error over events
reached 10³ % (DCAM: 90 %). The test, per event, from the observation only: the event's **observed rate** (its
counted quanta's counts over their time; for ``fusion`` the quanta up to the end of each read window, so the
guard stays causal, for ``fusion_smooth`` the whole run) against the **whole-run rates of the training
programs**, ``[min / m, max · m]`` with the margin ``m = coverage_margin`` (10: a tenfold level no training
program had; an observed rate of 0 is covered only when a training program had 0; an event no training program
had is never covered). An event outside it in read window w is **not covered** there: that window's count
comes from the named baseline ``fallback`` (``linear_carry`` for ``fusion``, causal; ``linear_interpolate``
for ``fusion_smooth``: perf's scaling with the fill of TAM / of DCAM, `mpx.scalers.null`), its std is that
count times the share of the window the event was off the counters (a 100 % relative uncertainty on the part
not counted: the model claims nothing there). A window before the event first ran has
no rate to test: it keeps the model while every event observed so far is covered, and falls back (to the
baseline's value there: none, for perf's scaling) once one is not (the model's cross-event prediction is then
an extrapolation). A second test covers the dynamics: an event whose observed log-rate changes are larger than
the learned walk allows (mean squared standardised change above ``coverage_margin²``, `_jumpy`) is not covered
either. When more than ``RUN_SHARE`` (25 %) of all events are not covered in a window (by the test of that
window), the run as a whole is unlike the training programs and every event falls back in that window.

Those tests compare levels; a model can stay inside the training levels and still predict this program worse
than a baseline (issue 34: on ``gem5-long-grep``, trained on the ten other steady programs, 2 % fallback and
135 % WAPE against CounterMiner's 36 %: rare events, a count or two in the whole run, predicted at a fraction
of a count per quantum). So a **predictive check** on measured counts only (``predictive``,
`_worse_than_carry`): wherever an event comes back on the counters after a gap, its first counted quantum is a
held-out count the filter had to predict (its one-step-ahead prediction, from every earlier quantum and the
events updated before it in that quantum: the filter's innovation), and so did the carried baseline (the
event's rate over its previous run on the counters, what ``linear_carry`` carries). Per event, summed over
those quanta up to the window's end (the whole run when smoothing): the model is kept only when it has at
least ``MIN_CHANGES`` of them and its absolute count error is no larger than the baseline's — the model earns
its keep; an event counted in every quantum so far (nothing to predict) or not counted yet (nothing to check)
keeps it; an event not counted yet (nothing to check; the model predicts it from its prior and the other events)
keeps it only while more of the checked events passed than failed. The same held-out counts choose the
baseline an event falls back to: the carried rate (``fallback``: ``linear_carry``, offline
``linear_interpolate``) or the event's rate over every earlier run on the counters (``steady_fallback``:
``constant_rate_causal``, offline ``constant_rate``), whichever predicted them better (the carried one until
there is a check). Neither test reads anything but the observation.

A last guard caps every predicted rate at the highest rate the run has counted for the event so far (up to
the end of the quantum's read window; the whole run when smoothing) times ``own_margin`` (1: no extrapolation
above what the event was seen doing; ``None``: off): on ``gem5-long-phases`` the learned cross-event moves
carried events off the counters to the training data's cap (ten times its highest rate) in a burst of the
others.

The notes name the events of each test and ``Estimate.meta["fallback_share"]`` (the share of event-windows
that fell back; the score row's ``fallback_share``; ``fallback_share_predictive``: the predictive check's part)
says how much of the estimate is not the model's. ``coverage_margin=None`` turns the guard off (both tests).
A window that falls back carries the baseline's counts: catalog relations are not imposed on them.

**Assumptions / limits.** Log-rates follow a Gaussian random walk plus white noise: a burst no event on
the counters sees is missed (causal) or spread over its neighbours (offline), and relative errors of
those over-estimates are large; cross-event structure learned on other programs transfers only as far
as their events co-vary the same way. Measured numbers and failure cases: ``docs/fusion.md``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Interval
from mpx.scalers.base import Estimate, Scaler, sum_quanta
from mpx.scalers.inference.relations import relation_set
from mpx.trace import Trace, rebin_counts

__all__ = ["MIN_CHANGES", "RUN_SHARE", "FusionScaler", "FusionSmoother", "RateStructure", "window_counts"]

#: the coverage guard's dynamics test needs at least this many observed log-rate changes of an event, and its
#: predictive check this many held-out counts before the model is kept
MIN_CHANGES = 5
#: the coverage guard: when more than this share of the events has been found not covered, the run is
#: unlike every training program and every event falls back (gem5-long-phases: 17 to 26 of 46 events; the other
#: three steady programs, trained on the rest: at most 5)
RUN_SHARE = 0.25

_SOURCE = ("mpx: Kalman filter (Kalman 1960) / RTS smoother (Rauch, Tung & Striebel 1965) on "
           "log-rates with Ledoit-Wolf cross-event covariances learned from other workloads (scikit-learn) and "
           "catalog relations as in BayesPerf (Banerjee et al., ASPLOS 2021)")


def window_counts(counts: np.ndarray, edges: np.ndarray, length: float) -> np.ndarray:
    """Per-interval ``counts[T, E]`` on ``edges[T+1]`` resampled into consecutive windows of ``length``
    (an interval a boundary cuts is split uniformly in time, as `mpx.multiplex.multiplex` does); the
    incomplete last window is dropped. Returns ``[n_windows, E]``."""
    counts = np.nan_to_num(np.asarray(counts, dtype=np.float64))
    edges = np.asarray(edges, dtype=np.float64)
    n = int(math.floor((edges[-1] - edges[0]) / length + 1e-9))
    if n < 1:
        return np.zeros((0, counts.shape[1]))
    return rebin_counts(counts, edges, edges[0] + length * np.arange(n + 1))


def _ledoit_wolf(x: np.ndarray, centered: bool) -> np.ndarray:
    from sklearn.covariance import LedoitWolf

    if x.shape[0] < 3:
        return np.diag(np.var(x, axis=0) if x.shape[0] > 1 else np.ones(x.shape[1]))
    return LedoitWolf(assume_centered=centered).fit(x).covariance_


class RateStructure:
    """What `FusionScaler` learns from training traces: their per-interval counts, and — per time scale
    (quantum, read window) and event list — the statistics of the model (`stats`)."""

    def __init__(self, traces: list[Any]):
        self.traces = [(tuple(t.events), np.asarray(t.counts, dtype=np.float64), np.asarray(t.edges, dtype=np.float64),
                        str(t.time_unit)) for t in traces]
        self._cache: dict[tuple, dict[str, np.ndarray]] = {}

    def stats(self, events: tuple[str, ...], quantum: float, noise_share: float, time_unit: str
              ) -> dict[str, np.ndarray]:
        """``mu[E]``, ``Sigma[E, E]`` (quantum log-rate levels), ``Q[E, E]`` (quantum-to-quantum changes of
        the level), ``R[E]`` (white noise around the level), ``top[E]`` (highest training log-rate plus
        log 10: a guard), ``known[E]`` (event in the training data), for quanta of length ``quantum``
        (only training traces on the same ``time_unit`` count)."""
        key = (events, round(float(quantum), 9), float(noise_share), time_unit)
        if key in self._cache:
            return self._cache[key]
        n_e = len(events)
        eps = 0.5 / quantum
        same = [t for t in self.traces if t[3] == time_unit]
        known = np.array([any(e in t[0] for t in same) for e in events])
        idx = np.flatnonzero(known)
        levels, diffs = [], []
        run_lo, run_hi = np.full(n_e, np.inf), np.full(n_e, -np.inf)
        for ev, counts, edges, _ in (same if idx.size else ()):
            pos = {e: i for i, e in enumerate(ev)}
            span = float(edges[-1] - edges[0])
            for i in idx:   # the training programs' whole-run rates (the coverage guard)
                if events[i] in pos and span > 0:
                    rr = float(np.nansum(counts[:, pos[events[i]]])) / span
                    run_lo[i], run_hi[i] = min(run_lo[i], rr), max(run_hi[i], rr)
            if not all(events[i] in pos for i in idx):
                continue  # a trace without every known event: skipped (keeps the covariances aligned)
            cq = window_counts(counts[:, [pos[events[i]] for i in idx]], edges, quantum)
            if cq.shape[0] < 2:
                continue
            z = np.log(cq / quantum + eps)
            levels.append(z)
            diffs.append(np.diff(z, axis=0))
        mu = np.zeros(n_e)
        sigma = np.eye(n_e) * 100.0
        q = np.eye(n_e)
        r = np.ones(n_e)
        top = np.full(n_e, np.inf)
        if levels:
            lv, d1 = np.vstack(levels), np.vstack(diffs)
            k = np.ix_(idx, idx)
            mu[idx] = lv.mean(axis=0)
            top[idx] = lv.max(axis=0) + math.log(10.0)
            sigma[k] = _ledoit_wolf(lv, centered=False)
            # local level + white noise: cov(lag-1 change) = Q + 2R; a share ``noise_share`` of each
            # event's change variance is taken as white noise around the level, the rest as the walk
            c1 = _ledoit_wolf(d1, centered=True)
            q[k] = (1.0 - noise_share) * c1
            r[idx] = noise_share * np.diag(c1) / 2.0
            unk = np.flatnonzero(~known)
            q[unk, unk] = float(np.median(np.diag(q)[idx]))
            r[unk] = float(np.median(r[idx]))
        else:
            known[:] = False
        out = {"mu": mu, "Sigma": sigma, "Q": q, "R": np.maximum(r, 1e-6), "top": top,
               "known": known, "run_lo": run_lo, "run_hi": run_hi}
        self._cache[key] = out
        return out


class FusionScaler(Scaler):
    """Fusion, causal: the Kalman filter of the module docstring, smoothed inside each read window only
    (window w from the quanta up to its end).

    Hyper-parameters: ``relations`` (anything `mpx.scalers.inference.relations.relation_set` reads — a catalog or
    its name such as ``"callgrind"``, relation text; None: no explicit relation), ``q_scale`` (> 0:
    multiplies the learned innovation covariance), ``prior_scale`` (> 0: multiplies the learned level
    covariance), ``std_scale`` (> 0: multiplies the reported std), ``cross`` (use the learned cross-event
    covariances; False keeps only their diagonals — the ablation without implicit interactions),
    ``noise_share`` (0 < s < 1: the share of the learned log-rate change variance taken as white noise),
    ``coverage_margin`` (> 1, or None: off), ``fallback`` and ``steady_fallback`` (registered read-window
    scalers), ``predictive``
    (the predictive check) and ``own_margin`` (>= 1, or None: the cap at the run's own highest counted rate):
    the coverage guard of the module docstring.

    After `fit`: ``structure_`` (`RateStructure`), ``training_workloads_``; after `estimate`: ``model_``
    (per quantum and event: log-rate mean and variance, the measurements, Q, P0, mu), ``relations_``,
    ``predictive_`` (the predictive check's sums, `_worse_than_carry`).
    """

    name: ClassVar[str] = "fusion"
    causal: ClassVar[bool] = True
    view: ClassVar[str] = "quantum"
    learned: ClassVar[bool] = True
    source: ClassVar[str] = _SOURCE
    jit: ClassVar[bool] = True
    _smooth: ClassVar[bool] = False
    needs_relations: ClassVar[bool] = True

    @classmethod
    def warm_up(cls) -> None:
        from mpx.scalers.inference.kalman import warm_up

        warm_up()

    param_constraints: ClassVar[dict] = {
        "q_scale": Interval(float, 0, None, closed="neither"), "prior_scale": Interval(float, 0, None, closed="neither"),
        "std_scale": Interval(float, 0, None, closed="neither"), "cross": "boolean",
        "noise_share": Interval(float, 0, 1, closed="neither"),
        "coverage_margin": [None, Interval(float, 1, None, closed="neither")], "fallback": [None, str],
        "predictive": "boolean", "own_margin": [None, Interval(float, 1, None, closed="left")],
        "steady_fallback": [None, str]}
    #: the named baseline of the coverage guard (module docstring)
    _fallback: ClassVar[str] = "linear_carry"
    #: the named baseline of an event whose measured counts the whole-run rate so far predicts better
    _steady_fallback: ClassVar[str] = "constant_rate_causal"

    def __init__(self, relations: Any = None, q_scale: float = 1.0, prior_scale: float = 1.0,
                 std_scale: float = 1.0, cross: bool = True, noise_share: float = 0.8,
                 coverage_margin: float | None = 10.0, fallback: str | None = None, predictive: bool = True,
                 own_margin: float | None = 1.0, steady_fallback: str | None = None):
        self.relations = relations
        self.q_scale = q_scale
        self.prior_scale = prior_scale
        self.std_scale = std_scale
        self.cross = cross
        self.noise_share = noise_share
        self.coverage_margin = coverage_margin
        self.fallback = fallback
        self.predictive = predictive
        self.own_margin = own_margin
        self.steady_fallback = steady_fallback

    def _fit(self, items: list[Any]) -> None:
        bad = [type(x).__name__ for x in items if not isinstance(x, Trace)]
        if bad:
            raise ConfigError(f"{type(self).__name__}.fit needs Traces (the ground truth of other workloads), got "
                              f"{', '.join(sorted(set(bad)))}")
        self.structure_ = RateStructure(items)
        self.training_workloads_ = tuple(str(t.meta.get("workload", "?")) for t in items)

    def memory_bytes(self, n_events: int, n_quanta: int, n_windows: int) -> int:
        """The Kalman filter keeps two E×E matrices per quantum (predicted covariance and gains, for the
        backward pass), the relations a third (smoothed covariances); plus the default's arrays."""
        per_quantum = 3 if self.relations is not None else 2
        return 8 * per_quantum * n_quanta * n_events**2 + super().memory_bytes(n_events, n_quanta, n_windows)

    # -- the estimate ------------------------------------------------------------------------------

    def _estimate(self, obs: Any) -> Estimate:
        from mpx.scalers.inference.kalman import filter_store, smoothed_moments

        events = tuple(obs.events)
        qv, r = obs.quanta, obs.reads
        n_w, n_e = r.raw.shape
        quantum = float(obs.quantum)
        eps = 0.5 / quantum
        st = self.structure_.stats(events, quantum, float(self.noise_share), str(obs.time_unit))
        q = st["Q"] * float(self.q_scale)
        p0 = st["Sigma"] * float(self.prior_scale)
        if not self.cross:
            q, p0 = np.diag(np.diag(q)), np.diag(np.diag(p0))
        dur = np.diff(np.asarray(qv.edges, dtype=np.float64))[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            c = np.asarray(qv.counts, dtype=np.float64)
            ok = np.asarray(qv.running, dtype=bool) & np.isfinite(c) & (c >= 0) & (dur > 0)
            y = np.where(ok, np.log(np.where(ok, c, 0.0) / np.where(dur > 0, dur, 1.0) + eps), np.nan)
        rvar = np.broadcast_to(st["R"], y.shape)
        bounds = np.asarray(r.quanta, dtype=np.intp)
        ends = None if self._smooth else bounds[1:] - 1
        if y.shape[0]:
            store = filter_store(y, rvar, st["mu"], p0, q)
            m, v, _ = smoothed_moments(store, ends)
        else:
            m = v = np.zeros((0, n_e))

        # guard: no predicted rate above ten times the highest window rate of the training data, nor above the
        # highest rate this run has shown for the event so far (`_own_cap`)
        cap = np.minimum(st["top"][None, :], self._own_cap(y, bounds, strict=False))
        rate = np.exp(np.minimum(m, cap))
        pred = dur * np.maximum(rate - eps, 0.0)                       # unobserved quanta: predicted
        pred_sd = dur * rate * np.sqrt(np.expm1(np.maximum(v, 0.0)))
        per_q = np.where(ok, c, pred)
        sd_q = np.where(ok, 0.0, pred_sd)

        counts = sum_quanta(per_q, bounds)
        # a window's unobserved quanta share one random walk: their errors are strongly correlated, so
        # their std add up (the fully correlated bound)
        std = sum_quanta(sd_q, bounds)
        run_w = sum_quanta(ok.astype(np.float64), bounds) > 0
        notes: list[str] = []
        if self.relations is not None:
            eq, ineq = self._relation_matrices(events, notes)
            todo = self._windows_to_fix(counts, eq, ineq)
            if todo.size:
                # covariances only for the quanta of the windows the relations change (backward pass again)
                need = np.zeros(y.shape[0], dtype=bool)
                for w in todo:
                    need[bounds[w]:bounds[w + 1]] = True
                _, _, cov = smoothed_moments(store, ends, need)
                counts, std = self._apply_relations(counts, std, eq, ineq, todo, cov, rate, dur, ok, bounds)
            notes.append(f"relations changed {todo.size} of {n_w} windows")
        std = std * float(self.std_scale)

        errors = np.array([e in obs.errors for e in events])
        never = errors | ~run_w.any(axis=0)
        counts[:, errors] = np.nan
        std[:, errors] = np.nan
        not_est = ~run_w | errors[None, :]
        if (~st["known"]).any():
            notes.append(f"not in the training data on the time axis {obs.time_unit!r} (diffuse prior, no cross-event "
                         "terms): "
                         + ", ".join(e for e, k in zip(events, st["known"]) if not k))
        if never.any() and not errors.all():
            notes.append("never counted, predicted from the other events only: "
                         + ", ".join(e for e, n, x in zip(events, never, errors) if n and not x))
        #: the model as solved, per quantum and event: log-rate mean and variance, and its inputs
        self.model_ = {"mean": m, "var": v, "y": y, "R": st["R"], "Q": q, "P0": p0, "mu": st["mu"],
                       "segment_ends": ends}
        outside = self._uncovered(obs, c, ok, dur, bounds, st, y) & ~errors[None, :]
        worse = np.zeros_like(outside)
        steady = np.zeros_like(outside)
        if y.shape[0] and self.coverage_margin is not None and self.predictive:
            #: the predictive check's sums per read window and event (`_worse_than_carry`)
            self.predictive_ = self._worse_than_carry(store, y, c, ok, dur, bounds, st, eps)
            worse = self.predictive_["worse"] & ~errors[None, :] & ~outside
            steady = self.predictive_["steady"]
        uncovered = outside | worse
        share = float(uncovered.sum() / max(uncovered.size, 1))
        if uncovered.any():
            from mpx import scalers

            name = self.fallback or self._fallback
            fb = scalers.get(name).estimate(obs)
            names = {name: uncovered & ~steady}
            if (uncovered & steady).any():
                name_s = self.steady_fallback or self._steady_fallback
                fb_s = scalers.get(name_s).estimate(obs)
                fb_counts = np.where(steady, fb_s.counts, fb.counts)
                fb_not = np.where(steady, fb_s.not_estimated, fb.not_estimated)
                names[name_s] = uncovered & steady
            else:
                fb_counts, fb_not = fb.counts, fb.not_estimated
            counts = np.where(uncovered, fb_counts, counts)
            r_ = obs.reads
            with np.errstate(invalid="ignore", divide="ignore"):
                off = 1.0 - np.clip(np.asarray(r_.running, float) / np.asarray(r_.enabled, float), 0.0, 1.0)
            std = np.where(uncovered, np.abs(fb_counts) * np.nan_to_num(off, nan=1.0), std)
            not_est = not_est | (uncovered & fb_not)
            counts = np.where(not_est & ~np.isfinite(counts), np.nan, counts)
            std = np.where(np.isfinite(std), std, 0.0)
            for what, mask in (("whose observed rate or changes left the training programs' range "
                                f"(x{self.coverage_margin:g})", outside),
                               ("whose model predicted its measured counts no better than carrying its last "
                                "measured rate (predictive check)", worse)):
                cols = mask.any(axis=0)
                if cols.any():
                    notes.append(f"coverage guard: {int(cols.sum())} event(s) {what} fell back in "
                                 f"{100 * mask.sum() / mask.size:.1f}% of event-windows: "
                                 + ", ".join(e for e, u in zip(events, cols) if u))
            notes.append("coverage guard's baselines (the one that predicted the event's measured counts better): "
                         + ", ".join(f"{n} in {100 * m.sum() / m.size:.1f}% of event-windows" for n, m in names.items()))
        qc = np.where(errors[None, :], np.nan, per_q)
        est = self.make_estimate(obs, counts, not_estimated=not_est, std=std, quantum_counts=qc,
                                 quantum_std=np.where(errors[None, :], np.nan, sd_q), notes=notes)
        est.meta["fallback_share"] = share
        est.meta["fallback_share_predictive"] = float(worse.sum() / max(worse.size, 1))
        return est

    def _own_cap(self, y: np.ndarray, bounds: np.ndarray, strict: bool) -> np.ndarray:
        """``[Q, E]``: the highest log-rate the event was counted at so far — up to the end of the quantum's read
        window for ``fusion`` (the whole run for ``fusion_smooth``; ``strict``: up to the quantum before) — plus
        ``log own_margin``; +inf before the event was first counted or with ``own_margin`` None."""
        n_q, n_e = y.shape
        if self.own_margin is None or not n_q:
            return np.full((n_q, n_e), np.inf)
        hi = np.fmax.accumulate(np.where(np.isfinite(y), y, -np.inf), axis=0)
        if strict:
            hi = np.vstack([np.full((1, n_e), -np.inf), hi[:-1]])
        elif self._smooth:
            hi = np.broadcast_to(hi[-1:], hi.shape)
        else:
            win = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
            hi = hi[bounds[1:][win] - 1]
        return np.where(np.isfinite(hi), hi + math.log(float(self.own_margin)), np.inf)

    def _worse_than_carry(self, store: tuple, y: np.ndarray, c: np.ndarray, ok: np.ndarray, dur: np.ndarray,
                          bounds: np.ndarray, st: dict[str, np.ndarray], eps: float) -> dict[str, np.ndarray]:
        """The predictive check of the coverage guard, on measured counts only: at every quantum where an event
        starts a run on the counters after a gap (its count not yet seen by the model), the filter's prediction of
        that count (one step ahead: every quantum before, the events updated before it in the same quantum) against
        the carried baseline's (the event's rate over its previous run on the counters). ``worse[W, E]``: the
        model's summed absolute error over those quanta up to the window's end (the whole run when smoothing), at
        least ``MIN_CHANGES`` of them, exceeds the baseline's; also ``model``/``base``/``n`` (the sums, ``[W, E]``)."""
        _, _, _, _, nu, idx, nobs = store
        n_q, n_e = y.shape
        pred = np.full((n_q, n_e), np.nan)
        upd = np.arange(n_e)[None, :] < nobs[:, None]
        qq, kk = np.nonzero(upd)
        ee = idx[qq, kk]
        pred[qq, ee] = y[qq, ee] - nu[qq, kk]          # the log-rate predicted before the event's own update
        cap = self._own_cap(y, bounds, strict=True)
        err_m = np.zeros((n_q, n_e))
        err_b = np.zeros((n_q, n_e))
        err_k = np.zeros((n_q, n_e))
        hit = np.zeros((n_q, n_e))
        for j in range(n_e):
            at = np.flatnonzero(ok[:, j])
            if at.size < 2:
                continue
            start = np.flatnonzero(np.diff(at) > 1) + 1            # runs on the counters after a gap
            if not start.size:
                continue
            run_id = np.cumsum(np.r_[True, np.diff(at) > 1]) - 1   # which run each counted quantum belongs to
            run_c = np.bincount(run_id, weights=c[at, j])
            run_t = np.bincount(run_id, weights=dur[at, 0])
            q = at[start]
            prev = run_id[start] - 1
            base = dur[q, 0] * run_c[prev] / np.maximum(run_t[prev], 1e-300)
            so_far_c, so_far_t = np.cumsum(run_c)[prev], np.cumsum(run_t)[prev]   # every run before this one
            const = dur[q, 0] * so_far_c / np.maximum(so_far_t, 1e-300)
            lr = pred[q, j]
            model = dur[q, 0] * np.maximum(np.exp(np.minimum(np.where(np.isfinite(lr), lr, st["mu"][j]),
                                                            np.minimum(st["top"][j], cap[q, j]))) - eps, 0.0)
            err_m[q, j] = np.abs(model - c[q, j])
            err_b[q, j] = np.abs(base - c[q, j])
            err_k[q, j] = np.abs(const - c[q, j])
            hit[q, j] = 1.0
        ends = np.full(len(bounds) - 1, bounds[-1]) if self._smooth else bounds[1:]
        cum = lambda a: np.vstack([np.zeros((1, n_e)), np.cumsum(a, axis=0)])[ends]  # noqa: E731
        m_, b_, k_, n_ = cum(err_m), cum(err_b), cum(err_k), cum(hit)
        best = np.minimum(b_, k_)
        checked = n_ >= MIN_CHANGES
        passed = checked & (m_ <= best)
        # one counted in every quantum so far has nothing to predict: the model stays; an event not counted yet has
        # nothing to check: the model's prediction of it (from the prior and the other events) stays only while
        # more of the checked events passed than failed (the model has shown it predicts this run)
        counted = cum(ok.astype(np.float64)) > 0
        gap = cum((~ok).astype(np.float64)) > 0
        trusted = passed.sum(axis=1) > (checked & ~passed).sum(axis=1)
        worse = (counted & gap & ~passed) | (~counted & ~trusted[:, None])
        return {"worse": worse, "model": m_, "base": b_, "const": k_, "n": n_, "steady": (n_ > 0) & (k_ < b_),
                "trusted": trusted}

    def _jumpy(self, y: np.ndarray, ok: np.ndarray, st: dict[str, np.ndarray], bounds: np.ndarray) -> np.ndarray:
        """``[W, E]``: the event's observed log-rate changes (successive counted quanta ``g`` apart) are larger
        than the learned walk allows: the mean of ``d² / (g·Q_ee·q_scale + 2 R_e)`` over its changes up to the
        window's end (the whole run when smoothing), at least ``MIN_CHANGES`` of them, above
        ``coverage_margin²`` — the training programs' dynamics do not cover the event's."""
        n_q, n_e = y.shape
        n_w = len(bounds) - 1
        var_q = np.maximum(np.diag(st["Q"]) * float(self.q_scale), 0.0)
        z2 = np.zeros((n_q, n_e))
        cnt = np.zeros((n_q, n_e))
        for j in range(n_e):
            at = np.flatnonzero(ok[:, j])
            if at.size < 2:
                continue
            d = np.diff(y[at, j])
            g = np.diff(at).astype(float)
            z2[at[1:], j] = d * d / np.maximum(g * var_q[j] + 2.0 * st["R"][j], 1e-12)
            cnt[at[1:], j] = 1.0
        cz = np.vstack([np.zeros((1, n_e)), np.cumsum(z2, axis=0)])
        cn = np.vstack([np.zeros((1, n_e)), np.cumsum(cnt, axis=0)])
        ends = np.full(n_w, bounds[-1]) if self._smooth else bounds[1:]
        n = cn[ends]
        mean = np.where(n > 0, cz[ends] / np.maximum(n, 1.0), 0.0)
        return (n >= MIN_CHANGES) & (mean > float(self.coverage_margin) ** 2) & np.asarray(st["known"])[None, :]

    def _uncovered(self, obs: Any, c: np.ndarray, ok: np.ndarray, dur: np.ndarray, bounds: np.ndarray,
                   st: dict[str, np.ndarray], y: np.ndarray) -> np.ndarray:
        """``[W, E]``: the event's observed rate (up to the window's end; the whole run when smoothing) is outside
        the training programs' whole-run rates widened by ``coverage_margin`` (module docstring)."""
        n_w, n_e = len(bounds) - 1, c.shape[1]
        if self.coverage_margin is None or not n_w:
            return np.zeros((n_w, n_e), dtype=bool)
        got = np.where(ok, c, 0.0)
        t = np.where(ok, dur, 0.0)
        cum_c = np.vstack([np.zeros((1, n_e)), np.cumsum(got, axis=0)])
        cum_t = np.vstack([np.zeros((1, n_e)), np.cumsum(t, axis=0)])
        ends = np.full(n_w, bounds[-1]) if self._smooth else bounds[1:]
        seen_c, seen_t = cum_c[ends], cum_t[ends]
        has = seen_t > 0
        rate = np.where(has, seen_c / np.where(has, seen_t, 1.0), np.nan)
        m = float(self.coverage_margin)
        lo, hi = st["run_lo"][None, :] / m, st["run_hi"][None, :] * m
        trained = np.isfinite(st["run_lo"])[None, :]   # an event no training program had is never covered
        out = has & (~trained | (rate < lo) | (rate > hi))
        out |= self._jumpy(y, ok, st, bounds)
        # before an event first ran, the model predicts it from the others: trusted only while every event
        # observed so far is covered (a run unlike the training programs makes that an extrapolation)
        left = np.maximum.accumulate(out.any(axis=1)) if not self._smooth else np.full(n_w, out.any())
        out = out | (~has & left[:, None])
        # a run unlike every training program: more than RUN_SHARE of all events not covered (in this window's test)
        run_out = (out & has).sum(axis=1) / max(n_e, 1) > RUN_SHARE
        return out | run_out[:, None]

    @staticmethod
    def _window_cov(cov, rate, dur, ok, a, b):
        """The covariance of one read window's count (quanta ``a:b``) over its unobserved quanta (delta
        method; the quanta fully correlated in time: summed std, the mean cross-event correlation)."""
        if b <= a:
            return np.zeros(cov.shape[1:])
        var = np.maximum(np.einsum("qii->qi", cov[a:b]), 0.0)
        wts = np.where(ok[a:b], 0.0, dur[a:b] * rate[a:b]) * np.sqrt(var)
        sd = np.sqrt(np.maximum(var, 1e-300))
        corr = cov[a:b] / (sd[:, :, None] * sd[:, None, :])
        s = wts.sum(axis=0)
        return corr.mean(axis=0) * np.outer(s, s)

    def _relation_matrices(self, events, notes):
        """Identities ``eq`` and inequalities ``ineq`` over the measured events (relations through latent
        variables dropped, with a note)."""

        # reading a catalog costs more than the estimate: keep the matrices while relations and events stay
        key = (id(self.relations), self.relations if isinstance(self.relations, str) else None, events)
        if getattr(self, "_relation_key", None) != key:
            rs = relation_set(self.relations, events)
            n_e = len(events)
            lat = np.zeros(len(rs.variables), dtype=bool)
            lat[n_e:] = True
            eq = rs.eq[~(rs.eq[:, lat] != 0).any(axis=1)][:, :n_e] if rs.eq.size else np.zeros((0, n_e))
            ineq = rs.ineq[~(rs.ineq[:, lat] != 0).any(axis=1)][:, :n_e] if rs.ineq.size else np.zeros((0, n_e))
            self.relations_, self._relation_mats, self._relation_key = rs, (eq, ineq), key
        if self.relations_.latent:
            notes.append("relations through latent variables dropped: " + ", ".join(self.relations_.latent))
        return self._relation_mats

    @staticmethod
    def _windows_to_fix(counts, eq, ineq):
        """Every window when there are identities; otherwise the windows violating an inequality."""
        if eq.shape[0]:
            return np.arange(counts.shape[0])
        if not ineq.shape[0]:
            return np.zeros(0, dtype=np.intp)
        tol = 1e-9 * (1.0 + np.abs(counts).sum(axis=1))
        return np.flatnonzero(((ineq @ counts.T).T > tol[:, None]).any(axis=1))

    def _apply_relations(self, counts, std, eq, ineq, todo, cov, rate, dur, ok, bounds):
        """Identities by Gaussian conditioning, violated inequalities by projection (active set), then
        counts >= 0, in the windows ``todo`` (module docstring)."""
        n_e = counts.shape[1]
        counts = counts.copy()
        std = std.copy()
        for w in todo:
            c_cov = self._window_cov(cov, rate, dur, ok, bounds[w], bounds[w + 1])
            c_cov = c_cov + np.eye(n_e) * 1e-9 * (1.0 + np.abs(counts[w]).max() ** 2)
            c = counts[w]
            active = np.zeros(ineq.shape[0], dtype=bool)
            for _ in range(1 + ineq.shape[0]):
                active |= (ineq @ c > 1e-9 * (1.0 + np.abs(c).sum())) if ineq.shape[0] else active
                a = np.vstack([eq, ineq[active]])
                if not a.shape[0]:
                    break
                s = a @ c_cov @ a.T
                gain = np.linalg.lstsq(s, a @ c_cov, rcond=None)[0].T          # C A^T S^-1
                c = counts[w] - gain @ (a @ counts[w])
                if not ineq.shape[0] or not (ineq @ c > 1e-9 * (1.0 + np.abs(c).sum())).any():
                    break
            counts[w] = np.maximum(c, 0.0)
            if eq.shape[0]:
                ge = np.linalg.lstsq(eq @ c_cov @ eq.T, eq @ c_cov, rcond=None)[0].T
                post = c_cov - ge @ eq @ c_cov
                std[w] = np.sqrt(np.maximum(np.diag(post), 0.0))
        return counts, std


class FusionSmoother(FusionScaler):
    """Fusion, offline: the RTS smoother (every window from all windows); see `FusionScaler`."""

    name: ClassVar[str] = "fusion_smooth"
    causal: ClassVar[bool] = False
    _smooth: ClassVar[bool] = True
    _fallback: ClassVar[str] = "linear_interpolate"
    _steady_fallback: ClassVar[str] = "constant_rate"

