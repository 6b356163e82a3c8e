"""The Arm Top-down Tool's merge step (event_scheduler.py) on hand-worked cases and on the Neoverse
telemetry specifications (reference: "with 6 counters Neoverse N1 needs 9 perf groups, V2 13")."""

from __future__ import annotations

import pytest

from mpx.errors import ConfigError
from mpx.problem import Problem
from mpx.schedulers.arm_topdown import ArmTopdownScheduler, make_chunks, optimize_event_groups, tool_metric_order


def test_duplicates_and_contained_tuples_are_dropped():
    units = [("a", "b"), ("a", "b"), ("a",), ("c", "d", "e")]
    # (a,b) duplicate dropped, (a,) contained in (a,b) dropped; (a,b)+(c,d,e) = 5 > 4: two groups
    assert optimize_event_groups(units, 4) == [("a", "b"), ("c", "d", "e")]


def test_first_fit_absorbs_every_later_tuple_that_fits():
    units = [("a", "b"), ("c", "d", "e"), ("f",), ("g", "h")]
    # (a,b) absorbs... (c,d,e): 5 > 4 no; (f): 3 yes; (g,h): 5 no -> (a,b,f)
    # (c,d,e): (g,h) -> 5 no -> alone; (g,h) alone
    assert optimize_event_groups(units, 4) == [("a", "b", "f"), ("c", "d", "e"), ("g", "h")]

def test_the_merge_depends_on_the_order():
    # (x) absorbs (a,b,c) and (y) absorbs (d,e,f): 2 groups; listed (x),(y),... : (x,y) takes neither
    # (5 > 4): 3 groups
    assert optimize_event_groups([("x",), ("a", "b", "c"), ("y",), ("d", "e", "f")], 4) == [
        ("a", "b", "c", "x"), ("d", "e", "f", "y")]
    assert optimize_event_groups([("x",), ("y",), ("a", "b", "c"), ("d", "e", "f")], 4) == [
        ("x", "y"), ("a", "b", "c"), ("d", "e", "f")]


def test_chunks_pack_consecutive_groups_and_refuse_big_ones():
    assert make_chunks([("a", "b"), ("c",), ("d", "e")], 3) == [[("a", "b"), ("c",)], [("d", "e")]]
    with pytest.raises(ConfigError, match="too many events"):
        make_chunks([("a", "b", "c", "d")], 3)


def _problem():
    metrics = [("m1", ["cycles", "a", "b"]), ("m2", ["a", "b"]), ("m3", ["c", "d"]), ("m4", ["cycles", "e"])]
    return Problem(["cycles", "a", "b", "c", "d", "e"], "neoverse-n1", metrics=metrics)


def test_cycles_counts_against_max_events_as_in_the_tool():
    p = _problem()
    a = ArmTopdownScheduler(max_events=3, multiplex=False, order="listed")
    s = a.schedule(p)
    # units: (a,b,cycles) (a,b)->contained (c,d) (cycles,e); merges: (a,b,cycles)+(c,d) = 5 > 3,
    # +(cycles,e) = 4 > 3; (c,d)+(cycles,e) = 4 > 3 -> three groups, one per quantum
    assert [set(g) for g in a.merged_groups_] == [{"a", "b", "cycles"}, {"c", "d"}, {"cycles", "e"}]
    assert s.period == 3
    a = ArmTopdownScheduler(max_events=3, count_free=False, order="listed")  # cycles is on its own counter
    a.schedule(p)
    assert [set(g) for g in a.merged_groups_] == [{"a", "b", "e"}, {"c", "d"}]


def test_multiplex_hands_the_groups_to_perf():
    p = _problem()
    a = ArmTopdownScheduler(max_events=3, multiplex=True)
    s = a.schedule(p)
    run = s.running(6)
    # perf: 6 counters hold every merged group at once (cycles on the cycle counter)
    assert run.all()


def test_group_mode_refuses_groups_larger_than_the_counters():
    p = Problem(["a", "b", "c"], "generic-2", groups=[("a", "b", "c")])
    with pytest.raises(ConfigError, match="GroupScheduleError"):
        ArmTopdownScheduler(collect_by="group").schedule(p)


def test_a_metric_that_never_fits_is_split():
    p = Problem(["a", "b", "c"], "generic-2", metrics=[("m", ["a", "b", "c"])])
    s = ArmTopdownScheduler(multiplex=False).schedule(p)
    assert any("split" in n for n in s.notes)
    assert s.running(2).sum(axis=1).max() <= 2


# -- the Neoverse specifications -------------------------------------------------------------------------

def _tool_groups(path, hash_seed: int) -> int:
    return len(optimize_event_groups(tool_metric_order(path, hash_seed), 6))


def _spec_problem(shared, name, pmu):
    from mpx.metrics import load_catalog
    from mpx.problem import Problem

    path = shared("data", "metrics", "arm-telemetry", name)
    return path, Problem.from_catalog(load_catalog(path), pmu)


@pytest.mark.parametrize("name,pmu,listed,tool_seed1,tool_seed2", [
    ("neoverse-n1.json", "neoverse-n1", 8, 9, 8),
    ("neoverse-v2.json", "neoverse-v2", 12, 13, 14),
])
def test_neoverse_group_counts_depend_on_the_tools_set_order(shared, name, pmu, listed, tool_seed1, tool_seed2):
    path, p = _spec_problem(shared, name, pmu)
    a = ArmTopdownScheduler(order="listed", multiplex=False)  # max_events = 6 counters, CPU_CYCLES counted
    s = a.schedule(p)
    assert len(a.merged_groups_) == listed and s.period == listed
    assert all(len(g) <= 6 for g in a.merged_groups_)
    # the reference's 9 (N1) and 13 (V2) are what the tool gives under PYTHONHASHSEED=1; seed 2 differs
    assert _tool_groups(path, 1) == tool_seed1
    assert _tool_groups(path, 2) == tool_seed2


def test_seeded_orders_cover_the_reference_numbers(shared):
    _, n1 = _spec_problem(shared, "neoverse-n1.json", "neoverse-n1")
    counts = {len(ArmTopdownScheduler(seed=k).schedule(n1).groups) for k in range(40)}  # perf keeps the groups
    assert 9 in counts and counts <= {7, 8, 9, 10}


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(units=st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=4, unique=True), max_size=8),
       k=st.integers(1, 6))
def test_merge_covers_every_tuple_within_the_limit(units, k):
    units = [tuple(sorted(u)) for u in units]
    merged = optimize_event_groups(units, k)
    for u in units:  # every tuple measured together somewhere
        assert any(set(u) <= set(m) for m in merged)
    for m in merged:  # a merged group exceeds the limit only if it is one oversized input
        assert len(m) <= k or m in units
    assert len(merged) <= len(set(units))


# -- issue 15, item 4: the default is what a user of the tool typically gets -----------------------------


@pytest.mark.parametrize("name,pmu,key", [("neoverse-n1.json", "neoverse-n1", "n1"),
                                          ("neoverse-v1.json", "neoverse-v2", "v1"),
                                          ("neoverse-v2.json", "neoverse-v2", "v2")])
def test_default_group_count_is_the_tools_modal_count(shared, name, pmu, key):
    """The tool merges set(metrics) (its order follows PYTHONHASHSEED); over 200 hash seeds it builds N1
    8, V1 10, V2 13 groups most often (../shared/peers/reference-outputs/arm-topdown-groups-by-hashseed.json).
    The default (order='typical') gives that count, and the spread is kept and noted."""
    import json

    ref = json.loads(shared("peers", "reference-outputs", "arm-topdown-groups-by-hashseed.json").read_text())
    counts = {int(k): v for k, v in ref["counts"][key].items()}
    modal = max(counts, key=lambda n: (counts[n], -n))
    _, p = _spec_problem(shared, name, pmu)
    a = ArmTopdownScheduler()
    s = a.schedule(p)
    assert len(a.merged_groups_) == modal
    assert sum(a.group_count_spread_.values()) == 200 and max(a.group_count_spread_, key=a.group_count_spread_.get) == modal
    assert "typical order" in s.notes[0] and f"{modal}x" in s.notes[0]


def test_the_tool_multiplexes_by_default():
    """topdown_tool/cpu_probe/cpu_factory.py:301: multiplex=not args.cpu_no_multiplex, so the command
    line multiplexes unless --cpu-no-multiplex: the merged groups go to one perf stat (perf rotates)."""
    p = Problem(["a", "b", "c", "d"], "generic-4", metrics=[("m1", ["a", "b"]), ("m2", ["c", "d"])])
    a = ArmTopdownScheduler(max_events=2)
    assert a.multiplex is True
    assert a.schedule(p).running(2).all()  # perf opens both 2-event groups at once on 4 counters
    runs = ArmTopdownScheduler(max_events=2, multiplex=False).schedule(p)  # one chunk of <= 2 events per run
    assert runs.period == 2 and runs.running(2).sum(axis=1).tolist() == [2, 2]
