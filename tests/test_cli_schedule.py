"""``mpx schedule`` and the catalog → problem adapter behind it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mpx import schedulers
from mpx.cli import main
from mpx.cli.schedule import catalog_problem, load_catalog_arg, pmu_arg


def _json(capsys, *argv):
    assert main(["schedule", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_has_one_object_per_registered_scheduler(capsys):
    rows = _json(capsys, "--pmu", "generic-4", "--metrics", "tma")
    by = {r["scheduler"]: r for r in rows}
    assert set(by) == set(schedulers.available())
    for r in rows:
        for key in ("scheduler", "groups", "utilization", "mean_sampling_ratio", "mean_coschedule_ratio"):
            assert key in r
        if r["skipped"] is None:
            assert r["groups"] >= 1
            assert 0 < r["utilization"] <= 1 and 0 < r["mean_sampling_ratio"] <= 1
            assert 0 <= r["mean_coschedule_ratio"] <= 1
    assert "LIKWID event sets" in by["likwid"]["skipped"]
    assert by["tintin"]["kind"] == "online" and by["tintin"]["trace"].startswith("synthetic")
    # 11 events on 4 counters: block round robin needs ceil(11/4) = 3 configurations at least
    assert by["round_robin"]["groups"] >= 3
    assert by["optimal"]["utilization"] == pytest.approx(1.0)


def test_table_lists_rows_and_skips(capsys):
    assert main(["schedule", "--pmu", "generic-4", "--metrics", "callgrind", "--scheduler", "perf",
                 "--scheduler", "likwid"]) == 0
    out = capsys.readouterr().out
    assert "perf" in out.splitlines()[2] and "skipped likwid:" in out


def test_counters_and_quanta(capsys):
    two = {r["scheduler"]: r for r in _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler",
                                            "round_robin", "--counters", "2")}
    six = {r["scheduler"]: r for r in _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler",
                                            "round_robin", "--counters", "6")}
    assert two["round_robin"]["groups"] > six["round_robin"]["groups"]
    assert two["round_robin"]["mean_sampling_ratio"] < six["round_robin"]["mean_sampling_ratio"]
    rows = _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "perf", "--quanta", "7")
    assert rows[0]["n_quanta"] == 7


def test_errors_are_one_line(capsys):
    assert main(["schedule", "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "nope"]) == 1
    assert "unknown scheduler" in capsys.readouterr().err
    assert main(["schedule", "--pmu", "generic-4", "--metrics", "no-such-catalog"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpx schedule: error:") and "built-in catalog" in err
    assert main(["schedule", "--pmu", "nosuchpmu", "--metrics", "tma"]) == 1
    assert "unknown PMU preset" in capsys.readouterr().err


def test_pmu_counters_override():
    fewer = pmu_arg("skylake", 2)
    assert len(fewer.available("cpu", "generic")) == 2 and len(fewer.available("cpu", "fixed")) == 3
    assert [c.name for c in fewer.allowed("INST_RETIRED.TOTAL_CYCLES_PS")] == ["gp0"]  # mask 0,2,3 cut
    with pytest.raises(Exception, match="INST_RETIRED.PREC_DIST"):
        pmu_arg("skylake", 1)  # its only counter is gp1
    more = pmu_arg("skylake", 6)
    assert len(more.available("cpu", "generic")) == 6
    assert [c.name for c in more.allowed("INST_RETIRED.PREC_DIST")] == ["gp1"]  # masks kept


# -- the adapter ------------------------------------------------------------------------------------------


def test_builtin_yitian_events_go_to_the_first_instance():
    p = catalog_problem(load_catalog_arg("yitian710"), "yitian710-drw")
    assert p.meta["renamed"]["hif_rd"] == "ali_drw_21000/hif_rd/"
    assert "ali_drw_21000/cycle/" in p.free  # the DDRC cycle counter is the unit's fixed counter
    assert all(p.countable(e) for e in p.events)


def test_likwid_catalog_frees_what_is_not_a_core_counter(shared):
    cat = load_catalog_arg(str(shared("data", "metrics", "likwid", "ICL")))
    p = catalog_problem(cat, "icelake")
    why = p.meta["free_events"]
    assert "fixed" in why["TOPDOWN_SLOTS"] and "energy" in why["PWR_PKG_ENERGY"]
    assert "topdown" in why["RETIRING"]
    assert p.meta["groups_from"] == "eventset" and len(p.groups) == 18


def test_arm_metrics_follow_the_methodology(shared):
    cat = load_catalog_arg(str(shared("data", "metrics", "arm-telemetry", "neoverse-n1.json")))
    p = catalog_problem(cat, "neoverse-n1")
    first = sorted(cat.groups["Cycle_Accounting"].metrics)
    assert [m.name for m in p.metrics[:len(first)]] == first


def test_hperf_catalog_uses_its_available_gp(shared, capsys):
    path = str(shared("data", "metrics", "hperf", "intel_cascadelake.json"))
    assert main(["schedule", "--pmu", "skylake", "--metrics", path, "--scheduler", "hperf"]) == 0
    out = capsys.readouterr().out
    assert "available_GP = 4" in out
    row = _json(capsys, "--pmu", "skylake", "--metrics", path, "--scheduler", "hperf")[0]
    assert row["groups"] == 2 and row["mean_sampling_ratio"] == pytest.approx(0.5)


def test_likwid_runs_on_likwid_groups(shared, capsys):
    path = str(shared("data", "metrics", "likwid", "arm8_n1"))
    row = _json(capsys, "--pmu", "neoverse-n1", "--metrics", path, "--scheduler", "likwid")[0]
    assert row["skipped"] is None and row["groups"] == 8


def test_online_scheduler_on_a_given_trace(tmp_path, capsys):
    from mpx.trace import Trace

    p = catalog_problem(load_catalog_arg("tma"), "generic-4")
    rng = np.random.default_rng(0)
    t = Trace(p.events, rng.poisson(100.0, (50, p.n_events)), np.arange(51.0), "intervals", {"source": "handmade"})
    path = tmp_path / "t.npz"
    t.save(path)
    row = _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "tintin", "--trace", str(path))[0]
    assert row["trace"] == "handmade" and row["n_quanta"] == 50
