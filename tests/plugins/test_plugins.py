"""The toy plugins of this folder — a scaler, a scheduler, an aligner, a trace reader, a catalog format, a
figure and an experiment kind, each one file plus a ``register()`` call — pass their kinds' conformance
checks and work through ``mpx evaluate``, ``mpx run`` and ``mpx report`` with no edit anywhere else."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.conformance.suites import checks, registry, run_check
from mpx.datasets.synthetic import synth
from mpx.recording.runset import RunSet
from mpx.trace import Trace
from tests.plugins import (toy_aligner, toy_catalog, toy_figure, toy_kind, toy_reader, toy_scaler,
                           toy_scheduler)

TOYS = {"scaler": toy_scaler, "scheduler": toy_scheduler, "aligner": toy_aligner, "reader": toy_reader,
        "catalog_format": toy_catalog, "figure": toy_figure, "kind": toy_kind}


@pytest.fixture(scope="module", autouse=True)
def registered():
    for module in TOYS.values():
        module.register()
    yield
    for kind in TOYS:
        registry(kind).unregister("toy")


@pytest.fixture(autouse=True)
def pinned_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


@pytest.mark.parametrize("kind, check", [(k, c) for k in TOYS for c in checks(k)])
def test_toy_conforms(kind, check):
    run_check(kind, "toy", check)


def test_toys_come_after_the_builtins():
    for kind in TOYS:  # then entry points, when a package adds some
        names = registry(kind).available()
        assert names[:names.index("toy")] == list(registry(kind).builtin)


def _files(tmp: Path) -> tuple[Path, Path, Trace]:
    trace = synth("tma", intervals=300, seed=1)
    events = trace.events[:6]
    small = Trace(events, trace.counts[:, :6], trace.edges, trace.time_unit, meta={"workload": "toy"})
    path = tmp / "toy.trace"
    toy_reader.write(path, small)
    cat = tmp / "toy.cat"
    cat.write_text(f"{toy_catalog.MAGIC}\nratio = {events[0]} / {events[1]}\nsum = {' + '.join(events[2:])}\n")
    return path, cat, small


def test_toys_in_mpx_evaluate(tmp_path, capsys):
    path, cat, small = _files(tmp_path)
    assert main(["evaluate", str(path), "--pmu", "generic-2", "--scheduler", "toy", "--scaler", "toy",
                 "--scaler", "linear", "--metrics", str(cat), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["scaler"] for r in rows] == ["toy", "linear"]
    assert rows[0]["setup"]["scheduler"] == "toy" and rows[0]["setup"]["metrics"] == "toy.cat"
    assert all(np.isfinite(r["wape_all"]) and np.isfinite(r["metric_mape"]) for r in rows)


def test_toys_in_mpx_run_and_report(tmp_path, capsys):
    path, cat, small = _files(tmp_path)
    other = tmp_path / "other.trace"
    toy_reader.write(other, Trace(small.events, small.counts[::-1].copy(), small.edges, small.time_unit))
    cfg = tmp_path / "scaling.toml"
    cfg.write_text(f"""
[experiment]
name = "toys"
[data]
files = ["{path}", "{other}"]
[hardware]
pmu = "generic-N"
counters = 2
events = {json.dumps(list(small.events))}
metrics = "{cat}"
[multiplex]
quantum_intervals = 1
read_every = 5
seeds = [0]
[schedulers]
use = ["toy", "perf"]
[scalers]
use = ["toy", "linear"]
[output]
figures = ["toy"]
""")
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    assert (tmp_path / "r" / "figures" / "toy.pdf").read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "toy" in out and "linear" in out

    kind = tmp_path / "kind.toml"
    kind.write_text('[experiment]\nname = "squares"\nkind = "toy"\n[toy]\nvalues = [1, 2, 3]\n')
    assert main(["run", str(kind), "--out", str(tmp_path / "k"), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "k")]) == 0
    out = capsys.readouterr().out
    assert "toy: sum of squares" in out and "14" in out


def test_the_toy_aligner_in_mpx_run(tmp_path, capsys):
    rng = np.random.default_rng(0)
    events = ("Ir", "a", "b", "c")
    traces = [Trace(events, np.column_stack([np.full(60, 1000.0), rng.poisson(100, (60, 3))]).astype(float),
                    np.arange(61) * 1000.0, "cycles", meta={"workload": "toy"}) for _ in range(3)]
    RunSet("toy", tuple(traces), tuple({"run": i} for i in range(3))).save(tmp_path / "toy.runs")
    cfg = tmp_path / "align.toml"
    cfg.write_text(f"""
[experiment]
name = "talign"
kind = "alignment"
[data]
runsets = ["toy.runs"]
[hardware]
pmu = "generic-N"
counters = 2
events = {json.dumps(list(events))}
[multiplex]
quantum_intervals = 1
read_every = 2
[alignment]
anchors = ["Ir"]
aligners = ["toy"]
scalers = ["linear"]
references = [0]
""")
    assert main(["run", str(cfg), "--out", str(tmp_path / "a"), "--no-progress", "--no-figures"]) == 0
    from mpx.experiment.store import open_store

    with open_store(tmp_path / "a") as st:
        rows = st.table("alignment")
    assert "toy" in set(rows["method"]) and (rows[rows["method"] == "toy"]["status"] == "done").all()
