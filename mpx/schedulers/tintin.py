"""TinTin's uncertainty-driven elastic scheduling (online), as the authors' kernel runs it by default.

Sources: the authors' kernel (github WUSTL-CSPL/tintin-kernel at 7906262e, Linux 5.15 patch, files of
``kernel/events/`` and ``include/linux/tintin_event.h``, read for mpx in ``../shared/peers/tintin/kernel/``;
cited below as file:line) and the paper (Li, Sudvarg, Li, Baruah, Gill, Zhang, "Tintin: A Unified Hardware
Performance Profiling Infrastructure to Uncover and Manage Uncertainty", OSDI 2025).

``layout="kernel"`` (the default) follows the kernel's ``core.c`` (``kernel-events-core.c.excerpts``, cited
as ``core.c:N`` with N the original line) and ``tintin_schedule`` (``tintin_scheduler.c:221-290``):

1. **The tick** (``tick="quantum"``, the default): ``perf_mux_hrtimer_handler`` calls
   ``tintin_rotate_context`` and then forwards the timer by ``tintin_sched_quantum`` at every tick
   (``core.c:1186-1200``; the quantum is H / ``U_MIN_RATIO``, ``core.c:1237``). The scheduler's returned
   ``next_schedule`` is stored in ``tintin_sched_remaining_time`` (``core.c:4534``) and used only when a
   stopped timer restarts (``core.c:1263-1281``), which a replay never does. ``tick="next_schedule"``
   follows the return value instead (mpx's reading before issue 35), as the line the authors commented out
   wired it (``tintin_sched_quantum = tintin_mux_hrtimer_handler(hr)``, ``core.c:4533``) and as the paper
   describes the scheduler ("activated when TintinMonitor detects the end of a hyperperiod", section 6).
2. **Record, then solve**: at each tick every event on a counter is scheduled out
   (``ctx_sched_out``, ``core.c:4522-4525``) and ``event_sched_out`` stores its reading
   (``tintin_store_new_reading``, ``core.c:2479-2487``) before ``tintin_mux_hrtimer_handler`` runs the
   scheduler (``core.c:4534``). A reading back to back with the event's last measurement (time enabled
   since its end = the piece's time on the counter, ``core.c:2401``) is merged into it: its count and
   time grow, the running count is re-interpolated (``core.c:2404-2421``) and the budget is charged the
   merged measurement's whole time (``core.c:2416-2418``), so k consecutive one-quantum ticks spend
   k(k+1)/2 quanta; otherwise a new measurement is charged its own time (``core.c:2434-2449``). Budgets
   stop at 0 (``core.c:2416, 2446``). ``merge=False`` makes every piece a measurement.
3. **Welford per piece**: each stored piece (its own count and time, merged or not) updates the
   time-weighted *population* variance of the rates (``core.c:2423, 2450``;
   ``tintin_update_variance_by_Welfords_method``, ``tintin_uncertainty.c:166-220``). Then, every tick,
   σ = √V · (time enabled − time on counters) (``tintin_sched_event_handler.c:297-308``;
   ``tintin_update_uncertainty``, ``tintin_uncertainty.c:160-164``).
4. **Warm-up** (``warmup``, in hyperperiods of counter time; kernel ``MIN_WARMUP_TIMESLICES 20``,
   ``tintin_scheduler.c:219, 234``): while any event has had less than ``warmup · hyperperiod`` on a
   counter, the least monitored run first (``priority = total_time_monitored``, ``tintin_scheduler.c:241``).
5. **Elastic budgets** (``policy="elastic"``), re-solved only when every event's budget is spent
   (``resolve="spent"``; ``new_hyperperiod``, ``tintin_scheduler.c:237, 258-260``), by the one-pass elastic algorithm
   ``tintin_elastic`` (``tintin_elastic.c:24-119``, `kernel_elastic`): ceiling ``u_max = ⌈n/m⌉ · H``
   (``tintin_elastic.c:31-32``), minimum one quantum (``u_min = tintin_sched_quantum``,
   ``tintin_elastic.c:40``), elasticity ``x²/(w·V)`` with x the running count extrapolated to now
   (``tintin_elastic.c:61-76``; `mpx.scalers.tintin`); the solution equals water filling's (`water_fill`)
   on the same inputs.
6. **Layout**: the events sorted by remaining budget, then uncertainty, descending
   (``event_time_uncertainty_desc``, ``tintin_scheduler.c:139-155, 263-268``) go onto the counters in that
   order as perf's flexible sched-in does, which stops at the first event that does not fit (Linux 5.15
   ``merge_sched_in`` sets ``can_add_hw = 0`` after a failure).
7. **Uncertainty-first** (``policy="uncertainty_first"``, ``tintin_schedule_uncertainty_first``,
   ``tintin_scheduler.c:183-217``): no budgets; every tick the events sorted by σ descending go on in that
   order (ties: the least monitored first; see `TintinScheduler._order_uncertainty_first`). With
   ``tick="next_schedule"`` it returns the hyperperiod, the paper's description ("the scheduled event
   occupies the HPC until the next hyperperiod", section 8, figure 13).
8. **m** = ``NUM_HPCS`` = 6 whatever the PMU (``tintin_event.h:14``, passed at
   ``tintin_sched_event_handler.c:321``): the budgets are computed for 6 counters and the layout stops when
   the PMU is full. ``m=None`` uses the unit's counters.

The kernel's u64 arithmetic wraps (negative Welford products; count·time products after ~10 s) and
divides by 10³ / 10⁶ to avoid it (``tintin_elastic.c:70-75``): mpx computes the intended mathematics in
float64. Infinite elasticity (V = 0: ``e = U64_MAX``, ``tintin_elastic.c:79-80``) compresses to the minimum.
The priority ordering of the red-black tree insert (``tintin_sched_event_handler.c:161-168``) compares
``a > b``, the opposite of the comments' "lower priority serviced first" (``tintin_scheduler.c:240, 264``);
mpx follows the comments. The Hopcroft-Karp file (``tintin_hopcroft-karp.c``) is not called by the
scheduler. Event groups are not kept together.

``layout="mcnaughton"``: the paper's appendix variant as mpx first wrote it from the paper alone (kept as a
named option; ``m``, ``warmup``, ``merge``, ``resolve``, ``tick`` do not apply):

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

mpx discretisation and choices of that variant (not in the sources):

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
from mpx.params import Interval, StrOptions
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler

__all__ = ["TintinScheduler", "kernel_elastic", "water_fill", "mcnaughton", "quantize", "tam_area"]


def tam_area(c: float, t_end: float, h: float, c_prev: float, t_prev: float, h_prev: float) -> float:
    """``tintin_TAM`` (``tintin_estimation.c:20-51``) in real arithmetic: the count estimated from the
    previous measurement's end ``t_prev`` to the current one's end ``t_end`` (both in time enabled)."""
    w = t_end - t_prev
    d = 2.0 * w - h
    return c_prev * w / h_prev + (w * w / h) * c / d - (w * w / h_prev) * c_prev / d


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


def kernel_elastic(elasticity: Sequence[float], m: int, timeslice: float, u_min: float) -> np.ndarray:
    """``tintin_elastic`` (``tintin_elastic.c:24-119``) in real arithmetic: the budget of each event over
    the next ``⌈n/m⌉`` hyperperiods of length ``timeslice``. ``elasticity[i] = x_i²/(w_i V_i)`` (``inf``
    where ``w_i V_i = 0``: such an event does not add to the total and is compressed to ``u_min``).

    ``u_max = ⌈n/m⌉·timeslice``, ``u_bound = m·u_max``, ``u_sum = n·u_max`` (``tintin_elastic.c:31-36``);
    n <= m: every event gets ``u_max`` (``tintin_elastic.c:43-49``); no finite elasticity: every event
    ``u_bound/n`` (``tintin_elastic.c:88-94``); else in decreasing elasticity (``tintin_elastic.c:97``) each
    event is compressed by ``(u_sum − u_bound + delta)·e/e_sum``, or, when that would take it below
    ``u_min``, set to ``u_min`` and taken out of the sums (``tintin_elastic.c:99-117``)."""
    e = np.asarray(elasticity, dtype=float)
    n = e.size
    out = np.zeros(n)
    if n == 0:
        return out
    u_max = -(-n // m) * float(timeslice)
    u_bound, u_sum = u_max * m, u_max * n
    if n <= m:
        return np.full(n, u_max)
    e_sum = float(e[np.isfinite(e)].sum())
    if e_sum == 0:
        return np.full(n, u_bound / n)
    delta = 0.0
    for i in sorted(range(n), key=lambda i: (-e[i], i)):
        comp = np.inf if not np.isfinite(e[i]) else (u_sum - u_bound + delta) * e[i] / e_sum
        if comp > u_max - u_min:
            delta += u_min
            u_sum -= u_max
            if e[i] < e_sum:
                e_sum -= e[i]
            out[i] = u_min
        else:
            out[i] = u_max - comp
    return out


class TintinScheduler(OnlineScheduler):
    """TinTin's elastic scheduling; ``layout="kernel"`` as the authors' kernel runs it (the default),
    ``layout="mcnaughton"`` the paper's appendix variant; see the module docstring.

    Parameters
    ----------
    hyperperiod:
        Quanta per hyperperiod H (kernel: 4 ms, ``DEFAULT_SCHED_INTERVAL``, ``tintin_event.h:17``, over the
        paper's 0.4 ms quantum = 10).
    u_min:
        Minimum budget as a share of H (kernel: one quantum, ``tintin_elastic.c:40``, = 1/10 of H).
    layout:
        ``"kernel"`` (largest remaining budget first, perf's stop at the first event that does not fit)
        or ``"mcnaughton"`` (the paper's appendix: water filling and McNaughton's wrap-around per H).
    m:
        Counters the budgets are computed for (kernel: ``NUM_HPCS`` = 6, ``tintin_event.h:14``); None:
        the PMU unit's counters.
    warmup:
        Hyperperiods of counter time every event gets before the elastic schedule starts (kernel:
        ``MIN_WARMUP_TIMESLICES`` = 20, ``tintin_scheduler.c:219``); 0: none.
    merge:
        Back-to-back stays are one measurement whose time so far is charged at every tick
        (``core.c:2401-2421``); False: one measurement per tick, charged the tick's time.
    resolve:
        ``"spent"``: re-solve when every budget is spent (``new_hyperperiod``, ``tintin_scheduler.c:237, 258``);
        ``"hyperperiod"``: every H.
    tick:
        ``"quantum"`` (core.c): the timer is forwarded one quantum at every tick whatever the scheduler
        returns (``hrtimer_forward_now``, ``core.c:1198-1200``); ``"next_schedule"``: the next tick after the
        scheduler's returned ``next_schedule``, in [1, H] quanta (``tintin_scheduler.c:273-283``), which core.c
        stores (``tintin_sched_remaining_time``, ``core.c:4534``) and uses only when a stopped timer restarts
        (``core.c:1263-1264``).
    policy:
        ``"elastic"`` (``tintin_scheduling_policy`` 0, ``tintin_sched_event_handler.c:319-321``) or
        ``"uncertainty_first"`` (policy 2, ``tintin_schedule_uncertainty_first``,
        ``tintin_sched_event_handler.c:322-323``; the paper's figure 13 "Uncertainty-First").
    uf_warmup:
        Ticks of round robin before uncertainty-first orders by σ (``policy="uncertainty_first"`` only). 0: as
        the kernel's code runs, whose warm-up (``UNCERTAINTY_FIRST_WARMUP 48``, ``tintin_scheduler.c:179``)
        sets priorities that the sort right after it overwrites (``tintin_scheduler.c:189-206``); 48: the
        warm-up that code intended (priority ``(i + ticks) % n``, a window sliding one event per tick).
    """

    name: ClassVar[str] = "tintin"
    source: ClassVar[str] = ("Tintin kernel (WUSTL-CSPL/tintin-kernel 7906262e): core.c:1186-1200, 2366-2453, "
                             "tintin_scheduler.c:183-290, tintin_elastic.c:24-119, tintin_uncertainty.c:166-220; "
                             "layout='mcnaughton': the paper's appendix (Li et al., OSDI 2025)")

    param_constraints: ClassVar[dict] = {
        "hyperperiod": Interval(int, 1, None), "u_min": Interval(float, 0, 1),
        "layout": StrOptions(("kernel", "mcnaughton")), "m": [None, Interval(int, 1, None)],
        "warmup": Interval(float, 0, None), "merge": "boolean",
        "resolve": StrOptions(("spent", "hyperperiod")), "tick": StrOptions(("quantum", "next_schedule")),
        "policy": StrOptions(("elastic", "uncertainty_first")), "uf_warmup": Interval(int, 0, None)}

    def __init__(self, hyperperiod: int = 10, u_min: float = 0.1, layout: str = "kernel", m: int | None = 6,
                 warmup: float = 20.0, merge: bool = True, resolve: str = "spent", tick: str = "quantum",
                 policy: str = "elastic", uf_warmup: int = 0) -> None:
        self.hyperperiod = hyperperiod
        self.u_min = u_min
        self.layout = layout
        self.m = m
        self.warmup = warmup
        self.merge = merge
        self.resolve = resolve
        self.tick = tick
        self.policy = policy
        self.uf_warmup = uf_warmup

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
        self._seen = 0
        self.dropped_ = 0
        self.utilization_ = np.zeros(n)
        # the mcnaughton variant's per-quantum Welford
        self._count = np.zeros(n)
        self._mean = np.zeros(n)
        self._m2 = np.zeros(n)
        self._periods = 0
        # the kernel's per-event state (tintin_event.h:29-90)
        self._mon = np.zeros(n)                 # total_time_monitored
        self.remaining_ = np.zeros(n)           # remaining_time (budget)
        self._prev = np.zeros(n, dtype=bool)    # on the counters during the tick that just ran
        self._t_prev = 0.0                      # time enabled at the previous tick
        self._n_meas = np.zeros(n, dtype=int)
        self._run = np.zeros(n)                 # running_count
        self._last = np.zeros((n, 3))           # last measurement: count, on-time, time enabled at its end
        self._before = np.zeros((n, 3))         # the measurement before it (tintin_TAM's m_prev)
        self._run_base = np.zeros(n)            # running count before the last measurement
        self._wc = np.zeros(n)                  # Welfords_total, _total_weight, _mean, _variance_running
        self._wt = np.zeros(n)
        self._wmean = np.zeros(n)
        self._wvr = np.zeros(n)
        self.variance_ = np.zeros(n)            # Welfords_variance
        self.sigma_ = np.zeros(n)               # uncertainty
        self.warm_up_quanta_ = None
        self._next_resolve = 0
        self.resolves_ = 0
        self._uf_ticks = 0

    # -- the kernel ------------------------------------------------------------------------------------

    def _welford(self, j: int, c: float, h: float) -> None:
        """``tintin_update_variance_by_Welfords_method`` (``tintin_uncertainty.c:166-220``) with one piece's
        count ``c`` and time ``h``: weight ``h``, mean = Σc/Σh, V = Σ h (r − mean)(r − old mean) / Σ h."""
        r, old = c / h, self._wmean[j]
        self._wc[j] += c
        self._wt[j] += h
        self._wmean[j] = self._wc[j] / self._wt[j]
        self._wvr[j] += h * (r - self._wmean[j]) * (r - old)
        self.variance_[j] = max(self._wvr[j] / self._wt[j], 0.0)

    def _interpolate(self, j: int) -> float:
        """``tintin_interpolate_count_by_TAM`` (``tintin_estimation.c:72-104``) of the newest measurement."""
        lc, lh, lt = self._last[j]
        if self._n_meas[j] == 1:  # tintin_TAM_first_measurement with the event's times now (:91)
            return lc * lt / self._mon[j]
        pc, ph, pt = self._before[j]
        return tam_area(lc, lt, lh, pc, pt, ph)

    def _store(self, j: int, c: float, h: float, t_prev: float, t_now: float) -> None:
        """``tintin_store_new_reading`` (``core.c:2366-2453``), run at the sched-out that ends a piece of
        ``h`` on the counter: merged into the last measurement when back to back (``core.c:2401``), its
        running count re-interpolated and the budget charged the merged time (``core.c:2404-2421``), else a
        new measurement charged the piece (``core.c:2434-2449``); Welford gets the piece either way
        (``core.c:2423, 2450``)."""
        self._mon[j] += h
        if self.merge and self._n_meas[j] > 0 and self._last[j, 2] == t_prev:
            lc, lh, _ = self._last[j]
            self._last[j] = (lc + c, lh + h, t_now)
            self._run[j] = self._run_base[j] + self._interpolate(j)
            self.remaining_[j] = max(self.remaining_[j] - self._last[j, 1], 0.0)
        else:
            self._before[j] = self._last[j]
            self._run_base[j] = self._run[j]
            self._last[j] = (c, h, t_now)
            self._n_meas[j] += 1
            self._run[j] += self._interpolate(j)
            self.remaining_[j] = max(self.remaining_[j] - h, 0.0)
        self._welford(j, c, h)

    def running_count(self, t_now: float) -> np.ndarray:
        """``tintin_running_count_extrapolated`` (``tintin_estimation.c:112-152``) of every event at time
        enabled ``t_now``: the running count plus the last measurement's rate since its end."""
        lc, lh, lt = self._last.T
        with np.errstate(divide="ignore", invalid="ignore"):
            ext = np.where(self._n_meas > 0, (t_now - lt) * lc / np.where(lh > 0, lh, 1.0), 0.0)
        return np.where(self._n_meas > 0, self._run + ext, 0.0)

    def _order_elastic(self, idx: np.ndarray, m: int, hyper: float, quantum: float, t_now: float,
                       resolve_now: bool) -> tuple[list[int], float]:
        """``tintin_schedule`` (``tintin_scheduler.c:221-290``): the priority order of one unit's events and
        the scheduler's ``next_schedule`` (time)."""
        if (self._mon[idx] < float(self.warmup) * hyper).any():  # tintin_scheduler.c:229-255
            return sorted(idx.tolist(), key=lambda j: (self._mon[j], j)), hyper
        if self.warm_up_quanta_ is None:
            self.warm_up_quanta_ = self._seen
        if (self.resolve == "spent" and not (self.remaining_[idx] > 0).any()) or resolve_now:
            weight = self.variance_[idx] * np.asarray(self.problem_.weights, dtype=float)[idx]
            x = self.running_count(t_now)[idx]
            with np.errstate(divide="ignore", invalid="ignore"):
                e = np.where(weight > 0, x * x / np.where(weight > 0, weight, 1.0), np.inf)
            self.remaining_[idx] = kernel_elastic(e, m, hyper, float(self.u_min) * hyper)
            self.utilization_[idx] = self.remaining_[idx] / (-(-idx.size // m) * hyper)
            self.resolves_ += 1
        order = sorted(idx.tolist(), key=lambda j: (-self.remaining_[j], -self.sigma_[j], j))
        nxt = hyper
        for j in order[:m]:
            if self.remaining_[j] > 0:
                nxt = self.remaining_[j]
        return order, min(max(nxt, quantum), hyper)

    def _order_uncertainty_first(self, idx: np.ndarray) -> list[int]:
        """``tintin_schedule_uncertainty_first`` (``tintin_scheduler.c:183-217``): the most uncertain first
        (``event_uncertainty_desc``, ``tintin_scheduler.c:105-120``). Ties (σ = 0 before an event has two pieces) go
        to the least monitored, then opening order: the kernel's heapsort leaves them in no defined order and the
        round robin of its warm-up (``uf_warmup_count``, ``tintin_scheduler.c:189-197``) is overwritten by the sort
        (``sort``, ``tintin_scheduler.c:199-206``); ``uf_warmup`` > 0 runs that round robin first."""
        if self._uf_ticks < int(self.uf_warmup):
            n, c = idx.size, self._uf_ticks
            return [int(idx[(p - c) % n]) for p in range(n)]  # priority (i + c) % n, the lowest first
        return sorted(idx.tolist(), key=lambda j: (-self.sigma_[j], self._mon[j], j))

    def _decide_kernel(self, observed: Observed) -> np.ndarray:
        problem = self.problem_
        n = problem.n_events
        h_q = int(self.hyperperiod)
        edges = np.asarray(observed.edges, dtype=float)
        q1 = observed.n_quanta
        quantum = float(observed.quantum)
        hyper = h_q * quantum
        t_now = float(edges[q1] - edges[0]) if q1 else 0.0
        if q1 > self._seen:  # the tick just ended: every event on a counter is scheduled out and stored
            dur = float(edges[q1] - edges[self._seen])
            cnt = np.nansum(np.asarray(observed.counts[self._seen:q1], dtype=float), axis=0)
            if dur > 0:
                for j in np.flatnonzero(self._prev):
                    self._store(int(j), float(cnt[j]), dur, self._t_prev, t_now)
            self._seen = q1
        self._t_prev = t_now
        self.sigma_ = np.sqrt(self.variance_) * np.maximum(t_now - self._mon, 0.0)  # the handler, :297-308
        row = np.zeros(n, dtype=bool)
        resolve_now = self.resolve == "hyperperiod" and q1 >= self._next_resolve
        if resolve_now:
            self._next_resolve = q1 + h_q
        nxt = hyper
        for unit, idx in self._units.items():
            m = int(self.m) if self.m is not None else problem.n_counters(unit)
            if idx.size == 0:
                continue
            if self.policy == "uncertainty_first":
                order, nxt_unit = self._order_uncertainty_first(idx), hyper
            else:
                order, nxt_unit = self._order_elastic(idx, m, hyper, quantum, t_now, resolve_now)
            nxt = min(nxt, nxt_unit)
            chosen: list[str] = []
            for j in order:  # perf's flexible sched-in: stop at the first that does not fit
                if not problem.fits(chosen + [problem.events[j]]):
                    break
                chosen.append(problem.events[j])
                row[j] = True
        self._prev = row
        self._uf_ticks += 1
        k = 1 if self.tick == "quantum" else int(min(max(round(nxt / quantum), 1), h_q))
        return np.repeat(row[None, :], k, axis=0)

    def _decide(self, observed: Observed) -> np.ndarray:
        if self.layout == "kernel":
            return self._decide_kernel(observed)
        return self._decide_mcnaughton(observed)

    # -- the paper's appendix variant (layout="mcnaughton") -----------------------------------------------

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

    def _decide_mcnaughton(self, observed: Observed) -> np.ndarray:
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
