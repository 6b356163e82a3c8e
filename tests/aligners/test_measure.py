"""Run sets, the alignment plan and the measurement of one group per run; the alignment cell's truth."""

import json

import numpy as np
import pytest

from mpx import aligners, scalers
from mpx.errors import ConfigError, FormatError
from mpx.problem import Problem
from mpx.aligners.measure import measure_runs, multiplex_runs, plan_runs, run_costs
from mpx.recording.runset import RunSet, on_estimated_cycles
from mpx.trace import Trace

EVENTS = ("Ir", "a", "b", "c", "d", "e")


def trace(seed: int, n: int = 60, stretch: float = 1.0) -> Trace:
    rng = np.random.default_rng(seed)
    phase = (np.arange(n) // 15) % 2
    counts = np.stack([np.full(n, 1000.0)] + [rng.poisson(50 + 100 * phase * (k + 1)) for k in range(5)], axis=1)
    edges = np.arange(n + 1) * 1000.0 * stretch
    return Trace(EVENTS, counts.astype(float), edges, "cycles", meta={"workload": "toy"})


def runset(traces) -> RunSet:
    return RunSet("toy", tuple(traces), tuple({"seed": i} for i in range(len(traces))))


def test_save_and_load_round_trip(tmp_path):
    rs = runset([trace(0), trace(1)])
    rs.save(tmp_path / "toy.runs")
    back = RunSet.load(tmp_path / "toy.runs")
    assert back.workload == "toy" and back.varied == ({"seed": 0}, {"seed": 1})
    assert [t.checksum() for t in back.traces] == [t.checksum() for t in rs.traces]


def test_bad_run_sets_name_the_file(tmp_path):
    with pytest.raises(FormatError, match="no runs.json"):
        RunSet.load(tmp_path)
    (tmp_path / "runs.json").write_text(json.dumps({"format": "mpx-runs", "version": 1, "runs": [{"file": "../x"}]}))
    with pytest.raises(FormatError, match=r"runs\[0\]"):
        RunSet.load(tmp_path)
    t0 = trace(0)
    t1 = Trace(("Ir", "z"), np.ones((3, 2)), np.arange(4.0), "cycles")
    t0.save(tmp_path / "a.npz"), t1.save(tmp_path / "b.npz")
    (tmp_path / "runs.json").write_text(json.dumps({"format": "mpx-runs", "version": 1,
                                                    "runs": [{"file": "a.npz"}, {"file": "b.npz"}]}))
    with pytest.raises(FormatError, match="does not count the same events"):
        RunSet.load(tmp_path)


def test_variation_is_zero_on_identical_runs_and_measures_a_stretch():
    v = runset([trace(0), trace(0)]).variation()
    assert np.all(v["total_cv"] == 0) and np.all(v["phase_cv"] == 0) and v["length_cv"] == 0
    v = runset([trace(0), trace(0, stretch=1.5)]).variation()
    assert v["length_cv"] == pytest.approx(0.2)     # lengths 60k and 90k: std 15k / mean 75k


def test_plan_covers_every_event_once_per_run_with_the_anchor_cost():
    p = Problem(EVENTS, "generic-3")
    plan = plan_runs(p, "round_robin", "time")
    assert plan.n_runs == 2 and sorted(e for g in plan.groups for e in g) == sorted(EVENTS)
    plan = plan_runs(p, "round_robin", "Ir")        # Ir takes a counter in every run: 5 events on 2 counters
    assert plan.n_runs == 3 and all("Ir" in g and len(g) <= 3 for g in plan.groups)
    assert "one generic counter" in plan.anchor_cost
    # perf's sliding windows: the greedy cover takes every K-th, ceil(6 / 3) runs
    assert plan_runs(p, "perf", "time").n_runs == 2
    with pytest.raises(ConfigError, match="not one of the problem's events"):
        plan_runs(p, "round_robin", "cycles")


def test_measured_runs_count_their_group_exactly_and_nothing_else():
    rs = runset([trace(0), trace(1), trace(2)])
    p = Problem(EVENTS, "generic-3")
    plan = plan_runs(p, "round_robin", "Ir")
    obs = measure_runs(rs, p, plan, 1000.0, 2, reference=1)
    assert len(obs) == 3
    est = scalers.get("linear").estimate(obs[0])    # run 1 (the reference) counted plan.groups[0]
    truth = rs.traces[1]
    for e in EVENTS:
        col = est.counts[:, est.events.index(e)]
        if e in plan.groups[0]:
            want = truth.counts[:, truth.index(e)].reshape(-1, 2).sum(axis=1)
            assert np.array_equal(col, want)
        else:
            assert est.not_estimated[:, est.events.index(e)].all()
    with pytest.raises(ConfigError, match="3 runs needed"):
        measure_runs(runset([trace(0)]), p, plan, 1000.0, 2)


def test_alignment_of_identical_runs_is_exact_end_to_end():
    rs = runset([trace(0), trace(0), trace(0)])
    p = Problem(EVENTS, "generic-3")
    plan = plan_runs(p, "round_robin", "Ir")
    ests = [scalers.get("linear").estimate(o) for o in measure_runs(rs, p, plan, 1000.0, 2)]
    for name in ("naive", "dtw"):
        est = aligners.get(name).align(ests, "Ir")
        want = rs.traces[0].counts.reshape(-1, 2, len(EVENTS)).sum(axis=1)
        assert np.allclose(est.counts, want), name
    assert run_costs(rs, 3) == 3.0


def test_multiplex_runs_puts_the_reference_first():
    rs = runset([trace(0), trace(1)])
    p = Problem(EVENTS, "generic-3")
    obs = multiplex_runs(rs, p, "perf", 1000.0, 2, n_runs=2, reference=1)
    assert obs[0].meta["trace_checksum"] == rs.traces[1].checksum()


def test_estimated_cycles_follow_kcachegrind():
    names = ("Ir", "Bim", "Bcm", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
    counts = np.array([[100, 1, 1, 1, 1, 1, 1, 1, 1], [100, 0, 0, 0, 0, 0, 0, 0, 0]], float)
    t = on_estimated_cycles(Trace(names, counts, np.array([0.0, 100, 200]), "instructions"))
    # CEst = Ir + 10 Bm + 10 L1m + 100 LLm = 100 + 20 + 30 + 300
    assert t.edges.tolist() == [0, 450, 550] and t.time_unit == "cycles"
    with pytest.raises(ValueError, match="need the callgrind events"):
        on_estimated_cycles(Trace(("Ir",), np.ones((1, 1)), np.array([0.0, 1]), "instructions"))


def test_vary_is_the_run_itself_at_zero_and_labelled_synthetic():
    from mpx.recording.runset import vary

    t = trace(0)
    same = vary(t, 3)
    assert all(np.array_equal(c.counts, t.counts) and np.array_equal(c.edges, t.edges) for c in same.traces)
    assert same.traces[0].meta["synthetic"]["model"] == "mpx.recording.runset.vary" and same.varied[0]["synthetic"]
    warped = vary(t, 2, warp=0.3, seed=1)
    # a warp moves the edges, never the counts; rate noise the counts, never the edges
    assert np.array_equal(warped.traces[1].counts, t.counts) and not np.array_equal(warped.traces[1].edges, t.edges)
    noisy = vary(t, 2, rate_noise=0.3, seed=1)
    assert np.array_equal(noisy.traces[1].edges, t.edges) and not np.array_equal(noisy.traces[1].counts, t.counts)
    late = vary(t, 1, offset=1.0, seed=2)
    assert late.traces[0].n_intervals == t.n_intervals + 1 and late.traces[0].counts[0].sum() == 0


def test_trace_info_describes_a_run_set(tmp_path, capsys):
    from mpx.cli import main

    runset([trace(0), trace(0, stretch=1.5)]).save(tmp_path / "toy.runs")
    assert main(["trace", "info", str(tmp_path / "toy.runs")]) == 0
    out = capsys.readouterr().out
    assert "run set 'toy': 2 runs of 6 events" in out and "seed=1" in out
    assert "length CV across runs: 20.000 %" in out
