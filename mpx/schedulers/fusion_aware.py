"""A schedule that serves the fusion estimator: every group sampled in every read window, extra quanta
where the log-rate walk is most uncertain, spare counters lent to the most uncertain events (online).

The `fusion` scaler (`mpx.scalers.fusion`) models each event's log-rate as a random walk over quanta,
observed in the quanta the event runs. Its error in a read window is dominated by the quanta between
two samples of an event (a window with no sample at all is predicted from the walk alone: under perf's
sliding window that is the largest error source, see ``docs/fusion.md``). This scheduler chooses, one
read window at a time, from what was counted so far (never the truth):

1. **Groups** (once, at ``start``): ``grouping="hypergraph"`` partitions the events with the
   hypergraph grouping of `mpx.grouping.partitioned.group_events` (metrics = nets, km1 objective, Schlag et al.,
   ACM JEA 2022; no replication: spare counters are filled online, step 4), so each metric's events
   run in the same quanta — the relation overlap BayesPerf's scheduler asks for (Banerjee et al.,
   ASPLOS 2021: events sharing a relation are co-scheduled so the relation constrains the posterior).
   ``grouping="packed"`` packs single events next-fit in the problem's order (no metrics needed).
2. **Uncertainty** (TinTin-style, Li et al., OSDI 2025, Welford's running variance; here on the
   estimator's own quantity): for each event, successive samples at quanta ``q1 < q2`` give the
   log-rate innovation ``z = (x(q2) − x(q1)) / sqrt(q2 − q1)`` with ``x = log((count + 1/2) /
   duration)``; Welford's running variance of ``z`` estimates the walk's variance per quantum
   ``s_e``. Events with fewer than ``min_samples`` innovations get the largest ``s`` seen (1 when none
   is known), so they are explored early.
3. **Time shares and order** (per read window of ``window`` quanta, aligned with the multiplexer's
   reads when ``window`` = ``read_every``). An event sampled ``n_e`` times, evenly, in ``h`` quanta
   leaves gaps of ``h / n_e`` quanta; the log-rate over a gap of ``L`` quanta between two samples is a
   Brownian bridge whose integral has variance ``s·L³/12``, so the window's summed variance is
   ``a_e h³ / (12 n_e²)`` with ``a_e = w_e s_e``, and the schedule minimises ``Σ a_e / n_e²``
   (continuous optimum ``n_e ∝ a_e^{1/3}``).

   - ``shares="events"`` (default): every group runs once per window, the groups' quanta evenly
     spaced (coverage); then quanta are handed out one event at a time by greedy marginal gain
     ``a_e (1/n_e² − 1/(n_e+1)²)``, each in the free quantum farthest from the event's other samples in
     the window where the set still fits the PMU, until nothing more fits (`_place_events`). Volatile
     events end up on a counter most of the window (as TinTin's water-filling keeps them), steady ones
     keep their group's quantum.
   - ``shares="groups"``: whole groups get the quanta: ``n_g >= 1``, ``Σ n_g = h`` minimising
     ``Σ_g a_g / n_g²`` with ``a_g = Σ_{e in g} a_e`` (exact greedy: `allocate`), each group's quanta
     spread evenly by stride scheduling (Waldspurger & Weihl, 1995: sample ``j`` of ``g`` at ideal time
     ``(j + 1/2) h / n_g``; `spread`); with ``fill_spare`` the counters a group leaves free go to the
     most uncertain other events (``s_e`` / (1 + its samples already placed in this window)²).

   Every group, hence every event, is sampled at least once in every read window whenever there are no
   more groups than quanta per window (quantum-level spreading). Otherwise (the gem5 catalog's 46 events on
   4 counters: 11 groups, windows of 8 or 10 quanta) the time shares work *across* windows: each window runs
   ``h`` groups, one quantum each, chosen by the cost their events accrue while waiting, ``a_g (age_g + 1)³``
   (the bridge's ``L³`` with ``L`` the windows since the group last ran), a group waiting ``2 ceil(n_g / h)``
   windows first (`_stale_groups`). Before issue 34 this case was a plain rotation of the groups, the
   ``hypergraph`` scheduler's schedule bit for bit.

mpx choices (not in the sources): the Brownian-bridge cost ignores the observation noise and the
cross-event covariances the estimator learns; a window's decision uses only the quanta observed before
it; ties are broken by group / event index (deterministic). Where it fails: the variance is estimated
only at the spacing the event was sampled at, so a rate that alternates with the sampling period looks
steady (aliasing: an event flipping every quantum, sampled every second quantum, gets ``s = 0`` and a
single quantum per window).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.grouping.partitioned import group_events
from mpx.params import Interval, StrOptions
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler
from mpx.schedulers.hypergraph import HypergraphScheduler

__all__ = ["FusionAwareScheduler", "allocate", "spread"]


def allocate(a: Sequence[float], slots: int) -> np.ndarray:
    """Whole quanta ``n_g >= 1`` per group, ``Σ n_g = slots``, minimising ``Σ a_g / n_g²``
    (``a_g >= 0``; needs ``slots >= len(a)``). Greedy on marginal gains ``a_g (1/n² − 1/(n+1)²)``,
    ties to the lower index: exact for this separable convex objective."""
    a = np.asarray(a, dtype=float)
    g = a.size
    if slots < g:
        raise ConfigError(f"allocate: {slots} slots cannot give each of {g} groups one")
    n = np.ones(g, dtype=int)
    for _ in range(slots - g):
        gain = a * (1.0 / n**2 - 1.0 / (n + 1.0) ** 2)
        n[int(np.argmax(gain))] += 1
    return n


def spread(n: Sequence[int]) -> np.ndarray:
    """Group index of each of ``Σ n`` slots, each group's ``n_g`` slots spread evenly (stride
    scheduling: sample ``j`` of group ``g`` at ideal time ``(j + 1/2) / n_g``; ties to the group with
    more samples, then the lower index)."""
    items = [((j + 0.5) / k, -k, g) for g, k in enumerate(n) for j in range(int(k))]
    items.sort()
    return np.array([g for _, _, g in items], dtype=np.intp)


class FusionAwareScheduler(OnlineScheduler):
    """Read-window-level coverage with uncertainty-driven time shares; see the module docstring.

    Parameters
    ----------
    window:
        Quanta per decision, to match the multiplexer's ``read_every`` (every group runs at least once
        in each window when there are at most ``window`` groups).
    grouping:
        ``"hypergraph"`` (metrics kept together, `mpx.grouping.partitioned`) or ``"packed"`` (next-fit in order).
    shares:
        ``"events"``: the quanta beyond one per group go to single events by uncertainty; ``"groups"``:
        to whole groups (see the module docstring).
    seed:
        Seed of the hypergraph partitioner.
    min_samples:
        Innovations an event needs before its own variance is used.
    fill_spare:
        With ``shares="groups"``: lend the counters a group leaves free to the most uncertain other events
        (``shares="events"`` always fills every counter it can).
    """

    name: ClassVar[str] = "fusion_aware"
    uses_metrics: ClassVar[bool] = True
    source: ClassVar[str] = ("mpx: hypergraph groups (Schlag et al. 2022; BayesPerf relation overlap, "
                             "Banerjee et al. ASPLOS 2021), Welford log-rate innovation variance (TinTin, Li et "
                             "al. OSDI 2025), Brownian-bridge time shares, stride-scheduled spreading "
                             "(Waldspurger & Weihl 1995)")
    jit: ClassVar[bool] = True

    @classmethod
    def warm_up(cls) -> None:
        """Compiles the partitioner kernels the hypergraph grouping uses."""
        HypergraphScheduler.warm_up()

    param_constraints: ClassVar[dict] = {
        "window": Interval(int, 1, None), "grouping": StrOptions(("hypergraph", "packed")),
        "shares": StrOptions(("events", "groups")), "seed": Interval(int, 0, None),
        "min_samples": Interval(int, 2, None), "fill_spare": "boolean"}

    def __init__(self, window: int = 10, grouping: str = "hypergraph", shares: str = "events", seed: int = 0,
                 min_samples: int = 2, fill_spare: bool = True) -> None:
        self.window = window
        self.grouping = grouping
        self.shares = shares
        self.seed = seed
        self.min_samples = min_samples
        self.fill_spare = fill_spare

    # -- setup --------------------------------------------------------------------------------------

    def _start(self, problem: Problem) -> None:
        n = problem.n_events
        free = problem.free_mask
        if self.grouping == "hypergraph":
            grouping = group_events(problem, seed=int(self.seed), replicate_events=False)
            self.errors_ = dict(grouping.errors)
            groups = [list(g) for g in grouping.groups if g]
        else:
            self.errors_ = problem.unplaceable
            groups = []
            for e in problem.events:
                if e in problem.free or e in self.errors_:
                    continue
                if groups and problem.fits(groups[-1] + [e]):
                    groups[-1].append(e)
                else:
                    groups.append([e])
        masks = np.zeros((max(len(groups), 1), n), dtype=bool)
        for g, events in enumerate(groups):
            masks[g] = problem.mask(events)
        masks &= ~free
        self.group_masks_ = masks
        self._sched = ~free & ~problem.mask(self.errors_)  # events the scheduler places
        self._fits: dict[bytes, bool] = {}
        self._count = np.zeros(n)  # innovations per event
        self._mean = np.zeros(n)
        self._m2 = np.zeros(n)
        self._last_x = np.full(n, np.nan)
        self._last_q = np.zeros(n, dtype=np.int64)
        self._seen = 0
        self._periods = 0
        self.quanta_ = np.zeros(masks.shape[0], dtype=int)
        self._last_run = np.full(masks.shape[0], -1, dtype=np.int64)  # the window each group last ran in

    # -- what was counted ---------------------------------------------------------------------------

    def _update(self, observed: Observed) -> None:
        """Welford over the new log-rate innovations (only samples of events that ran)."""
        q1 = observed.n_quanta
        if q1 <= self._seen:
            return
        dur = np.diff(np.asarray(observed.edges[self._seen:q1 + 1], dtype=float))
        ran = np.asarray(observed.running[self._seen:q1], dtype=bool)
        counts = np.asarray(observed.counts[self._seen:q1], dtype=float)
        for i in range(ran.shape[0]):
            q = self._seen + i
            on = ran[i] & np.isfinite(counts[i]) & self._sched
            if not on.any() or dur[i] <= 0:
                continue
            x = np.log((np.maximum(counts[i, on], 0.0) + 0.5) / dur[i])
            prev = self._last_x[on]
            has = np.isfinite(prev)
            idx = np.flatnonzero(on)[has]
            if idx.size:
                z = (x[has] - prev[has]) / np.sqrt(q - self._last_q[idx])
                self._count[idx] += 1
                delta = z - self._mean[idx]
                self._mean[idx] += delta / self._count[idx]
                self._m2[idx] += delta * (z - self._mean[idx])
            self._last_x[on] = x
            self._last_q[on] = q
        self._seen = q1

    def variances(self) -> np.ndarray:
        """Per-event variance per quantum of the log-rate walk, as estimated so far (the fill value where
        fewer than ``min_samples`` innovations were seen; 0 for events the scheduler does not place)."""
        known = self._count >= self.min_samples
        s = np.where(known, self._m2 / np.maximum(self._count - 1, 1), np.nan)
        fill = float(np.nanmax(s[known & self._sched])) if (known & self._sched).any() else 1.0
        fill = fill if fill > 0 else 1.0
        s = np.where(known, s, fill)
        return np.where(self._sched, s, 0.0)

    # -- the decision -------------------------------------------------------------------------------

    def _decide(self, observed: Observed) -> np.ndarray:
        problem = self.problem_
        self._update(observed)
        h = int(self.window)
        s = self.variances()
        w = np.asarray(problem.weights, dtype=float) * s
        masks = self.group_masks_
        n_g = masks.shape[0]
        if n_g <= h and self.shares == "groups":
            a = masks.astype(float) @ w
            n = allocate(a, h)
            order = spread(n)
            self.quanta_ += n
            block = masks[order].copy()
        elif n_g <= h:  # each group once, evenly spaced; the rest of the window goes to events
            block = np.zeros((h, problem.n_events), dtype=bool)
            pos = [int((g + 0.5) * h / n_g) for g in range(n_g)]
            block[pos] = masks
            self.quanta_ += 1
        else:  # fewer quanta than groups: time shares over the groups across windows (module docstring)
            order = self._stale_groups(masks.astype(float) @ w, h)
            self.quanta_[order] += 1
            self._last_run[order] = self._periods
            block = masks[order].copy()
        if self.fill_spare and self.shares == "groups":
            placed = block.sum(axis=0).astype(float)
            for q in range(h):
                self._fill(block[q], s, placed)
        elif self.shares == "events":
            self._place_events(block, w)
        self._periods += 1
        return block

    def _stale_groups(self, a: np.ndarray, h: int) -> np.ndarray:
        """The ``h`` groups to run in this window when there are more groups than quanta: the Brownian-bridge
        cost a group's events accrue while it waits, ``a_g · (age_g + 1)³`` (age: windows since it last ran;
        ``a_g`` floored at 10⁻⁶ of the mean so a group estimated steady still ages), largest first; a group
        that waited ``2 · ceil(n_g / h)`` windows runs first (every group runs at least that often). Before
        anything is known every ``a_g`` is equal and the choice is the rotation's (ties: longest waiting, then
        lowest index)."""
        n_g = a.size
        age = (self._periods - self._last_run).astype(float)
        floor = 1e-6 * float(a.mean()) if a.size and a.mean() > 0 else 1e-12
        cost = np.maximum(a, floor) * (age + 1.0) ** 3
        overdue = age >= 2 * -(-n_g // h)
        order = np.lexsort((np.arange(n_g), -age, -cost, ~overdue))
        return order[:h].astype(np.intp)

    def _place_events(self, block: np.ndarray, a: np.ndarray) -> None:
        """Event-level time shares: repeatedly give one more quantum to the event with the largest
        marginal gain ``a_e (1/n_e² − 1/(n_e + 1)²)`` (``n_e`` = its quanta in this window; an event with
        none comes first), in the free quantum farthest from its other samples where the set still fits;
        until no event fits anywhere."""
        h = block.shape[0]
        n = block.sum(axis=0).astype(float)
        live = self._sched & (n < h)
        steps = np.arange(h)
        while live.any():
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = np.where(n > 0, a * (1.0 / np.maximum(n, 1.0) ** 2 - 1.0 / (n + 1.0) ** 2), np.inf)
            gain = np.where(live, gain, -1.0)
            e = int(np.argmax(gain))  # ties: lowest index
            col = block[:, e]
            if col.any():
                dist = np.abs(steps[:, None] - steps[col][None, :]).min(axis=1)
            else:
                dist = np.full(h, h)
            placed = False
            for q in sorted(np.flatnonzero(~col).tolist(), key=lambda q: (-dist[q], q)):
                block[q, e] = True
                if self._ok(block[q]):
                    placed = True
                    break
                block[q, e] = False
            if placed:
                n[e] += 1
                live[e] = n[e] < h
            else:
                live[e] = False

    def _ok(self, row: np.ndarray) -> bool:
        key = row.tobytes()
        ok = self._fits.get(key)
        if ok is None:
            problem = self.problem_
            ok = self._fits[key] = problem.fits([e for e, on in zip(problem.events, row) if on]
                                                + list(problem.free))
        return ok

    def _fill(self, row: np.ndarray, s: np.ndarray, placed: np.ndarray) -> None:
        """Add the most uncertain other events to one quantum while the set fits."""
        cand = np.flatnonzero(self._sched & ~row & (s > 0))
        if cand.size == 0:
            return
        prio = s[cand] / (1.0 + placed[cand]) ** 2
        for j in cand[np.lexsort((cand, -prio))]:
            row[j] = True
            if self._ok(row):
                placed[j] += 1
            else:
                row[j] = False
