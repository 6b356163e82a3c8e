"""``mpx run`` / ``mpx report`` / ``mpx figs``: 1 and 2 workers and a Dask LocalCluster store identical
rows; the CLI prints the summary, LaTeX tables and one-line errors."""

from __future__ import annotations

import re

import pytest

from mpx.cli import main
from mpx.experiment import load_config, run_experiment
from mpx.experiment.store import ResultsStore
from tests._exp_helpers import assert_same, stable_tables, write_config


@pytest.fixture(autouse=True)
def pinned_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


def _store(tmp_path, name, **kw):
    exp = load_config(write_config(tmp_path, mux_extra="seeds = [0, 1]\nnoise = {rel_sigma = 0.02}"))
    path = tmp_path / name / "results.sqlite"
    with ResultsStore(path) as st:
        counts = run_experiment(exp, st, progress=False, **kw)
    assert counts["computed"] == 12 and counts["errors"] == 0
    return stable_tables(path)


def test_one_and_two_workers_identical(tmp_path):
    assert_same(_store(tmp_path, "one"), _store(tmp_path, "two", jobs=2))


def test_dask_localcluster_identical_to_local(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] not installed (pip install "
                                      "'mpx[dask]')")
    local = _store(tmp_path, "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = _store(tmp_path, "dask", dask_scheduler=cluster.scheduler_address)
    assert_same(local, remote)


def test_figures_drawn_beside_the_report_are_the_ones_drawn_after_it(tmp_path, capsys, monkeypatch):
    """With more than one job `mpx run` draws the figures in a forked process while it exports and prints
    (issue 30: ~3 s of the quickstart's tail); the files are those one process draws, and a figure's error
    still reaches the user as the command's one-line error."""
    cfg = write_config(tmp_path, extra='[output]\nseries_events = ["D1mr"]\nfigures = ["timeline", "scheduler_table"]')
    files = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        assert main(["run", str(cfg), "--out", str(out), "--no-progress", "--jobs", jobs]) == 0
        assert "figures in" in capsys.readouterr().out
        files[jobs] = {p.name: p.read_bytes() for p in (out / "figures").iterdir()}
    assert sorted(files["1"]) == sorted(files["2"]) and "timeline.png" in files["1"]
    for name in ("timeline.png", "scheduler_table.png", "scheduler_table.tex"):
        assert files["1"][name] == files["2"][name], name

    from mpx import figures
    from mpx.errors import ConfigError

    def broken(store, experiment):
        raise ConfigError("broken: nothing to draw (a test)")

    figures.register("broken", figures.Figure("broken", "raises", "tests", broken))  # the forked child inherits it
    try:
        cfg = write_config(tmp_path, extra='[output]\nfigures = ["broken"]')
        assert main(["run", str(cfg), "--out", str(tmp_path / "broken"), "--no-progress", "--jobs", "2"]) == 1
    finally:
        figures.unregister("broken")
    assert "nothing to draw (a test)" in capsys.readouterr().err


def test_a_run_that_draws_beside_exits_without_noise(tmp_path):
    """The figures' process pool was shut down without waiting when the figures were submitted; at exit Python's
    handler then wrote to its closed wake-up pipe and printed "Exception ignored ... Bad file descriptor" after
    a successful gem5 quickstart (seen once in four fresh-clone runs). A whole process, as a user runs it."""
    import os
    import subprocess
    import sys

    cfg = write_config(tmp_path, extra='[output]\nseries_events = ["D1mr"]\nfigures = ["timeline"]')
    env = {**os.environ, "MPX_CODE_VERSION": "test"}
    res = subprocess.run([sys.executable, "-m", "mpx", "run", str(cfg), "--out", str(tmp_path / "o"), "--jobs", "2",
                          "--no-progress"], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "Exception ignored" not in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert (tmp_path / "o" / "figures" / "timeline.png").is_file()


def test_cli_run_report_latex(tmp_path, capsys):
    cfg = write_config(tmp_path, extra='[output]\nseries_events = ["D1mr"]\nfigures = ["timeline", "scheduler_table"]')
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "6 cells (0 cached, 6 computed" in text
    assert "winner by the headline measure" in text and "Linux default (perf + linear)" in text
    for f in ("timeline.pdf", "timeline.png", "scheduler_table.pdf", "scheduler_table.tex"):
        assert (out / "figures" / f).stat().st_size > 0
    assert (out / "csv" / "scores.csv").stat().st_size > 0
    assert main(["run", str(cfg), "--out", str(out), "--no-progress", "--no-figures"]) == 0
    assert "6 cells (6 cached, 0 computed" in capsys.readouterr().out
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "headline measure (WAPE all windows, %)" in text and "dira" in text
    assert "scalers on common windows, scheduler perf" in text and "Kendall tau" in text
    assert "NaN" not in text and "n/a" in text  # numbers a scaler does not have (linear: no calibration)
    assert main(["report", str(out), "--latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\begin{tabular}" in tex and r"\toprule" in tex and "round\\_robin" in tex
    labels = re.findall(r"\\label\{([^}]*)\}", tex)
    assert len(labels) > 3 and len(set(labels)) == len(labels)  # LaTeX refuses a repeated \label
    assert main(["report", str(out), "--runs"]) == 0
    assert "small" in capsys.readouterr().out


def test_cli_errors_are_one_line(tmp_path, capsys):
    cfg = write_config(tmp_path)
    cfg.write_text(cfg.read_text().replace('"perf", "round_robin"', '"perf", "nosuch"'))
    assert main(["run", str(cfg), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nosuch" in err and "[schedulers]" in err
    assert main(["report", str(tmp_path / "nothing")]) == 1
    assert "no results store" in capsys.readouterr().err
    assert main(["run", str(write_config(tmp_path)), "--out", str(tmp_path / "o"), "--jobs", "0"]) == 1
    assert "--jobs" in capsys.readouterr().err


def test_help_lists_run_report_figs(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for cmd in ("run", "report", "figs"):
        assert cmd in text


def test_report_on_a_store_with_two_experiments(tmp_path, capsys):
    out = tmp_path / "out"
    for name in ("first", "second"):
        cfg = write_config(tmp_path, name=name)
        assert main(["run", str(cfg), "--out", str(out), "--no-progress", "--no-figures"]) == 0
    text = capsys.readouterr().out
    assert "6 cells (6 cached, 0 computed" in text  # same cells under another name: nothing recomputed
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "######## experiment first" in text and "######## experiment second" in text
    assert main(["report", str(out), "--latex", "--experiment", "second"]) == 0
    assert "% ----" not in capsys.readouterr().out


def test_headline_table_hand_worked():
    """Ratios against the best other scaler: a causal method only against causal scalers, an offline one
    against all; workloads paired; held-out rows apart."""
    import pandas as pd

    from mpx.studies.report import headline_table

    rows = []
    for held, wls in ((0, ("a", "b", "c")), (1, ("x", "y"))):
        for i, wl in enumerate(wls):
            for scaler, causal, err in (("new", 1, 0.1 * (i + 1)), ("new_off", 0, 0.3), ("linear", 1, 0.2 * (i + 1)),
                                        ("interp", 0, 0.15 * (i + 1))):
                rows.append({"heldout": held, "scheduler": "perf", "counters": 4, "workload": wl, "scaler": scaler,
                             "causal": causal, "wape_all": err, "calibration_90": 0.9 if scaler == "new" else None})
    (title, t), = headline_table(pd.DataFrame(rows), ["new", "new_off"]).items()
    assert "wape_all" in title
    r = t.loc[("shipped (3)", "perf", 4, "new")]
    assert r["best baseline"] == "linear" and r["ratio"] == 0.5 and r["95% CI"] == "[0.50, 0.50]"
    assert r["method %"] == 20.0 and r["baseline %"] == 40.0 and r["in 90% band %"] == 90.0
    r = t.loc[("shipped (3)", "perf", 4, "new_off")]
    assert r["best baseline"] == "interp" and r["ratio"] == 1.0            # 0.3 / mean(0.15, 0.30, 0.45)
    r = t.loc[("held-out (2)", "perf", 4, "new")]
    assert r["ratio"] == 0.5 and r["baseline %"] == 30.0


def test_report_prints_the_headline_of_the_config(tmp_path, capsys):
    p = write_config(tmp_path)
    p.write_text(p.read_text() + '\n[output]\nheadline = ["dira"]\n')
    assert main(["run", str(p), "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "headline: dira against the best other scaler" in out
    assert "linear" in out.split("headline:")[1]


def test_an_unknown_figure_is_refused_before_any_cell_runs(tmp_path, capsys):
    cfg = write_config(tmp_path, extra='[output]\nfigures = ["timeline", "timline"]')
    out = tmp_path / "r"
    assert main(["run", str(cfg), "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "timline" in err and "unknown figure" in err
    assert not (out / "results.sqlite").exists()  # nothing ran, no store was made


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", ".hidden", "-x", "a b", "x\\y", "/abs"])
def test_an_experiment_name_that_is_a_path_is_refused_at_load(tmp_path, name, monkeypatch, capsys):
    """The name becomes results/<name>: '../../x' wrote outside results/, even with --dry-run (issue 16)."""
    from tests._exp_helpers import SMALL

    cfg = tmp_path / "cfg.toml"
    cfg.write_text(SMALL.format(name=name.replace("\\", "\\\\"), extra="", mux_extra=""))
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(cfg), "--dry-run"]) == 1
    assert "[experiment] name" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.toml"]


@pytest.mark.parametrize("name", ["quickstart", "claims_duty", "run-2.v1", "_x"])
def test_ordinary_names_load(tmp_path, name):
    assert load_config(write_config(tmp_path, name)).name == name


def test_dry_run_writes_nothing(tmp_path, monkeypatch, capsys):
    cfg = write_config(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(cfg), "--dry-run"]) == 0
    assert "cells, none yet" in capsys.readouterr().out
    assert main(["run", str(cfg), "--dry-run", "--out", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]


def test_report_latex_labels_are_unique_when_titles_coincide(tmp_path, capsys, monkeypatch):
    """Issue 27: labels are titles cut to 48 characters, and two tables of one setting swept (same title
    up to ``[read_window = ...]``) got the same ``\\label``."""
    import pandas as pd

    import mpx.studies.report
    from mpx.experiment.store import ResultsStore

    long = "wape_all (%) by event class (cv of true window counts: steady < 0.25"
    tables = {f"{long} [read_window = {r}]": pd.DataFrame({"x": [1.0]}, index=["linear"]) for r in (10, 100)}
    monkeypatch.setattr(mpx.studies.report, "summary_tables", lambda store, name, run: tables)
    ResultsStore(tmp_path / "results.sqlite").close()
    assert main(["report", str(tmp_path), "--latex"]) == 0
    labels = re.findall(r"\\label\{([^}]*)\}", capsys.readouterr().out)
    assert len(labels) == 2 and labels[1] == labels[0] + "-2"


def test_mpx_run_parses_its_config_once_and_expands_its_sweep_once(tmp_path, monkeypatch, capsys):
    """issue 37: the TOML was read twice (suite or not, then the config) and the sweep expanded twice (the
    kind's checks, then the cells) per `mpx run`."""
    from mpx.experiment import config, grid

    calls = {"toml": 0, "variants": 0}
    toml_load, variants = config._toml_load, grid.variants

    def counted_toml(path):
        calls["toml"] += 1
        return toml_load(path)

    def counted_variants(raw, where):
        calls["variants"] += 1
        return variants(raw, where)

    monkeypatch.setattr(config, "_toml_load", counted_toml)
    monkeypatch.setattr(config, "variants", counted_variants)
    cfg = tmp_path / "q.toml"
    cfg.write_text('[experiment]\nname = "q"\n[data]\ndatasets = ["sqlite"]\n[hardware]\npmu = "generic-N"\n'
                   'counters = 4\nmetrics = "callgrind"\n[multiplex]\nquantum_intervals = 1\n[sweep]\n'
                   '"multiplex.read_every" = [10, 25]\n[schedulers]\nuse = ["perf"]\n[scalers]\nuse = ["linear"]\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--dry-run"]) == 0
    assert "q: 2 cells" in capsys.readouterr().out
    assert calls == {"toml": 1, "variants": 1}
