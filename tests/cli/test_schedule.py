"""``mpx schedule``: arguments, table and JSON output (the library behind it: `Problem.from_catalog` in
``tests/problem/test_from_catalog.py``, `score_schedulers` in ``tests/scoring/test_schedules.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mpx import schedulers
from mpx.cli import main
from mpx.cli.common import load_catalog_arg, pmu_arg
from mpx.errors import ConfigError
from mpx.problem import Problem


def _json(capsys, *argv):
    assert main(["schedule", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_has_one_object_per_registered_scheduler(capsys):
    rows = _json(capsys, "--pmu", "generic-4", "--metrics", "tma")
    by = {r["scheduler"]: r for r in rows}
    assert set(by) == set(schedulers.REGISTRY.installed())  # the default: every installed scheduler that loads
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
    fewer = pmu_arg("skylake", 2)  # PMU.with_generic_counters (tests/pmu/test_pmu.py)
    assert len(fewer.available("cpu", "generic")) == 2 and fewer == pmu_arg("skylake").with_generic_counters(2)
    assert pmu_arg("skylake", 4) == pmu_arg("skylake")
    with pytest.raises(ConfigError, match=r"^--counters 1: event 'INST_RETIRED.PREC_DIST'"):
        pmu_arg("skylake", 1)  # its only counter is gp1
    with pytest.raises(ConfigError, match="--counters must be a positive integer"):
        pmu_arg("skylake", 0)


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

    p = Problem.from_catalog(load_catalog_arg("tma"), "generic-4")
    rng = np.random.default_rng(0)
    t = Trace(p.events, rng.poisson(100.0, (50, p.n_events)), np.arange(51.0), "intervals", {"source": "handmade"})
    path = tmp_path / "t.npz"
    t.save(path)
    row = _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "tintin", "--trace", str(path))[0]
    assert row["trace"] == "handmade" and row["n_quanta"] == 50


def test_table_columns_are_percentages_with_a_legend(capsys):
    # issue 17: util / mean_sr / min_sr were unexplained fractions here but percentages in `mpx report`
    row = _json(capsys, "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "perf")[0]
    assert main(["schedule", "--pmu", "generic-4", "--metrics", "tma", "--scheduler", "perf"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split("  ")[0] == "scheduler" and "utilization %" in lines[1] and "min sampling %" in lines[1]
    cells = lines[2].split()
    assert cells[:3] == ["perf", "static", str(row["groups"])]
    assert [float(c) for c in cells[3:7]] == [round(100 * row[k], 1) for k in (
        "utilization", "mean_sampling_ratio", "min_sampling_ratio", "mean_coschedule_ratio")]
    legend = " ".join(" ".join(lines[3:]).split())
    assert "utilization % = programmable counter-quanta in use" in legend and "co-scheduled % = quanta" in legend
