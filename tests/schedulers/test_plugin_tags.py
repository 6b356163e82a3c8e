"""Capability tags, `Scheduler.applicable`, hperf's budget from its own catalog and perf's public
rotation: what callers used to sniff or hard-code is declared by the plugin (tags agreeing with the
attributes is a conformance check: ``tests/conformance/test_all.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx import scalers, schedulers
from mpx.problem import EventGroup, Problem
from mpx.schedulers.hperf import catalog_available_gp
from mpx.schedulers.perf import perf_rotation


def test_scaler_tags_follow_hyper_parameters():
    assert scalers.get("linear").tags().causal and not scalers.get("linear", fill="interpolate").tags().causal
    assert scalers.get("fusion").tags().learned and scalers.get("fusion").tags().needs_relations
    assert scalers.get("papi_sw").tags().view == "quantum"


def test_registry_tags_are_the_default_instances():
    assert scalers.REGISTRY.tags("fusion") == scalers.get("fusion").tags()
    assert schedulers.REGISTRY.tags("likwid").needs_event_sets and not schedulers.REGISTRY.tags("perf").online
    assert schedulers.REGISTRY.tags("hypergraph").jit


def test_likwid_is_applicable_only_to_event_sets():
    p = Problem.from_perf_events("{a,b},{c}", "generic-2")
    why = schedulers.get("likwid").applicable(p)
    assert why is not None and "LIKWID event sets" in why
    assert schedulers.get("likwid").applicable(p.replace(meta={"groups_from": "eventset"})) is None
    assert schedulers.get("perf").applicable(p) is None


def test_hperf_takes_its_catalogs_available_gp():
    groups = [EventGroup(("a", "b")), EventGroup(("c",)), EventGroup(("d",))]
    p = Problem(("a", "b", "c", "d"), "generic-4", groups=groups, meta={"platform": {"available_GP": 2}})
    assert catalog_available_gp(p) == 2
    h = schedulers.get("hperf")
    h.schedule(p)
    assert [len(g.events) for g in h.merged_groups_] == [2, 2]  # budget 2, not the PMU's 4
    assert catalog_available_gp(p.replace(pmu=p.pmu.with_generic_counters(3))) is None  # a what-if budget
    assert catalog_available_gp(p.replace(meta={})) is None
    h4 = schedulers.get("hperf", available_gp=4)
    h4.schedule(p)
    assert len(h4.merged_groups_) == 1


def test_perf_rotation_is_the_perf_schedulers_schedule():
    p = Problem.from_perf_events("a,b,c,{d,e},f", "generic-2")
    r = perf_rotation(p)
    s = schedulers.get("perf").schedule(p)
    assert np.array_equal(r.running(12), s.running(12))
