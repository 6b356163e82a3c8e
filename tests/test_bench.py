"""``mpx bench``: one run measures replay, scalers, grouping and partitioners; ratios and machine description
are consistent with the measured numbers. Tiny inputs (``--quick`` plus smaller sizes): seconds."""

from __future__ import annotations

import json
import math
import platform

import numpy as np
import pytest

from mpx.cli import main
from mpx.errors import ConfigError
from mpx.scalers.base import Scaler

TINY = ["bench", "--quick", "--intervals", "200", "--events", "20", "--cap", "4", "--scalers", "linear,dira,papi_sw"]


class _Refuses(Scaler):
    """A scaler that cannot handle any input (a `ConfigError` from estimate)."""

    name = "bench_test_refuses"

    def _estimate(self, observation):
        raise ConfigError("cannot handle this input (test)")


@pytest.fixture(scope="module")
def report():
    from mpx import scalers
    from mpx.bench import run_bench

    scalers.register("bench_test_refuses", _Refuses)
    try:
        return run_bench(quick=True, intervals=200, events_n=20, events_cap=4, tools=(),
                         scalers_use=["linear", "dira", "papi_sw", "bench_test_refuses"])
    finally:
        scalers.unregister("bench_test_refuses")


def test_machine_is_described(report):
    m = report["machine"]
    assert m["python"] == platform.python_version() and m["numpy"] == np.__version__
    assert m["cpu_model"] and m["logical_cores"] >= 1 and 1 <= m["usable_cores"] <= m["logical_cores"]
    assert len(m["load_average"]) == 3 and len(m["load_average_after"]) == 3
    assert report["settings"]["quick"] is True and report["settings"]["repeat"] == 1


def test_replay_and_scaler_numbers_are_consistent(report):
    rp = report["replay"]
    # 11 tma events + cycles on a fixed counter; 200 quanta, reads every 4
    assert rp["quanta"] == 200 and rp["events"] == 12 and rp["read_windows"] == 50
    assert math.isclose(rp["event_quanta_per_s"], 200 * 12 / rp["seconds"])
    by = {r["scaler"]: r for r in report["scalers"]}
    lin, dira = by["linear"], by["dira"]
    assert lin["status"] == dira["status"] == "done"
    assert lin["read_windows"] == 50 and math.isclose(lin["windows_per_s"], 50 / lin["seconds"])
    assert math.isclose(lin["event_windows_per_s"], 50 * 12 / lin["seconds"])
    assert lin["throughput_vs_linear"] == 1.0
    assert math.isclose(dira["throughput_vs_linear"], dira["event_windows_per_s"] / lin["event_windows_per_s"])
    assert math.isclose(dira["seconds_vs_replay"], dira["seconds"] / rp["seconds"])
    assert by["papi_sw"]["status"] == "done"  # it needs the cycles count of the fixed counter
    # a scaler that cannot run on this input is reported with the reason, not dropped
    assert by["bench_test_refuses"]["status"] == "skipped" and "(test)" in by["bench_test_refuses"]["reason"]
    assert report["grouping"]["groups"] >= 3  # 11 multiplexed events on 4 counters


def test_partitioner_row_is_a_real_partition(report):
    from mpx.grouping.partitioned import grouping_context
    from mpx.partition import partition
    from mpx.grouping.instances import load_instance

    (row,) = report["partitioners"]
    hg, k, _, caps = load_instance({"family": "events", "n": 20, "cap": 4})
    res = partition(hg, k, seed=0, max_block_weights=caps, context=grouping_context(20))
    assert row["tool"] == "mpx" and row["k"] == k == 5 and row["km1"] == res.km1 and row["feasible"] is True


def test_cli_text_json_and_errors(capsys):
    assert main(TINY + ["--no-external"]) == 0
    out = capsys.readouterr().out
    assert "machine:" in out and "replay (multiplex)" in out and "dira" in out and "events n=20 C=4" in out
    assert "papi_sw" in out and "generic-4+fixed-cycles" in out
    assert main(TINY + ["--no-external", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"machine", "settings", "replay", "scalers", "grouping", "partitioners"} <= set(data)
    assert main(["bench", "--quick", "--scalers", "nosuch"]) == 1
    assert "unknown scaler" in capsys.readouterr().err
    assert main(["bench", "--quick", "--kahypar-ini", "/nonexistent/k.ini"]) == 1
    assert "no such file" in capsys.readouterr().err


def test_external_tools_skipped_with_reason(monkeypatch):
    import mpx.partition.external as ext
    from mpx.bench import run_bench

    monkeypatch.setattr(ext, "tool_status", lambda tool: (None, f"{tool} is not installed (test)"))
    r = run_bench(quick=True, intervals=100, events_n=12, events_cap=4, scalers_use=["linear"])
    rows = {p["tool"]: p for p in r["partitioners"]}
    assert rows["mpx"]["status"] == "done"
    assert rows["kahypar"]["status"] == rows["mtkahypar"]["status"] == "skipped"
    assert "not installed" in rows["mtkahypar"]["reason"]


def test_mtkahypar_ratios_measured_in_the_same_run():
    pytest.importorskip("mtkahypar")
    from mpx.bench import run_bench

    r = run_bench(quick=True, intervals=100, events_n=20, events_cap=4, scalers_use=["linear"], tools=("mtkahypar",))
    rows = {p["tool"]: p for p in r["partitioners"]}
    mt, mp = rows["mtkahypar"], rows["mpx"]
    assert mt["status"] == "done" and mt["feasible"] is True
    assert math.isclose(mt["km1_vs_mpx"], mt["km1"] / mp["km1"])
    assert math.isclose(mt["mpx_seconds_vs_tool"], mp["seconds"] / mt["seconds"])
    assert mt["n"] == 20 and mt["k"] == 5 and mt["version"]


def test_engineering_format():
    from mpx.util.fmt import eng

    assert [eng(v) for v in (999_600.0, 999_400.0, 1234.0, 12.5, 2.5e9)] == ["1M", "999k", "1.23k", "12.5", "2.5G"]
