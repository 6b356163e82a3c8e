"""TinTin's uncertainty-driven elastic scheduling, one hyperperiod at a time (online).

Source: Li, Sudvarg, Li, Baruah, Gill, Zhang, "Tintin: A Unified Hardware Performance Profiling
Infrastructure to Uncover and Manage Uncertainty", OSDI 2025; the formulas below are as the thesis
(``seeds/thesis-ch2-related-work.tex``, section 2.2.2) and ``reference/multiplexing-methods.md`` state
them (not checked against TinTin's code, which is not public in a form we have).

1. **Uncertainty** (from what was counted so far, never the truth): for every quantum an event ran, its
   rate ``r = count / duration``; Welford's running mean and variance give ``mean(r_i)`` and ``V(r_i)``.
   The variance of the count over an unmonitored time ``t`` is ``V(r_i)·t²``.
2. **Elastic scheduling**: choose utilizations ``U_i`` (share of the hyperperiod the event is on a
   counter) minimising ``Σ w_i V(r_i)/x_i² · (1 − U_i)²`` subject to ``Σ U_i ≤ m`` and
   ``U_min <= U_i <= 1``. mpx takes ``x_i`` = ``mean(r_i)·T``, the expected count over the hyperperiod
   ``T``, so the objective is the weighted squared relative uncertainty of the unmonitored part:
   ``a_i (1 − U_i)²`` with ``a_i = w_i V(r_i)/mean(r_i)²`` (an event that never fired has ``a_i = 0``).
   The separable convex problem is solved by **water-filling** (`water_fill`):
   ``U_i = clip(1 − λ/a_i, U_min, 1)`` with ``λ >= 0`` set so that ``Σ U_i = m``.
3. **Packing**: the fractional shares are laid onto the ``m`` counters by **McNaughton's wrap-around
   rule** (`mcnaughton`), events taken from the most to the least uncertain: counter 1 is filled from
   the start of the hyperperiod, an event that does not fit in what is left of a counter continues at
   the start of the next one (it never overlaps itself since ``U_i <= 1``).

mpx discretisation and choices (not in the sources):

- The hyperperiod is ``hyperperiod`` quanta (TinTin: 4 ms; U_min = 1/10 of it): shares become whole
  quanta by largest remainders (`quantize`), at least one quantum per event when the hyperperiod has room
  for every event, and McNaughton runs on those integers, so one decision is the running mask of the next
  ``hyperperiod`` quanta.
- Events with fewer than two observed quanta have no variance yet: they get the largest ``a_i`` seen
  (1 when none is known), so they are sampled early. When ``n · U_min > m`` the bounds are infeasible
  and every event gets ``m/n``; when the hyperperiod cannot give every event a quantum, a window of
  events rotating from one hyperperiod to the next gets one quantum each.
- Each PMU unit is packed separately on its own counters. If counter masks make a quantum's events
  impossible to place together, the least uncertain are dropped from that quantum (``dropped_`` counts
  them). The problem's groups are not kept together (TinTin's event-group extension is not modelled);
  user weights are the problem's ``weights``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Interval
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler

__all__ = ["TintinScheduler", "water_fill", "mcnaughton", "quantize"]


def water_fill(a: Sequence[float], m: float, u_min: float, u_max: float = 1.0) -> np.ndarray:
    """Minimise ``Σ a_i (1 − U_i)²`` s.t. ``Σ U_i <= m``, ``u_min <= U_i <= u_max`` (``a_i >= 0``).

    ``U_i = clip(1 − λ/a_i, u_min, u_max)`` with the smallest ``λ >= 0`` meeting the capacity (found by
    bisection to machine precision). Events with ``a_i = 0`` gain nothing from counters: they stay at
    ``u_min`` and share what capacity is left once every other event is at ``u_max``. Infeasible bounds
    (``n · u_min > m``) give every event ``m / n``.
    """
    a = np.asarray(a, dtype=float)
    n = a.size
    if n == 0:
        return np.zeros(0)
    if not (np.all(np.isfinite(a)) and np.all(a >= 0)):
        raise ConfigError(f"water_fill: weights must be finite and >= 0, got {a!r}")
    if not 0 <= u_min <= u_max:
        raise ConfigError(f"water_fill: need 0 <= u_min <= u_max, got {u_min}, {u_max}")
    if n * u_min > m:
        return np.full(n, m / n)
    if n * u_max <= m:
        return np.full(n, float(u_max))
    pos = a > 0

    def share(lam: float) -> np.ndarray:
        u = np.full(n, float(u_min))
        with np.errstate(divide="ignore"):
            u[pos] = np.clip(1.0 - lam / a[pos], u_min, u_max)
        return u

    top = share(0.0)
    if top.sum() <= m:  # λ = 0: every useful event saturates; the rest share what is left
        zero = ~pos
        if zero.any():
            top[zero] = np.clip((m - top[pos].sum()) / zero.sum(), u_min, u_max)
        return top
    lo, hi = 0.0, float(a.max())  # Σ share(hi) = n·u_min <= m
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if share(mid).sum() > m:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, hi):
            break
    return share(hi)


def mcnaughton(shares: Sequence[float], m: int, length: float = 1.0) -> list[tuple[int, int, float, float]]:
    """McNaughton's wrap-around rule: ``(item, counter, start, end)`` pieces packing ``shares`` (each
    ``<= length``, total ``<= m·length``) in the given order onto ``m`` counters over ``[0, length)``."""
    out: list[tuple[int, int, float, float]] = []
    c, t = 0, 0.0
    total = float(sum(shares))
    if total > m * length * (1 + 1e-12):
        raise ConfigError(f"mcnaughton: total share {total} exceeds {m} counters x {length}")
    for i, s in enumerate(shares):
        if s > length * (1 + 1e-12) or s < 0:
            raise ConfigError(f"mcnaughton: share {s} of item {i} is outside [0, {length}]")
        if s == 0:
            continue
        if t + s <= length * (1 + 1e-12):
            out.append((i, c, t, min(t + s, length)))
            t += s
        else:
            out.append((i, c, t, length))
            c += 1
            t = s - (length - t)
            out.append((i, c, 0.0, t))
        if t >= length * (1 - 1e-12):
            c, t = c + 1, 0.0
    return out


def quantize(shares: Sequence[float], slots: int, capacity: int, order: Sequence[int] | None = None,
             at_least_one: bool = True) -> np.ndarray:
    """Whole slots per item from fractional ``shares`` of ``slots`` (largest remainders, ties in
    ``order``), each in ``[1, slots]`` when ``at_least_one``, total at most ``capacity``."""
    s = np.asarray(shares, dtype=float) * slots
    n = s.size
    order = list(range(n)) if order is None else list(order)
    k = np.floor(s + 1e-9).astype(int)
    if at_least_one:
        k = np.maximum(k, 1)
    k = np.minimum(k, slots)
    target = min(capacity, int(round(float(s.sum()))))
    rank = {i: r for r, i in enumerate(order)}
    rem = s - np.floor(s + 1e-9)
    while k.sum() > capacity:  # at_least_one pushed past capacity: take from the largest shares
        j = max((i for i in range(n) if k[i] > 1), key=lambda i: (k[i], -rank[i]))
        k[j] -= 1
    for i in sorted(range(n), key=lambda i: (-rem[i], rank[i])):
        if k.sum() >= target:
            break
        if k[i] < slots:
            k[i] += 1
    return k


class TintinScheduler(OnlineScheduler):
    """TinTin's elastic scheduling, decided one hyperperiod at a time; see the module docstring.

    Parameters
    ----------
    hyperperiod:
        Quanta per scheduling period (one decision covers them).
    u_min:
        Minimum utilization of an event, as a share of the hyperperiod (TinTin: 1/10).
    """

    name: ClassVar[str] = "tintin"
    source: ClassVar[str] = ("Li et al., OSDI 2025 (Tintin): Welford rate variance, elastic scheduling by "
                             "water-filling, McNaughton packing (formulas as in the thesis, ch. 2)")

    param_constraints: ClassVar[dict] = {"hyperperiod": Interval(int, 1, None), "u_min": Interval(float, 0, 1)}

    def __init__(self, hyperperiod: int = 10, u_min: float = 0.1) -> None:
        self.hyperperiod = hyperperiod
        self.u_min = u_min

    def _start(self, problem: Problem) -> None:
        n = problem.n_events
        free = problem.free_mask
        self.errors_ = problem.unplaceable
        self._units: dict[str, np.ndarray] = {}
        for i, e in enumerate(problem.events):
            if free[i] or e in self.errors_:
                continue
            self._units.setdefault(problem.unit(e), []).append(i)
        self._units = {u: np.asarray(ix) for u, ix in self._units.items()}
        self._count = np.zeros(n)
        self._mean = np.zeros(n)
        self._m2 = np.zeros(n)
        self._seen = 0
        self._periods = 0
        self.dropped_ = 0
        self.utilization_ = np.zeros(n)

    def _update(self, observed: Observed) -> None:
        """Welford over the quanta observed since the last decision (only where the event ran)."""
        q1 = observed.n_quanta
        if q1 <= self._seen:
            return
        dur = np.diff(np.asarray(observed.edges[self._seen:q1 + 1], dtype=float))
        ran = np.asarray(observed.running[self._seen:q1], dtype=bool)
        counts = np.asarray(observed.counts[self._seen:q1], dtype=float)
        for q in range(ran.shape[0]):
            on = ran[q] & np.isfinite(counts[q])
            if not on.any() or dur[q] <= 0:
                continue
            r = counts[q, on] / dur[q]
            self._count[on] += 1
            delta = r - self._mean[on]
            self._mean[on] += delta / self._count[on]
            self._m2[on] += delta * (r - self._mean[on])
        self._seen = q1

    def priorities(self) -> np.ndarray:
        """``a_i = w_i V(r_i) / mean(r_i)²`` per event from the observations so far (NaN where fewer
        than two quanta were observed)."""
        w = np.asarray(self.problem_.weights, dtype=float)
        a = np.full(self._count.size, np.nan)
        known = self._count >= 2
        var = np.where(known, self._m2 / np.maximum(self._count - 1, 1), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(self._mean > 0, var / self._mean**2, 0.0)
        a[known] = w[known] * rel[known]
        return a

    def _decide(self, observed: Observed) -> np.ndarray:
        problem = self.problem_
        self._update(observed)
        h = int(self.hyperperiod)
        block = np.zeros((h, problem.n_events), dtype=bool)
        a_all = self.priorities()
        for unit, idx in self._units.items():
            m = problem.n_counters(unit)
            if m < 1 or idx.size == 0:
                continue
            a = a_all[idx]
            known = np.isfinite(a)
            fill = float(np.nanmax(a)) if known.any() and np.nanmax(a) > 0 else 1.0
            a = np.where(known, a, fill)
            u = water_fill(a, m, float(self.u_min))
            self.utilization_[idx] = u
            order = sorted(range(idx.size), key=lambda i: (-a[i], i))  # most uncertain first
            if idx.size <= m * h:
                k = quantize(u, h, m * h, order=order, at_least_one=self.u_min > 0)
            else:  # not even one quantum each: a rotating window of m·h events gets one
                k = np.zeros(idx.size, dtype=int)
                start = (self._periods * m * h) % idx.size
                k[[(start + j) % idx.size for j in range(m * h)]] = 1
            for item, _, t0, t1 in mcnaughton([int(k[i]) for i in order], m, h):
                block[int(t0):int(t1), idx[order[item]]] = True
            for q in range(h):
                self._fit_quantum(block[q], idx, order)
        self._periods += 1
        return block

    def _fit_quantum(self, row: np.ndarray, idx: np.ndarray, order: list[int]) -> None:
        """Drop the least uncertain events of one quantum until the set fits the PMU (counter masks)."""
        problem = self.problem_
        on = [int(idx[i]) for i in order if row[idx[i]]]
        while on and not problem.fits([problem.events[j] for j in on]):
            row[on.pop()] = False
            self.dropped_ += 1
