"""Smaller gaps between mpx and the tools (issue 15, item 7), each checked against the tool's source:
arm64's cpuid match, perf's runtime parameter '?', cycles and cycles:u as two events, exact matching vs
x86's greedy assignment, and an Intel catalog on an Arm PMU."""

from __future__ import annotations

import json
import warnings

import pytest
from tests.conftest import shared_path

from mpx.errors import MpxWarning
from mpx.metrics import expr as E
from mpx.metrics import load_catalog
from mpx.metrics.expr.ops import cpuid_matches
from mpx.metrics.formats import perfjson
from mpx.pmu import PMU
from mpx.problem import Problem
from mpx.problem.perf import parse_event_list
from mpx.schedulers.perf import PerfScheduler

# tools/perf/arch/arm64/tests/cpuid-match.c: (mapfile id, running cpuid, matches?)
ARM64_CPUID_CASES = [
    ("0x410fd0c0", "0x00000000410fd0c0", True),   # midr with no leading zeros matches
    ("0x410fd0c0", "0x00000000410FD0C0", True),   # upper case matches
    ("0x00000000410fd480", "0x00000000410fd480", True),   # r0p0 = r0p0
    ("0x00000000410fd480", "0x00000000410fd481", True),   # r0p1 > r0p0
    ("0x00000000410fd480", "0x00000000411fd480", True),   # r1p0 > r0p0
    ("0x00000000410fd481", "0x00000000410fd480", False),  # r0p0 < r0p1
    ("0x00000000411fd480", "0x00000000410fd480", False),  # r0p0 < r1p0
    ("0x00000000410fd4c0", "0x00000000430f0af0", False),  # different CPU
]


@pytest.mark.parametrize("map_id, cpuid, match", ARM64_CPUID_CASES)
def test_strcmp_cpuid_str_is_arm64s_same_part_same_or_newer_revision(map_id, cpuid, match):
    """tools/perf/arch/arm64/util/header.c strcmp_cpuid_str; expr.c expr__strcmp_cpuid_str returns its
    negation: 1 when the running CPU is the same part at the same or a newer revision."""
    assert cpuid_matches(map_id, cpuid) is match
    assert E.evaluate(f"strcmp_cpuid_str({map_id})", {}, {"cpuid": cpuid}) == float(match)


def test_strcmp_cpuid_str_elsewhere_is_a_full_regex_match():
    """The weak strcmp_cpuid_str of tools/perf/util/pmu.c: the map id is a regex that must match the
    whole cpuid (x86 ids like GenuineIntel-6-55-[01234])."""
    assert cpuid_matches("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4")
    assert not cpuid_matches("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-7")
    assert not cpuid_matches("GenuineIntel-6-55", "GenuineIntel-6-55-4")  # the entire string must match


def test_runtime_parameter_question_mark_is_substituted(tmp_path):
    """expr.l normalize() writes the runtime value in place of '?'; metricgroup.c add_metric makes one
    instance per arch_get_runtimeparam (1 by default, runtime 0)."""
    p = tmp_path / "m.json"
    p.write_text(json.dumps([{"MetricName": "cyc", "MetricExpr": "hv_24x7@PM_PB_CYC\\,chip\\=?@ / 1e6"}]))
    cat = perfjson.load(p)
    assert cat["cyc"].events == {"hv_24x7/PM_PB_CYC,chip=0/"}
    [prob] = cat.problems
    assert prob.kind == "runtime-param" and prob.action == "kept"


def test_cycles_and_cycles_u_are_two_events():
    """perf stat -e cycles,cycles:u opens two events (parse-events: a modifier makes a distinct
    perf_event_attr, exclude_kernel), each on its own counter; a group's modifiers go to every member."""
    groups, notes = parse_event_list("cycles,cycles:u,{a,b}:k")
    assert [g.events for g in groups] == [("cycles",), ("cycles:u",), ("a:k", "b:k")]
    p = Problem.from_perf_events("cycles,cycles:u", "generic-4")
    assert p.events == ("cycles", "cycles:u")


def test_exact_matching_admits_what_x86_greedy_refuses():
    """arch/x86/events/core.c perf_assign_events: by increasing weight, first free counter of the mask.
    A on {gp0} (weight 1) takes gp0, then B on {gp1,gp2} takes gp1 (listed first at weight 2), and C on
    {gp0,gp1} finds both taken: x86 refuses the group at open time, although A-gp0, C-gp1, B-gp2 fits.
    mpx's default ('matching') admits it; assignment='perf' refuses it as the kernel does."""
    pmu = PMU.from_dict({"name": "masked", "units": {"cpu": {"generic": 3, "fixed": {},
                         "masks": {"A": ["gp0"], "B": ["gp1", "gp2"], "C": ["gp0", "gp1"]}}}})
    assert pmu.fits(["A", "B", "C"]) and not pmu.fits(["A", "B", "C"], method="perf")
    p = Problem.from_perf_events("{A,B,C}", pmu)
    assert PerfScheduler().assignment == "matching"
    assert PerfScheduler().schedule(p).running(1).all()
    refused = PerfScheduler(assignment="perf").schedule(p)
    assert not refused.running(1)[0, :].all()


def test_intel_catalog_on_an_arm_pmu_is_warned():
    """An Intel perf JSON catalog (hybrid: events named cpu_core/X.Y/) on neoverse-n1: generic counters
    take any name, so only the namespace check says so (mpx.pmu.namespace)."""
    cat = load_catalog(shared_path("peers", "intel-perfmon", "alderlake", "adl-metrics.json"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Problem.from_catalog(cat, "neoverse-n1")
    assert any(issubclass(w.category, MpxWarning) and "intel events" in str(w.message) for w in caught)
