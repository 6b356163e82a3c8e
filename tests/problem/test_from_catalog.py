"""`Problem.from_catalog` (a metric catalog measured on a PMU) and `Problem.relations`."""

from __future__ import annotations

import pytest

from mpx.errors import ConfigError
from mpx.metrics import Relation, builtin, load_catalog
from mpx.problem import Problem

# -- Problem.from_catalog -----------------------------------------------------------------------------


def test_builtin_yitian_events_go_to_the_first_instance():
    p = Problem.from_catalog(builtin("yitian710"), "yitian710-drw")
    assert p.meta["renamed"]["hif_rd"] == "ali_drw_21000/hif_rd/"
    assert "ali_drw_21000/cycle/" in p.free  # the DDRC cycle counter is the unit's fixed counter
    assert all(p.countable(e) for e in p.events)
    assert p.meta["groups_from"] == "perf stat -M" and p.meta["catalog"] == "yitian710"


def test_likwid_catalog_frees_what_is_not_a_core_counter(shared):
    p = Problem.from_catalog(load_catalog(shared("data", "metrics", "likwid", "ICL")), "icelake")
    why = p.meta["free_events"]
    assert "fixed" in why["TOPDOWN_SLOTS"] and "energy" in why["PWR_PKG_ENERGY"]
    assert "topdown" in why["RETIRING"]
    assert set(why) <= p.free
    assert p.meta["groups_from"] == "eventset" and len(p.groups) == 18


def test_arm_metrics_follow_the_methodology(shared):
    cat = load_catalog(shared("data", "metrics", "arm-telemetry", "neoverse-n1.json"))
    p = Problem.from_catalog(cat, "neoverse-n1")
    first = sorted(cat.groups["Cycle_Accounting"].metrics)
    assert [m.name for m in p.metrics[:len(first)]] == first


def test_hperf_catalog_keeps_its_groups_and_platform(shared):
    p = Problem.from_catalog(load_catalog(shared("data", "metrics", "hperf", "intel_cascadelake.json")), "skylake")
    assert p.meta["groups_from"] == "event_group" and p.meta["platform"]["available_GP"] == 4
    assert any(g.pinned for g in p.groups)


def test_groups_and_metrics_choices():
    cat = builtin("tma")
    p = Problem.from_catalog(cat, "generic-4", groups="metrics", metrics=["tma_frontend_bound"])
    assert [m.name for m in p.metrics] == ["tma_frontend_bound"]
    assert set(p.events) == set(cat.metrics["tma_frontend_bound"].events)
    with pytest.raises(ConfigError, match="no eventset groups"):
        Problem.from_catalog(cat, "generic-4", groups="eventset")
    with pytest.raises(ConfigError, match="groups must be"):
        Problem.from_catalog(cat, "generic-4", groups="nope")
    with pytest.raises(KeyError, match="no_such_metric"):
        Problem.from_catalog(cat, "generic-4", metrics=["no_such_metric"])


def test_catalog_relations_inside_the_problem_are_kept():
    cat = builtin("tma")
    p = Problem.from_catalog(cat, "generic-4")
    assert p.relations and "relations" not in p.meta
    inside = [tuple(sorted(r.events)) for r in cat.relations if r.events <= set(p.events)]
    assert list(p.relations) == inside and len(inside) < len(cat.relations)  # one names an unmeasured event


# -- Problem.relations ----------------------------------------------------------------------------------


def test_relations_field_accepts_lists_and_relation_objects():
    r = Relation.from_coeffs("sum", {"a": 1.0, "b": 1.0, "c": -1.0})
    p = Problem(["a", "b", "c"], "generic-2", relations=[["b", "a"], r])
    assert p.relations == (("b", "a"), ("a", "b", "c"))
    assert p.replace(groups=[("a", "b")]).relations == p.relations
    assert Problem(["a"], "generic-2").relations == ()


@pytest.mark.parametrize("bad, match", [
    ([["a", "zzz"]], "not in the problem"),
    (["ab"], "event lists"),
    ("ab", "event lists"),
    ([[]], "at least one event"),
])
def test_bad_relations_are_config_errors(bad, match):
    with pytest.raises(ConfigError, match=match):
        Problem(["a", "b"], "generic-2", relations=bad)
