"""``mpx estimate``: a real perf stat -I run re-estimated by a read-view scaler, beside perf's values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.observation import Observation
from mpx.readers.perfstat import read_perf_stat

DATA = Path(__file__).resolve().parents[1] / "data" / "perfstat"


def _json(capsys, *argv):
    assert main(["estimate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["mux_global_semicolon.csv", "real_global.jsonl", "mux_percpu.jsonl"])
def test_read_view_gives_back_perfs_scaling(name):
    run = read_perf_stat(DATA / name)
    rv = run.read_view()
    v = {"raw": rv.raw, "enabled": rv.enabled, "running": rv.running}
    counted = np.asarray(run.counted) & (v["running"] > 0)
    # perf's own scaling of the read view reproduces the printed value
    scaled = v["raw"] * v["enabled"] / np.where(v["running"] > 0, v["running"], 1.0)
    np.testing.assert_allclose(scaled[counted], run.value[counted], rtol=1e-12)
    assert np.all(v["running"] <= v["enabled"] * (1 + 1e-12))
    # enabled agrees with perf's truncated percentage wherever the event ran
    pct = np.floor(100 * v["running"] / np.where(v["enabled"] > 0, v["enabled"], 1.0) + 1e-9)
    np.testing.assert_array_equal(pct[counted], run.pct_running[counted])


def test_the_observation_is_on_perfs_time_axis_and_declares_no_pmu_by_default(capsys):
    """perf stat's edges are in ns: the Observation says so, and without --pmu it carries no PMU (it
    used to say "us" — a 100 ms interval labelled 100 s — on a made-up ``generic-2``)."""
    run = read_perf_stat(DATA / "mux_global_semicolon.csv")
    view = run.read_view()
    obs = Observation.from_read_view(view)
    assert view.time_unit == obs.time_unit == "ns" and obs.problem.pmu is None
    np.testing.assert_allclose(obs.reads.edges[1:], np.asarray(run.timestamps) * 1e9)
    out = _json(capsys, str(DATA / "mux_global_semicolon.csv"), "--scaler", "linear")
    assert out["time_unit"] == "ns" and out["pmu"] is None
    declared = _json(capsys, str(DATA / "mux_global_semicolon.csv"), "--scaler", "linear", "--pmu", "skylake")
    assert declared["pmu"] == "skylake" and declared["time_unit"] == "ns"
    assert [r["estimate"] for r in declared["rows"]] == [r["estimate"] for r in out["rows"]]


def test_a_problem_without_pmu_refuses_hardware_questions():
    from mpx.errors import ConfigError
    from mpx.problem import Problem

    p = Problem(("a", "b"), None)
    assert p.pmu is None and p.events == ("a", "b")
    with pytest.raises(ConfigError, match="declares no PMU"):
        p.fits(["a", "b"])


def test_linear_reproduces_perf_and_dira_differs(capsys):
    out = _json(capsys, str(DATA / "mux_global_semicolon.csv"), "--scaler", "linear")
    assert out["scaler"] == "linear" and out["causal"] is True
    rows = [r for r in out["rows"] if r["perf"] is not None and r["counter"] != "task-clock"]
    assert rows and all(r["estimate"] == pytest.approx(r["perf"], rel=1e-12, abs=1.0) for r in rows)
    dira = _json(capsys, str(DATA / "mux_global_semicolon.csv"), "--scaler", "dira")
    assert dira["causal"] is False
    assert any(r["estimate"] is not None and r["perf"] is not None and abs(r["estimate"] - r["perf"]) > 1
               for r in dira["rows"])


def test_table_events_and_plot(tmp_path, capsys):
    png = tmp_path / "est.png"
    assert main(["estimate", str(DATA / "real_global.jsonl"), "--scaler", "tam", "--events", "cycles,instructions",
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    body = [ln.split()[1] for ln in out.splitlines() if ln[:1].isdigit() or ln.startswith("total")]
    assert set(body) == {"cycles", "instructions"}
    assert "tam" in out.splitlines()[0] and png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, needle", [
    ([str(DATA / "mux_global_semicolon.csv"), "--scaler", "bayesperf"], "quantum view"),
    ([str(DATA / "mux_global_semicolon.csv"), "--scaler", "nope"], "unknown scaler"),
    ([str(DATA / "mux_global_semicolon.csv"), "--scaler", "linear", "--relations", "callgrind"], "takes no relations"),
    ([str(DATA / "mux_global_semicolon.csv"), "--scaler", "linear", "--events", "bogus"], "bogus"),
    (["/nonexistent/perf.csv", "--scaler", "linear"], "perf.csv"),
])
def test_bad_input_is_one_line_error(argv, needle, capsys):
    assert main(["estimate", *argv]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mpx estimate: error:") and needle in err and "\n" not in err


def test_not_a_perf_stat_file_is_a_format_error(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("hello;world\n1;2;3\n")
    assert main(["estimate", str(bad), "--scaler", "linear"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mpx estimate: error:") and "bad.csv" in err and "\n" not in err
