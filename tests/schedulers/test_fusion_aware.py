"""The fusion_aware scheduler: hand-worked allocation and spreading, every group in every read window,
time shares that follow the observed log-rate volatility, determinism, no truth reading."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.schedulers import get
from mpx.schedulers.base import Observed
from mpx.conformance.schedulers import check_scheduler
from mpx.schedulers.fusion_aware import FusionAwareScheduler, allocate, spread
from mpx.trace import Trace


def _trace(counts: np.ndarray, names=None) -> Trace:
    n, e = counts.shape
    names = names or [f"e{i}" for i in range(e)]
    return Trace(names, counts, np.arange(n + 1, dtype=float), "s", meta={"workload": "t"})


def test_allocate_hand_worked():
    # a = (8, 1), 4 slots: start (1, 1); gains 8(1 - 1/4) = 6 > 1(3/4) -> (2, 1);
    # then 8(1/4 - 1/9) = 1.11 > 0.75 -> (3, 1)  (continuous optimum n ∝ a^(1/3): 2.67, 1.33)
    assert allocate([8.0, 1.0], 4).tolist() == [3, 1]
    # equal weights: even split, the extra slot to the lower index
    assert allocate([1.0, 1.0, 1.0], 5).tolist() == [2, 2, 1]
    # a group with zero weight keeps its one slot
    assert allocate([0.0, 5.0], 6).tolist() == [1, 5]
    with pytest.raises(ConfigError):
        allocate([1.0, 1.0, 1.0], 2)


def test_spread_hand_worked():
    # ideal times: g0 at 1/4 and 3/4, g1 and g2 at 1/2 -> 0, 1, 2, 0
    assert spread([2, 1, 1]).tolist() == [0, 1, 2, 0]
    # g0 three times (1/6, 1/2, 5/6), g1 once (1/2): the tie at 1/2 goes to the group with more samples
    assert spread([3, 1]).tolist() == [0, 0, 1, 0]


@pytest.mark.parametrize("shares", ["events", "groups"])
@pytest.mark.parametrize("grouping", ["packed", "hypergraph"])
@pytest.mark.parametrize("k,n_events,window", [(2, 7, 4), (4, 18, 10), (3, 10, 5), (1, 5, 5)])
def test_every_event_in_every_read_window(shares, grouping, k, n_events, window):
    rng = np.random.default_rng(k * 100 + n_events)
    counts = rng.lognormal(5.0, 1.0, size=(120, n_events))
    names = [f"e{i}" for i in range(n_events)]
    metrics = {f"m{i}": names[i:i + 2] for i in range(0, n_events - 1, 3)}
    problem = Problem(names, f"generic-{k}", metrics=metrics)
    obs = multiplex(_trace(counts, names), problem,
                    get("fusion_aware", window=window, grouping=grouping, shares=shares), quantum=1.0,
                    read_every=window)
    assert (np.asarray(obs.reads.running) > 0).all()
    if shares == "events":  # every counter used in every quantum (generic PMU, more events than counters)
        assert (np.asarray(obs.quanta.running).sum(axis=1) == k).all()


def test_event_shares_hand_worked():
    # generic-2, packed groups [a, b], [c]; window 4: groups at quanta int(0.5·4/2) = 1 and int(1.5·4/2) = 3.
    # a = (0, 0, 5): c first (gain 5·3/4), farthest from quantum 3 -> 0; then (gain 5(1/4 - 1/9)) quantum 1
    # is full, quantum 2 (distance 1) fits; quantum 1 again full: c is done. a (gain 0, lowest index)
    # fills quanta 3, 0, 2; b finds no room.
    problem = Problem(["a", "b", "c"], "generic-2")
    s = FusionAwareScheduler(window=4, grouping="packed")
    s.start(problem)
    assert s.group_masks_.tolist() == [[True, True, False], [False, False, True]]
    block = np.zeros((4, 3), dtype=bool)
    block[1] = s.group_masks_[0]
    block[3] = s.group_masks_[1]
    s._place_events(block, np.array([0.0, 0.0, 5.0]))
    assert block.astype(int).tolist() == [[1, 0, 1], [1, 1, 0], [1, 0, 1], [1, 0, 1]]


def test_more_groups_than_quanta_rotates():
    # 8 single events on 1 counter, 4 quanta per window: two windows cover every event once
    counts = np.ones((40, 8)) * 100
    problem = Problem([f"e{i}" for i in range(8)], "generic-1")
    obs = multiplex(_trace(counts), problem, get("fusion_aware", window=4, grouping="packed"), quantum=1.0,
                    read_every=4)
    ran = np.asarray(obs.reads.running) > 0
    assert ran.sum(axis=1).tolist() == [4] * 10
    assert (ran[0::2] | ran[1::2]).all()


@pytest.mark.parametrize("shares", ["events", "groups"])
def test_volatile_event_gets_the_time(shares):
    # one counter, a steady event and one whose log-rate is white noise (sd 1.5): once the volatility
    # is known the steady one keeps its single quantum per window (allocate([0, a], 10) = [1, 9])
    n = 200
    steady = np.full(n, 1000.0)
    wild = np.exp(np.random.default_rng(4).normal(7.0, 1.5, n))
    problem = Problem(["steady", "wild"], "generic-1")
    sched = get("fusion_aware", window=10, grouping="packed", shares=shares)
    obs = multiplex(_trace(np.column_stack([steady, wild]), ["steady", "wild"]), problem, sched, quantum=1.0,
                    read_every=10)
    run = np.asarray(obs.quanta.running)
    late = run[100:]
    assert late[:, 0].sum() == 10          # one quantum per window of 10
    assert late[:, 1].sum() == 90
    assert (np.asarray(obs.reads.running)[10:] > 0).all()   # both still sampled in every window
    s = sched.variances()
    assert s[1] > 1.0 and s[0] == pytest.approx(0.0, abs=1e-12)


def test_welford_innovations_hand_worked():
    # event sampled at quanta 0, 1, 3 with rates r: z = (x1 - x0)/1, (x3 - x1)/sqrt(2), x = log(r + 1/2)
    problem = Problem(["a", "b"], "generic-2")
    s = FusionAwareScheduler(window=4, grouping="packed", min_samples=2)
    s.start(problem)
    counts = np.array([[1.5, np.nan], [7.5, np.nan], [np.nan, np.nan], [0.5, np.nan]])
    running = np.array([[True, False], [True, False], [False, False], [True, False]])
    s.decide(Observed(problem, 1.0, np.arange(5.0), running, counts))
    x = np.log(np.array([2.0, 8.0, 1.0]))
    z = np.array([x[1] - x[0], (x[2] - x[1]) / np.sqrt(2)])
    assert s.variances()[0] == pytest.approx(np.var(z, ddof=1), rel=1e-12)
    assert s.variances()[1] == pytest.approx(np.var(z, ddof=1))   # unknown: the largest known value


def test_deterministic_and_conforms():
    rng = np.random.default_rng(1)
    counts = rng.lognormal(4.0, 1.5, size=(80, 9))
    problem = Problem([f"e{i}" for i in range(9)], "generic-3")
    a = multiplex(_trace(counts), problem, get("fusion_aware", window=5), quantum=1.0, read_every=5)
    b = multiplex(_trace(counts), problem, get("fusion_aware", window=5), quantum=1.0, read_every=5)
    assert np.array_equal(a.quanta.running, b.quanta.running)
    check_scheduler(FusionAwareScheduler(window=5, grouping="packed"))
    check_scheduler(FusionAwareScheduler(window=3, shares="groups", fill_spare=False))
    check_scheduler(FusionAwareScheduler(window=3, shares="groups"))


def test_decisions_ignore_counts_it_did_not_see():
    # the schedule depends only on counts of events that ran: changing the others changes nothing
    rng = np.random.default_rng(2)
    counts = rng.lognormal(4.0, 1.0, size=(60, 6))
    problem = Problem([f"e{i}" for i in range(6)], "generic-2")
    a = multiplex(_trace(counts), problem, get("fusion_aware", window=4), quantum=1.0, read_every=4)
    run = np.asarray(a.quanta.running)
    other = np.where(run, counts, counts * 1000.0 + 7.0)
    b = multiplex(_trace(other), problem, get("fusion_aware", window=4), quantum=1.0, read_every=4)
    assert np.array_equal(run, b.quanta.running)


@pytest.mark.parametrize("params", [{"window": 0}, {"window": 2.5}, {"grouping": "ilp"}, {"shares": "both"}, {"seed": -1},
                                    {"min_samples": 1}, {"fill_spare": "yes"}])
def test_bad_parameters(params):
    with pytest.raises(ConfigError):
        FusionAwareScheduler(**params).start(Problem(["a", "b"], "generic-1"))


def test_more_groups_than_quanta_time_shares_across_windows():
    """Issue 34: with more groups than quanta per window the groups get time shares across windows (not the
    hypergraph rotation): a volatile group runs more often, and every group runs within 2 ceil(n_g / h)
    windows."""
    rng = np.random.default_rng(3)
    n_events, window = 12, 2                         # packed on generic-2: 6 groups > 2 quanta per window
    counts = np.full((400, n_events), 1000.0)
    counts[:, :2] = rng.lognormal(7.0, 1.5, size=(400, 2))   # group 0 (e0, e1) volatile, the others constant
    names = [f"e{i}" for i in range(n_events)]
    sched = get("fusion_aware", window=window, grouping="packed")
    obs = multiplex(_trace(counts, names), Problem(names, "generic-2"), sched, quantum=1.0, read_every=window)
    run = np.asarray(obs.quanta.running)
    share = run.mean(axis=0)
    assert share[0] > 1.5 * share[2:].max()          # the volatile group runs more than a rotation's 1/6
    bound = 2 * -(-6 // window)                      # windows
    for e in range(n_events):
        gaps = np.diff(np.flatnonzero(run[:, e]))
        assert gaps.max() <= (bound + 1) * window
    rotation = multiplex(_trace(counts, names), Problem(names, "generic-2"), get("round_robin"), quantum=1.0,
                         read_every=window)
    assert not np.array_equal(run, np.asarray(rotation.quanta.running))
