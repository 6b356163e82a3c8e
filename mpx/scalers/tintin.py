"""Tintin's running-count estimator and its uncertainty (``tintin``), on the quantum view.

Source: the authors' kernel (github WUSTL-CSPL/tintin-kernel at 7906262e, Linux 5.15 patch,
``kernel/events/``), read for mpx in ``../shared/peers/tintin/kernel/``; Li et al., "Tintin", OSDI 2025.

**Measurements.** A measurement is one stay of the event on a counter: its count ``c``, its time on the
counter ``h`` and the event's time enabled ``T`` when it was scheduled out (``struct tintin_measurement``,
``tintin_vector.h:13-30``). The kernel's timer ticks every quantum (``core.c:1186-1200``) and every tick
schedules the events out and stores a reading (``core.c:2479-2487``): with ``merge=True`` a reading back to
back with the last measurement is merged into it (``tintin_store_new_reading``, ``core.c:2366, 2401-2421``), so
consecutive quanta on a counter are one measurement; ``merge=False`` makes every quantum its own measurement.
A **piece** is one quantum on a counter (the time between two ticks).

**Running count** (one per event, ``tintin_event.running_count``, ``tintin_event.h:70``), grown at each
sched-out by ``tintin_interpolate_count_by_TAM`` (``tintin_estimation.c:72-104``):

- the first measurement: ``c · T / h`` (``tintin_TAM_first_measurement``, ``tintin_estimation.c:5-17``, called with
  the event's total time enabled and monitored, ``tintin_estimation.c:91``): its rate extrapolated back to the start;
- every later one: ``tintin_TAM`` (``tintin_estimation.c:20-51``) with ``W = T − T_prev``:
  ``c_prev·W/h_prev + (W²/h)·c/(2W − h) − (W²/h_prev)·c_prev/(2W − h)``, the area over ``W`` under the line
  from the previous rate ``c_prev/h_prev`` placed at the previous measurement's *end* to the current rate
  ``c/h`` placed at the current measurement's *midpoint* (``2W − h`` is twice that distance). Since that
  line passes through ``c/h`` at the midpoint, the area equals the measured ``c`` plus the line's integral
  over the gap: the measured count is kept exactly.

**A read** (``tintin_event_count``, ``tintin_interface.c:16-69``): while the event is on a counter, the
running count plus the same interpolation with the measurement in progress (``tintin_interface.c:34-63``); otherwise
``tintin_running_count_extrapolated`` (``tintin_estimation.c:112-152``): the running count plus the time
enabled since the last measurement's end times that measurement's rate. mpx reads at the read-window
boundaries (a measurement in progress is cut there for the read; it goes on afterwards). A read window's
estimate is the difference of its two reads; ``run_totals`` is the read at the end of the run.

**Uncertainty** σ = √V · (time enabled − time on counters) (``tintin_uncertainty_extrapolated``,
``tintin_estimation.c:157-165``; ``tintin_update_uncertainty``, ``tintin_uncertainty.c:160-164``), where V
is the time-weighted *population* variance of the pieces' rates ``c/h`` by Welford's method
(``tintin_update_variance_by_Welfords_method``, ``tintin_uncertainty.c:166-220``: weight ``h``, mean =
Σc/Σh, V = Σ h (r − mean)(r − old mean) / Σ h), updated with every piece's own count and time whether it
was merged or not (``core.c:2423, 2450``): five counts on five consecutive quanta give their time-weighted
variance, not the variance of one merged measurement (0). Tintin's σ is that of the cumulative count; mpx reports per
read window ``std = √V · (ΔE − ΔR)`` (the same rule applied to the window's own unmonitored time, V as of
the window's end) so that it is scored for calibration like fusion's and BayesPerf's std.

**Integer arithmetic.** The kernel computes in u64: ``time·(rate − mean)·(rate − old_mean)`` wraps when a factor is
negative and the products of counts and nanoseconds overflow after about 10 s of realistic counts; the elastic
scheduler's guard (``count > 1000000000ULL``, ``tintin_elastic.c:70-75``) divides count and weight by 10³ and 10⁶. mpx
computes the intended mathematics in float64 (no wrap, no truncation).

An event with no measurement before a read has no estimate there (not estimated, NaN); one that never ran
is NaN everywhere. NaN counts in a quantum make that quantum count as not run.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.scalers.base import Estimate, Scaler
from mpx.schedulers.tintin import tam_area

__all__ = ["TintinScaler", "tam_area", "tam_steps", "measurements", "running_counts", "welford_variance"]


def measurements(ran: np.ndarray, counts: np.ndarray, dur: np.ndarray, merge: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One event's measurements from its quanta: ``(start_q, end_q, count, on_time)``, a measurement per
    run of consecutive quanta on the counter (``merge``) or per quantum."""
    ran = np.asarray(ran, dtype=bool)
    q = np.flatnonzero(ran)
    if q.size == 0:
        z = np.zeros(0)
        return z.astype(np.intp), z.astype(np.intp), z, z
    if merge:
        brk = np.flatnonzero(np.diff(q) > 1) + 1
        starts = q[np.r_[0, brk]]
        ends = q[np.r_[brk - 1, q.size - 1]] + 1
    else:
        starts, ends = q, q + 1
    cum_c = np.r_[0.0, np.cumsum(np.where(ran, counts, 0.0))]
    cum_t = np.r_[0.0, np.cumsum(np.where(ran, dur, 0.0))]
    return starts, ends, cum_c[ends] - cum_c[starts], cum_t[ends] - cum_t[starts]


def tam_steps(c0: np.ndarray, h0: np.ndarray, c1: np.ndarray, h1: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``tintin_TAM``'s area from one measurement ``(c0, h0)`` to the next ``(c1, h1)`` ending ``w`` later:
    the count the running estimate gains between their ends."""
    d = 2.0 * w - h1
    with np.errstate(divide="ignore", invalid="ignore"):
        return c0 * w / h0 + (w * w / h1) * c1 / d - (w * w / h0) * c0 / d


def running_counts(c: np.ndarray, h: np.ndarray, t_end: np.ndarray, mon_at_end: np.ndarray) -> np.ndarray:
    """The running count after each measurement (``tintin_interpolate_count_by_TAM`` summed): the first ``c·T/mon``
    (``tintin_TAM_first_measurement``, ``tintin_estimation.c:91``), then ``tintin_TAM`` for each later one."""
    out = np.zeros(c.size)
    if c.size == 0:
        return out
    out[0] = c[0] * t_end[0] / mon_at_end[0] if mon_at_end[0] > 0 else 0.0
    if c.size > 1:
        area = tam_steps(c[:-1], h[:-1], c[1:], h[1:], t_end[1:] - t_end[:-1])
        out[1:] = out[0] + np.cumsum(area)
    return out


def welford_variance(c: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The time-weighted population variance of the rates ``c/h`` after each piece, as Welford's update of
    ``tintin_uncertainty.c:199-218`` computes it (in real arithmetic)."""
    if c.size == 0:
        return np.zeros(0)
    r = c / h
    tw = np.cumsum(h)
    mean = np.cumsum(c) / tw
    old = np.r_[0.0, mean[:-1]]
    return np.cumsum(h * (r - mean) * (r - old)) / tw


class TintinScaler(Scaler):
    """Tintin's running-count estimate and its σ per read window (see the module docstring); quantum view.

    Parameters
    ----------
    merge:
        Consecutive quanta on a counter form one measurement (``core.c:2401-2421``); False: one
        measurement per quantum. Welford's variance is per quantum either way (``core.c:2423, 2450``).
    """

    name: ClassVar[str] = "tintin"
    view: ClassVar[str] = "quantum"
    causal: ClassVar[bool] = True
    source: ClassVar[str] = ("Tintin kernel (WUSTL-CSPL/tintin-kernel 7906262e): tintin_estimation.c:5-165 "
                             "(TAM to the midpoint, running count, extrapolated read, sigma), "
                             "tintin_uncertainty.c:166-220 (weighted Welford per piece, core.c:2423, 2450)")
    param_constraints: ClassVar[dict] = {"merge": "boolean"}

    def __init__(self, merge: bool = True) -> None:
        self.merge = merge

    def _reads_of_event(self, ran: np.ndarray, counts: np.ndarray, dur: np.ndarray, cum_dur: np.ndarray,
                        t_q: np.ndarray, cum_run: np.ndarray, reads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One event's running count and ``sqrt(V)`` at every read, the kernel's sums over the measurements
        closed by the read plus the one in progress cut at it; each read extends the prefix sums of the whole
        run by at most one step, so the cost is linear in the run."""
        value = np.full(reads.size, np.nan)
        sqrt_v = np.full(reads.size, np.nan)
        s, e, c, h = measurements(ran, counts, dur, self.merge)
        m = s.size
        if m == 0:
            return value, sqrt_v
        t_end = t_q[e]
        run = running_counts(c, h, t_end, cum_run[e])
        pieces = np.flatnonzero(ran & (dur > 0))                     # Welford per piece (core.c:2423, 2450)
        var_p = welford_variance(counts[pieces], dur[pieces])
        n_p = np.searchsorted(pieces, reads, side="left")            # pieces ended by each read
        has = n_p > 0
        sqrt_v[has] = np.sqrt(np.maximum(var_p[n_p[has] - 1], 0.0))
        k = np.searchsorted(e, reads, side="right")                 # measurements closed by each read
        nxt = np.minimum(k, m - 1)
        cut = (k < m) & (s[nxt] < reads)                             # one in progress across the read
        closed = ~cut & (k > 0)
        last = k[closed] - 1
        value[closed] = run[last] + (t_q[reads[closed]] - t_end[last]) * c[last] / h[last]
        cum_obs = np.r_[0.0, np.cumsum(np.where(ran, counts, 0.0))]
        b, first = reads[cut], s[nxt[cut]]
        c1, h1 = cum_obs[b] - cum_obs[first], cum_dur[b] - cum_dur[first]
        kc = k[cut]
        lone = kc == 0                                               # the cut measurement is the first one
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(cum_run[b] > 0, c1 * t_q[b] / cum_run[b], 0.0)
        p = np.maximum(kc - 1, 0)                                    # the last closed measurement
        step = tam_steps(c[p], h[p], c1, h1, t_q[b] - t_end[p])
        v = np.where(lone, v, run[p] + step)  # one more TAM step after the last closed measurement
        value[cut] = v
        return value, np.where(np.isfinite(value), sqrt_v, np.nan)

    def _estimate(self, observation: Any) -> Estimate:
        qv = observation.quanta
        edges = np.asarray(qv.edges, dtype=np.float64)
        dur = np.diff(edges)
        counts = np.asarray(qv.counts, dtype=np.float64)
        ran_q = np.asarray(qv.running, dtype=bool) & np.isfinite(counts)
        reads = np.asarray(observation.reads.quanta, dtype=np.intp)
        n_q, n_e = counts.shape
        t_read = edges[reads] - edges[0]                  # time enabled at each read
        cum_run = np.r_[np.zeros((1, n_e)), np.cumsum(np.where(ran_q, dur[:, None], 0.0), axis=0)]
        mon_read = cum_run[reads]                          # time on counters at each read [R+1, E]
        value = np.full((reads.size, n_e), np.nan)
        sqrt_v = np.full((reads.size, n_e), np.nan)
        t_q = edges - edges[0]
        cum_dur = np.r_[0.0, np.cumsum(dur)]
        for j in range(n_e):
            value[:, j], sqrt_v[:, j] = self._reads_of_event(ran_q[:, j], np.nan_to_num(counts[:, j]), dur,
                                                             cum_dur, t_q, cum_run[:, j], reads)
        est = np.diff(value, axis=0)
        first = np.isfinite(value[1:]) & ~np.isfinite(value[:-1])
        est[first] = value[1:][first]                       # the read before had no estimate: count from 0
        unmon = np.diff(t_read)[:, None] - np.diff(mon_read, axis=0)
        std = np.where(np.isfinite(est), sqrt_v[1:] * np.maximum(unmon, 0.0), np.nan)
        not_est = ~np.isfinite(est)
        notes = [f"{'merged' if self.merge else 'per-quantum'} measurements; std = sqrt(V) x unmonitored time "
                 "of the window"]
        return self.make_estimate(observation, est, not_estimated=not_est, std=np.where(not_est, np.nan, std),
                                  notes=notes, run_totals=value[-1])
