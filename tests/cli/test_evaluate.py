"""``mpx evaluate``: one replay, every named scaler scored; JSON and table output, defaults stated, one-line
errors on bad input (the scoring itself is tested in ``tests/scoring/test_score.py``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mpx import scalers

from mpx.datasets import shipped as datasets

from mpx.datasets import synthetic
from mpx.cli import main
from mpx.cli.evaluate import never_warnings
from mpx.scoring.score import score
from mpx.metrics import builtin
from mpx.multiplex import multiplex
from mpx.problem import Problem


def _json(capsys, *argv):
    assert main(["evaluate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_dataset_json_one_object_per_scaler_matching_the_library(capsys):
    rows = _json(capsys, "xz", "--pmu", "generic-4", "--scaler", "linear", "--scaler", "bayesperf_smooth",
                 "--scaler", "dira")
    assert [r["scaler"] for r in rows] == ["linear", "bayesperf_smooth", "dira"]
    by = {r["scaler"]: r for r in rows}
    assert by["linear"]["causal"] is True and by["dira"]["causal"] is False
    # relations: none unless asked, as under mpx run (mpx.scoring.replay.scaler_spec, docs/scoring.md)
    assert by["bayesperf_smooth"]["causal"] is False and "relations" not in by["bayesperf_smooth"]
    assert rows[0]["setup"]["relations"] == "none (default)"
    for r in rows:
        for k in ("window_mape", "total_error", "metric_mape"):
            assert isinstance(r[k], float) and math.isfinite(r[k])
    setup = rows[0]["setup"]
    assert setup["read_every"] == 10 and setup["metrics"].startswith("callgrind")
    # the same replay and scoring through the library: the defaults are what the help says
    tr = datasets.load("xz")
    obs = multiplex(tr, Problem(tr.events, "generic-4"), "perf", quantum=float(np.median(np.diff(tr.edges))),
                    read_every=10)
    assert setup["quantum"] == pytest.approx(obs.quantum)
    sm = score(scalers.get("linear").estimate(obs), tr, builtin("callgrind")).summary
    for k in ("window_mape", "total_error", "metric_mape"):
        assert by["linear"][k] == pytest.approx(sm[k], rel=1e-12)


def test_trace_file_with_quantum_read_every_and_table(tmp_path, capsys):
    tr = synthetic.synth("tma", intervals=400, seed=1)
    path = tmp_path / "tma.npz"
    tr.save(path)
    q = float(tr.edges[1] - tr.edges[0])
    assert main(["evaluate", str(path), "--pmu", "generic-8", "--counters", "4", "--quantum", str(2 * q),
                 "--read-every", "5", "--scaler", "linear", "--scaler", "tam", "--metrics", "tma",
                 "--relations", "none"]) == 0
    out = capsys.readouterr().out
    assert "read every 5 quanta" in out and "(default" not in out.splitlines()[1]
    assert "metrics: tma" in out and "relations for BayesPerf: none" in out
    lines = [ln.split()[0] for ln in out.splitlines()]
    assert "linear" in lines and "tam" in lines
    # callgrind traces have no cycles event: papi_sw is reported as not scored, not a crash
    rows = _json(capsys, "awk", "--pmu", "generic-4", "--scaler", "papi_sw", "--scaler", "linear")
    assert "error" in rows[0] and "cycles" in rows[0]["error"]
    assert rows[0]["window_mape"] is None and rows[0]["causal"] is True  # the keys are always there
    assert "error" not in rows[1]


@pytest.mark.parametrize("argv, needle", [
    (["no-such-dataset", "--pmu", "generic-4"], "neither an existing trace file nor a shipped dataset"),
    (["xz", "--pmu", "generic-4", "--scaler", "nope"], "unknown scaler"),
    (["xz", "--pmu", "generic-4", "--scheduler", "nope"], "unknown scheduler"),
    (["xz", "--pmu", "generic-4", "--quantum", "abc"], "--quantum"),
    (["xz", "--pmu", "generic-4", "--quantum", "4ms"], "no fixed relation to time"),
    (["xz", "--pmu", "generic-4", "--quantum", "-3"], "--quantum"),
    (["xz", "--pmu", "generic-4", "--read-every", "0"], "--read-every"),
    (["xz", "--pmu", "no-such-pmu"], "no-such-pmu"),
    (["xz", "--pmu", "generic-4", "--events", "Ir,bogus"], "bogus"),
])
def test_bad_input_is_one_line_error(argv, needle, capsys):
    assert main(["evaluate", *argv]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mpx evaluate: error:") and needle in err and "\n" not in err


def test_pmu_is_required(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "xz"])
    assert exc.value.code == 2
    assert "--pmu" in capsys.readouterr().err


def test_learned_scaler_trains_on_the_other_datasets_only(capsys, tmp_path):
    learned = [n for n in scalers.REGISTRY.builtin if scalers.REGISTRY.tags(n).learned]
    if not learned:
        pytest.skip("no learned scaler registered")
    name = learned[0]
    rows = _json(capsys, "awk", "--pmu", "generic-4", "--scaler", name, "--events", "Ir,Dr,Dw,D1mr,Bc,Bcm")
    train = rows[0]["setup"]["train"]
    assert "awk" not in train.split(" (")[0].split(", ") and "xz" in train
    assert "error" not in rows[0] and math.isfinite(rows[0]["window_mape"])
    # the scored workload is refused as training data, and a trace file without --train is not scored
    assert main(["evaluate", "awk", "--pmu", "generic-4", "--scaler", name, "--train", "xz,awk"]) == 1
    assert "scored workload" in capsys.readouterr().err
    path = tmp_path / "awk.npz"
    datasets.load("awk").save(path)
    rows = _json(capsys, str(path), "--pmu", "generic-4", "--scaler", name)
    assert "--train" in rows[0]["error"]


def test_generic_n_literal_explains_itself(capsys):
    assert main(["evaluate", "xz", "--pmu", "generic-N"]) == 1
    assert "replace N" in capsys.readouterr().err


def test_gem5_totals_relations(tmp_path, capsys):
    from mpx.trace import Trace

    rng = np.random.default_rng(0)
    parts = rng.poisson(1000, size=(200, 3)).astype(float)
    counts = np.column_stack([parts, parts.sum(axis=1)])
    tr = Trace(["l2.hits::inst", "l2.hits::data", "l2.hits::pf", "l2.hits::total"], counts,
               np.arange(201.0), "ticks", {"workload": "toy"})
    path = tmp_path / "toy.npz"
    tr.save(path)
    rows = _json(capsys, str(path), "--pmu", "generic-2", "--scaler", "bayesperf", "--relations", "gem5-totals",
                 "--metrics", "none", "--quantum", "1", "--read-every", "4")
    assert rows[0]["relations"].startswith("gem5-totals") and math.isfinite(rows[0]["window_mape"])


def test_gem5_totals_with_a_part_left_out_keeps_the_identity_true(tmp_path, capsys):
    """``--events`` selects ``::total`` and only some of its parts: the identity is ``total = sum of
    *all* the vector's parts`` (the parts not selected are latent variables), never ``total = the
    selected parts``, which is false whenever a part left out counts anything.

    Hand-worked: constant rates inst 100, data 200, pf 300, total 600 per interval; pf is not
    selected. Every event runs in every read window, so linear scaling is exact, and the true
    identity ``total = inst + data + pf`` with ``pf`` free is satisfied by the measurements: the
    posterior mean is the measurements, errors ~0. The wrong identity ``600 = 100 + 200`` forces a
    compromise that is off by tens of percent."""
    from mpx.trace import Trace

    n = 200
    counts = np.column_stack([np.full(n, 100.0), np.full(n, 200.0), np.full(n, 300.0), np.full(n, 600.0)])
    tr = Trace(["l2.hits::inst", "l2.hits::data", "l2.hits::pf", "l2.hits::total"], counts,
               np.arange(n + 1.0), "ticks", {"workload": "toy"})
    path = tmp_path / "toy.npz"
    tr.save(path)
    common = ("--pmu", "generic-2", "--events", "l2.hits::inst,l2.hits::data,l2.hits::total", "--metrics", "none",
              "--quantum", "1", "--read-every", "4", "--scaler", "linear", "--scaler", "bayesperf",
              "--scaler", "bayesperf_smooth")
    rows = _json(capsys, str(path), *common, "--relations", "gem5-totals")
    assert [r["scaler"] for r in rows] == ["linear", "bayesperf", "bayesperf_smooth"]
    for r in rows:
        assert r["window_mape"] < 1e-3 and r["total_error"] < 1e-3, r


def test_never_estimated_events_are_shown_and_warned_about(shared, capsys):
    """Issue 16: on muneeb_single.txt (865 events, one dump) 861 events are never estimated on 4 counters,
    and window_mape / total_error read 0.00% over the 4 others; the share is printed and warned about."""
    path = shared("data", "gem5", "muneeb_single.txt")
    assert main(["evaluate", str(path), "--pmu", "generic-4", "--scaler", "linear", "--events", "all"]) == 0
    out = capsys.readouterr().out
    head, row = [ln for ln in out.splitlines() if ln.startswith(("scaler ", "linear "))]
    assert row.split()[head.split().index("never_est")] == f"{100 * 861 / 865:.2f}%"
    # the means over the 4 estimated events are not printed as if they measured the run (issue 27)
    assert row.split()[head.split().index("metric_mape")] == "n/m" and "n/m: not meaningful" in out
    assert ("warning: 861 of 865 events (99.5%) never estimated by linear: window_mape, mape_ran, total_error "
            "and metric_mape leave them out") in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 120


def test_never_warnings_group_scalers_by_share():
    rows = [{"scaler": "a", "n_events": 10, "n_events_never_estimated": 2},
            {"scaler": "b", "n_events": 10, "n_events_never_estimated": 2},
            {"scaler": "c", "n_events": 10, "n_events_never_estimated": 0},
            {"scaler": "d", "error": "boom"}]
    assert [w.split(":")[0] for w in never_warnings(rows)] == ["warning"]
    assert "2 of 10 events (20.0%) never estimated by a, b" in never_warnings(rows)[0]


def test_evaluate_and_run_give_a_scaler_the_same_inputs(tmp_path, capsys, monkeypatch):
    """One dataset, one setting, through ``mpx evaluate`` and through ``mpx run``: the same relations (asked
    for and by default) and training traces reach the scalers, so the scores agree."""
    from mpx.experiment.store import open_store

    monkeypatch.setenv("MPX_CODE_VERSION", "test")
    events = ["Ir", "Dr", "Dw", "D1mr", "D1mw", "Bc", "Bcm"]
    cfg = tmp_path / "one.toml"
    cfg.write_text(f"""
[experiment]
name = "one"
[data]
datasets = ["xz", "sqlite"]
[hardware]
pmu = "generic-N"
counters = 2
events = {json.dumps(events)}
[multiplex]
quantum_intervals = 1
read_every = 10
seeds = [0]
[schedulers]
use = ["perf"]
[scalers]
use = ["linear", "bayesperf", "bayesperf_smooth", "fusion"]
params.bayesperf_smooth = {{ relations = "callgrind" }}
""")
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    capsys.readouterr()
    with open_store(tmp_path / "r") as st:
        ran = st.table("scores")
    ran = ran[ran["dataset"] == "xz"].set_index("scaler")
    common = ["xz", "--pmu", "generic-2", "--events", ",".join(events), "--read-every", "10", "--train", "sqlite"]
    by = {r["scaler"]: r for r in _json(capsys, *common, "--scaler", "linear", "--scaler", "bayesperf",
                                         "--scaler", "fusion")}
    by.update({r["scaler"]: r for r in _json(capsys, *common, "--scaler", "bayesperf_smooth",
                                             "--relations", "callgrind")})
    assert set(by) == set(ran.index)
    for name, row in by.items():
        assert row["setup"]["quantum"] == pytest.approx(ran.loc[name, "quantum"], rel=1e-12)
        for k in ("wape_all", "window_mape", "total_error"):
            assert row[k] == pytest.approx(ran.loc[name, k], rel=1e-9, abs=1e-12), (name, k)
    # the comparison can tell: the metrics catalog's relations (evaluate's old default) move BayesPerf's score
    other = _json(capsys, *common, "--scaler", "bayesperf", "--relations", "metrics")[0]
    assert other["relations"] == "callgrind" and other["wape_all"] != pytest.approx(ran.loc["bayesperf", "wape_all"])
    assert json.loads(ran.loc["bayesperf_smooth", "scaler_params"])["relations"] == "callgrind"
    assert json.loads(ran.loc["bayesperf", "scaler_params"])["relations"] is None
