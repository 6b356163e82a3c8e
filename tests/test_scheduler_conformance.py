"""Every registered scheduler passes `mpx.schedulers.check.check_scheduler`; schedulers that break the
rules are caught by it."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from mpx import schedulers
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler, Schedule, StaticScheduler
from mpx.schedulers.check import check_scheduler, conformance_problem


@pytest.mark.parametrize("name", schedulers.available())
def test_registered_scheduler_conforms(name):
    cls = schedulers.get_class(name)
    check_scheduler(cls(**cls.example_params))


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
        from mpx.schedulers.round_robin import RoundRobinScheduler

        s = RoundRobinScheduler()._schedule(problem)
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
        from mpx.schedulers.round_robin import RoundRobinScheduler

        return RoundRobinScheduler()._schedule(problem)


class _Greedy(StaticScheduler):
    """Puts every event in one configuration (over-commits the counters)."""

    name = "greedy"
    source = "a test of the conformance check"

    def _schedule(self, problem: Problem) -> Schedule:
        return Schedule.from_configs(problem, [list(problem.events)])


def test_a_scheduler_reading_the_truth_is_caught():
    with pytest.raises(AssertionError, match="never-reads-truth"):
        check_scheduler(_Peeker())


def test_nondeterminism_is_caught():
    with pytest.raises(AssertionError, match="deterministic"):
        check_scheduler(_Coin())


def test_work_in_the_constructor_is_caught():
    with pytest.raises(AssertionError, match="params"):
        check_scheduler(_Busy())


def test_overcommitting_is_caught():
    with pytest.raises(AssertionError, match="runs"):
        check_scheduler(_Greedy())


def test_conformance_problem_has_what_it_claims():
    p = conformance_problem(impossible=True)
    assert {"cycles", "task-clock"} <= p.free
    assert not p.countable("nounit/ev/")
    assert p.countable("never") and not p.fits(["never"])  # opens (perf's open check) but never fits
    assert len(p.units()) == 2
