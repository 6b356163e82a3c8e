"""Conformance checks every scheduler must pass, in the spirit of scikit-learn's ``check_estimator``.

Each check is a function ``check_<name>(scheduler)`` listed in `SCHEDULER_CHECKS`; it runs the
scheduler (a fresh clone each time) through `mpx.multiplex` on small problems built here and raises
`~mpx.conformance.common.ConformanceError` ``check_scheduler[<check>] <Class>: ...`` when it fails (a failure of the
shared runs is named inside the message of the check that needed them). `check_scheduler` runs them all, in
order, and lists every failure. The runs on each problem are shared between checks (cached per scheduler class,
parameters, problem and seed), so running every check costs what one run of all of them did.

- **declares** (`check_declares`): the class declares ``name``, ``kind`` and ``source`` and has a
  docstring; its tags (`~mpx.schedulers.base.SchedulerTags`) agree with ``kind`` and ``jit``;
- **params** (`check_params`): the constructor only stores its hyper-parameters, under their own names
  (``get_params`` has the constructor's arguments in their order and round-trips, ``clone`` has equal
  parameters, a fresh instance has no other attribute, ``repr`` names the class), its
  ``param_constraints`` name parameters and the example parameters satisfy them;
- **runs** (`check_runs`): it runs on every problem (``schedule``/``start`` called, never touching the
  trace from then on: **never-touches-trace**), and running does not change its hyper-parameters;
- **no-overcommit** (`check_no_overcommit`): every quantum's running set fits the PMU (counter masks, a reserved
  counter, a fixed counter, a second PMU unit, a real preset's masks and fixed counters);
- **free-events** (`check_free_events`): free events (fixed-counter, software) run in every quantum (a
  scheduler whose tool stops them with their group, ``free_always_on`` False: in some quantum);
- **impossible-events** (`check_impossible_events`): events that can never run — one whose only
  allowed counter is reserved, one on a PMU unit that does not exist — never run; the scheduler either
  schedules around them or raises `ConfigError` naming one of them (LIKWID refuses such an event set);
- **never-fires** (`check_never_fires`): events that never fire (all-zero counts) do not upset it;
- **observes** (`check_observes`): the observation's counts are the trace's in the quanta an event
  ran, NaN elsewhere;
- **deterministic** (`check_deterministic`): two fresh clones give the same running mask (static ones
  also the same `Schedule`, and multiplex runs exactly ``schedule(problem)``);
- **tags** (`check_tags`): a scheduler not declaring ``uses_metrics`` runs the same without the
  problem's metrics and relations; ``applicable`` refuses problems without predefined event sets exactly
  when it declares ``needs_event_sets``;
- **never-reads-truth** (`check_never_reads_truth`): the counts an event would have had in quanta
  where it did *not* run are replaced, once by numbers far above anything it saw (in random order),
  once by zeros; what the scheduler saw is unchanged, so its decisions must be too. A static schedule must not depend on the
  trace at all.

The problems (`conformance_problems`): named groups with metrics and relations on a small hand-made
PMU (`conformance_problem`); perf's ``-e`` syntax — weak group, ungrouped events, ``instructions`` and
``cycles`` on fixed counters — on the ``skylake`` preset (`conformance_perf_problem`); and the first
with the `IMPOSSIBLE_EVENTS` added.

``tests/conformance/test_schedulers.py`` runs every check over the registry, one test item each;
third-party schedulers call `check_scheduler` in their own tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from mpx.conformance.common import ConformanceError, param_failures
from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.observation import Observation
from mpx.pmu import PMU
from mpx.problem import EventGroup, MetricEdge, Problem
from mpx.schedulers.base import OnlineScheduler, Scheduler, SchedulerTags, StaticScheduler
from mpx.trace import Trace

__all__ = ["IMPOSSIBLE_EVENTS", "SCHEDULER_CHECKS", "check_declares", "check_deterministic", "check_free_events",
           "check_impossible_events", "check_never_fires", "check_never_reads_truth", "check_no_overcommit",
           "check_observes", "check_params", "check_runs", "check_scheduler", "check_tags",
           "conformance_perf_problem", "conformance_problem", "conformance_problems", "conformance_trace"]

#: events of the conformance problem that can never run: ``never`` may only use a reserved counter
#: (it opens, as with perf's open-time check, but never fits), ``nounit/ev/`` names a unit the PMU lacks
IMPOSSIBLE_EVENTS = ("never", "nounit/ev/")


def _pmu() -> PMU:
    return PMU.from_dict({
        "name": "conformance",
        "description": "3 generic counters (gp2 reserved), a cycle counter, a 2-counter uncore unit",
        "default_unit": "cpu",
        "reserved": ["cpu/gp2"],
        "units": {
            "cpu": {"generic": 3, "fixed": {"fixed0": ["cycles"]},
                    "masks": {"x0": ["gp0"], "never": ["gp2"]}},
            "unc": {"generic": 2, "fixed": {}},
        },
    }, source="<mpx.conformance.schedulers>")


def conformance_problem(impossible: bool = False) -> Problem:
    """The check's problem: named groups (LIKWID-style event sets), metrics, a relation, a fixed-counter
    event, a masked event, a software event, an uncore unit, an event that never fires; with
    ``impossible`` also the `IMPOSSIBLE_EVENTS`, in their own groups and metrics."""
    groups = [  # the core unit has 2 usable generic counters, the uncore unit 2: every group fits
        EventGroup(("cycles", "a", "b"), name="G1"),
        EventGroup(("c", "x0"), name="G2"),
        EventGroup(("d", "e", "task-clock"), name="G3"),
        EventGroup(("zero", "unc/u0/", "unc/u1/"), name="G4"),
    ]
    metrics = [("m1", ["a", "b"]), ("m2", ["b", "c"]), ("m3", ["c", "d", "x0"]), ("m4", ["cycles", "e"]),
               ("m5", ["unc/u0/", "unc/u1/"]), ("m6", ["a", "zero"]), ("m7", ["task-clock", "d"])]
    if impossible:
        groups += [EventGroup(("never",), name="G5"), EventGroup(("nounit/ev/",), name="G6")]
        metrics += [("m8", ["never", "a"]), ("m9", ["nounit/ev/", "b"])]
    events = tuple(dict.fromkeys(e for g in groups for e in g.events))
    return Problem(events, _pmu(), groups=groups, metrics=metrics, relations=[["a", "b", "c"], ["d", "e"]],
                   meta={"built_from": "mpx.conformance.schedulers"})


def conformance_perf_problem() -> Problem:
    """The check's problem in perf's ``-e`` syntax on the ``skylake`` preset: a weak group, ungrouped
    events, ``instructions`` and ``cycles`` (fixed counters) in metrics."""
    p = Problem.from_perf_events("instructions,{e0,e1},{e2,e3,e4}:W,e5,cycles,e6,e7,e8", "skylake")
    metrics = {"m1": ["e0", "e1", "instructions"], "m2": ["e2", "e3", "e4", "e5"], "m3": ["e6", "e7", "cycles"]}
    return p.replace(metrics=tuple(MetricEdge(k, tuple(v)) for k, v in metrics.items()))


def conformance_problems() -> dict[str, Problem]:
    """Every problem the check runs on, by label."""
    return {"groups": conformance_problem(), "perf -e": conformance_perf_problem(),
            "impossible": conformance_problem(impossible=True)}


def conformance_trace(problem: Problem, n: int = 60, seed: int = 0) -> Trace:
    """Ground truth for the check: Poisson counts with per-event rates that change half way (``zero``
    never fires), one interval per quantum."""
    rng = np.random.default_rng(seed)
    e = problem.n_events
    rates = np.exp(rng.uniform(np.log(5.0), np.log(5e4), e))
    scale = np.where(np.arange(n)[:, None] < n // 2, 1.0, rng.uniform(0.2, 5.0, e)[None, :])
    counts = rng.poisson(rates[None, :] * scale).astype(float)
    if "zero" in problem.events:
        counts[:, problem.index("zero")] = 0.0
    return Trace(problem.events, counts, np.arange(n + 1, dtype=float), "intervals",
                 meta={"synthetic": True, "source": "mpx.conformance.schedulers"})


def _fail(check: str, scheduler: Scheduler, message: str) -> ConformanceError:
    return ConformanceError("scheduler", check, type(scheduler).__name__, message)


# -- checks on the class and its parameters -------------------------------------------------------------


def check_declares(scheduler: Scheduler) -> None:
    """``name``, ``kind``, ``source`` and a docstring declared; a Static- or OnlineScheduler; tags agree."""
    cls = type(scheduler)
    for attr in ("name", "kind", "source"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise _fail("declares", scheduler, f"class attribute {attr!r} must be a non-empty string")
    if cls.kind not in ("static", "online"):
        raise _fail("declares", scheduler, f"kind must be 'static' or 'online', got {cls.kind!r}")
    if not isinstance(scheduler, (StaticScheduler, OnlineScheduler)):
        raise _fail("declares", scheduler, "must subclass StaticScheduler or OnlineScheduler")
    if not inspect.getdoc(cls):
        raise _fail("declares", scheduler, "needs a docstring saying what it does and where it comes from")
    tags = scheduler.tags()
    if not isinstance(tags, SchedulerTags) or tags.online != (cls.kind == "online") or tags.jit != bool(cls.jit):
        raise _fail("declares", scheduler, f"tags() {tags!r} disagree with kind {cls.kind!r} / jit {cls.jit!r}")


def check_params(scheduler: Scheduler) -> None:
    """The constructor stores its hyper-parameters unchanged under their own names, in order; clone and
    repr work; ``param_constraints`` name parameters and the given parameters satisfy them."""
    fails = param_failures(scheduler)
    if fails:
        raise ConformanceError("scheduler", "params", type(scheduler).__name__, fails)


# -- running it -------------------------------------------------------------------------------------------


class _TraceTouched(AssertionError):
    pass


class _SpyTrace:
    """A trace that refuses every access once locked (when the scheduler is called) and remembers the
    first refused access, in case the scheduler swallows the error."""

    def __init__(self, trace: Trace) -> None:
        object.__setattr__(self, "_t", trace)
        object.__setattr__(self, "locked", False)
        object.__setattr__(self, "touched", None)

    def lock(self) -> None:
        object.__setattr__(self, "locked", True)

    def __getattribute__(self, name: str) -> Any:
        if name in ("lock", "locked", "touched", "__class__"):
            return object.__getattribute__(self, name)
        if object.__getattribute__(self, "locked"):
            if object.__getattribute__(self, "touched") is None:
                object.__setattr__(self, "touched", name)
            raise _TraceTouched(f"trace.{name} read after the scheduler was called")
        return getattr(object.__getattribute__(self, "_t"), name)


def _run(scheduler: Scheduler, problem: Problem, trace: Trace, seed: int) -> Observation:
    return multiplex(trace, problem, scheduler.clone(), quantum=1.0, read_every=5, seed=seed)


def _run_spied(scheduler: Scheduler, problem: Problem, trace: Trace, seed: int) -> Observation:
    """A run on a trace that locks when the scheduler's ``schedule``/``start`` is called; checks that
    it was called, never touched the trace afterwards and kept its hyper-parameters."""
    clone = scheduler.clone()
    spy = _SpyTrace(trace)
    verb = "schedule" if isinstance(clone, StaticScheduler) else "start"
    inner = getattr(clone, verb)

    def locked(*args: Any, **kwargs: Any) -> Any:
        spy.lock()
        return inner(*args, **kwargs)

    setattr(clone, verb, locked)
    try:
        obs = multiplex(spy, problem, clone, quantum=1.0, read_every=5, seed=seed)
    except _TraceTouched as exc:
        raise _fail("never-touches-trace", scheduler, str(exc)) from None
    if spy.touched is not None:
        raise _fail("never-touches-trace", scheduler, f"trace.{spy.touched} read after the scheduler was called")
    if not spy.locked:
        raise _fail("runs", scheduler, f"multiplex never called its {verb}()")
    if clone.get_params() != scheduler.get_params():
        raise _fail("params", scheduler, "running changed its hyper-parameters (results belong in attributes "
                    "ending in '_')")
    return obs


#: base runs shared between checks: (class, repr, problem label, seed) -> (problem, trace, observation or None)
_RUNS: dict[tuple, tuple[Problem, Trace, Observation | None]] = {}


def _base_runs(scheduler: Scheduler, seed: int) -> list[tuple[str, Problem, Trace, Observation | None]]:
    """The spied run on every conformance problem, as (label, problem, trace, observation); the
    observation is None when the scheduler refused the problem with a ConfigError naming an impossible
    event (allowed only on the problem that has them)."""
    out = []
    for label, problem in conformance_problems().items():
        key = (type(scheduler), repr(scheduler), label, seed)
        if key not in _RUNS:
            trace = conformance_trace(problem, seed=seed)
            has_impossible = any(e in problem.events for e in IMPOSSIBLE_EVENTS)
            try:
                obs = _run_spied(scheduler, problem, trace, seed)
            except ConfigError as exc:
                if not (has_impossible and any(e in str(exc) for e in IMPOSSIBLE_EVENTS)):
                    raise _fail("runs", scheduler, f"raised ConfigError on a problem it should handle: {exc}") from exc
                obs = None
            if obs is not None:
                running = np.asarray(obs.quanta.running, dtype=bool)
                if running.shape != (trace.n_intervals, problem.n_events):
                    raise _fail("runs", scheduler, f"running mask has shape {running.shape}")
            if len(_RUNS) > 64:
                _RUNS.clear()
            _RUNS[key] = (problem, trace, obs)
        problem, trace, obs = _RUNS[key]
        out.append((label, problem, trace, obs))
    return out


def _ran(scheduler: Scheduler, seed: int) -> list[tuple[str, Problem, Trace, Observation, np.ndarray]]:
    """The base runs the scheduler accepted, with their running masks."""
    return [(label, p, t, obs, np.asarray(obs.quanta.running, dtype=bool))
            for label, p, t, obs in _base_runs(scheduler, seed) if obs is not None]


def _rows(problem: Problem, running: np.ndarray) -> list[list[str]]:
    return [[e for e, on in zip(problem.events, row) if on] for row in np.unique(running, axis=0)]


def check_runs(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Runs on every problem through `mpx.multiplex` (the impossible one may be refused with a
    ConfigError naming an impossible event), never touching the trace once called, keeping its
    hyper-parameters, with finite counts where events ran."""
    for _, _, _, obs, running in _ran(scheduler, seed):
        if not np.isfinite(np.asarray(obs.quanta.counts)[running]).all():
            raise _fail("runs", scheduler, "non-finite counts where events ran")


def check_no_overcommit(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Every quantum's running set fits the PMU."""
    for _, problem, _, _, running in _ran(scheduler, seed):
        for events in _rows(problem, running):
            if not problem.fits(events):
                raise _fail("no_overcommit", scheduler, f"runs {events} together, which does not fit the PMU")


def check_free_events(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Free (fixed-counter, software) events run in every quantum — unless the scheduler says its tool
    stops them with their configuration (``free_always_on`` False, LIKWID): then each free event runs
    in some quantum or is reported in error."""
    for _, problem, _, obs, running in _ran(scheduler, seed):
        if isinstance(scheduler, StaticScheduler) and not scheduler.free_always_on:
            free = problem.free_mask & ~problem.mask(obs.errors)
            if not running[:, free].any(axis=0).all():
                raise _fail("free_events", scheduler, "a free event it does not report in error never ran")
            continue
        if not running[:, problem.free_mask].all():
            raise _fail("free_events", scheduler, "a free (fixed-counter or software) event did not run in every "
                        "quantum")


def check_impossible_events(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Events that can never be counted never run (or the problem is refused naming one); only the
    problem that has them may be refused."""
    for label, _, _, obs in _base_runs(scheduler, seed):
        if obs is None and label != "impossible":  # pragma: no cover - _base_runs only allows it there
            raise _fail("runs", scheduler, f"refused the {label!r} problem, which has no impossible events")
    for _, problem, _, _, running in _ran(scheduler, seed):
        for e in IMPOSSIBLE_EVENTS:
            if e in problem.events and running[:, problem.index(e)].any():
                raise _fail("impossible_events", scheduler, f"event {e!r} can never be counted but ran")


def check_never_fires(scheduler: Scheduler, *, seed: int = 0) -> None:
    """An event that never fires (all-zero counts) gives finite counts."""
    for _, problem, _, obs, _ in _ran(scheduler, seed):
        if "zero" in problem.events:
            col = np.asarray(obs.quanta.counts)[:, problem.index("zero")]
            if not np.isfinite(np.nan_to_num(col, nan=0.0)).all():
                raise _fail("never_fires", scheduler, "counts of an event that never fires are not finite")


def check_observes(scheduler: Scheduler, *, seed: int = 0) -> None:
    """The observed counts are the trace's where events ran, NaN elsewhere."""
    for _, problem, trace, obs, running in _ran(scheduler, seed):
        truth = np.asarray(trace.counts)[:, [trace.events.index(e) for e in problem.events]]
        if not np.array_equal(np.asarray(obs.quanta.counts), np.where(running, truth, np.nan), equal_nan=True):
            raise _fail("observes", scheduler, "the observed counts are not the trace's where events ran (NaN "
                        "elsewhere)")


def check_deterministic(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Two fresh clones give the same running mask; a static scheduler the same `Schedule`, which is
    what multiplex runs."""
    for _, problem, trace, _, running in _ran(scheduler, seed):
        again = _run(scheduler, problem, trace, seed)
        if not np.array_equal(again.quanta.running, running):
            raise _fail("deterministic", scheduler, "two fresh clones gave different running masks")
        if isinstance(scheduler, StaticScheduler):
            s1, s2 = scheduler.clone().schedule(problem), scheduler.clone().schedule(problem)
            if not (np.array_equal(s1.configs, s2.configs) and np.array_equal(s1.cycle, s2.cycle)
                    and np.array_equal(s1.prefix, s2.prefix)):
                raise _fail("deterministic", scheduler, "schedule(problem) differs between two fresh clones")
            n_q = running.shape[0]
            step = scheduler.quanta_per_step(1.0, str(trace.time_unit))  # the quantum of _run
            expect = np.repeat(s1.running(-(-n_q // step)), step, axis=0)[:n_q]
            if scheduler.free_always_on:
                expect = expect | problem.free_mask
            if not np.array_equal(expect, running):
                raise _fail("static", scheduler, "multiplex ran something else than schedule(problem)")


def check_never_reads_truth(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Changing every count the scheduler could not have seen — up, far above anything it saw, in a
    random order, and down to zero — leaves what it saw, so its decisions, unchanged."""
    for _, problem, trace, _, running in _ran(scheduler, seed):
        rng = np.random.default_rng(seed + 1)
        cols = [trace.events.index(e) for e in problem.events]
        top = float(np.max(trace.counts)) + 1.0
        for label, fake in (("inflated", top * rng.uniform(2.0, 50.0, size=trace.counts.shape).round()),
                            ("zeroed", np.zeros(trace.counts.shape))):
            hidden = np.array(trace.counts)
            sub = hidden[:, cols]
            sub[~running] = fake[:, cols][~running]
            hidden[:, cols] = sub
            other = Trace(trace.events, hidden, trace.edges, trace.time_unit, meta=dict(trace.meta))
            blind = _run(scheduler, problem, other, seed)
            if not np.array_equal(blind.quanta.running, running):
                raise _fail("never_reads_truth", scheduler, f"its decisions changed when only counts it never saw "
                            f"changed ({label})")


def check_tags(scheduler: Scheduler, *, seed: int = 0) -> None:
    """The tags are honest: a scheduler that does not declare ``uses_metrics`` runs the same without the
    problem's metrics and relations; ``applicable`` refuses the conformance problems (no predefined event
    sets) exactly when the scheduler declares ``needs_event_sets``, and accepts them marked as event sets."""
    tags = scheduler.tags()
    for _, problem, trace, _, running in _ran(scheduler, seed):
        why = scheduler.applicable(problem)
        if tags.needs_event_sets:
            if not (isinstance(why, str) and why):
                raise _fail("tags", scheduler, "declares needs_event_sets but applicable() accepts a problem "
                            "without event sets")
            if scheduler.applicable(problem.replace(meta={**problem.meta, "groups_from": "eventset"})) is not None:
                raise _fail("tags", scheduler, "declares needs_event_sets but refuses a problem of event sets")
        elif why is not None:
            raise _fail("tags", scheduler, f"applicable() refuses a conformance problem ({why}) but the scheduler "
                        "does not declare needs_event_sets")
        if not tags.uses_metrics:
            bare = _run(scheduler, problem.replace(metrics=(), relations=()), trace, seed)
            if not np.array_equal(bare.quanta.running, running):
                raise _fail("tags", scheduler, "its decisions change without the problem's metrics and relations, "
                            "but it does not declare uses_metrics")


#: every check, by name, in the order `check_scheduler` runs them
SCHEDULER_CHECKS: dict[str, Callable[..., None]] = {
    "declares": check_declares,
    "params": check_params,
    "runs": check_runs,
    "no_overcommit": check_no_overcommit,
    "free_events": check_free_events,
    "impossible_events": check_impossible_events,
    "never_fires": check_never_fires,
    "observes": check_observes,
    "deterministic": check_deterministic,
    "never_reads_truth": check_never_reads_truth,
    "tags": check_tags,
}
_NO_SEED = {"declares", "params"}


def check_scheduler(scheduler: Any, *, seed: int = 0) -> dict[str, Any]:
    """Every scheduler check (`mpx.conformance.suites.check` of kind ``"scheduler"``: the registry's
    ``class_tags`` and `SCHEDULER_CHECKS`) on ``scheduler`` (an instance, left untouched: each run uses a
    fresh clone; a class, built with its ``example_params``; or a registry name); raises one
    `ConformanceError` listing every failed check. See the module docstring."""
    from mpx.conformance.suites import check

    return check("scheduler", scheduler, seed=seed)
