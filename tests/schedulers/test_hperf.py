"""hperf's greedy merge (event_group.py) on hand-worked cases and on hperf's own configurations."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.problem import EventGroup, Problem
from mpx.scoring.schedules import schedule_scores
from mpx.schedulers.hperf import HperfScheduler, hperf_merge


def sets(groups):
    return [set(g) for g in groups]


# -- the merge, step by step --------------------------------------------------------------------------


def test_smallest_joins_its_best_partner_and_goes_to_the_front():
    # G_i = [d] (smallest); unions: |abc+d| = 4, |ef+d| = 3 -> G_j = [e,f]; [e,f,d] inserted at the front.
    # Next: G_i = [e,f,d] (first of size 3), G_j = [a,b,c]: 6 > 4 -> both back, stop.
    merged, src = hperf_merge([["a", "b", "c"], ["d"], ["e", "f"]], 4)
    assert merged == [["e", "f", "d"], ["a", "b", "c"]]
    assert src == [(1, 2), (0,)]


def test_stops_at_the_first_failed_merge_although_another_pair_fits():
    # G_i = [a,b,c] (first of the size-3 groups); best union with it is 6 > 4 -> stop, although
    # [d,e,f] + [d,e,g] = 4 events would fit: hperf never tries another pair.
    merged, _ = hperf_merge([["a", "b", "c"], ["d", "e", "f"], ["d", "e", "g"]], 4)
    assert sets(merged) == [{"a", "b", "c"}, {"d", "e", "f"}, {"d", "e", "g"}]
    assert merged == [["a", "b", "c"], ["d", "e", "f"], ["d", "e", "g"]]  # put back where they were


def test_first_minimum_breaks_ties():
    # three singletons, 2 counters: G_i = [x] (first), G_j = [y] (first union of size 2) -> [y,x];
    # then G_i = [z], G_j = [y,x]: 3 > 2 -> stop
    merged, _ = hperf_merge([["x"], ["y"], ["z"]], 2)
    assert merged == [["y", "x"], ["z"]]


def test_overlapping_groups_merge_as_sets():
    merged, _ = hperf_merge([["a", "b"], ["b", "c"], ["c", "a"]], 3)
    assert sets(merged) == [{"a", "b", "c"}]


def test_empty_groups_are_dropped():
    merged, src = hperf_merge([[], ["a"], []], 4)
    assert merged == [["a"]] and src == [(1,)]


# -- the scheduler --------------------------------------------------------------------------------------


def test_pinned_and_free_events_are_stripped_before_merging():
    # instructions/cycles are on fixed counters (free), p is pinned: hperf merges only a, b, c, d
    p = Problem(
        ["p", "instructions", "cycles", "a", "b", "c", "d"], "skylake",
        groups=[EventGroup(("p",), pinned=True), EventGroup(("instructions", "a", "b")),
                EventGroup(("cycles", "p", "c")), EventGroup(("d",))],
    )
    h = HperfScheduler()
    s = h.schedule(p)
    # available_GP = 4 generic - 1 held by the pinned p = 3; G_i = [d], G_j = [c] -> [c,d];
    # then G_i = [a,b] and [c,d]: 4 > 3 -> stop
    assert [set(g.events) for g in h.merged_groups_] == [{"c", "d"}, {"a", "b"}]
    run = s.running(4)
    pi = p.index("p")
    assert run[:, pi].all()  # pinned: every quantum
    sr = schedule_scores(s, p).sampling_ratio
    for e in "abcd":
        assert sr[p.index(e)] == pytest.approx(0.5)


def test_available_gp_parameter_and_validation():
    p = Problem(["a", "b", "c", "d"], "generic-4", groups=[("a", "b"), ("c", "d")])
    h = HperfScheduler(available_gp=4)
    h.schedule(p)
    assert len(h.merged_groups_) == 1
    h = HperfScheduler(available_gp=3)
    h.schedule(p)
    assert len(h.merged_groups_) == 2
    with pytest.raises(ConfigError, match="available_gp"):
        HperfScheduler(available_gp=0).schedule(p)


def test_oversize_group_is_kept_and_reported():
    p = Problem(["a", "b", "c", "d", "e"], "generic-8", groups=[("a", "b", "c", "d", "e")])
    s = HperfScheduler(available_gp=4).schedule(p)
    assert any("5 events > available_GP = 4" in n for n in s.notes)
    assert s.running(1)[0].all()  # the PMU has room: perf runs it


# -- hperf's own configurations (shared/data/metrics/hperf) ----------------------------------------------


def _hperf(shared, name, pmu):
    from mpx.metrics import load_catalog
    from mpx.problem import Problem

    cat = load_catalog(shared("data", "metrics", "hperf", name))
    p = Problem.from_catalog(cat, pmu)
    h = HperfScheduler(available_gp=cat.platform["available_GP"])
    return p, h, h.schedule(p)


def _grouped_ratios(p, h, s):
    sr = schedule_scores(s, p).sampling_ratio
    return {e: sr[p.index(e)] for g in h.merged_groups_ for e in g.events}


def test_cascadelake_two_groups_half_the_time(shared):
    p, h, s = _hperf(shared, "intel_cascadelake.json", "skylake")
    assert [len(g.events) for g in h.merged_groups_] == [3, 2]  # 3 + 2 > available_GP = 4
    assert set(_grouped_ratios(p, h, s).values()) == {0.5}
    assert schedule_scores(s, p).utilization == pytest.approx((3 + 2) / (2 * 4))


def test_icelake_two_groups_and_the_oversize_one_is_reported(shared):
    p, h, s = _hperf(shared, "intel_icelake.json", "icelake")
    assert sorted(len(g.events) for g in h.merged_groups_) == [4, 6]
    assert any("6 events > available_GP = 4" in n for n in s.notes)
    # on the icelake preset (8 generic counters) perf can run the 6-event group, alternating with the other
    assert set(_grouped_ratios(p, h, s).values()) == {0.5}


def test_arm_six_groups_first_merge_fails(shared):
    p, h, s = _hperf(shared, "arm.json", "neoverse-n1")
    assert [len(g.events) for g in h.merged_groups_] == [4, 5, 5, 5, 4, 3]  # unchanged: 3 + 4 > 6
    assert list(_grouped_ratios(p, h, s).values()) == pytest.approx([1 / 6] * 26)
    # instructions is pinned (no fixed counter for it on Neoverse): one counter in every quantum
    assert s.running(6)[:, p.index("instructions")].all()


def test_kunpeng_one_group_always_on(shared):
    p, h, s = _hperf(shared, "arm_kunpeng.json", "generic-12")
    assert len(h.merged_groups_) == 1
    assert np.all(s.running(3))


# -- properties ---------------------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_groups = st.lists(st.lists(st.sampled_from("abcdefghij"), min_size=0, max_size=5, unique=True), max_size=7)


@settings(max_examples=150, deadline=None)
@given(groups=_groups, gp=st.integers(1, 8))
def test_merge_keeps_every_event_and_only_merges_within_the_budget(groups, gp):
    merged, src = hperf_merge(groups, gp)
    assert set().union(*map(set, merged)) == set().union(*map(set, groups))
    assert len(merged) <= max(1, len([g for g in groups if g]))
    for m, s in zip(merged, src):
        assert set(m) == set().union(*(set(groups[i]) for i in s))
        if len(s) > 1:
            assert len(m) <= gp  # a union is only made when it fits available_GP
    assert sorted(i for s in src for i in s) == [i for i, g in enumerate(groups) if g]


def test_the_catalog_budget_is_hperf_s_own_default_unless_the_counters_were_changed():
    from mpx.metrics import Catalog, Metric
    from mpx.pmu import preset
    from mpx.problem import Problem
    from mpx.schedulers.hperf import HperfScheduler, catalog_available_gp

    cat = Catalog([Metric.from_expr("m", "a + b")], name="hp", platform={"available_GP": 3})
    as_declared = Problem.from_catalog(cat, preset("generic-4"))
    resized = Problem.from_catalog(cat, preset("generic-4").with_generic_counters(6))
    assert preset("generic-4").with_generic_counters(6).resized_from is preset("generic-4")
    assert catalog_available_gp(as_declared) == 3 and catalog_available_gp(resized) is None
    assert HperfScheduler().params_for(as_declared)["available_gp"] == 3  # what a result row records
    assert HperfScheduler().params_for(resized)["available_gp"] is None
    assert HperfScheduler(available_gp=2).params_for(as_declared)["available_gp"] == 2  # given wins


# -- issue 15, item 5: hperf's figures by hperf's definitions, beside mpx's -------------------------------


def test_icelake_utilization_against_available_gp(shared):
    """hperf (TACO 2024) measures utilization against its own budget available_GP: icelake's merged groups
    of 6 and 4 events on a budget of 4 are (6/4 + 4/4) / 2 = 1.25; mpx's, against the PMU's 8 counters,
    is (6 + 4) / (2 * 8) = 0.625."""
    p, h, s = _hperf(shared, "intel_icelake.json", "icelake")
    tool = h.tool_figures(p)
    assert tool["available_GP"] == 4 and tool["utilization"] == pytest.approx(1.25)
    assert schedule_scores(s, p).utilization == pytest.approx(0.625)


def test_pinned_general_counter_events_count_for_mpx_not_for_hperf(shared):
    """On Arm, hperf pins instructions (event:D) and leaves it out of its groups and figures; it still
    holds a general counter in every quantum, which mpx's utilization counts: arm.json's 6 groups of
    4,5,5,5,4,3 events on available_GP = 6 are 26/36 for hperf and (26 + 6) / 36 for mpx (6 counters of
    neoverse-n1 in each of the 6 quanta). hperf's per-metric sampling ratio: a metric whose multiplexed
    events sit in one of the 6 groups is counted 1/6 of the time."""
    p, h, s = _hperf(shared, "arm.json", "neoverse-n1")
    tool = h.tool_figures(p)
    assert tool["utilization"] == pytest.approx(26 / 36)
    assert schedule_scores(s, p).utilization == pytest.approx((26 + 6) / 36)
    assert 0 < tool["sampling_ratio"] < 1


def test_hand_made_pinned_event_and_per_metric_ratio():
    p = Problem(["i", "a", "b", "c"], "generic-4", groups=[EventGroup(("i",), pinned=True), ("a", "b"), ("c",)],
                metrics=[("m_ab", ["a", "b"]), ("m_ac", ["a", "c"]), ("m_i", ["i"])])
    h = HperfScheduler(available_gp=2)
    s = h.schedule(p)  # budget 2: (c) + (a,b) = 3 > 2 -> two groups
    tool = h.tool_figures(p)
    assert tool["groups"] == 2 and tool["utilization"] == pytest.approx((2 + 1) / (2 * 2))
    # m_ab in one of 2 slices, m_ac never together, m_i only pinned events: always
    assert tool["sampling_ratio"] == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    # perf opens i, {a,b} and {c} at once on the 4 counters: mpx sees 4 of 4 in use, the pinned i included
    assert schedule_scores(s, p).utilization == pytest.approx(1.0)
