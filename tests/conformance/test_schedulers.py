"""Schedulers that break the rules are caught by `check_scheduler` (every registered scheduler passing every
check is ``tests/conformance/test_all.py``)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from mpx import schedulers
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler, Schedule, StaticScheduler
from mpx.conformance.common import ConformanceError
from mpx.conformance.schedulers import check_scheduler, conformance_perf_problem, conformance_problem
from mpx.schedulers.round_robin import pack_round_robin
from mpx.trace import Trace


@pytest.mark.parametrize("name", schedulers.REGISTRY.builtin)
def test_the_registry_name_is_the_classs(name):
    assert schedulers.get_class(name).name == name


# -- the check catches rule breakers --------------------------------------------------------------------


class _Peeker(OnlineScheduler):
    """Cheats: finds the multiplexer's true counts on the call stack and runs the busiest events."""

    name = "peeker"
    source = "a test of the conformance check"

    def _start(self, problem: Problem) -> None:
        self.q_ = 0

    def _decide(self, observed: Observed) -> np.ndarray:
        truth = None
        frame = inspect.currentframe()
        while frame is not None:
            if "measured" in frame.f_locals:
                truth = frame.f_locals["measured"]
                break
            frame = frame.f_back
        p = self.problem_
        row = np.zeros(p.n_events, dtype=bool)
        q = observed.n_quanta
        order = np.argsort(-truth[q]) if truth is not None else np.arange(p.n_events)
        for j in order:
            e = p.events[j]
            if e in p.free or not p.countable(e):
                continue
            trial = [p.events[i] for i in np.flatnonzero(row)] + [e]
            if p.fits(trial):
                row[j] = True
        return row[None, :]


class _Coin(StaticScheduler):
    """Not deterministic: an unseeded random choice of groups."""

    name = "coin"
    source = "a test of the conformance check"

    def _schedule(self, problem: Problem) -> Schedule:
        s = pack_round_robin(problem)
        cycle = np.random.default_rng().permutation(s.cycle)
        return Schedule(s.events, s.configs, s.prefix, cycle, s.groups, s.errors)


class _Busy(StaticScheduler):
    """Does work in its constructor."""

    name = "busy"
    source = "a test of the conformance check"

    def __init__(self, k: int = 2) -> None:
        self.k = k
        self.cache = {}

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem)


class _Greedy(StaticScheduler):
    """Puts every event in one configuration (over-commits the counters)."""

    name = "greedy"
    source = "a test of the conformance check"

    def _schedule(self, problem: Problem) -> Schedule:
        return Schedule.from_configs(problem, [list(problem.events)])


class _Snooper(StaticScheduler):
    """Finds the trace object on the call stack and reads it."""

    name = "snooper"
    source = "a test of the conformance check"

    def _schedule(self, problem: Problem) -> Schedule:
        frame = inspect.currentframe()
        while frame is not None:
            for v in list(frame.f_locals.values()):
                if isinstance(v, Trace) or type(v).__name__ == "_SpyTrace":
                    try:
                        v.counts
                    except AssertionError:
                        pass  # swallowing the error does not hide the access
            frame = frame.f_back
        return pack_round_robin(problem)


class _Drifter(StaticScheduler):
    """Changes a hyper-parameter while it works."""

    name = "drifter"
    source = "a test of the conformance check"

    def __init__(self, k: int = 2) -> None:
        self.k = k

    def _schedule(self, problem: Problem) -> Schedule:
        self.k += 1
        return pack_round_robin(problem)


class _Reordered(StaticScheduler):
    """``get_params`` in another order than the constructor's arguments."""

    name = "reordered"
    source = "a test of the conformance check"

    def __init__(self, a: int = 1, b: int = 2) -> None:
        self.a = a
        self.b = b

    def get_params(self):
        return {"b": self.b, "a": self.a}

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem)


class _MetricReader(StaticScheduler):
    """Reads the problem's metrics (reverses its groups when it has some) without declaring uses_metrics."""

    name = "metric_reader"
    source = "a test of the conformance check"

    def _schedule(self, problem: Problem) -> Schedule:
        groups = problem.groups[::-1] if problem.metrics else problem.groups
        return pack_round_robin(problem.replace(groups=groups))


class _Picky(StaticScheduler):
    """Refuses every problem in applicable() without declaring needs_event_sets."""

    name = "picky"
    source = "a test of the conformance check"

    def applicable(self, problem: Problem) -> str | None:
        return "never"

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem)


@pytest.mark.parametrize("bad, message", [(_MetricReader, "uses_metrics"), (_Picky, "needs_event_sets")])
def test_dishonest_tags_are_caught(bad, message):
    with pytest.raises(ConformanceError, match=rf"tags.*{message}"):
        check_scheduler(bad())


def test_touching_the_trace_is_caught():
    with pytest.raises(ConformanceError, match="never-touches-trace"):
        check_scheduler(_Snooper())


def test_changing_parameters_while_working_is_caught():
    with pytest.raises(ConformanceError, match=r"params.*changed its hyper-parameters"):
        check_scheduler(_Drifter())


def test_parameters_out_of_order_are_caught():
    with pytest.raises(ConformanceError, match=r"params.*same order"):
        check_scheduler(_Reordered())


def test_a_scheduler_reading_the_truth_is_caught():
    with pytest.raises(ConformanceError, match="never_reads_truth"):
        check_scheduler(_Peeker())


def test_nondeterminism_is_caught():
    with pytest.raises(ConformanceError, match="deterministic"):
        check_scheduler(_Coin())


def test_work_in_the_constructor_is_caught():
    with pytest.raises(ConformanceError, match="params"):
        check_scheduler(_Busy())


def test_overcommitting_is_caught():
    with pytest.raises(ConformanceError, match="runs"):
        check_scheduler(_Greedy())


def test_conformance_problem_has_what_it_claims():
    p = conformance_problem(impossible=True)
    assert {"cycles", "task-clock"} <= p.free
    assert not p.countable("nounit/ev/")
    assert p.countable("never") and not p.fits(["never"])  # opens (perf's open check) but never fits
    assert len(p.units()) == 2
    assert p.relations == (("a", "b", "c"), ("d", "e"))
    q = conformance_perf_problem()
    assert {"instructions", "cycles"} <= q.free and q.pmu.name == "skylake"
    assert any(g.weak for g in q.groups) and len(q.metrics) == 3
