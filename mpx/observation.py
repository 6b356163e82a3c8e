"""What a measurement tool would have read: the `Observation` and its two views.

An Observation never holds the truth. `mpx.multiplex.multiplex` makes one by replaying a schedule on a
`~mpx.trace.Trace`; `Observation.from_reads` and `Observation.from_quanta` make one from read-view or
per-quantum data a real tool printed (``perf stat -I``: `Observation.from_read_view` of
`mpx.readers.perfstat.PerfStatRun.read_view`), or by hand (tests, third-party data).

Views. The *quantum view* (`QuantumView`) has per quantum the edges, which events ran and their raw
counts. The *read view* (`ReadView`) has perf's ``stat -I`` semantics per read window: ``raw`` = Δ count,
``enabled`` = Δ time_enabled (the window length; 0 for events in error state), ``running`` = Δ
time_running (time on a counter). `ReadView.from_quanta` is the one reduction from quanta to read
windows: consecutive blocks of ``read_every`` quanta, the last may be shorter.

Time is on the observation's ``time_unit`` (one of `mpx.trace.TIME_UNITS`); hand-made and read-back
observations must say which.

Hardware. ``problem.pmu`` is the PMU the events were counted on. When nobody declared it (a real run
read back without ``--pmu``), it is None: the events and what was read are known, the counters are not,
and no PMU is made up (scalers that work from the read view need none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.problem import EventGroup, Problem
from mpx.schedulers.base import Schedule
from mpx.trace import TIME_UNITS

__all__ = ["Observation", "QuantumView", "ReadView", "read_only"]


def read_only(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only (in place) and returned: views handed to schedulers and scalers are."""
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class QuantumView:
    """Per quantum: ``edges[Q+1]``, ``running[Q, E]`` (bool), ``counts[Q, E]`` (raw count, NaN when the
    event did not run)."""

    edges: np.ndarray
    running: np.ndarray
    counts: np.ndarray

    @property
    def durations(self) -> np.ndarray:
        return np.diff(self.edges)

    @property
    def n_quanta(self) -> int:
        return int(self.running.shape[0])


@dataclass(frozen=True, eq=False)
class ReadView:
    """Per read window: ``edges[R+1]`` (time), ``quanta[R+1]`` (quantum index of each read), and per
    window and event ``raw`` (Δ count), ``enabled`` (Δ time_enabled), ``running`` (Δ time_running)."""

    edges: np.ndarray
    quanta: np.ndarray
    raw: np.ndarray
    enabled: np.ndarray
    running: np.ndarray

    @property
    def n_reads(self) -> int:
        return int(self.raw.shape[0])

    @classmethod
    def from_quanta(cls, quanta: QuantumView, read_every: int, disabled: np.ndarray | None = None) -> ReadView:
        """The read view of ``quanta`` read every ``read_every`` quanta (module docstring): raw = Σ counts
        while running, enabled = window length (0 for the ``disabled[E]`` events), running = Σ durations
        while running."""
        running = quanta.running
        n_q, n_e = running.shape
        dur = np.diff(quanta.edges)
        starts = np.arange(0, n_q, read_every)
        r_idx = np.append(starts, n_q)
        raw = np.add.reduceat(np.where(running, quanta.counts, 0.0), starts, axis=0)
        run_time = np.add.reduceat(running * dur[:, None], starts, axis=0)
        window = np.add.reduceat(dur, starts)
        enabled = np.repeat(window[:, None], n_e, axis=1)
        if disabled is not None and np.any(disabled):
            enabled[:, disabled] = 0.0
        return cls(quanta.edges[r_idx], r_idx, raw, enabled, run_time)


@dataclass(frozen=True, eq=False)
class Observation:
    """What a tool would have read while the scheduler multiplexed the counters; no truth inside.

    ``quanta`` is the quantum view, ``reads`` the read view (see the module docstring); ``groups`` the
    event groups as opened, ``errors`` the events that never counted (with the reason), ``schedule``
    the static schedule (None for online schedulers and read-back runs). ``meta``: provenance (trace
    checksum, workload, source, quantum, read window, scheduler and its parameters, seed, noise,
    apportioning).
    """

    problem: Problem
    time_unit: str
    quantum: float
    read_every: int
    quanta: QuantumView
    reads: ReadView
    groups: tuple[EventGroup, ...]
    errors: dict[str, str]
    schedule: Schedule | None
    meta: dict = field(default_factory=dict)

    @property
    def events(self) -> tuple[str, ...]:
        return self.problem.events

    @property
    def n_quanta(self) -> int:
        return self.quanta.n_quanta

    def __repr__(self) -> str:
        return (f"Observation({self.meta.get('workload') or self.meta.get('source') or '?'}: "
                f"{len(self.events)} events, {self.n_quanta} quanta of {self.quantum:g} {self.time_unit}, "
                f"{self.reads.n_reads} reads, scheduler {self.meta.get('scheduler')!r})")

    # -- observations without a replay ------------------------------------------------------------

    @classmethod
    def from_reads(cls, events: Sequence[str], edges: Any, raw: Any, enabled: Any, running: Any, *,
                   time_unit: str, pmu: Any = None, meta: dict | None = None) -> Observation:
        """A trace-free Observation from a read view (a real tool's interval output, or made by hand):
        ``edges[R+1]`` on ``time_unit``, ``raw``/``enabled``/``running`` ``[R, E]``; one quantum per read
        window (``running`` > 0 marks the quanta an event ran in; its quantum count is the window's raw
        count). Events never enabled are errors. ``pmu``: the declared PMU (a `mpx.pmu.PMU` or preset
        name), None when none was declared. Only read-view scalers should be fed such an observation."""
        events = tuple(events)
        edges = _floats(edges)
        raw, enabled, running = (_floats(x).reshape(edges.size - 1, len(events)) for x in (raw, enabled, running))
        ran = read_only(running > 0)
        q = QuantumView(edges, ran, read_only(np.where(ran, raw, np.nan)))
        r = ReadView(edges, read_only(np.arange(edges.size)), raw, enabled, running)
        errors = {e: "never enabled" for j, e in enumerate(events) if not (enabled[:, j] > 0).any()}
        quantum = float(edges[1] - edges[0]) if edges.size > 1 else 1.0
        return cls(Problem(events, pmu), _time_unit(time_unit), quantum, 1, q, r, (), errors, None,
                   _meta(meta))

    @classmethod
    def from_read_view(cls, view: Any, *, pmu: Any = None, meta: dict | None = None) -> Observation:
        """`from_reads` of a read view a reader made: any object with ``events``, ``edges``, ``raw``,
        ``enabled``, ``running`` and ``time_unit`` (`mpx.readers.perfstat.PerfStatRun.read_view`), so the
        time unit is the reader's, never assumed. ``pmu``: the PMU the user declared, or None."""
        return cls.from_reads(view.events, view.edges, view.raw, view.enabled, view.running,
                              time_unit=view.time_unit, pmu=pmu, meta=meta)

    @classmethod
    def from_quanta(cls, events: Sequence[str], edges: Any, counts: Any, running: Any, read_every: int, *,
                    time_unit: str, pmu: Any = None, meta: dict | None = None) -> Observation:
        """A trace-free Observation from per quantum ``counts[Q, E]`` and a ``running`` mask on quantum
        ``edges[Q+1]``, with the read view of `ReadView.from_quanta` (the multiplexer's own reduction)."""
        events = tuple(events)
        edges = _floats(edges)
        counts = np.asarray(counts, dtype=np.float64)
        run = read_only(np.array(running, dtype=bool))
        q = QuantumView(edges, run, read_only(np.where(run, counts, np.nan)))
        r = ReadView.from_quanta(q, int(read_every))
        for a in (r.raw, r.enabled, r.running):
            read_only(a)
        return cls(Problem(events, pmu), _time_unit(time_unit), float(np.diff(edges)[0]), int(read_every), q, r, (),
                   {}, None, _meta(meta))


def _floats(x: Any) -> np.ndarray:
    """A read-only float64 copy (the caller's array is left writable)."""
    return read_only(np.array(x, dtype=np.float64))


def _time_unit(unit: str) -> str:
    if unit not in TIME_UNITS:
        raise ConfigError(f"unknown time unit {unit!r}; expected one of {', '.join(TIME_UNITS)}")
    return unit


def _meta(meta: dict | None) -> dict:
    return dict(meta or {"workload": "hand-made", "scheduler": None})
