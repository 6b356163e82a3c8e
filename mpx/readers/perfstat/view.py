"""A ``perf stat -I`` run as the read view a scaler sees (`read_view`): the step from a run to an
`~mpx.observation.Observation` (which `mpx.observation.Observation.from_read_view` takes; the
Observation itself lives above the readers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


__all__ = ["PerfStatReadView", "read_view"]


@dataclass(frozen=True, eq=False)
class PerfStatReadView:
    """A run's read view (`PerfStatRun.read_view`): per column label ``events[E]``, interval ``edges[T+1]``
    and ``raw``/``enabled``/``running`` ``[T, E]`` on ``time_unit`` (always ``"ns"``: perf prints
    running times in ns), with ``notes`` on the choices made."""

    events: tuple[str, ...]
    edges: np.ndarray
    raw: np.ndarray
    enabled: np.ndarray
    running: np.ndarray
    time_unit: str = "ns"
    notes: tuple[str, ...] = ()


def read_view(run: Any) -> PerfStatReadView:
    """The run as the read view a scaler sees (``mpx estimate``; to an Observation with
    `mpx.observation.Observation.from_read_view`), in ns:

    - ``running`` = perf's ``time_running`` of the interval;
    - ``enabled`` = ``running`` where perf printed 100 % (it prints that exactly when the two are equal); else
      the interval length (times the CPUs perf aggregated), which is ``time_enabled`` for
      system-wide counting; where that contradicts perf's printed (integer-truncated) running
      percentage (per-task counting: an event is enabled only while the task runs), the largest
      enabled time the percentage allows, ``100 * running / pct``, instead (said in ``notes``);
    - ``raw`` = ``value * running / enabled``, so that perf's own scaling ``raw * enabled / running``
      gives back exactly the value perf printed and ``linear`` reproduces perf; the value itself where it was
      printed unscaled (``--no-scale``, likwid-perfctr);
    - ``enabled`` as printed where the tool prints it (`PerfStatRun.enabled_printed`);
    - ``<not counted>``: running 0 (nothing to scale); ``<not supported>`` and missing cells: enabled 0.
    """
    notes: list[str] = []
    edges = np.concatenate([[0.0], np.asarray(run.timestamps, dtype=np.float64) * 1e9])
    present = np.asarray(run.present, dtype=bool)
    counted = np.asarray(run.counted, dtype=bool)
    running = np.where(counted, np.nan_to_num(np.asarray(run.running_ns, dtype=np.float64)), 0.0)
    enabled = np.nan_to_num(run.enabled_ns(), nan=0.0)
    lo, hi = run.enabled_ns_bounds()
    # perf prints 100 % exactly when running == enabled: those cells need no approximation (and no note)
    whole = counted & (running > 0) & (np.nan_to_num(np.asarray(run.pct_running, dtype=np.float64)) >= 100.0)
    enabled = np.where(whole, running, enabled)
    with np.errstate(invalid="ignore"):
        bad = (counted & ~whole & (running > 0) & np.isfinite(hi)
               & ~((enabled > lo * (1 - 1e-12)) & (enabled <= hi * (1 + 1e-12))))
    if bad.any():
        enabled = np.where(bad, hi, enabled)
        notes.append(f"{int(bad.sum())} of {int(counted.sum())} counted cells: perf's running percentage says the "
                     "counter was enabled for less than the interval (per-task counting enables it only while the task "
                     "runs); enabled = 100 * running / pct there")
    not_supported = np.asarray(run.not_supported, dtype=bool) | ~present
    enabled = np.where(not_supported, 0.0, enabled)
    running = np.minimum(running, np.where(enabled > 0, enabled, running))
    value = np.asarray(run.value, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = np.where(counted & (enabled > 0), value * running / np.where(enabled > 0, enabled, 1.0), 0.0)
    if not getattr(run, "scaled", True):  # the value is the raw count itself (--no-scale; likwid-perfctr)
        raw = np.where(counted & (enabled > 0), value, 0.0)
    raw = np.nan_to_num(raw)
    return PerfStatReadView(run.labels, edges, raw, enabled, running, "ns", tuple(notes))
