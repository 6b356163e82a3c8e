"""PAPI's software-multiplexing rate estimator (``papi_sw``), on the quantum view.

Source: PAPI ``src/sw_multiplex.c`` (``mpx_handler``, ``MPX_read``, ``MPX_stop``; ``MPX_MINCYC 25000``).
PAPI's own software multiplexing runs one event at a time with ``PAPI_TOT_CYC`` beside it and switches on
a SIGPROF timer (10 ms by default). At the end of each slice of an event:

- ``cycles`` = the cycles counted in the slice; ``total_c`` += cycles (cycles of all slices so far);
- if ``cycles >= MPX_MINCYC`` (25,000): ``rate = count_slice / cycles`` (else the previous rate stays;
  it starts at 0);
- ``count_estimate += (long long)((total_c − prev_total_c) · rate)``, where ``prev_total_c`` is
  ``total_c`` at the end of the event's previous slice (0 at the start): the cycles since the event last
  ran, *including the gap when others ran*, are credited at the rate just measured.

``PAPI_read`` returns ``count_estimate`` (``MPX_read`` with ``called_by_stop = 0``: no extrapolation to
the current time); ``PAPI_stop`` adds ``rate · cycles since the last slice`` for each event — the tail.

Here a slice is a quantum in which the event ran (mpx's multiplexer replays perf's kernel rotation; this
scaler reads whatever schedule the observation has). The estimator **needs a cycles event counted in
every quantum** (``cycles_event``; on a fixed counter it always is); ``cycles_event=None`` looks for one
of `CYCLES_NAMES` in the observation (or a dotted name ending in one, as gem5's ``...core.numCycles``),
and ``"time"`` uses the quantum durations on the trace's time axis instead (then set ``min_cycles`` in
that unit). A quantum whose cycles count is missing (NaN) adds no
cycles and does not update the rate.

``attribution``:

- ``"slice"`` (default, faithful): each increment lands in the quantum whose slice ended, as
  ``PAPI_read`` would report it; the tail after an event's last slice lands in the last quantum, as at
  ``PAPI_stop``. Causal.
- ``"spread"``: each increment is spread over the quanta it covers in proportion to their cycles (the
  quanta before a slice get the rate measured *after* them) — a per-quantum estimate; offline.

The first slice of an event credits all cycles since the start (``prev_total_c`` starts at 0). Read
windows in which the event did not run are flagged not estimated (whatever value the attribution put
there). Events that never ran: every window flagged, value 0. NeoMPX's fixes are not offered here
(they are defined on read windows).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Interval, StrOptions
from mpx.scalers.base import Estimate, Scaler, sum_quanta

__all__ = ["CYCLES_NAMES", "MPX_MINCYC", "PapiSwScaler"]

MPX_MINCYC = 25000

#: names taken for the cycles event when ``cycles_event=None`` (perf, Intel, Arm, gem5, PAPI spellings)
CYCLES_NAMES = ("cycles", "cpu-cycles", "cpu_cycles", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.CORE",
                "CPU_CLK_UNHALTED.THREAD_P", "PAPI_TOT_CYC", "numCycles", "CPU_CYCLES")


class PapiSwScaler(Scaler):
    """PAPI's software-multiplexing estimator (see the module docstring); quantum view."""

    name: ClassVar[str] = "papi_sw"
    view: ClassVar[str] = "quantum"
    source: ClassVar[str] = "PAPI src/sw_multiplex.c mpx_handler / MPX_read / MPX_stop (MPX_MINCYC = 25000)"

    param_constraints: ClassVar[dict] = {"cycles_event": [None, str], "min_cycles": Interval(float, 0, None),
                                         "attribution": StrOptions(("slice", "spread")), "integer": "boolean"}

    def __init__(self, cycles_event: str | None = None, min_cycles: float = MPX_MINCYC,
                 attribution: str = "slice", integer: bool = True):
        self.cycles_event = cycles_event
        self.min_cycles = min_cycles
        self.attribution = attribution
        self.integer = integer

    @property
    def causal(self) -> bool:  # type: ignore[override]
        return self.attribution == "slice"

    def _cycles(self, observation: Any) -> tuple[np.ndarray, str]:
        q = observation.quanta
        if self.cycles_event == "time":
            return np.diff(np.asarray(q.edges, dtype=np.float64)), "time"
        events = list(observation.events)
        if self.cycles_event is None:
            found = [n for n in CYCLES_NAMES if n in events]
            if not found:  # gem5-style dotted names: board.processor.cores.core.numCycles
                found = [e for e in events if e.rsplit(".", 1)[-1] in CYCLES_NAMES]
            if not found:
                raise ConfigError("papi_sw needs a cycles event counted all the time: none of "
                                  f"{list(CYCLES_NAMES)} is in the observation; set cycles_event=NAME, or "
                                  "cycles_event='time' to use quantum durations")
            if len(found) > 1:
                raise ConfigError(f"papi_sw: several cycles events {found[:5]}: choose one with cycles_event=NAME")
            name = found[0]
        else:
            if self.cycles_event not in events:
                raise ConfigError(f"papi_sw: cycles_event {self.cycles_event!r} is not an event of the observation")
            name = self.cycles_event
        j = events.index(name)
        cyc = np.array(q.counts[:, j], dtype=np.float64)
        cyc[~np.asarray(q.running[:, j], dtype=bool)] = np.nan
        return cyc, name

    def _estimate(self, observation: Any) -> Estimate:
        q = observation.quanta
        cyc, cyc_name = self._cycles(observation)
        notes = [f"cycles from {cyc_name!r}"]
        missing_cyc = ~np.isfinite(cyc) | (cyc < 0)
        if missing_cyc.any():
            notes.append(f"{int(missing_cyc.sum())} quanta without a cycles count: no cycles added, no rate update")
        cyc = np.where(missing_cyc, 0.0, cyc)
        counts = np.asarray(q.counts, dtype=np.float64)
        n_q, n_e = counts.shape
        total_c = np.cumsum(cyc)                                   # total_c after each quantum
        # the slices, as (event, quantum) pairs sorted by event then quantum: work on them only
        ran_t = np.asarray(q.running, dtype=bool).T & np.isfinite(counts.T)
        ev, qi = np.nonzero(ran_t)
        n = ev.size
        first = np.ones(n, dtype=bool)
        first[1:] = ev[1:] != ev[:-1]
        last = np.ones(n, dtype=bool)
        last[:-1] = first[1:]
        pos = np.arange(n)
        group_start = np.maximum.accumulate(np.where(first, pos, 0))
        prev_total = np.zeros(n)
        prev_total[1:] = total_c[qi[:-1]]
        prev_total[first] = 0.0                                    # prev_total_c starts at 0
        span = total_c[qi] - prev_total                            # cycles credited at this slice
        c_slice = cyc[qi]
        good = (c_slice >= self.min_cycles) & ~missing_cyc[qi]
        with np.errstate(invalid="ignore", divide="ignore"):
            slice_rate = np.where(good, counts[qi, ev] / np.where(c_slice > 0, c_slice, 1.0), 0.0)
        last_good = np.maximum.accumulate(np.where(good, pos, -1)) if n else pos
        has_rate = last_good >= group_start
        rate = np.where(has_rate, slice_rate[np.maximum(last_good, 0)] if n else 0.0, 0.0)
        inc = span * rate
        tail_cyc = total_c[-1] - total_c[qi[last]] if n_q else np.zeros(0)
        tail = tail_cyc * rate[last]
        if self.integer:
            inc = np.trunc(inc)
            tail = np.trunc(tail)
        rated = np.zeros(n_e, dtype=bool)
        np.logical_or.at(rated, ev, good)
        never_rated = ran_t.any(axis=1) & ~rated
        if never_rated.any() and not rated.any():
            raise ConfigError(f"papi_sw: no multiplexing slice reached min_cycles = {self.min_cycles:g} cycles (the "
                              f"longest had {np.max(c_slice, initial=0.0):g}): PAPI drops every slice, so it estimates "
                              "nothing here (MPX_MINCYC assumes slices of ~10 ms); set min_cycles below a quantum's "
                              "cycles to compare its rate estimator")
        if never_rated.any():
            notes.append(f"{int(never_rated.sum())} event(s) ran but no slice reached min_cycles={self.min_cycles:g} "
                         "cycles: PAPI has no rate for them, so they are flagged not estimated in every window "
                         "(PAPI's MPX_MINCYC assumes slices of ~10 ms)")
        per_q = np.zeros((n_q, n_e))
        if self.attribution == "slice":
            per_q[qi, ev] = inc
            if n_q:
                np.add.at(per_q[-1], ev[last], tail)
        else:
            # per cycle, each quantum gets the count per cycle of the slice that covers it (the first slice at
            # or after it); quanta after an event's last slice get its last rate (PAPI_stop's tail)
            with np.errstate(invalid="ignore", divide="ignore"):
                per_cycle = np.where(span > 0, inc / np.where(span > 0, span, 1.0), 0.0)
            dense = np.full((n_q, n_e), np.nan)
            dense[qi, ev] = per_cycle
            last_q = np.full(n_e, -1)
            last_q[ev[last]] = qi[last]
            after = np.arange(n_q)[:, None] > last_q[None, :]
            tail_rate = np.zeros(n_e)
            tail_rate[ev[last]] = rate[last]
            filled = _bfill(dense)
            per_q = np.where(after, cyc[:, None] * tail_rate[None, :], np.nan_to_num(filled) * cyc[:, None])
        r = observation.reads
        est = sum_quanta(per_q, r.quanta)
        flagged = ~(np.asarray(r.running) > 0) | never_rated[None, :]
        return self.make_estimate(observation, est, not_estimated=flagged, quantum_counts=per_q, notes=notes)


def _bfill(a: np.ndarray) -> np.ndarray:
    """Per column, each NaN replaced by the next non-NaN value below it (NaN if none)."""
    n = a.shape[0]
    ok = ~np.isnan(a)
    idx = np.where(ok, np.arange(n)[:, None], n)
    nxt = np.minimum.accumulate(idx[::-1], axis=0)[::-1]
    out = np.take_along_axis(np.vstack([a, np.full((1, a.shape[1]), np.nan)]), nxt, axis=0)
    return out
