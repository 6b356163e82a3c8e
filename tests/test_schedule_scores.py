"""Scheduler figures on hand-worked schedules."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import MetricEdge, Problem
from mpx.schedule_scores import ScheduleScores, schedule_scores
from mpx.schedulers.perf import PerfScheduler
from mpx.schedulers.round_robin import RoundRobinScheduler
from mpx.trace import Trace

METRICS = [MetricEdge("ab", ("a", "b")), MetricEdge("ac", ("a", "c")), MetricEdge("abc", ("a", "b", "c"))]


def test_perf_sliding_window_scores():
    # 5 events, 2 counters: Q0 ab, Q1 bc, Q2 cd, Q3 de, Q4 ea
    p = Problem(["a", "b", "c", "d", "e"], "generic-2", metrics=METRICS)
    s = schedule_scores(PerfScheduler().schedule(p), p)
    np.testing.assert_allclose(s.sampling_ratio, [0.4] * 5)
    # ab together in Q0 only; ac never; abc never
    np.testing.assert_allclose(s.coschedule_ratio, [0.2, 0.0, 0.0])
    assert s.utilization == 1.0 and s.n_configs == 5 and s.n_quanta == 5
    assert s.mean_sampling_ratio == pytest.approx(0.4)
    assert s.mean_coschedule_ratio == pytest.approx(0.2 / 3)


def test_round_robin_scores():
    # configurations ab, cd, e: 5 counter-quanta used out of 6
    p = Problem(["a", "b", "c", "d", "e"], "generic-2", metrics=METRICS)
    s = schedule_scores(RoundRobinScheduler().schedule(p), p)
    np.testing.assert_allclose(s.sampling_ratio, [1 / 3] * 5)
    np.testing.assert_allclose(s.coschedule_ratio, [1 / 3, 0.0, 0.0])
    assert s.utilization == pytest.approx(5 / 6) and s.n_configs == 3


def test_fixed_events_count_as_running_and_not_as_counter_use():
    metrics = [MetricEdge("ipc", ("instructions", "cycles")), MetricEdge("a_per_instr", ("a", "instructions"))]
    p = Problem(["instructions", "cycles", "a", "b", "c", "d", "e"], "skylake", metrics=metrics)
    s = schedule_scores(PerfScheduler().schedule(p), p)
    np.testing.assert_allclose(s.sampling_ratio, [1, 1, 0.8, 0.8, 0.8, 0.8, 0.8])
    np.testing.assert_allclose(s.coschedule_ratio, [1.0, 0.8])
    assert s.utilization == 1.0  # 4 of 4 generic counters every quantum; fixed ones not counted
    assert s.mean_sampling_ratio == pytest.approx(0.8)  # over the multiplexed events only
    assert s.free.tolist() == [True, True, False, False, False, False, False]


def test_scores_from_an_observation_match_the_schedule():
    p = Problem(["a", "b", "c", "d", "e"], "generic-2", metrics=METRICS)
    tr = Trace(p.events, np.ones((20, 5)), np.arange(21.0), "ns")
    obs = multiplex(tr, p, "perf", quantum=1.0, read_every=5)
    a = schedule_scores(obs)
    b = schedule_scores(obs.schedule, p)
    np.testing.assert_allclose(a.sampling_ratio, b.sampling_ratio)
    np.testing.assert_allclose(a.coschedule_ratio, b.coschedule_ratio)
    assert (a.utilization, a.n_configs, a.n_quanta) == (b.utilization, b.n_configs, 20)


def test_scores_over_n_quanta_and_the_prefix():
    # pinned {c,d} fails on 2 counters beside {a,b}: ERROR in quantum 0; the schedule is static
    p = Problem.from_perf_events("{a,b}:D,{c,d}:D,e", "generic-3")
    sched = PerfScheduler().schedule(p)
    s = schedule_scores(sched, p, n_quanta=10)
    np.testing.assert_allclose(s.sampling_ratio, [1, 1, 0, 0, 1])
    assert s.utilization == 1.0 and s.n_configs == 1


def test_scores_from_a_mask_and_rows():
    p = Problem(["a", "b", "c"], "generic-2", metrics=[MetricEdge("ab", ("a", "b"))])
    mask = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0], [0, 0, 0]], dtype=bool)
    s = schedule_scores(mask, p)
    np.testing.assert_allclose(s.sampling_ratio, [0.5, 0.5, 0.25])
    np.testing.assert_allclose(s.coschedule_ratio, [0.25])
    assert s.utilization == pytest.approx(5 / 8) and s.n_configs == 4
    rows = s.rows()
    assert rows[0] == {"kind": "event", "name": "a", "sampling_ratio": 0.5, "free": False}
    assert rows[-1] == {"kind": "metric", "name": "ab", "coschedule_ratio": 0.25}
    assert s.summary()["min_sampling_ratio"] == 0.25 and isinstance(s, ScheduleScores)
    with pytest.raises(ConfigError):
        schedule_scores(mask.astype(int), p)
    with pytest.raises(ConfigError):
        schedule_scores(mask)
    with pytest.raises(ConfigError):
        schedule_scores(mask[:, :2], p)
