"""The scheduler interface: what a multiplexing scheduler gets, what it returns, and shared steps.

Two kinds of scheduler, one base class each. Both follow scikit-learn's habits: the constructor only
stores its hyper-parameters, unchanged, under the same names (`mpx.params.Params` then gives
``param_names``, ``get_params``, ``set_params``, ``clone`` and ``repr``), and declares what each may hold
in ``param_constraints`` (checked by ``schedule``/``start`` before any work); one verb does the work;
what the scheduler chose is left in attributes ending in ``_``.

**Static** (`StaticScheduler`): the schedule follows from the `Problem` alone (perf, round robin,
LIKWID-style groups, hperf, an ILP). Implement::

    class MyScheduler(StaticScheduler):
        name = "mine"                      # registry name
        source = "where the method comes from (paper, tool, file)"

        param_constraints = {"k": Interval(int, 1, None)}   # from mpx.params

        def __init__(self, k: int = 2):    # hyper-parameters only, stored as given
            self.k = k

        def _schedule(self, problem: Problem) -> Schedule:
            opened = open_groups(problem)   # optional: perf's open step (weak fallback, errors)
            configs = [...]                 # iterables of event names that fit together
            return Schedule.from_configs(problem, configs, groups=opened.groups, errors=opened.errors)

``scheduler.schedule(problem)`` calls ``_schedule``, then adds the free events (fixed-counter and
software events, `Problem.free`) to every configuration, removes nothing else, checks that every
configuration fits the PMU (a scheduler cannot over-commit counters) and stores ``schedule_``,
``groups_``, ``errors_``. A `Schedule` is a list of configurations (boolean ``[C, E]``) and which one runs
in each quantum, as a prefix followed by a cycle repeated forever, so ``schedule.running(Q)`` is the
boolean running mask ``[Q, E]`` in one numpy indexing step.

**Online** (`OnlineScheduler`): decides as the run goes, from what was observed so far (TinTin).
Implement ``_start(problem)`` (reset state) and ``_decide(observed) -> bool [k, E]`` (the running mask of
the next ``k >= 1`` quanta: one quantum, or a whole hyperperiod). ``observed`` is an `Observed`: the
quanta run so far, their edges, which events ran, and their raw counts (NaN where an event did not
run) — the same numbers a real tool would have read. A scheduler never receives the `Trace`:
`mpx.multiplex.multiplex` owns it, slices the truth once, and hands schedulers only the `Problem` and
`Observed` views built from counts of events that ran.

What callers may know without running it is declared, not sniffed: ``scheduler.tags()``
(`SchedulerTags`: online, ``uses_metrics``, ``needs_event_sets``, jit) and
``scheduler.applicable(problem)`` (None, or why it cannot run that problem: override it when a scheduler
refuses whole kinds of problems, as LIKWID without predefined event sets). Problem-derived defaults of a
hyper-parameter belong in the scheduler's own module (hperf's ``available_GP`` from its catalog).
Schedulers built on another one's schedule call its public function (`mpx.schedulers.perf.perf_rotation`,
`mpx.schedulers.round_robin.pack_round_robin`), never its ``_schedule``.

Register a scheduler by adding ``name: "module:Class"`` to `mpx.schedulers.BUILTIN`, or from another
package through the entry-point group ``mpx.schedulers`` (see `mpx.schedulers`, ``docs/extending.md``).
Every registered scheduler must pass ``mpx.conformance.check("scheduler", ...)`` (run over the built-ins by
``tests/conformance/test_all.py``: deterministic, parameters stored unchanged, never touches or reads the
trace, configurations fit the PMU...); set ``example_params`` when the defaults cannot run its problems or
the constructor needs an argument (the registry reads the tags from an instance built with them).

What the `Problem` offers a scheduler (everything about the PMU goes through it): ``events``,
``groups`` (the user's groups, complete), ``metrics`` (hyperedges), ``weights``, ``free`` / ``free_mask``
(events counted anyway), ``fits(events, method=...)`` (one quantum feasible?), ``n_counters(unit)``,
``unit(event)``, ``units()``, ``countable(event)``, ``mask(events)``, ``metric_masks()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Params
from mpx.problem import EventGroup, Problem

__all__ = [
    "Scheduler",
    "StaticScheduler",
    "OnlineScheduler",
    "Schedule",
    "Observed",
    "OpenedGroups",
    "open_groups",
    "SchedulerError",
    "SchedulerTags",
]


class SchedulerError(ConfigError):
    """A scheduler returned something impossible (over-committed counters, wrong shape...)."""


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# -- the schedule -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Schedule:
    """Configurations and the order they run in: ``prefix`` quanta first, then ``cycle`` forever.

    ``configs[c, e]`` is True when event ``e`` counts in configuration ``c``; ``prefix`` and ``cycle``
    hold configuration indices. ``groups`` are the event groups as opened (after weak-group fallback),
    ``errors`` the events that never count, with the reason; ``notes`` free text for the reader.
    """

    events: tuple[str, ...]
    configs: np.ndarray
    prefix: np.ndarray
    cycle: np.ndarray
    groups: tuple[EventGroup, ...] = ()
    errors: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        configs = np.array(self.configs, dtype=bool, copy=True)
        if configs.ndim != 2 or configs.shape[1] != len(self.events) or configs.shape[0] == 0:
            raise SchedulerError(
                f"configs must be a non-empty boolean array [C, {len(self.events)}], got shape {configs.shape}"
            )
        prefix = np.array(self.prefix, dtype=np.intp).reshape(-1)
        cycle = np.array(self.cycle, dtype=np.intp).reshape(-1)
        if cycle.size == 0:
            raise SchedulerError("a schedule needs a non-empty cycle")
        for name, seq in (("prefix", prefix), ("cycle", cycle)):
            if seq.size and (seq.min() < 0 or seq.max() >= configs.shape[0]):
                raise SchedulerError(f"{name} names a configuration outside 0..{configs.shape[0] - 1}")
        object.__setattr__(self, "configs", _readonly(configs))
        object.__setattr__(self, "prefix", _readonly(prefix))
        object.__setattr__(self, "cycle", _readonly(cycle))
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "errors", dict(self.errors))
        object.__setattr__(self, "groups", tuple(self.groups))
        object.__setattr__(self, "notes", tuple(self.notes))

    @classmethod
    def from_configs(
        cls,
        problem: Problem,
        configs: Sequence[Iterable[str]],
        prefix: Sequence[int] = (),
        cycle: Sequence[int] | None = None,
        *,
        groups: Sequence[EventGroup] = (),
        errors: Mapping[str, str] | None = None,
        notes: Sequence[str] = (),
    ) -> Schedule:
        """A schedule from configurations given as event names; ``cycle`` defaults to every
        configuration once, in order (block rotation)."""
        mat = np.zeros((len(configs), problem.n_events), dtype=bool)
        for c, events in enumerate(configs):
            mat[c] = problem.mask(events)
        if cycle is None:
            cycle = range(len(configs))
        return cls(problem.events, mat, np.asarray(prefix, dtype=np.intp), np.asarray(cycle, dtype=np.intp),
                   tuple(groups), dict(errors or {}), tuple(notes))

    @property
    def n_configs(self) -> int:
        return self.configs.shape[0]

    @property
    def period(self) -> int:
        """Length of the repeated cycle, in quanta."""
        return int(self.cycle.size)

    def sequence(self, n_quanta: int) -> np.ndarray:
        """Configuration index of each of the first ``n_quanta`` quanta."""
        n_quanta = int(n_quanta)
        if n_quanta < 0:
            raise ValueError("n_quanta must be >= 0")
        head = self.prefix[:n_quanta]
        rest = n_quanta - head.size
        if rest <= 0:
            return head.copy()
        reps = -(-rest // self.cycle.size)
        return np.concatenate([head, np.tile(self.cycle, reps)[:rest]])

    def running(self, n_quanta: int) -> np.ndarray:
        """Boolean running mask ``[n_quanta, E]``."""
        return self.configs[self.sequence(n_quanta)]

    def describe(self, max_rows: int = 20) -> str:
        """Configurations, one per line, and the order they run in."""
        lines = [f"Schedule: {self.n_configs} configurations, prefix {self.prefix.size} quanta, "
                 f"cycle {self.period} quanta"]
        for c in range(min(self.n_configs, max_rows)):
            names = [e for e, on in zip(self.events, self.configs[c]) if on]
            lines.append(f"  [{c}] {', '.join(names) or '(nothing)'}")
        if self.n_configs > max_rows:
            lines.append(f"  ... {self.n_configs - max_rows} more")
        show = lambda a: " ".join(map(str, a[:40].tolist())) + (" ..." if a.size > 40 else "")  # noqa: E731
        if self.prefix.size:
            lines.append(f"  prefix: {show(self.prefix)}")
        lines.append(f"  cycle:  {show(self.cycle)}")
        for e, why in self.errors.items():
            lines.append(f"  error: {e}: {why}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Schedule({len(self.events)} events, {self.n_configs} configs, prefix={self.prefix.size}, "
                f"period={self.period}, errors={len(self.errors)})")


# -- what online schedulers see ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Observed:
    """What was observed in the quanta run so far (read-only arrays; never the truth).

    ``edges[q + 1]`` quantum boundaries on the trace's time axis, ``running[q, E]`` which events ran,
    ``counts[q, E]`` the raw counts read (NaN where the event did not run), ``quantum`` the nominal
    quantum length. ``n_quanta`` = q quanta observed.
    """

    problem: Problem
    quantum: float
    edges: np.ndarray
    running: np.ndarray
    counts: np.ndarray

    @property
    def n_quanta(self) -> int:
        return int(self.running.shape[0])

    @property
    def events(self) -> tuple[str, ...]:
        return self.problem.events


# -- the open step (perf_event_open + perf stat's fallbacks) -----------------------------------------


@dataclass(frozen=True)
class OpenedGroups:
    """Groups as opened: only events that compete for programmable counters (free events left out),
    weak groups that could not be opened split into single events, members that could not be opened
    removed. ``errors`` maps each event that can never count to the reason (perf stat prints
    ``<not supported>``); ``units`` gives each opened group's PMU unit."""

    groups: tuple[EventGroup, ...]
    units: tuple[str, ...]
    errors: dict[str, str]
    notes: tuple[str, ...] = ()


def open_groups(problem: Problem, *, method: str = "matching", sees_reserved: bool = False) -> OpenedGroups:
    """Model perf stat opening the problem's groups (``builtin-stat.c``: ``__run_perf_stat``,
    ``stat_handle_error``, ``evlist__reset_weak_group``).

    The kernel checks at ``perf_event_open`` that a group could be scheduled alone on the PMU (x86
    ``validate_group``, with a fake cpuc that knows nothing of counters held by others: hence
    ``sees_reserved=False`` by default, which is why a group can open fine and then never run beside the
    NMI watchdog). Members are opened in order; when one fails:

    - in a weak group (``:W``), the whole group is reopened as single events;
    - otherwise the member is skipped (``<not supported>``) and the group runs without it;
    - a leader that cannot be opened at all makes perf stat fail: `ConfigError`.

    A single event that fits no counter is skipped. Free events (fixed-counter, software) never enter
    the returned groups; a group left with no event is dropped. Siblings on another PMU unit than the
    group's fail like any member that cannot be opened.
    """
    free = problem.free
    out: list[EventGroup] = []
    units: list[str] = []
    errors: dict[str, str] = {}
    notes: list[str] = []

    def ok(events: list[str]) -> bool:
        return problem.fits(events, method=method, reserved=sees_reserved)

    def why(e: str) -> str:
        if not problem.countable(e):
            return problem.uncountable.get(e, "the PMU cannot count it")
        return "fits no counter" + ("" if sees_reserved else " even with no counter reserved")

    def single(e: str, g: EventGroup) -> None:
        if ok([e]):
            out.append(EventGroup((e,), pinned=g.pinned, exclusive=g.exclusive, name=g.name))
            units.append(problem.unit(e))
        else:
            errors.setdefault(e, why(e))

    for g in problem.groups:
        busy = [e for e in g.events if e not in free]
        if not busy:
            continue
        if len(busy) == 1:
            single(busy[0], g)
            continue
        leader_busy = g.events[0] == busy[0]
        opened: list[str] = []
        unit: str | None = None
        fallback = False
        for i, e in enumerate(busy):
            if problem.countable(e) and (unit is None or problem.unit(e) == unit) and ok(opened + [e]):
                opened.append(e)
                unit = unit or problem.unit(e)
                continue
            if i == 0 and leader_busy:
                raise ConfigError(f"group {g.to_perf()}: its leader {e!r} cannot be opened ({why(e)}); "
                                  "perf stat would stop here")
            if g.weak:
                fallback = True
                break
            if problem.countable(e) and unit is not None and problem.unit(e) != unit:
                errors.setdefault(e, f"on unit {problem.unit(e)!r}, not {unit!r} like its group {g.to_perf()}")
            else:
                errors.setdefault(e, why(e) if not problem.countable(e) or not ok([e])
                                  else f"does not fit in group {g.to_perf()}")
        if fallback:
            notes.append(f"weak group {g.to_perf()} cannot be opened as a group: its events fall back to "
                         "single-event groups")
            for e in busy:
                single(e, g)
            continue
        if opened:
            out.append(EventGroup(tuple(opened), pinned=g.pinned, exclusive=g.exclusive, weak=g.weak, name=g.name))
            units.append(unit)
    opened_events = {e for grp in out for e in grp.events}
    errors = {e: r for e, r in errors.items() if e not in opened_events and e not in free}
    return OpenedGroups(tuple(out), tuple(units), errors, tuple(notes))


@dataclass(frozen=True)
class SchedulerTags:
    """What callers may know about a scheduler without reading its code (scikit-learn's tags).

    ``online``: decides as the run goes from observed counts (`OnlineScheduler`), else the schedule
    follows from the Problem alone (`StaticScheduler`); ``uses_metrics``: reads the problem's metrics
    (or relations), so a problem without them gives it less to go on; ``needs_event_sets``: runs only
    problems whose groups are predefined event sets (`Scheduler.applicable` says why not); ``jit``:
    compiles kernels on first use (`Scheduler.warm_up`).
    """

    online: bool
    uses_metrics: bool
    needs_event_sets: bool
    jit: bool


# -- the base classes -------------------------------------------------------------------------------


class Scheduler(Params, ABC):
    """Base of every scheduler: a registry ``name``, a ``kind`` ("static" | "online"), a citation in
    ``source``, and scikit-learn style parameter handling."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    source: ClassVar[str] = ""
    _contract_error: ClassVar[type[Exception]] = SchedulerError
    #: hyper-parameters the conformance checks (`mpx.conformance.check`) and the registry's tags
    #: (`mpx.registry.Registry.tags_of`) build the scheduler with, when its defaults cannot run the check's
    #: problems or its constructor needs an argument
    example_params: ClassVar[dict[str, Any]] = {}
    #: True when the scheduler JIT-compiles kernels (numba) on first use; `warm_up` then compiles them
    jit: ClassVar[bool] = False
    #: reads the problem's metrics or relations (see `SchedulerTags`)
    uses_metrics: ClassVar[bool] = False
    #: runs only problems whose groups are predefined event sets (see `applicable`)
    needs_event_sets: ClassVar[bool] = False

    def tags(self) -> SchedulerTags:
        """The scheduler's capability tags (one place for what callers would otherwise sniff)."""
        return SchedulerTags(online=self.kind == "online", uses_metrics=bool(self.uses_metrics),
                             needs_event_sets=bool(self.needs_event_sets), jit=bool(self.jit))

    def applicable(self, problem: Problem) -> str | None:
        """None when the scheduler can run ``problem``, else the reason it cannot (callers skip it and
        report the reason). The default accepts every problem; schedulers that cannot run some kinds
        of problem at all override it (LIKWID needs predefined event sets)."""
        return None

    def params_for(self, problem: Problem) -> dict[str, Any]:
        """The hyper-parameters this scheduler uses on ``problem``: `get_params` with the defaults it
        derives from the problem filled in (what a result row records; hperf's budget from its catalog)."""
        return self.get_params()

    def tool_figures(self, problem: Problem) -> dict[str, Any] | None:
        """The scheduler's own tool's figures of merit on ``problem`` (utilization, sampling ratio, by the
        tool's definitions), reported beside mpx's; None (the default) for a tool that defines none."""
        return None

    @classmethod
    def warm_up(cls) -> None:
        """Compile the method's JIT kernels on a tiny input, so that the first real call does not pay for
        it (numba caches the machine code on disk). The experiment runner calls it in a side process."""

    def _label(self) -> str:
        return self.name or type(self).__name__

class StaticScheduler(Scheduler):
    """A scheduler whose whole schedule follows from the Problem; implement `_schedule`."""

    kind: ClassVar[str] = "static"
    #: False for a tool that stops every counter of the old configuration, free ones included (LIKWID's
    #: group switch): `schedule` then leaves the free events where the configurations put them
    free_always_on: ClassVar[bool] = True

    def quanta_per_step(self, quantum: float, time_unit: str) -> int:
        """How many quanta of ``quantum`` (on a ``time_unit`` axis) one step of the schedule lasts when
        replayed (`mpx.multiplex`): 1, unless the tool switches on its own clock (LIKWID's ``-T``)."""
        return 1

    @abstractmethod
    def _schedule(self, problem: Problem) -> Schedule:
        """The schedule for ``problem`` (free events may be left out: `schedule` adds them)."""

    def schedule(self, problem: Problem) -> Schedule:
        """Compute, check and keep (``schedule_``, ``groups_``, ``errors_``) the schedule of ``problem``."""
        if not isinstance(problem, Problem):
            raise SchedulerError(f"{type(self).__name__}.schedule expects a Problem, got {type(problem).__name__}")
        self.validate_params()
        sched = self._schedule(problem)
        if not isinstance(sched, Schedule):
            raise SchedulerError(f"{type(self).__name__}._schedule returned {type(sched).__name__}, not a Schedule")
        if sched.events != problem.events:
            raise SchedulerError(f"{type(self).__name__}: schedule events differ from the problem's")
        configs = np.array(sched.configs)
        err = problem.mask(sched.errors)
        if (configs & err).any():
            raise SchedulerError(f"{type(self).__name__}: a configuration runs an event it reports in error")
        if self.free_always_on:
            configs |= problem.free_mask
        for c in range(configs.shape[0]):
            events = [e for e, on in zip(problem.events, configs[c]) if on]
            if not problem.fits(events):
                raise SchedulerError(
                    f"{type(self).__name__}: configuration {c} ({', '.join(events)}) does not fit PMU "
                    f"{getattr(problem.pmu, 'name', problem.pmu)!r}"
                )
        sched = Schedule(sched.events, configs, sched.prefix, sched.cycle, sched.groups, sched.errors, sched.notes)
        self.schedule_ = sched
        self.groups_ = sched.groups
        self.errors_ = dict(sched.errors)
        return sched


class OnlineScheduler(Scheduler):
    """A scheduler that decides as the run goes, from `Observed` counts; implement `_start` and
    `_decide`."""

    kind: ClassVar[str] = "online"

    @abstractmethod
    def _start(self, problem: Problem) -> None:
        """Reset all state for a new run of ``problem``."""

    @abstractmethod
    def _decide(self, observed: Observed) -> np.ndarray:
        """Running mask ``[k, E]`` (k >= 1) of the next k quanta."""

    def start(self, problem: Problem) -> None:
        """Begin a run: keeps ``problem_`` and resets the scheduler's state."""
        if not isinstance(problem, Problem):
            raise SchedulerError(f"{type(self).__name__}.start expects a Problem, got {type(problem).__name__}")
        self.validate_params()
        self.problem_ = problem
        self.groups_: tuple[EventGroup, ...] = problem.groups
        self.errors_: dict[str, str] = {}
        self._fits_rows: dict[bytes, bool] = {}
        self._start(problem)

    def decide(self, observed: Observed) -> np.ndarray:
        """The checked running mask ``[k, E]`` of the next quanta (free events added)."""
        problem = self.problem_
        block = np.asarray(self._decide(observed))
        if block.ndim == 1:
            block = block[None, :]
        if block.ndim != 2 or block.shape[0] < 1 or block.shape[1] != problem.n_events:
            raise SchedulerError(f"{type(self).__name__}._decide must return a boolean array [k>=1, "
                                 f"{problem.n_events}], got shape {block.shape}")
        if block.dtype != bool:
            raise SchedulerError(f"{type(self).__name__}._decide must return booleans, got {block.dtype}")
        block = block | problem.free_mask
        if self.errors_ and (block & problem.mask(self.errors_)).any():
            raise SchedulerError(f"{type(self).__name__}: runs an event it reports in error")
        for row in block:
            key = row.tobytes()
            ok = self._fits_rows.get(key)
            if ok is None:
                ok = self._fits_rows[key] = problem.fits([e for e, on in zip(problem.events, row) if on])
            if not ok:
                raise SchedulerError(f"{type(self).__name__}: decided a set of events that does not fit the PMU: "
                                     f"{[e for e, on in zip(problem.events, row) if on]}")
        return block
