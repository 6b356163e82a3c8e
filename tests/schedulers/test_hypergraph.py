"""The ``hypergraph`` scheduler: registered, conforms, rotates its groups one per quantum, never worse than
hperf on the real catalogs it was compared on."""

from __future__ import annotations

import pytest

from mpx import schedulers
from mpx.errors import ConfigError
from mpx.pmu import PMU
from mpx.problem import EventGroup, Problem
from mpx.scoring.schedules import score_schedulers
from mpx.conformance.schedulers import check_scheduler, conformance_problem
from mpx.schedulers.hypergraph import HypergraphScheduler


def _pmu(generic: int) -> PMU:
    return PMU.from_dict({"name": "t", "default_unit": "cpu",
                          "units": {"cpu": {"generic": generic, "fixed": {"f0": ["cycles"]}}}}, source="<test>")


def test_registered_and_conforms():
    assert "hypergraph" in schedulers.available()
    assert schedulers.get_class("hypergraph") is HypergraphScheduler
    check_scheduler(HypergraphScheduler())


def test_groups_rotate_one_per_quantum_and_free_events_always_run():
    metrics = [("m1", ["a", "b", "cycles"]), ("m2", ["c", "d"]), ("m3", ["e", "f"])]
    p = Problem(("a", "b", "c", "d", "e", "f", "cycles"), _pmu(2), metrics=metrics)
    s = HypergraphScheduler(replicate=False).schedule(p)
    assert s.n_configs == 3 and s.cycle.tolist() == [0, 1, 2] and s.prefix.size == 0
    run = s.running(6)
    assert run[:, p.index("cycles")].all()
    for m, evs in metrics:
        cols = [p.index(e) for e in evs]
        assert run[:, cols].all(axis=1).mean() == pytest.approx(1 / 3)
    assert (run.sum(axis=1) - 1 <= 2).all()  # never more than the 2 generic counters


def test_pinned_events_in_every_configuration():
    p = Problem(("p", "a", "b", "c"), _pmu(2), groups=[EventGroup(("p",), pinned=True)],
                metrics=[("m", ["a", "b"])])
    s = HypergraphScheduler().schedule(p)
    assert s.running(4)[:, p.index("p")].all()


def test_multi_unit_problem_and_errors():
    s = HypergraphScheduler().schedule(conformance_problem(impossible=True))
    assert {"never", "nounit/ev/"} <= set(s.errors)


def test_bad_parameters_are_config_errors():
    p = conformance_problem()
    for bad in ({"seed": -1}, {"k": 0}, {"replicate": "yes"}, {"counters": 0}, {"max_extra_blocks": -1}):
        with pytest.raises(ConfigError):
            HypergraphScheduler(**bad).schedule(p)


@pytest.mark.parametrize("catalog, pmu", [
    ("hperf/arm.json", "neoverse-n1"), ("hperf/intel_icelake.json", "icelake"),
    ("arm-telemetry/neoverse-n1.json", "neoverse-n1"), ("likwid/arm8_n1", "neoverse-n1"),
])
def test_at_least_hperf_on_real_catalogs(shared, catalog, pmu):
    from mpx.metrics import load_catalog
    from mpx.pmu import preset

    cat = load_catalog(str(shared("data", "metrics", *catalog.split("/"))))
    problem = Problem.from_catalog(cat, preset(pmu))
    gp = cat.platform.get("available_GP")
    rows = {r["scheduler"]: r for r in score_schedulers(
        problem, ["hypergraph", "hperf"], params={"hperf": {"available_gp": gp}} if isinstance(gp, int) else {})}
    h, p = rows["hypergraph"], rows["hperf"]
    assert not h["skipped"] and not p["skipped"]
    for key in ("utilization", "mean_sampling_ratio", "mean_coschedule_ratio"):
        assert h[key] >= p[key] - 1e-12, key
    assert not h["errors"]
