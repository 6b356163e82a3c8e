"""Replay counter multiplexing on ground truth: ``multiplex(trace, problem, scheduler, ...)``.

The multiplexer is the only code that reads both the truth and a scheduler's decisions. It reads the
`Trace` once, at the start (the problem's columns re-binned onto quanta, the edges, the checksum), and
from then on hands the scheduler only the `Problem` and, for online schedulers, an
`~mpx.schedulers.base.Observed` view of what ran so far. The result is an `~mpx.observation.Observation`:
what a real tool would have read, with provenance, and never the true counts.

Time. The quantum (perf's ``perf_event_mux_interval_ms``) is given in the trace's own time unit; use
`quantum_from_ms` to convert a mux interval in ms (it needs the clock frequency for a cycles axis, the
tick rate for gem5 ticks). Quanta start at the trace's first edge; the last one is cut short by the end
of the trace when the span is not a multiple of the quantum. Where a quantum edge falls inside a trace
interval, that interval's counts are split in proportion to time (uniform rate inside an interval:
cumulative sums interpolated linearly; `mpx.trace.rebin_counts`, the one apportioning rule);
``meta['apportioned']`` says whether that happened.

Quantum specs (experiment tables, ``--quantum`` text) resolve through `resolve_quantum`. `check_replay`
refuses a quantum longer than the trace and warns (`~mpx.errors.MpxWarning`) when fewer than
`MIN_READ_WINDOWS` read windows come out or read windows are finer than the trace's intervals.

Reads. ``read_every`` is a number of quanta (perf ``stat -I 100`` with a 4 ms mux interval reads every
25 quanta; `read_every_from_ms` computes it). Read windows are consecutive blocks of ``read_every``
quanta; the last may be shorter (`mpx.observation.ReadView.from_quanta`). The read view has perf's
semantics (``perf stat -I`` deltas): ``raw`` = Δ count, ``enabled`` = Δ time_enabled (the window
length; 0 for events in error state), ``running`` = Δ time_running (time the event was on a counter; 0 if it did not run; members of a
group share it because they run together; fixed-counter and software events run all the time).
Times are in the trace's time unit.

Noise (off by default): `Noise` multiplies each quantum's count by ``1 + rel_sigma·N(0, 1)`` (clipped at
0) and adds ``read_overhead`` counts to Δraw in each read window where the event ran (the cost of the
read itself). The random numbers depend only on ``seed`` and the shape ``[Q, E]``, not on the schedule,
so two schedulers compared with one seed see the same noise.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpx.errors import ConfigError, MpxWarning
from mpx.observation import Observation, QuantumView, ReadView, read_only
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler, Schedule, Scheduler, StaticScheduler
from mpx.trace import SECONDS_PER_UNIT, split_edges

__all__ = [
    "MIN_READ_WINDOWS",
    "Noise",
    "check_replay",
    "in_ms",
    "multiplex",
    "quantum_from_ms",
    "read_every_from_ms",
    "resolve_quantum",
]


def quantum_from_ms(mux_interval_ms: float, time_unit: str, *, clock_hz: float | None = None,
                    ticks_per_second: float | None = None) -> float:
    """A mux interval in milliseconds expressed on a trace's time axis.

    ``ns``/``us``/``ms``/``s`` need nothing else; ``cycles`` needs ``clock_hz``; ``ticks`` needs
    ``ticks_per_second`` (gem5: ``simFreq``, 1e12 for the default 1 ps tick). Axes without a fixed
    relation to wall time (instructions, blocks, intervals) are an error: give the quantum directly.
    """
    if not (isinstance(mux_interval_ms, (int, float)) and math.isfinite(mux_interval_ms) and mux_interval_ms > 0):
        raise ConfigError(f"mux interval must be a positive number of ms, got {mux_interval_ms!r}")
    seconds = mux_interval_ms * 1e-3
    if time_unit in SECONDS_PER_UNIT:
        return seconds / SECONDS_PER_UNIT[time_unit]
    if time_unit == "cycles":
        if not clock_hz or clock_hz <= 0:
            raise ConfigError("quantum_from_ms: a cycles time axis needs 'clock_hz' (no default clock frequency)")
        return seconds * clock_hz
    if time_unit == "ticks":
        if not ticks_per_second or ticks_per_second <= 0:
            raise ConfigError("quantum_from_ms: a ticks time axis needs 'ticks_per_second' (gem5 simFreq)")
        return seconds * ticks_per_second
    raise ConfigError(f"quantum_from_ms: the {time_unit!r} axis has no fixed relation to time; "
                      "give the quantum in that unit directly")


def resolve_quantum(spec: Mapping[str, Any] | str | float | None, trace: Any) -> tuple[float, str]:
    """The quantum on ``trace``'s time axis, and how it was chosen (for output).

    ``spec`` is an experiment's ``[multiplex]`` table (a mapping with ``quantum`` on the trace's axis,
    ``quantum_intervals`` in median trace intervals, or ``quantum_ms`` with ``clock_hz`` /
    ``ticks_per_second`` as `quantum_from_ms` needs), or a command-line text (a number on the trace's
    axis, ``<x>ms``), or None for one median trace interval."""
    unit = trace.time_unit
    if spec is None:
        q = float(np.median(np.diff(trace.edges)))
        return q, f"{q:,.6g} {unit} (default: one median trace interval)"
    if isinstance(spec, Mapping):
        if "quantum" in spec:
            q = float(spec["quantum"])
            return q, f"{q:,.6g} {unit}"
        if "quantum_intervals" in spec:
            q = float(spec["quantum_intervals"]) * float(np.median(np.diff(trace.edges)))
            return q, f"{q:,.6g} {unit} ({float(spec['quantum_intervals']):g} median trace intervals)"
        q = quantum_from_ms(spec["quantum_ms"], unit, clock_hz=spec.get("clock_hz"),
                            ticks_per_second=spec.get("ticks_per_second"))
        return q, f"{q:,.6g} {unit} ({spec['quantum_ms']:g} ms)"
    text = str(spec)
    t = text.strip()
    if t.endswith("ms"):
        try:
            ms = float(t[:-2])
        except ValueError:
            raise ConfigError(f"--quantum {text!r}: expected a number or '<x>ms'") from None
        try:
            q = quantum_from_ms(ms, unit)
        except ConfigError as exc:
            raise ConfigError(f"--quantum {text!r}: {exc}") from None
        return q, f"{q:,.6g} {unit} ({ms:g} ms)"
    try:
        q = float(t)
    except ValueError:
        raise ConfigError(f"--quantum {text!r}: expected a number on the trace's time axis ({unit}) "
                          "or '<x>ms'") from None
    if not (math.isfinite(q) and q > 0):
        raise ConfigError(f"--quantum must be > 0, got {text!r}")
    return q, f"{q:,.6g} {unit}"


def in_ms(value: float, time_unit: str, *, clock_hz: float | None = None,
          ticks_per_second: float | None = None) -> float | None:
    """A length on a trace's time axis in milliseconds (the inverse of `quantum_from_ms`), or None when the
    axis has no declared relation to time (instructions, blocks; cycles without ``clock_hz``; ticks
    without ``ticks_per_second``): no silent default clock."""
    if time_unit in SECONDS_PER_UNIT:
        return float(value) * SECONDS_PER_UNIT[time_unit] * 1e3
    if time_unit == "cycles" and clock_hz:
        return float(value) / clock_hz * 1e3
    if time_unit == "ticks" and ticks_per_second:
        return float(value) / ticks_per_second * 1e3
    return None


def read_every_from_ms(read_interval_ms: float, mux_interval_ms: float) -> int:
    """Quanta per read window: ``perf stat -I 100`` with a 4 ms mux interval → 25.

    mpx reads at quantum boundaries, so the read interval must be a whole number of mux intervals.
    """
    ratio = read_interval_ms / mux_interval_ms
    n = round(ratio)
    if n < 1 or abs(ratio - n) > 1e-9 * max(1.0, ratio):
        raise ConfigError(f"read interval {read_interval_ms} ms is not a whole number (>= 1) of mux intervals "
                          f"of {mux_interval_ms} ms")
    return int(n)


@dataclass(frozen=True)
class Noise:
    """Measurement noise: multiplicative Gaussian per quantum count, plus a fixed count per read."""

    rel_sigma: float = 0.0
    read_overhead: float = 0.0

    def __post_init__(self) -> None:
        for k in ("rel_sigma", "read_overhead"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise ConfigError(f"Noise.{k} must be a finite number >= 0, got {v!r}")


#: fewer read windows than this and a scaler's score is a handful of numbers: `multiplex` warns
MIN_READ_WINDOWS = 20


def check_replay(edges: np.ndarray, time_unit: str, quantum: float, read_every: int) -> None:
    """Refuse a replay that cannot mean anything, warn about one that means little.

    A quantum longer than the trace leaves one quantum in which every event is either counted whole or
    not at all: an error. Fewer than `MIN_READ_WINDOWS` read windows (a short trace for its quantum and
    read window), or fewer trace intervals than read windows (the truth of most windows is then
    interpolated, not measured): an `~mpx.errors.MpxWarning` naming the numbers and what to change."""
    span = float(edges[-1] - edges[0])
    n_int = int(edges.size - 1)
    if quantum > span * (1 + 1e-9):
        raise ConfigError(f"the quantum ({quantum:,.6g} {time_unit}) is longer than the trace ({span:,.6g} {time_unit}, "
                          f"{n_int} intervals): nothing is multiplexed; give a quantum shorter than the trace")
    n_q = max(1, int(math.ceil(span / quantum - 1e-9)))
    n_w = -(-n_q // read_every)
    where = (f"{n_int} trace intervals over {span:,.6g} {time_unit}, quantum {quantum:,.6g} {time_unit}, "
             f"a read every {read_every} quanta")
    if n_w < MIN_READ_WINDOWS:
        warnings.warn(MpxWarning(f"only {n_w} read window(s) to score ({where}); fewer than {MIN_READ_WINDOWS} make "
                                 "scores noise: record more intervals or use a shorter quantum or read window"),
                      stacklevel=3)
    elif n_int < n_w:
        warnings.warn(MpxWarning(f"the trace has fewer intervals than read windows ({where}: {n_w} windows): most "
                                 "windows' true counts are interpolated, not measured; record finer intervals "
                                 "or use a longer quantum or read window"), stacklevel=3)


# -- the truth, sliced once -------------------------------------------------------------------------


def _ingest(trace: Any, problem: Problem, quantum: float) -> dict[str, Any]:
    """Everything the multiplexer takes from the trace: the quantum edges, the true counts of the
    problem's events per quantum (`~mpx.trace.Trace.rebin`), how many quantum edges split a trace
    interval, and provenance; the trace is not touched afterwards."""
    names = tuple(trace.events)
    index = {n: i for i, n in enumerate(names)}
    missing = [e for e in problem.events if e not in index]
    if missing:
        near = {m: [n for n in names if m.lower() in n.lower()][:3] for m in missing[:5]}
        raise ConfigError(f"the trace has no event(s) {missing[:10]}{' ...' if len(missing) > 10 else ''} "
                          f"(close names: {near})")
    edges = np.array(trace.edges, dtype=np.float64, copy=True)
    q_edges, partial = _quantum_edges(edges, quantum)
    meta = dict(trace.meta)
    return dict(truth=trace.rebin(problem.events, q_edges), q_edges=q_edges, partial=partial,
                inside=split_edges(edges, q_edges), time_unit=str(trace.time_unit), checksum=trace.checksum(),
                workload=meta.get("workload"), source=meta.get("source"), synthetic=meta.get("synthetic"))


def _quantum_edges(edges: np.ndarray, quantum: float) -> tuple[np.ndarray, bool]:
    """Quantum edges from the trace's first edge, the last quantum cut short by the trace's end (and
    whether it was); edges within rounding error of a trace edge are snapped onto it."""
    t0, t1 = float(edges[0]), float(edges[-1])
    ratio = (t1 - t0) / quantum
    n = max(1, int(math.ceil(ratio - 1e-9)))
    q = t0 + quantum * np.arange(n + 1, dtype=np.float64)
    q[-1] = t1
    partial = abs(ratio - round(ratio)) > 1e-9 * max(1.0, ratio)
    # snap quantum edges lying within rounding error of a trace edge onto it
    pos = np.clip(np.searchsorted(edges, q), 1, edges.size - 1)
    near = np.where(np.abs(edges[pos - 1] - q) <= np.abs(edges[pos] - q), pos - 1, pos)
    close = np.abs(edges[near] - q) <= 1e-9 * quantum
    q[close] = edges[near[close]]
    return q, partial


# -- the replay -------------------------------------------------------------------------------------


def _get_scheduler(scheduler: Any) -> Scheduler:
    if isinstance(scheduler, str):
        from mpx import schedulers

        return schedulers.get(scheduler)
    if isinstance(scheduler, Scheduler):
        return scheduler
    raise ConfigError(f"scheduler must be a name or a mpx.schedulers.base.Scheduler, got {scheduler!r}")


def multiplex(trace: Any, problem: Problem, scheduler: Any, quantum: float, read_every: int,
              noise: Noise | None = None, seed: int = 0, schedule: Schedule | None = None) -> Observation:
    """Replay multiplexing of ``problem`` on ``trace`` with ``scheduler`` (an instance or a registry
    name); see the module docstring for quanta, reads, apportioning and noise. ``schedule``: the static
    ``scheduler``'s schedule of ``problem`` computed before (a cache of them,
    `mpx.experiment.schedule_cache`), run instead of calling ``scheduler.schedule`` again."""
    if not isinstance(problem, Problem):
        raise ConfigError(f"multiplex: problem must be a mpx.problem.Problem, got {type(problem).__name__}")
    sched = _get_scheduler(scheduler)
    if not (isinstance(quantum, (int, float, np.floating, np.integer)) and math.isfinite(quantum) and quantum > 0):
        raise ConfigError(f"multiplex: quantum must be a positive number (trace time unit), got {quantum!r}")
    if isinstance(read_every, bool) or not isinstance(read_every, (int, np.integer)) or read_every < 1:
        raise ConfigError(f"multiplex: read_every must be a whole number of quanta >= 1, got {read_every!r}")
    if noise is not None and not isinstance(noise, Noise):
        raise ConfigError(f"multiplex: noise must be a mpx.multiplex.Noise or None, got {noise!r}")
    quantum, read_every = float(quantum), int(read_every)
    check_replay(np.asarray(trace.edges, dtype=np.float64), str(trace.time_unit), quantum, read_every)

    src = _ingest(trace, problem, quantum)
    del trace  # from here on only copies of what was needed exist in this function
    q_edges, partial, inside, truth = src["q_edges"], src["partial"], src["inside"], src.pop("truth")
    n_q, n_e = truth.shape

    rng = np.random.default_rng(seed)
    if noise is not None and noise.rel_sigma > 0:
        factors = np.maximum(1.0 + noise.rel_sigma * rng.standard_normal((n_q, n_e)), 0.0)
        measured = truth * factors
    else:
        measured = truth
    del truth

    if schedule is not None and not (isinstance(sched, StaticScheduler) and isinstance(schedule, Schedule)
                                     and schedule.events == problem.events):
        raise ConfigError("multiplex: schedule must be a Schedule of the problem's events, given with a static "
                          "scheduler")
    free_on = True
    if isinstance(sched, StaticScheduler):
        schedule = sched.schedule(problem) if schedule is None else schedule
        step = int(sched.quanta_per_step(quantum, str(src["time_unit"])))
        running = np.repeat(schedule.running(-(-n_q // step)), step, axis=0)[:n_q] if step > 1 else schedule.running(n_q)
        groups, errors = schedule.groups, dict(schedule.errors)
        free_on = sched.free_always_on
    elif isinstance(sched, OnlineScheduler):
        running = _run_online(sched, problem, quantum, q_edges, measured)
        groups, errors = tuple(sched.groups_), dict(sched.errors_)
    else:
        raise ConfigError(f"scheduler {sched!r} is neither a StaticScheduler nor an OnlineScheduler")
    running = np.array(running, dtype=bool) | (problem.free_mask if free_on else False)
    counts = np.where(running, measured, np.nan)
    del measured

    quanta = QuantumView(read_only(q_edges), read_only(running), read_only(counts))
    reads = ReadView.from_quanta(quanta, read_every, problem.mask(errors) if errors else None)
    if noise is not None and noise.read_overhead > 0:
        reads = dataclasses.replace(reads, raw=reads.raw + noise.read_overhead * (reads.running > 0))
    for a in (reads.edges, reads.quanta, reads.raw, reads.enabled, reads.running):
        read_only(a)

    meta: dict[str, Any] = {
        "trace_checksum": src["checksum"],
        "workload": src["workload"],
        "source": src["source"],
        "synthetic": src["synthetic"],
        "time_unit": src["time_unit"],
        "quantum": quantum,
        "n_quanta": int(n_q),
        "last_quantum_partial": bool(partial),
        "read_every": read_every,
        "read_window": quantum * read_every,
        "rotation_quanta": None if schedule is None else schedule.period,  # static schedules: the cycle
        "scheduler": sched.name or type(sched).__name__,
        "scheduler_params": sched.params_json(),
        "seed": seed,
        "noise": None if noise is None else asdict(noise),
        "apportioned": bool(inside),
        "apportioning": (f"{inside} of {n_q + 1} quantum edges fall inside trace intervals: those intervals' "
                         "counts are split uniformly in time" if inside
                         else "every quantum edge is a trace interval edge: counts are exact sums"),
    }
    return Observation(
        problem=problem,
        time_unit=src["time_unit"],
        quantum=quantum,
        read_every=read_every,
        quanta=quanta,
        reads=reads,
        groups=tuple(groups),
        errors=errors,
        schedule=schedule,
        meta=meta,
    )


def _run_online(sched: OnlineScheduler, problem: Problem, quantum: float, q_edges: np.ndarray,
                measured: np.ndarray) -> np.ndarray:
    """Quantum blocks decided one after the other. The scheduler sees read-only views of *shared*
    copies (edges, running, counts of events that ran, NaN elsewhere); the result is built from the
    multiplexer's private arrays, so a scheduler that writes into what it was shown changes nothing."""
    n_q, n_e = measured.shape
    running = np.zeros((n_q, n_e), dtype=bool)
    shown_running = np.zeros((n_q, n_e), dtype=bool)
    shown_counts = np.full((n_q, n_e), np.nan)
    shown_edges = q_edges.copy()
    sched.start(problem)
    q = 0
    while q < n_q:
        view = Observed(problem, quantum, _view(shown_edges, q + 1), _view(shown_running, q), _view(shown_counts, q))
        block = sched.decide(view)
        k = min(block.shape[0], n_q - q)
        running[q:q + k] = block[:k]
        shown_running[q:q + k] = block[:k]
        shown_counts[q:q + k] = np.where(block[:k], measured[q:q + k], np.nan)
        q += k
    return running


def _view(a: np.ndarray, n: int) -> np.ndarray:
    v = a[:n].view()
    v.setflags(write=False)
    return v
