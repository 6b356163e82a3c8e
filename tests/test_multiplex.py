"""The multiplexing simulator: quantum and read views, perf's time semantics, apportioning, noise, and
the guarantee that schedulers never see the truth (every registered scheduler is checked by
`mpx.conformance.schedulers.check_scheduler`, in ``tests/conformance/test_schedulers.py``)."""

from __future__ import annotations

import gc
import re
import types
import warnings

import numpy as np
import pytest

from mpx.errors import ConfigError, MpxWarning
from mpx.multiplex import Noise, multiplex, quantum_from_ms, read_every_from_ms, resolve_quantum
from mpx.observation import Observation
from mpx.pmu import PMU
from mpx.problem import Problem
from mpx.schedulers.base import Observed, OnlineScheduler, SchedulerError
from mpx.schedulers.perf import PerfScheduler
from mpx.trace import Trace


def one_fixed_two_generic() -> PMU:
    return PMU.from_dict({"name": "f1g2", "units": {"cpu": {"generic": 2, "fixed": {"fixed0": ["instructions"]}}}})


def random_trace(n_t=200, names=("a", "b", "c", "d", "e", "instructions"), seed=1, uneven=True) -> Trace:
    rng = np.random.default_rng(seed)
    steps = rng.uniform(0.5, 2.0, n_t) if uneven else np.ones(n_t)
    edges = np.concatenate([[100.0], 100.0 + np.cumsum(steps)])
    return Trace(list(names), rng.integers(0, 1000, (n_t, len(names))).astype(float), edges, "us",
                 meta={"workload": "rand", "source": "test"})


# -- views and semantics ----------------------------------------------------------------------------


def test_read_view_sums_equal_quantum_view_sums():
    tr = random_trace()
    p = Problem(tr.events, one_fixed_two_generic())
    obs = multiplex(tr, p, "perf", quantum=1.7, read_every=7)
    q = obs.quanta
    assert q.edges[0] == tr.edges[0] and q.edges[-1] == tr.edges[-1]
    np.testing.assert_allclose(obs.reads.raw.sum(axis=0), np.nansum(q.counts, axis=0), rtol=1e-12)
    np.testing.assert_allclose(obs.reads.running.sum(axis=0), (q.running * q.durations[:, None]).sum(axis=0))
    np.testing.assert_allclose(obs.reads.enabled.sum(axis=0), tr.edges[-1] - tr.edges[0])
    assert obs.reads.quanta[0] == 0 and obs.reads.quanta[-1] == obs.n_quanta
    assert np.isnan(q.counts[~q.running]).all() and np.isfinite(q.counts[q.running]).all()


def test_enabled_and_running_follow_perf_semantics():
    # period 3 on 2 counters: Q0 {a,b}, Q1 {c,d}, Q2 {e}; instructions on its fixed counter always
    n_t = 6
    tr = Trace(["a", "b", "c", "d", "e", "instructions"], np.ones((n_t, 6)), np.arange(n_t + 1) * 10.0, "ns")
    p = Problem.from_perf_events("{a,b},{c,d},e,instructions", one_fixed_two_generic())
    obs = multiplex(tr, p, "perf", quantum=10.0, read_every=2)
    r = obs.reads
    np.testing.assert_array_equal(r.enabled, np.full((3, 6), 20.0))
    np.testing.assert_array_equal(r.running, [
        [10, 10, 10, 10, 0, 20],   # Q0 {a,b}, Q1 {c,d}
        [10, 10, 0, 0, 10, 20],    # Q2 {e}, Q3 {a,b}
        [0, 0, 10, 10, 10, 20],    # Q4 {c,d}, Q5 {e}
    ])
    np.testing.assert_array_equal(r.raw, r.running / 10.0)  # 1 count per quantum while running
    # group members share their times
    np.testing.assert_array_equal(r.running[:, 0], r.running[:, 1])
    np.testing.assert_array_equal(r.running[:, 2], r.running[:, 3])
    assert obs.errors == {} and [g.events for g in obs.groups] == [("a", "b"), ("c", "d"), ("e",)]


def test_events_in_error_have_no_enabled_time():
    tr = Trace(["a", "b", "c"], np.ones((4, 3)), np.arange(5.0), "ns")
    p = Problem.from_perf_events("{a,b,c}", "generic-2")
    obs = multiplex(tr, p, "perf", quantum=1.0, read_every=2)
    assert set(obs.errors) == {"c"}
    assert (obs.reads.enabled[:, 2] == 0).all() and (obs.reads.running[:, 2] == 0).all()
    assert (obs.reads.enabled[:, :2] == 2).all()


def test_apportioning_when_quanta_straddle_intervals():
    # intervals [0,10) and [10,30); quanta of 12: [0,12) [12,24) [24,30) (the last one cut short)
    tr = Trace(["a", "b"], [[10.0, 0.0], [40.0, 20.0]], [0.0, 10.0, 30.0], "ns")
    p = Problem(["a", "b"], "generic-2")
    obs = multiplex(tr, p, "round_robin", quantum=12.0, read_every=2)
    np.testing.assert_allclose(obs.quanta.edges, [0, 12, 24, 30])
    # a: 10 + 40*2/20 = 14, 40*12/20 = 24, 40*6/20 = 12;  b: 20*2/20 = 2, 12, 6
    np.testing.assert_allclose(obs.quanta.counts, [[14, 2], [24, 12], [12, 6]])
    np.testing.assert_allclose(obs.reads.raw, [[38, 14], [12, 6]])
    np.testing.assert_allclose(obs.reads.enabled[:, 0], [24, 6])
    assert obs.meta["apportioned"] and obs.meta["last_quantum_partial"]
    assert "uniformly" in obs.meta["apportioning"]


def test_aligned_quanta_are_exact_sums():
    tr = random_trace(uneven=False)
    p = Problem(tr.events, "generic-8")
    obs = multiplex(tr, p, "perf", quantum=4.0, read_every=5)
    assert not obs.meta["apportioned"] and not obs.meta["last_quantum_partial"]
    np.testing.assert_array_equal(obs.quanta.counts, tr.counts.reshape(50, 4, 6).sum(axis=1))


def test_always_running_event_totals_equal_trace_totals():
    tr = random_trace(n_t=500, seed=7)
    p = Problem(tr.events, one_fixed_two_generic())
    obs = multiplex(tr, p, "perf", quantum=3.3, read_every=4)
    assert obs.meta["apportioned"]
    j = p.index("instructions")
    assert obs.quanta.running[:, j].all()
    assert np.isclose(obs.reads.raw[:, j].sum(), tr["instructions"].sum(), rtol=1e-12)
    np.testing.assert_allclose(obs.reads.running[:, j], obs.reads.enabled[:, j])


def test_quanta_follow_the_static_schedule():
    tr = random_trace()
    p = Problem(tr.events, one_fixed_two_generic())
    s = PerfScheduler()
    obs = multiplex(tr, p, s, quantum=2.0, read_every=3)
    np.testing.assert_array_equal(obs.quanta.running, s.schedule_.running(obs.n_quanta))
    assert obs.schedule is s.schedule_
    assert obs.meta["scheduler"] == "perf" and obs.meta["scheduler_params"]["assignment"] == "matching"
    assert obs.meta["trace_checksum"] == tr.checksum() and obs.meta["workload"] == "rand"
    assert obs.meta["read_window"] == 6.0


# -- the truth stays out ------------------------------------------------------------------------------


def _reachable(roots, limit=200_000):
    """Objects reachable from ``roots`` (instances, containers, arrays and their bases)."""
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
            types.CodeType, types.FrameType)
    seen, out, stack = set(), [], list(roots)
    while stack and len(out) < limit:
        o = stack.pop()
        if id(o) in seen or isinstance(o, skip):
            continue
        seen.add(id(o))
        out.append(o)
        if isinstance(o, np.ndarray):
            if o.base is not None:
                stack.append(o.base)
            continue
        stack.extend(gc.get_referents(o))
    return out


def _sentinel_trace(n_t=40, n_e=5) -> Trace:
    # every cell a distinct value, so any leaked cell is recognisable
    t, e = np.meshgrid(np.arange(n_t), np.arange(n_e), indexing="ij")
    return Trace([f"e{i}" for i in range(n_e)], 1000.0 * t + e + 0.25, np.arange(n_t + 1, dtype=float), "ns")


def _assert_no_truth(objects, trace: Trace, allowed: np.ndarray) -> None:
    forbidden = trace.counts[~allowed]
    for o in objects:
        assert not isinstance(o, (Trace, SpyTrace)), "a Trace is reachable"
        if isinstance(o, np.ndarray) and o.dtype.kind == "f" and o.size:
            vals = o[np.isfinite(o)]
            assert not np.isin(vals, forbidden).any(), "unobserved true counts are reachable"


def test_observation_holds_no_truth():
    tr = _sentinel_trace()
    p = Problem(tr.events, "generic-2")
    obs = multiplex(tr, p, "perf", quantum=1.0, read_every=4)
    _assert_no_truth(_reachable([obs]), tr, obs.quanta.running)
    assert not hasattr(obs, "truth") and "counts" not in obs.meta


class SpyTrace:
    """A trace that refuses every access once locked (when the scheduler starts)."""

    def __init__(self, trace: Trace) -> None:
        object.__setattr__(self, "_t", trace)
        object.__setattr__(self, "_locked", False)
        object.__setattr__(self, "reads", [])

    def lock(self) -> None:
        object.__setattr__(self, "_locked", True)

    def __getattribute__(self, name):
        if name in ("lock", "__class__", "reads", "_locked"):
            return object.__getattribute__(self, name)
        if object.__getattribute__(self, "_locked"):
            raise AssertionError(f"trace.{name} read after the scheduler started")
        object.__getattribute__(self, "reads").append(name)
        return getattr(object.__getattribute__(self, "_t"), name)


class LockingPerf(PerfScheduler):
    spy: SpyTrace | None = None

    def _schedule(self, problem):
        self.spy.lock()
        return super()._schedule(problem)


class Inspector(OnlineScheduler):
    """Online: runs the k events seen least so far, ``block`` quanta at a time, and checks that what it
    is given holds no truth beyond the counts of events that ran."""

    name = "inspector"

    def __init__(self, k: int = 2, block: int = 3, trace=None, spy=None):
        self.k = k
        self.block = block
        self.trace = trace
        self.spy = spy

    def _start(self, problem):
        if self.spy is not None:
            self.spy.lock()
        self.calls = 0

    def _decide(self, observed: Observed):
        self.calls += 1
        q = observed.n_quanta
        assert observed.edges.shape == (q + 1,) and observed.counts.shape == (q, observed.problem.n_events)
        assert not observed.counts.flags.writeable and not observed.running.flags.writeable
        truth = self.trace.counts
        np.testing.assert_array_equal(observed.counts, np.where(observed.running, truth[:q], np.nan))
        allowed = np.zeros(truth.shape, dtype=bool)
        allowed[:q] = observed.running
        hidden = dict(vars(self))
        hidden.pop("trace"), hidden.pop("spy")  # the test's own references, not given by mpx
        _assert_no_truth(_reachable([observed, observed.problem, hidden]), self.trace, allowed)
        seen = observed.running.sum(axis=0)
        order = np.argsort(seen, kind="stable")[: self.k]
        row = np.zeros(observed.problem.n_events, dtype=bool)
        row[order] = True
        return np.repeat(row[None, :], self.block, axis=0)


def test_static_scheduler_never_reads_the_trace():
    tr = _sentinel_trace()
    spy = SpyTrace(tr)
    s = LockingPerf()
    s.spy = spy
    obs = multiplex(spy, Problem(tr.events, "generic-2"), s, quantum=1.0, read_every=4)
    assert spy._locked and obs.n_quanta == 40
    assert set(spy.reads) <= {"events", "rebin", "edges", "meta", "time_unit", "checksum"}


def test_online_scheduler_sees_only_what_ran():
    tr = _sentinel_trace()
    spy = SpyTrace(tr)
    s = Inspector(k=2, block=3, trace=tr, spy=spy)
    obs = multiplex(spy, Problem(tr.events, "generic-2"), s, quantum=1.0, read_every=5)
    assert s.calls == 14  # 40 quanta in blocks of 3
    assert (obs.quanta.running.sum(axis=1) == 2).all()
    np.testing.assert_array_equal(obs.quanta.counts, np.where(obs.quanta.running, tr.counts, np.nan))
    assert obs.schedule is None and obs.meta["scheduler"] == "inspector"


def test_online_scheduler_writing_into_its_view_changes_nothing():
    tr = _sentinel_trace()
    p = Problem(tr.events, "generic-2")

    class Vandal(Inspector):
        def _decide(self, observed):
            if observed.n_quanta:
                observed.counts.base.setflags(write=True)
                observed.counts.base[: observed.n_quanta] = -1.0
                observed.running.base.setflags(write=True)
                observed.running.base[:] = True
            return super()._decide(observed) if observed.n_quanta == 0 else self._next(observed)

        def _next(self, observed):
            row = np.zeros(observed.problem.n_events, dtype=bool)
            row[(observed.n_quanta // 3) % 5] = True
            return np.repeat(row[None, :], 3, axis=0)

    obs = multiplex(tr, p, Vandal(trace=tr), quantum=1.0, read_every=5)
    np.testing.assert_array_equal(obs.quanta.counts, np.where(obs.quanta.running, tr.counts, np.nan))
    assert (obs.quanta.running.sum(axis=1) <= 2).all()


def test_online_scheduler_cannot_overcommit():
    class Greedy(Inspector):
        def _decide(self, observed):
            return np.ones((1, observed.problem.n_events), dtype=bool)

    tr = _sentinel_trace()
    with pytest.raises(SchedulerError, match="does not fit"):
        multiplex(tr, Problem(tr.events, "generic-2"), Greedy(trace=tr), quantum=1.0, read_every=5)


# -- noise ------------------------------------------------------------------------------------------


def test_noise_is_deterministic_per_seed_and_off_by_default():
    tr = random_trace()
    p = Problem(tr.events, one_fixed_two_generic())
    base = multiplex(tr, p, "perf", quantum=2.0, read_every=3)
    n1 = multiplex(tr, p, "perf", quantum=2.0, read_every=3, noise=Noise(rel_sigma=0.05), seed=3)
    n2 = multiplex(tr, p, "perf", quantum=2.0, read_every=3, noise=Noise(rel_sigma=0.05), seed=3)
    n3 = multiplex(tr, p, "perf", quantum=2.0, read_every=3, noise=Noise(rel_sigma=0.05), seed=4)
    np.testing.assert_array_equal(n1.quanta.counts, n2.quanta.counts)
    assert not np.array_equal(n1.quanta.counts, n3.quanta.counts, equal_nan=True)
    ratio = n1.quanta.counts / base.quanta.counts
    ok = np.isfinite(ratio)
    assert 0.03 < np.std(ratio[ok]) < 0.07  # ~ rel_sigma
    assert n1.meta["noise"] == {"rel_sigma": 0.05, "read_overhead": 0.0} and base.meta["noise"] is None


def test_read_overhead_adds_counts_per_read_where_the_event_ran():
    tr = random_trace()
    p = Problem(tr.events, one_fixed_two_generic())
    base = multiplex(tr, p, "perf", quantum=2.0, read_every=3)
    noisy = multiplex(tr, p, "perf", quantum=2.0, read_every=3, noise=Noise(read_overhead=7.0))
    np.testing.assert_allclose(noisy.reads.raw - base.reads.raw, 7.0 * (base.reads.running > 0))
    np.testing.assert_array_equal(noisy.quanta.counts, base.quanta.counts)


# -- helpers and errors -------------------------------------------------------------------------------


def test_quantum_and_read_helpers():
    assert quantum_from_ms(4, "ms") == 4.0
    assert quantum_from_ms(4, "ns") == pytest.approx(4e6)
    assert quantum_from_ms(4, "cycles", clock_hz=2e9) == pytest.approx(8e6)
    assert quantum_from_ms(4, "ticks", ticks_per_second=1e12) == pytest.approx(4e9)
    assert read_every_from_ms(100, 4) == 25
    with pytest.raises(ConfigError, match="clock_hz"):
        quantum_from_ms(4, "cycles")
    with pytest.raises(ConfigError, match="ticks_per_second"):
        quantum_from_ms(4, "ticks")
    with pytest.raises(ConfigError, match="no fixed relation"):
        quantum_from_ms(4, "instructions")
    with pytest.raises(ConfigError, match="whole number"):
        read_every_from_ms(10, 4)


def test_bad_arguments_are_clear_errors():
    tr = random_trace()
    p = Problem(tr.events, "generic-2")
    with pytest.raises(ConfigError, match="no event"):
        multiplex(tr, Problem(["a", "zzz"], "generic-2"), "perf", 1.0, 1)
    with pytest.raises(ConfigError, match="quantum"):
        multiplex(tr, p, "perf", 0.0, 1)
    with pytest.raises(ConfigError, match="read_every"):
        multiplex(tr, p, "perf", 1.0, 0)
    with pytest.raises(ConfigError, match="unknown scheduler"):
        multiplex(tr, p, "nope", 1.0, 1)
    with pytest.raises(ConfigError, match="Noise"):
        multiplex(tr, p, "perf", 1.0, 1, noise=0.1)


def test_quantum_longer_than_the_trace_is_an_error():
    # issue 17: `--quantum 1e12` printed 0.00 % for every scaler; one quantum holding the whole trace
    tr = Trace(["a", "b"], np.ones((10, 2)), np.arange(11.0), "us")
    with pytest.raises(ConfigError, match=r"quantum \(11 us\) is longer than the trace \(10 us, 10 intervals\)"):
        multiplex(tr, Problem(tr.events, "generic-2"), "perf", quantum=11.0, read_every=1)
    with pytest.warns(MpxWarning, match="only 1 read window"):  # exactly the trace: one quantum, allowed
        obs = multiplex(tr, Problem(tr.events, "generic-2"), "perf", quantum=10.0, read_every=1)
    assert obs.n_quanta == 1


def test_too_few_read_windows_warn():
    # 40 intervals, quantum 1, read every 2 quanta: 20 windows is enough; every 3 quanta: ceil(40/3) = 14 is not
    tr = Trace(["a", "b"], np.ones((40, 2)), np.arange(41.0), "us")
    p = Problem(tr.events, "generic-2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        multiplex(tr, p, "perf", quantum=1.0, read_every=2)
    with pytest.warns(MpxWarning, match=r"only 14 read window\(s\) to score \(40 trace intervals over 40 us, "
                                        r"quantum 1 us, a read every 3 quanta\)"):
        multiplex(tr, p, "perf", quantum=1.0, read_every=3)


def test_read_windows_finer_than_the_trace_warn():
    # 20 intervals of 4 us, quantum 1 us read every quantum: 80 windows, 3 of 4 with interpolated truth
    tr = Trace(["a", "b"], np.ones((20, 2)), np.arange(21.0) * 4, "us")
    with pytest.warns(MpxWarning, match=r"fewer intervals than read windows .*: 80 windows\)"):
        multiplex(tr, Problem(tr.events, "generic-2"), "perf", quantum=1.0, read_every=1)


def test_resolve_quantum_from_an_experiment_table():
    tr = Trace(["a"], np.ones((4, 1)), [0.0, 2.0, 4.0, 7.0, 9.0], "ms")
    assert resolve_quantum({"quantum": 3}, tr) == (3.0, "3 ms")
    assert resolve_quantum({"quantum_intervals": 2}, tr)[0] == 4.0
    assert resolve_quantum({"quantum_ms": 4}, tr)[0] == pytest.approx(4.0)
    cyc = Trace(["a"], np.ones((2, 1)), [0.0, 1e6, 2e6], "cycles")
    assert resolve_quantum({"quantum_ms": 1, "clock_hz": 2e9}, cyc)[0] == pytest.approx(2e6)
    with pytest.raises(ConfigError, match="needs 'clock_hz'"):
        resolve_quantum({"quantum_ms": 1}, cyc)


def test_resolve_quantum_from_command_line_text():
    tr = Trace(["a"], np.ones((4, 1)), [0.0, 2.0, 4.0, 7.0, 9.0], "us")
    assert resolve_quantum(None, tr) == (2.0, "2 us (default: one median trace interval)")
    assert resolve_quantum("5", tr) == (5.0, "5 us")
    q, how = resolve_quantum("0.004ms", tr)
    assert q == pytest.approx(4.0) and how.endswith("(0.004 ms)")
    for bad, needle in (("x", "expected a number on the trace's time axis (us) or '<x>ms'"),
                        ("xms", "expected a number or '<x>ms'"), ("-1", "--quantum must be > 0")):
        with pytest.raises(ConfigError, match=re.escape(needle)):
            resolve_quantum(bad, tr)
    ins = Trace(["a"], np.ones((2, 1)), [0.0, 1.0, 2.0], "instructions")
    with pytest.raises(ConfigError, match="--quantum '1ms': quantum_from_ms: the 'instructions' axis"):
        resolve_quantum("1ms", ins)


def test_in_ms_needs_a_declared_relation_to_time():
    from mpx.multiplex import in_ms

    assert in_ms(4e6, "ns") == pytest.approx(4.0) and in_ms(2, "s") == 2000.0
    assert in_ms(8e6, "cycles", clock_hz=2e9) == pytest.approx(4.0)
    assert in_ms(4e9, "ticks", ticks_per_second=1e12) == pytest.approx(4.0)
    assert in_ms(1e6, "cycles") is None and in_ms(1e6, "instructions") is None and in_ms(5, "ticks") is None

