"""perf's and round robin's schedules on hand-worked cases; the event-list parser; perf stat -M grouping;
the scheduler registry and base-class conventions."""

from __future__ import annotations

from importlib import metadata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpx import schedulers
from mpx.errors import ConfigError, FormatError
from mpx.pmu import PMU, preset
from mpx.problem import EventGroup, MetricEdge, Problem, parse_event_list, perf_metric_groups
from mpx.schedulers.base import Schedule, SchedulerError, StaticScheduler, open_groups
from mpx.schedulers.perf import PerfScheduler
from mpx.schedulers.round_robin import RoundRobinScheduler


def sets(schedule: Schedule, problem: Problem, n: int) -> list[set[str]]:
    """Running sets of the first n quanta, as sets of event names."""
    run = schedule.running(n)
    return [{e for e, on in zip(problem.events, row) if on} for row in run]


def perf(spec: str, pmu, n: int, **params) -> list[set[str]]:
    p = Problem.from_perf_events(spec, pmu)
    return sets(PerfScheduler(**params).schedule(p), p, n)


# -- perf: hand-worked cases --------------------------------------------------------------------------


def test_sliding_window_five_events_two_counters():
    # rotate_ctx moves the first active group to the tail each quantum: a window of 2 slides over 5
    assert perf("a,b,c,d,e", "generic-2", 6) == [
        {"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "e"}, {"e", "a"}, {"a", "b"},
    ]


@pytest.mark.parametrize("n,k", [(3, 1), (5, 2), (7, 3), (8, 4), (12, 5)])
def test_sliding_window_each_event_k_consecutive_of_n(n, k):
    names = [f"e{i}" for i in range(n)]
    p = Problem(names, f"generic-{k}")
    s = PerfScheduler().schedule(p)
    assert s.period == n and s.prefix.size == 0
    run = s.running(n)
    assert (run.sum(axis=1) == k).all()
    for j in range(n):
        on = np.flatnonzero(run[:, j])
        assert on.size == k
        assert any({(s0 + i) % n for i in range(k)} == set(on.tolist()) for s0 in range(n))  # consecutive mod n


def test_first_failure_stops_scheduling_with_counters_free():
    # Q0: {a,b,c} on (3 of 4), {d,e} does not fit -> stop: f stays off although one counter is free
    assert perf("{a,b,c},{d,e},f", "generic-4", 4) == [
        {"a", "b", "c"}, {"d", "e", "f"}, {"f", "a", "b", "c"}, {"a", "b", "c"},
    ]


def test_pinned_groups_never_rotate():
    got = perf("{p,q}:D,a,b,c,d", "generic-4", 5)
    assert got == [
        {"p", "q", "a", "b"}, {"p", "q", "b", "c"}, {"p", "q", "c", "d"}, {"p", "q", "d", "a"}, {"p", "q", "a", "b"},
    ]


def test_pinned_failure_goes_to_error_and_blocks_later_pinned():
    # {c,d}:D cannot fit beside {a,b}:D on 3 counters -> ERROR; can_add_hw = 0 makes e:D fail too
    p = Problem.from_perf_events("{a,b}:D,{c,d}:D,e:D,f", "generic-3")
    s = PerfScheduler().schedule(p)
    assert sets(s, p, 3) == [{"a", "b", "f"}] * 3
    assert set(s.errors) == {"c", "d", "e"}
    assert "ERROR" in s.errors["e"]


def test_fixed_counter_events_always_run():
    p = Problem.from_perf_events("a,instructions,b,c,d,e,cycles,f", "skylake")
    assert p.free == {"instructions", "cycles"}
    s = PerfScheduler().schedule(p)
    got = sets(s, p, 12)
    assert all({"instructions", "cycles"} <= g for g in got)
    generic = [g - {"instructions", "cycles"} for g in got]
    assert generic[:3] == [{"a", "b", "c", "d"}, {"b", "c", "d", "e"}, {"c", "d", "e", "f"}]
    assert all(len(g) == 4 for g in generic)


def test_weak_group_falls_back_to_single_events():
    p = Problem.from_perf_events("{a,b,c,d,e}:W,f", "generic-4")
    s = PerfScheduler().schedule(p)
    assert [g.events for g in s.groups] == [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]
    assert not s.errors and any("weak group" in n for n in s.notes)
    assert sets(s, p, 2) == [{"a", "b", "c", "d"}, {"b", "c", "d", "e"}]


def test_non_weak_group_skips_the_member_that_cannot_be_opened():
    p = Problem.from_perf_events("{a,b,c,d,e},f", "generic-4")
    s = PerfScheduler().schedule(p)
    assert [g.events for g in s.groups] == [("a", "b", "c", "d"), ("f",)]
    assert set(s.errors) == {"e"}
    assert sets(s, p, 2) == [{"a", "b", "c", "d"}, {"f"}]


def test_weak_group_beside_nmi_watchdog_opens_but_never_runs():
    # x86 validate_group checks a group on an empty (fake) PMU: {a,b,c,d} opens, then never fits the
    # 3 counters a generic counter held by someone else leaves (the watchdog on a PMU whose cycles
    # counter is taken); it blocks everything behind it when at the head of the list
    pmu = preset("skylake").with_nmi_watchdog(counter="gp0")
    p = Problem.from_perf_events("{a,b,c,d}:W,e", pmu)
    s = PerfScheduler().schedule(p)
    assert sets(s, p, 4) == [set(), {"e"}, set(), {"e"}]
    assert any("never get on the PMU" in n for n in s.notes)
    # a validation that knows the reserved counter makes perf stat fall back to single events
    s2 = PerfScheduler(open_sees_reserved=True).schedule(p)
    assert [g.events for g in s2.groups] == [("a",), ("b",), ("c",), ("d",), ("e",)]
    assert sets(s2, p, 2) == [{"a", "b", "c"}, {"b", "c", "d"}]


def test_exclusive_group_runs_alone():
    # Q0: a on; {b}:e cannot join active flexible groups -> stop.  Q1: b alone.  Q2: c, a; b waits.
    assert perf("a,b:e,c", "generic-4", 4) == [{"a"}, {"b"}, {"c", "a"}, {"a"}]


def _abc_pmu() -> PMU:
    # mpx/pmu/'s example: masks A={gp0}, B={gp1,gp2}, C={gp0,gp1}
    return PMU.from_dict({"name": "abc", "units": {"cpu": {
        "generic": 3, "fixed": {}, "masks": {"A": ["gp0"], "B": ["gp1", "gp2"], "C": ["gp0", "gp1"]}}}})


def test_greedy_assignment_differs_from_matching():
    pmu = _abc_pmu()
    p = Problem.from_perf_events("A,B,C", pmu)
    exact = PerfScheduler(assignment="matching").schedule(p)
    assert sets(exact, p, 3) == [{"A", "B", "C"}] * 3
    # x86 greedy: [A,B,C] fails (A->0, B->1, C finds 0,1 taken); after two rotations the list is
    # [C,A,B], kernel order C,A,B sorts by weight to A,C,B: A->0, C->1, B->2 fits; no more rotation
    greedy = PerfScheduler(assignment="perf").schedule(p)
    assert sets(greedy, p, 5) == [{"A", "B"}, {"B", "C"}, {"A", "B", "C"}, {"A", "B", "C"}, {"A", "B", "C"}]
    assert greedy.prefix.tolist() == [0, 1] and greedy.period == 1


def test_each_pmu_unit_rotates_on_its_own():
    pmu = PMU.from_dict({"name": "two", "default_unit": "cpu", "event_units": {"u1": "unc", "u2": "unc"},
                         "units": {"cpu": {"generic": 2, "fixed": {}}, "unc": {"generic": 1, "fixed": {}}}})
    p = Problem.from_perf_events("a,u1,b,u2,c", pmu)
    s = PerfScheduler().schedule(p)
    assert p.units() == ("cpu", "unc")
    got = sets(s, p, 6)
    assert [g & {"a", "b", "c"} for g in got] == [{"a", "b"}, {"b", "c"}, {"c", "a"}] * 2
    assert [g & {"u1", "u2"} for g in got] == [{"u1"}, {"u2"}] * 3
    assert s.period == 6


def test_software_events_always_run_and_uncountable_events_go_to_error():
    pmu = PMU.from_dict({"name": "two", "default_unit": "cpu",
                         "units": {"cpu": {"generic": 1, "fixed": {}}, "unc": {"generic": 1, "fixed": {}}}})
    p = Problem.from_perf_events("a,task-clock,nope/x/,b", pmu)
    s = PerfScheduler().schedule(p)
    assert "task-clock" in p.free
    assert set(s.errors) == {"nope/x/"}
    assert sets(s, p, 3) == [{"a", "task-clock"}, {"b", "task-clock"}, {"a", "task-clock"}]


def test_leader_that_cannot_be_opened_stops_perf_stat():
    pmu = PMU.from_dict({"name": "two", "default_unit": "cpu",
                         "units": {"cpu": {"generic": 2, "fixed": {}}, "unc": {"generic": 1, "fixed": {}}}})
    p = Problem.from_perf_events("{nope/x/,a}", pmu)
    with pytest.raises(ConfigError, match="leader"):
        PerfScheduler().schedule(p)


def test_group_sibling_on_another_unit_is_not_opened():
    pmu = PMU.from_dict({"name": "two", "default_unit": "cpu", "event_units": {"u": "unc"},
                         "units": {"cpu": {"generic": 2, "fixed": {}}, "unc": {"generic": 1, "fixed": {}}}})
    p = Problem.from_perf_events("{a,u,b}", pmu)
    s = PerfScheduler().schedule(p)
    assert [g.events for g in s.groups] == [("a", "b")]
    assert "unit" in s.errors["u"]


def test_shared_event_needs_a_counter_per_group():
    # perf opens an event once per group: {a,b} and {a,c} together need 4 counters, not 3
    p = Problem.from_perf_events("{a,b},{a,c}", "generic-3")
    assert sets(PerfScheduler().schedule(p), p, 2) == [{"a", "b"}, {"a", "c"}]
    p4 = Problem.from_perf_events("{a,b},{a,c}", "generic-4")
    assert sets(PerfScheduler().schedule(p4), p4, 1) == [{"a", "b", "c"}]


def test_everything_fits_means_no_rotation():
    p = Problem.from_perf_events("a,{b,c},d", "generic-4")
    s = PerfScheduler().schedule(p)
    assert s.n_configs == 1 and s.period == 1


# -- round robin ------------------------------------------------------------------------------------


def test_round_robin_block_rotation():
    p = Problem(["a", "b", "c", "d", "e"], "generic-2")
    s = RoundRobinScheduler().schedule(p)
    assert sets(s, p, 6) == [{"a", "b"}, {"c", "d"}, {"e"}] * 2


def test_round_robin_next_fit_vs_first_fit_and_pinned_everywhere():
    p = Problem.from_perf_events("{a,b,c},{d,e},f", "generic-4")
    assert sets(RoundRobinScheduler().schedule(p), p, 2) == [{"a", "b", "c"}, {"d", "e", "f"}]
    assert sets(RoundRobinScheduler(packing="first_fit").schedule(p), p, 2) == [{"a", "b", "c", "f"}, {"d", "e"}]
    p2 = Problem.from_perf_events("x:D,{a,b,c},{d,e}", "generic-4")
    assert sets(RoundRobinScheduler().schedule(p2), p2, 2) == [{"x", "a", "b", "c"}, {"x", "d", "e"}]


def test_round_robin_exclusive_group_alone_and_weak_fallback():
    p = Problem.from_perf_events("a,{b,c}:e,d,{e,f,g}:W", "generic-2")
    s = RoundRobinScheduler().schedule(p)
    assert sets(s, p, 4) == [{"a"}, {"b", "c"}, {"d", "e"}, {"f", "g"}]


# -- the event-list parser ----------------------------------------------------------------------------


def test_parse_event_list_groups_and_modifiers():
    groups, notes = parse_event_list("{a,b}:W,c,{d,e}:D, f:e ,cpu/event=0x3c,umask=0x0/u,sched:sched_switch,g:uk")
    assert groups == (
        EventGroup(("a", "b"), weak=True), EventGroup(("c",)), EventGroup(("d", "e"), pinned=True),
        EventGroup(("f",), exclusive=True), EventGroup(("cpu/event=0x3c,umask=0x0/u",)),
        EventGroup(("sched:sched_switch",)), EventGroup(("g:uk",)),
    )  # counting-mode modifiers stay in the name (perf opens g and g:uk separately); D/W/e do not
    assert {(n["event"], n["modifiers"]) for n in notes} == {("cpu/event=0x3c,umask=0x0/u", "u"), ("g:uk", "uk")}


def test_parse_event_list_leader_modifiers_apply_to_the_group():
    groups, notes = parse_event_list("{a:D,b:e}")
    assert groups == (EventGroup(("a", "b"), pinned=True),)
    assert notes[0]["event"] == "b" and "not leader" in notes[0]["why"]


@pytest.mark.parametrize("bad,what", [
    ("{a,b", "never closed"), ("a,b}", "without a matching"), ("{a,{b}}", "nested"), ("a,,b", "empty event"),
    ("a,", "missing event"), ("{a,b}:Z", "unknown group modifier"), ("a:", "empty modifier"), ("", "empty"),
    ("{a,a}", "twice"), ("cpu/event=1", "unterminated"), ("{a}x", "expected ','"), ("a b", "bad event name"),
])
def test_parse_event_list_errors(bad, what):
    with pytest.raises(FormatError, match=what):
        parse_event_list(bad)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab{},:/DWeuZ= ", max_size=25))
def test_parse_event_list_garbage_raises_only_format_error(text):
    try:
        groups, _ = parse_event_list(text)
    except FormatError:
        return
    assert all(isinstance(g, EventGroup) and g.events for g in groups)


# -- perf stat -M grouping ----------------------------------------------------------------------------


def _metrics():
    return [
        MetricEdge("M1", ("a", "b", "c")),
        MetricEdge("M2", ("a", "b")),                         # subset of M1: reuses its group
        MetricEdge("M3", ("c", "d", "e", "f", "duration_time")),  # largest (tool event not counted)
        MetricEdge("M4", ("x", "y"), "NO_GROUP_EVENTS"),
        MetricEdge("M5", ("y", "z"), "NO_GROUP_EVENTS"),
        MetricEdge("M6", ("b", "g")),
    ]


def test_metric_groups_like_perf_stat_M():
    got = [g.to_perf() for g in perf_metric_groups(_metrics())]
    # sorted: M3 (4), M1 (3), then size 2 in reverse command-line order: M6, M5, M4, M2;
    # ungrouped events (M5, M4) merged and placed first; M2 reuses M1's group
    assert got == ["y", "z", "x", "{c,d,e,f}:W", "{a,b,c}:W", "{b,g}:W"]


def test_metric_groups_no_merge_and_no_group():
    got = [g.to_perf() for g in perf_metric_groups(_metrics(), metric_no_merge=True)]
    assert got == ["{c,d,e,f}:W", "{a,b,c}:W", "{b,g}:W", "y", "z", "x", "y", "{a,b}:W"]
    got = [g.to_perf() for g in perf_metric_groups(_metrics(), metric_no_group=True)]
    assert got == ["c", "d", "e", "f", "a", "b", "g", "y", "z", "x"]


def test_metric_groups_nmi_and_smt_constraints():
    ms = [MetricEdge("N", ("a", "b"), "NO_GROUP_EVENTS_NMI"), MetricEdge("S", ("c", "d"), "NO_GROUP_EVENTS_SMT")]
    assert [g.to_perf() for g in perf_metric_groups(ms)] == ["{c,d}:W", "{a,b}:W"]
    assert [g.to_perf() for g in perf_metric_groups(ms, nmi_watchdog=True, smt_on=True)] == ["c", "d", "a", "b"]


def test_problem_from_metrics_fixed_events_always_counted():
    from mpx.metrics import Metric

    ms = [Metric.from_expr("IPC", "instructions / cycles"),
          Metric.from_expr("Big", "(a + b + c + d + e) / instructions")]
    p = Problem.from_metrics(ms, "skylake")
    assert p.to_perf() == "{a,b,c,d,e,instructions}:W,{cycles,instructions}:W"
    s = PerfScheduler().schedule(p)
    got = sets(s, p, 5)
    assert all({"instructions", "cycles"} <= g for g in got)
    assert [g.events for g in s.groups] == [("a",), ("b",), ("c",), ("d",), ("e",)]  # weak fallback: 5 > 4


def test_problem_from_metrics_records_tool_events_and_nmi_default():
    p = Problem.from_metrics(_metrics(), preset("generic-8"))
    assert "duration_time" not in p.events
    assert "duration_time" in p.meta["dropped"][0]["what"]
    assert p.meta["nmi_watchdog"] is False
    p2 = Problem.from_metrics([MetricEdge("N", ("a", "b"), "NO_GROUP_EVENTS_NMI")],
                              preset("skylake").with_nmi_watchdog())
    assert p2.meta["nmi_watchdog"] is True and p2.to_perf() == "a,b"


def test_problem_validation():
    with pytest.raises(ConfigError, match="not in the problem"):
        Problem(["a"], "generic-2", groups=[EventGroup(("a", "b"))])
    with pytest.raises(ConfigError, match="repeat"):
        Problem(["a", "a"], "generic-2")
    with pytest.raises(ConfigError, match="weights"):
        Problem(["a", "b"], "generic-2", weights=[1.0])
    with pytest.raises(ConfigError, match="metric"):
        Problem(["a"], "generic-2", metrics={"m": ["a", "q"]})
    p = Problem(["a", "b", "c"], "generic-2", groups="{c,a}", weights={"b": 2.0})
    assert p.to_perf() == "{c,a},b" and p.weights.tolist() == [1.0, 2.0, 1.0]


# -- registry and base-class conventions -------------------------------------------------------------


def test_registry_get_and_available():
    assert {"perf", "round_robin"} <= set(schedulers.available())
    s = schedulers.get("perf", assignment="perf")
    assert isinstance(s, PerfScheduler) and s.get_params() == {"assignment": "perf", "open_sees_reserved": False,
                                                                   "groups": "problem"}
    assert repr(s) == "PerfScheduler(assignment='perf', open_sees_reserved=False, groups='problem')"
    with pytest.raises(ConfigError, match="unknown scheduler"):
        schedulers.get("nope")
    with pytest.raises(ConfigError, match="no parameter"):
        schedulers.get("perf", bogus=1)


def test_registry_entry_points(monkeypatch):
    ep = metadata.EntryPoint(name="third_party_rr", value="mpx.schedulers.round_robin:RoundRobinScheduler",
                             group=schedulers.ENTRY_POINT_GROUP)
    bad = metadata.EntryPoint(name="broken", value="no_such_module_xyz:Thing", group=schedulers.ENTRY_POINT_GROUP)
    monkeypatch.setattr(schedulers.REGISTRY, "entry_points", lambda: {ep.name: ep, bad.name: bad})
    assert "third_party_rr" in schedulers.available()
    assert isinstance(schedulers.get("third_party_rr", packing="first_fit"), RoundRobinScheduler)
    with pytest.raises(ConfigError, match="failed to load"):
        schedulers.get("broken")


def test_register_at_run_time():
    class Mine(RoundRobinScheduler):
        name = "mine"

    schedulers.register("mine", Mine)
    try:
        assert isinstance(schedulers.get("mine"), Mine)
        with pytest.raises(ConfigError):
            schedulers.register("perf", Mine)
        with pytest.raises(ConfigError):
            schedulers.register("x", int)
    finally:
        schedulers.unregister("mine")
    assert "mine" not in schedulers.available()


def test_hyper_parameters_stored_unchanged_and_results_inspectable():
    s = PerfScheduler(assignment="matching")
    before = s.get_params()
    p = Problem(["a", "b", "c"], "generic-2")
    s.schedule(p)
    assert s.get_params() == before
    assert isinstance(s.schedule_, Schedule) and s.groups_ == s.schedule_.groups and s.errors_ == {}
    assert "cycle" in s.schedule_.describe()
    c = s.clone()
    assert c.get_params() == before and not hasattr(c, "schedule_")
    with pytest.raises(ConfigError):
        s.set_params(nope=1)
    with pytest.raises(ConfigError, match="assignment"):
        PerfScheduler(assignment="bogus").schedule(p)


def test_static_scheduler_cannot_overcommit_counters():
    class Cheat(StaticScheduler):
        name = "cheat"

        def _schedule(self, problem):
            return Schedule.from_configs(problem, [problem.events])

    with pytest.raises(SchedulerError, match="does not fit"):
        Cheat().schedule(Problem(["a", "b", "c"], "generic-2"))


def test_open_groups_is_reusable_by_other_schedulers():
    p = Problem.from_perf_events("{a,b,c}:W,instructions,{d,e}", "skylake")
    opened = open_groups(p)
    assert [g.events for g in opened.groups] == [("a", "b", "c"), ("d", "e")]
    assert opened.units == ("cpu", "cpu") and opened.errors == {}


# -- properties on random group lists ----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.lists(st.tuples(st.integers(1, 4), st.booleans()), min_size=1, max_size=8))
def test_perf_schedule_properties(k, shapes):
    names = iter(f"e{i}" for i in range(100))
    groups = [EventGroup(tuple(next(names) for _ in range(size)), weak=weak) for size, weak in shapes]
    p = Problem(tuple(e for g in groups for e in g.events), f"generic-{k}", groups=groups)
    s = PerfScheduler().schedule(p)
    opened = [set(g.events) for g in s.groups]
    assert s.period <= max(1, len(opened))
    runs = s.configs[np.concatenate([s.prefix, s.cycle])]
    for row in runs:
        on = {e for e, x in zip(p.events, row) if x}
        assert len(on) <= k
        assert all(g <= on or not (g & on) for g in opened)  # whole groups only
    cycle_on = s.configs[s.cycle].any(axis=0)
    for g in opened:  # rotation brings every openable group to the head of the list
        assert all(cycle_on[p.index(e)] for e in g)
    rr = RoundRobinScheduler().schedule(p)
    assert rr.configs[rr.cycle].any(axis=0).sum() == sum(len(g) for g in opened)


def test_second_event_on_a_taken_fixed_counter_falls_back_to_a_generic_counter():
    pmu = PMU.from_dict({"name": "fx", "units": {"cpu": {"generic": 2, "fixed": {"fixed1": ["cyc", "cyc_any"]}}}})
    p = Problem.from_perf_events("cyc,cyc_any,a,b", pmu)
    assert p.free == {"cyc"} and not p.uncountable
    assert p.fits(["cyc", "cyc_any", "a"]) and not p.fits(["cyc_any", "a", "b"])
    assert perf("cyc,cyc_any,a,b", pmu, 3) == [{"cyc", "cyc_any", "a"}, {"cyc", "a", "b"}, {"cyc", "b", "cyc_any"}]
    only_fixed = PMU.from_dict({"name": "fx0", "units": {"cpu": {"generic": 0, "fixed": {"f": ["x", "y"]}}}})
    p0 = Problem(["x", "y"], only_fixed)
    assert p0.free == {"x"} and "no programmable counter" in p0.uncountable["y"]
    assert set(PerfScheduler().schedule(p0).errors) == {"y"}


def test_real_skylake_topdown_metrics_like_perf_stat(shared):
    from mpx.metrics import load_catalog

    cat = load_catalog(shared("data", "metrics", "linux-perf", "x86", "skylake"))
    metrics = [m for m in cat if any("TopdownL1" in g for g in m.groups)]
    assert len(metrics) == 4
    p = Problem.from_metrics(metrics, "skylake")
    # two weak groups of 8 events each (the two largest metrics; the two others are subsets)
    assert [len(g) for g in p.groups] == [8, 8] and all(g.weak for g in p.groups)
    s = PerfScheduler().schedule(p)
    assert not s.errors and sum("weak group" in n for n in s.notes) == 2
    assert p.free == {"CPU_CLK_UNHALTED.THREAD"}  # THREAD_ANY falls back to a generic counter
    from mpx.scoring.schedules import schedule_scores

    sc = schedule_scores(s, p)
    assert sc.utilization == 1.0 and (sc.sampling_ratio > 0).all()


def test_single_events_rotate_one_per_tick_as_tintins_baseline():
    """groups="single" opens every event alone (perf stat -e a,b,c,d): the groups {a,b},{c,d} on 2 counters
    alternate whole groups; as single events the window of 2 slides by one event per tick."""
    assert perf("{a,b},{c,d}", "generic-2", 3) == [{"a", "b"}, {"c", "d"}, {"a", "b"}]
    assert perf("{a,b},{c,d}", "generic-2", 5, groups="single") == [
        {"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}, {"a", "b"}]
