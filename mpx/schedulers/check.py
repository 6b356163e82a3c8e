"""Conformance check every scheduler must pass, in the spirit of scikit-learn's ``check_estimator``.

``check_scheduler(scheduler)`` runs the scheduler (a fresh clone each time) through `mpx.multiplex` on
small problems built here and raises `AssertionError` naming the first check that fails:

- **parameters**: the constructor only stores its hyper-parameters, under their own names
  (``get_params`` round-trips, ``clone`` has equal parameters, a fresh instance has no other attribute),
  and the class declares ``name``, ``kind`` and ``source``;
- **never over-commits**: every quantum's running set fits the PMU (counter masks, a reserved
  counter, a fixed counter, a second PMU unit);
- **free events** (fixed-counter, software) run in every quantum;
- **events that can never run** — one whose only allowed counter is reserved, one on a PMU unit that
  does not exist — never run; the scheduler either schedules around them or raises `ConfigError` naming
  one of them (LIKWID refuses such an event set);
- **events that never fire** (all-zero counts) do not upset it;
- **deterministic**: two fresh clones give the same running mask (static ones also the same `Schedule`);
- **never reads the truth**: the counts an event would have had in quanta where it did *not* run are
  replaced, once by numbers far above anything it saw (in random order), once by zeros; what the
  scheduler saw is unchanged, so its decisions must be too. A static schedule must not depend on the
  trace at all.

Run it over the registry in ``tests/test_scheduler_conformance.py``; third-party schedulers call it in
their own tests.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.pmu import PMU
from mpx.problem import EventGroup, Problem
from mpx.schedulers.base import OnlineScheduler, Scheduler, StaticScheduler
from mpx.trace import Trace

__all__ = ["check_scheduler", "conformance_problem", "conformance_trace", "IMPOSSIBLE_EVENTS"]

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
    }, source="<mpx.schedulers.check>")


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
    return Problem(events, _pmu(), groups=groups, metrics=metrics,
                   meta={"relations": [["a", "b", "c"], ["d", "e"]], "built_from": "mpx.schedulers.check"})


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
                 meta={"synthetic": True, "source": "mpx.schedulers.check"})


def _fail(check: str, scheduler: Scheduler, message: str) -> AssertionError:
    return AssertionError(f"check_scheduler[{check}] {type(scheduler).__name__}: {message}")


def _check_params(scheduler: Scheduler) -> None:
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
    params = scheduler.get_params()
    names = cls._param_names()
    if sorted(params) != sorted(names):
        raise _fail("params", scheduler, f"get_params() keys {sorted(params)} != constructor arguments {sorted(names)}")
    clone = scheduler.clone()
    if type(clone) is not cls or clone.get_params() != params:
        raise _fail("params", scheduler, "clone() does not reproduce the parameters")
    fresh = cls(**params)
    extra = sorted(set(vars(fresh)) - set(names))
    if extra:
        raise _fail("params", scheduler, f"the constructor sets attributes other than its parameters: {extra} "
                    "(work belongs in schedule/start, results in attributes ending in '_')")
    for k in names:
        if getattr(fresh, k) is not params[k]:
            raise _fail("params", scheduler, f"the constructor changes parameter {k!r} instead of storing it")
    repr(scheduler)


def _run(scheduler: Scheduler, problem: Problem, trace: Trace, seed: int):
    from mpx.multiplex import multiplex

    return multiplex(trace, problem, scheduler.clone(), quantum=1.0, read_every=5, seed=seed)


def _rows(problem: Problem, running: np.ndarray) -> list[list[str]]:
    return [[e for e, on in zip(problem.events, row) if on] for row in np.unique(running, axis=0)]


def _check_run(scheduler: Scheduler, problem: Problem, seed: int) -> Any:
    """Run on the problem; returns the observation, or None when the scheduler refused the problem with
    a ConfigError naming an impossible event (only allowed when the problem has one)."""
    trace = conformance_trace(problem, seed=seed)
    has_impossible = any(e in problem.events for e in IMPOSSIBLE_EVENTS)
    try:
        obs = _run(scheduler, problem, trace, seed)
    except ConfigError as exc:
        if has_impossible and any(e in str(exc) for e in IMPOSSIBLE_EVENTS):
            return None
        raise _fail("runs", scheduler, f"raised ConfigError on a problem it should handle: {exc}") from exc
    running = np.asarray(obs.quanta.running, dtype=bool)
    if running.shape != (trace.n_intervals, problem.n_events):
        raise _fail("runs", scheduler, f"running mask has shape {running.shape}")
    for events in _rows(problem, running):
        if not problem.fits(events):
            raise _fail("no-overcommit", scheduler, f"runs {events} together, which does not fit the PMU")
    if not running[:, problem.free_mask].all():
        raise _fail("free-events", scheduler, "a free (fixed-counter or software) event did not run in every quantum")
    for e in IMPOSSIBLE_EVENTS:
        if e in problem.events and running[:, problem.index(e)].any():
            raise _fail("impossible-events", scheduler, f"event {e!r} can never be counted but ran")
    counts = np.asarray(obs.quanta.counts)
    if not np.isfinite(counts[running]).all():
        raise _fail("runs", scheduler, "non-finite counts where events ran")

    # determinism: a second fresh clone, same seed
    again = _run(scheduler, problem, trace, seed)
    if not np.array_equal(again.quanta.running, running):
        raise _fail("deterministic", scheduler, "two fresh clones gave different running masks")
    if isinstance(scheduler, StaticScheduler):
        s1, s2 = scheduler.clone().schedule(problem), scheduler.clone().schedule(problem)
        if not (np.array_equal(s1.configs, s2.configs) and np.array_equal(s1.cycle, s2.cycle)
                and np.array_equal(s1.prefix, s2.prefix)):
            raise _fail("deterministic", scheduler, "schedule(problem) differs between two fresh clones")
        if not np.array_equal(s1.running(running.shape[0]) | problem.free_mask, running):
            raise _fail("static", scheduler, "multiplex ran something else than schedule(problem)")

    # truth-blindness: change every count the scheduler could not have seen, up (far above anything
    # it saw, in a random order) and down (to zero); what it saw is the same, so must be its decisions
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
            raise _fail("never-reads-truth", scheduler, f"its decisions changed when only counts it never saw "
                        f"changed ({label})")
    return obs


def check_scheduler(scheduler: Scheduler, *, seed: int = 0) -> None:
    """Run every conformance check on ``scheduler`` (an instance, left untouched: each run uses a fresh
    clone); raises AssertionError naming the failed check. See the module docstring."""
    if not isinstance(scheduler, Scheduler):
        raise TypeError(f"check_scheduler expects a mpx.schedulers.base.Scheduler, got {type(scheduler).__name__}")
    _check_params(scheduler)
    obs = _check_run(scheduler, conformance_problem(impossible=False), seed)
    if obs is None:  # pragma: no cover - _check_run only returns None when impossible events exist
        raise _fail("runs", scheduler, "refused a problem without impossible events")
    never_fires = obs.problem.index("zero")
    if not np.isfinite(np.nan_to_num(obs.quanta.counts[:, never_fires], nan=0.0)).all():
        raise _fail("never-fires", scheduler, "counts of an event that never fires are not finite")
    _check_run(scheduler, conformance_problem(impossible=True), seed)
