"""The exact ILP scheduler: its optimum checked by brute force on small instances."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.pmu import PMU
from mpx.problem import EventGroup, Problem
from mpx.scoring.schedules import schedule_scores
from mpx.schedulers.optimal import OptimalScheduler


def brute_force(p: Problem, length: int, objective: str = "maxmin") -> float:
    """Best objective over every cyclic schedule of ``length`` quanta whose quanta fit the PMU and that
    runs every event at least once (the ILP's constraints), by enumeration."""
    events = [e for e in p.events if e not in p.free]
    feasible = [set(c) for r in range(len(events) + 1) for c in itertools.combinations(events, r)
                if p.fits(list(c))]
    metrics = [(m.name, [e for e in m.events if e not in p.free]) for m in p.metrics]
    metrics = [(n, ev) for n, ev in metrics if ev and p.fits(ev)]
    w = [np.mean([p.weights[p.index(e)] for e in m.events]) for m in p.metrics if (m.name, [e for e in m.events if e not in p.free]) in metrics]
    best = -1.0
    if not metrics:  # nothing to optimise: the ILP reports NaN when a cover exists
        ok = any(set().union(*[feasible[i] for i in combo]) == set(events)
                 for combo in itertools.combinations_with_replacement(range(len(feasible)), length))
        return float("nan") if ok else -1.0
    for combo in itertools.combinations_with_replacement(range(len(feasible)), length):  # order is irrelevant
        sets = [feasible[i] for i in combo]
        if set().union(*sets) != set(events):
            continue
        ratios = [np.mean([set(ev) <= s for s in sets]) for _, ev in metrics]
        val = min(ratios) if objective == "maxmin" else float(np.dot(w, ratios))
        best = max(best, val)
    return best


def _random_problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    n_ctr = int(rng.integers(2, 4))
    names = [f"e{i}" for i in range(int(rng.integers(3, 6)))]
    masks = {}
    for e in names:
        if rng.random() < 0.3:
            masks[e] = [f"gp{j}" for j in sorted(rng.choice(n_ctr, size=int(rng.integers(1, n_ctr)), replace=False))]
    pmu = PMU.from_dict({"name": f"rand{seed}", "units": {"cpu": {"generic": n_ctr, "fixed": {}, "masks": masks}}})
    metrics = []
    for k in range(int(rng.integers(2, 5))):
        size = int(rng.integers(2, min(4, len(names)) + 1))
        metrics.append((f"m{k}", list(rng.choice(names, size=size, replace=False))))
    return Problem(names, pmu, metrics=metrics)


def test_four_metrics_in_a_ring_on_two_counters():
    p = Problem(["a", "b", "c", "d"], "generic-2",
                metrics=[("ab", ["a", "b"]), ("bc", ["b", "c"]), ("cd", ["c", "d"]), ("ad", ["a", "d"])])
    o = OptimalScheduler(length=2)
    o.schedule(p)
    assert o.optimum_ == 0.0  # 2 quanta complete at most 2 of the 4 metrics
    o = OptimalScheduler(length=4)
    s = o.schedule(p)
    assert o.optimum_ == pytest.approx(0.25)
    assert schedule_scores(s, p).coschedule_ratio == pytest.approx([0.25] * 4)
    assert brute_force(p, 4) == pytest.approx(0.25)


@pytest.mark.parametrize("seed", range(12))
def test_optimum_matches_brute_force(seed):
    p = _random_problem(seed)
    for length in (2, 3):
        o = OptimalScheduler(length=length)
        try:
            s = o.schedule(p)
        except ConfigError as exc:  # no cover of every event in `length` quanta: brute force agrees
            assert "no schedule" in str(exc)
            assert brute_force(p, length) == -1.0
            continue
        assert o.optimum_ == pytest.approx(brute_force(p, length), nan_ok=True), (seed, length)
        sc = schedule_scores(s, p)
        kept = [i for i, m in enumerate(p.metrics) if m.name in o.metric_ratios_]
        if kept:
            assert min(sc.coschedule_ratio[kept]) == pytest.approx(o.optimum_)
        assert (sc.sampling_ratio > 0).all()  # every event runs


@pytest.mark.parametrize("seed", range(3))
def test_weighted_objective_matches_brute_force(seed):
    p = _random_problem(100 + seed)
    o = OptimalScheduler(length=3, objective="weighted")
    o.schedule(p)
    assert o.optimum_ == pytest.approx(brute_force(p, 3, "weighted"), nan_ok=True)


def test_default_length_and_pinned_events():
    p = Problem(["p", "a", "b", "c"], "generic-2", groups=[EventGroup(("p",), pinned=True)],
                metrics=[("m", ["a", "b"])])
    o = OptimalScheduler()
    s = o.schedule(p)
    assert s.period == 3  # p holds a counter: a, b, c share the other one, one per quantum
    assert s.running(3)[:, p.index("p")].all()
    # the only metric can never be complete (a and b share one counter): left out, nothing to optimise
    assert np.isnan(o.optimum_) and "m (0: its events never fit the PMU together)" in s.notes[-1]


def test_too_big_is_a_clear_error():
    names = [f"e{i}" for i in range(60)]
    p = Problem(names, "generic-4", metrics=[(f"m{i}", names[i:i + 3]) for i in range(50)])
    with pytest.raises(ConfigError, match="too big for the exact ILP"):
        OptimalScheduler().schedule(p)


def _needs_branching() -> Problem:
    """Nine events, ten random 3-event metrics, 3 counters: HiGHS needs 38 nodes for 4 quanta (scipy 1.17)."""
    rng = np.random.default_rng(1)
    names = [f"e{i}" for i in range(9)]
    return Problem(names, "generic-3", metrics=[(f"m{k}", list(rng.choice(names, size=3, replace=False)))
                                                 for k in range(10)])


def test_work_is_bounded_by_nodes_not_seconds():
    """Issue 39: no wall-clock parameter; a node limit too small to prove the optimum is an error naming it,
    and the same problem gives the same schedule every time."""
    import inspect

    assert "time_limit" not in inspect.signature(OptimalScheduler).parameters
    p = _needs_branching()
    with pytest.raises(ConfigError, match="node_limit = 1 branch-and-bound nodes"):
        OptimalScheduler(length=4, node_limit=1).schedule(p)
    a, b = OptimalScheduler(length=4), OptimalScheduler(length=4)
    sa, sb = a.schedule(p), b.schedule(p)
    assert a.optimum_ == b.optimum_ and a.metric_ratios_ == b.metric_ratios_
    assert [list(c) for c in sa.configs] == [list(c) for c in sb.configs]
    assert np.array_equal(sa.cycle, sb.cycle)
