"""Scheduler figures on hand-worked schedules; several schedulers scored on one problem."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import MetricEdge, Problem
from mpx.scoring.schedules import ScheduleScores, schedule_scores, score_schedulers, synthetic_trace
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


# -- score_schedulers -----------------------------------------------------------------------------------

ROW_KEYS = {"scheduler", "kind", "groups", "event_groups", "utilization", "mean_sampling_ratio", "min_sampling_ratio",
            "mean_coschedule_ratio", "n_quanta", "errors", "notes", "params", "trace", "skipped", "tool"}


def test_score_schedulers_rows():
    p = Problem(["a", "b", "c", "d", "e"], "generic-2", metrics=METRICS)
    rows = score_schedulers(p, ["perf", "likwid", "tintin", "round_robin"], quanta=5,
                            params={"perf": {"assignment": "perf"}})
    assert [r["scheduler"] for r in rows] == ["perf", "likwid", "tintin", "round_robin"]
    assert all(set(r) == ROW_KEYS for r in rows)
    perf, likwid, tintin, rr = rows
    # the figures of schedule_scores, over the quanta asked for
    want = schedule_scores(PerfScheduler(assignment="perf").schedule(p), p, n_quanta=5).summary()
    assert perf["params"]["assignment"] == "perf" and perf["kind"] == "static" and perf["n_quanta"] == 5
    assert perf["groups"] == want["n_configs"] and perf["utilization"] == want["utilization"]
    assert perf["mean_sampling_ratio"] == want["mean_sampling_ratio"] and perf["trace"] is None
    assert perf["event_groups"] == 5 and perf["errors"] == {} and perf["skipped"] is None
    # LIKWID needs LIKWID event sets (Problem.from_catalog of a LIKWID catalog)
    assert "LIKWID event sets" in likwid["skipped"] and likwid["groups"] is None and likwid["kind"] == "static"
    # online: a synthetic trace of `quanta` intervals, deterministic in the seed
    assert tintin["kind"] == "online" and tintin["trace"] == "synthetic (mpx.datasets.synthetic, seed 0, 5 quanta)"
    assert tintin["n_quanta"] == 5 and 0 < tintin["mean_sampling_ratio"] <= 1
    assert score_schedulers(p, ["tintin"], quanta=5) == [tintin]
    assert rr["skipped"] is None


def test_score_schedulers_on_a_given_trace_and_refusals():
    p = Problem(["a", "b", "c"], "generic-2")
    tr = Trace(["a", "b", "c"], np.ones((8, 3)), np.arange(9.0), "ns", meta={"source": "handmade"})
    (row,) = score_schedulers(p, ["tintin"], quanta=4, trace=tr)
    assert row["trace"] == "handmade" and row["n_quanta"] == 4
    (bad,) = score_schedulers(p, ["perf"], params={"perf": {"assignment": "nope"}})
    assert bad["skipped"] and "assignment" in bad["skipped"] and bad["groups"] is None


def test_synthetic_trace_has_the_problem_events_and_depends_on_the_seed():
    p = Problem(["a", "b", "c", "d"], "generic-2")
    t = synthetic_trace(p, 40, seed=1)
    assert tuple(t.events) == p.events and t.n_intervals == 40
    np.testing.assert_array_equal(synthetic_trace(p, 40, seed=1).counts, t.counts)
    assert not np.array_equal(synthetic_trace(p, 40, seed=2).counts, t.counts)


def test_rows_carry_the_tools_own_figures():
    """score_schedulers (what mpx schedule prints) reports hperf's figures by hperf's definitions and the
    Arm Top-down tool's group-count spread beside mpx's (issue 15, items 4 and 5); others: None."""
    p = Problem(["a", "b", "c", "d", "e"], "generic-2", groups=[("a", "b"), ("c",), ("d", "e")], metrics=METRICS)
    perf, hperf, arm = score_schedulers(p, ["perf", "hperf", "arm_topdown"])
    assert perf["tool"] is None
    assert hperf["tool"]["available_GP"] == 2 and hperf["tool"]["groups"] == 3
    assert hperf["tool"]["utilization"] == pytest.approx((2 + 1 + 2) / (3 * 2))
    assert arm["tool"]["group_count_spread"] and arm["tool"]["groups"] >= 1
