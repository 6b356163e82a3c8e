"""Event namespaces and the warning of a Problem whose events are another machine's (issue 17)."""

from __future__ import annotations

import warnings

import pytest

from mpx.errors import MpxWarning
from mpx.metrics.catalog import builtin
from mpx.pmu import preset
from mpx.pmu.namespace import event_namespace, namespace_of
from mpx.problem import Problem


@pytest.mark.parametrize("name, space", [
    ("INST_RETIRED.ANY", "intel"),              # perf JSON, tools/perf/pmu-events/arch/x86/skylake/pipeline.json
    ("CPU_CLK_UNHALTED.THREAD_P:k", "intel"),   # with a perf modifier
    ("CPU_CLK_UNHALTED_CORE", "intel"),         # LIKWID's FIXC1
    ("BR_MISP_RETIRED_ALL_BRANCHES", "intel"),  # LIKWID spelling of an SDM architectural event
    ("CPU_CYCLES", "arm"), ("L1D_CACHE_REFILL", "arm"), ("ASE_SPEC", "arm"),
    ("system.cpu.numCycles", "gem5"),
    ("Ir", "callgrind"), ("D1mr", "callgrind"),
    ("cycles", None), ("instructions", None), ("r00c4", None), ("hif_rd", None), ("a", None), ("ir", None),
])
def test_event_namespace(name, space):
    assert event_namespace(name) == space


def test_namespace_of_is_the_majority_of_recognised_names():
    assert namespace_of(["cycles", "INST_RETIRED.ANY", "CPU_CYCLES", "L1D.REPLACEMENT"]) == (
        "intel", ["INST_RETIRED.ANY", "L1D.REPLACEMENT"])
    assert namespace_of(["cycles", "r01"]) == (None, [])
    assert namespace_of(preset("neoverse-n1").declared_events())[0] == "arm"
    assert namespace_of(preset("skylake").declared_events())[0] == "intel"
    assert preset("generic-4").declared_events() == ()


@pytest.mark.parametrize("events, pmu", [
    (["INST_RETIRED.ANY", "L1D.REPLACEMENT", "BR_MISP_RETIRED.ALL_BRANCHES"], "neoverse-n1"),  # Intel on Arm
    (["Ir", "Dr", "D1mr"], "skylake"),                                                       # callgrind on Intel
    (["CPU_CYCLES", "INST_RETIRED", "L1D_CACHE_REFILL"], "icelake"),                          # Arm on Intel
])
def test_events_of_another_machine_warn(events, pmu):
    with pytest.warns(MpxWarning, match=f"but PMU {pmu!r} counts (intel|arm) events"):
        Problem(events, pmu)


@pytest.mark.parametrize("events, pmu", [
    (["INST_RETIRED.ANY", "L1D.REPLACEMENT"], "skylake"),
    (["CPU_CYCLES", "L1D_CACHE_REFILL"], "neoverse-n1"),
    (["Ir", "Dr"], "generic-4"),                   # generic counters: the PMU names no events
    (["cycles", "instructions", "r00c4"], "neoverse-n1"),  # names of no namespace
])
def test_events_of_the_pmus_machine_do_not_warn(events, pmu):
    with warnings.catch_warnings():
        warnings.simplefilter("error", MpxWarning)
        Problem(events, pmu)


def test_a_catalog_of_another_machine_warns():
    with pytest.warns(MpxWarning, match=r"callgrind events \(e.g. Bcm, Bim, D1mr\) but PMU 'skylake' counts intel events"):
        Problem.from_catalog(builtin("callgrind"), "skylake")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MpxWarning)
        Problem.from_catalog(builtin("gem5"), "gem5-o3-g4")
