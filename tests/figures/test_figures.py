"""Every registered figure draws from a small results store and writes a non-empty PDF and PNG; the
one script that regenerates them all plans each experiment once."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from mpx.cli import main
from tests._exp_helpers import write_config

REPO = Path(__file__).resolve().parents[2]
FIGURES = ["error_vs_duty_cycle", "error_vs_events", "scaler_per_workload", "scheduler_table", "timeline",
           "causal_vs_offline", "scaler_cost", "partitioner_vs_kahypar", "headline", "error_vs_read_window",
           "scaler_per_workload_gem5"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("MPX_CODE_VERSION", "test")
    tmp = tmp_path_factory.mktemp("figs")
    cfg = write_config(tmp, extra='[sweep]\n"hardware.counters" = [2, 3]\n"hardware.max_events" = [4, 6]\n'
                                  '"multiplex.read_every" = [5, 10]\n'
                                  '[output]\nseries_events = ["D1mr", "Bcm"]\nseries_workloads = ["sqlite"]\n'
                                  'headline = ["bayesperf"]\n')
    cfg.write_text(cfg.read_text().replace('use = ["linear", "dira"]', 'use = ["linear", "dira", "bayesperf"]'))
    assert main(["run", str(cfg), "--out", str(tmp / "res"), "--no-progress", "--no-figures"]) == 0
    from tests.experiment.test_partition import write as write_partition  # same store: partitioner figure

    assert main(["run", str(write_partition(tmp)), "--out", str(tmp / "res"), "--no-progress", "--no-figures"]) == 0
    mp.undo()
    return tmp / "res"


def test_paper_figs_readme_matches_the_registry():
    from mpx.figures import available, get

    rows = re.findall(r"^\| `(\w+)` \|.*\| `(experiments/[\w.]+)` \|$", (REPO / "paper_figs" / "README.md").read_text(), re.M)
    assert rows == [(n, get(n).experiment) for n in available()]
    for n in available():
        assert (REPO / get(n).experiment).is_file(), n


@pytest.mark.parametrize("name", FIGURES)
def test_figure_writes_pdf_and_png(name, store, tmp_path):
    assert main(["figs", str(store), name, "--out", str(tmp_path)]) == 0
    for ext in ("pdf", "png"):
        f = tmp_path / f"{name}.{ext}"
        assert f.is_file() and f.stat().st_size > 1000, f
    assert (tmp_path / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    if name == "scheduler_table":
        assert "\\begin{tabular}" in (tmp_path / "scheduler_table.tex").read_text()


def test_make_all_plans_every_figure_once(store, tmp_path):
    make_all = runpy.run_path(str(REPO / "paper_figs" / "make_all.py"), run_name="paper_figs_test")
    results = tmp_path / "results"
    (results / "quickstart").mkdir(parents=True)
    (results / "quickstart" / "results.sqlite").write_bytes(b"")
    cmds = make_all["plan"](list(FIGURES), results, tmp_path / "figs", rerun=False)
    runs = [c for c in cmds if c[0] == "run"]
    figs = [c for c in cmds if c[0] == "figs"]
    assert sorted(n for c in figs for n in c[2:-2]) == sorted(FIGURES)
    assert len(runs) == len({c[1] for c in runs}) == len(FIGURES) - 1  # quickstart's store exists already
    assert all(c[-2:] == ["--no-figures", "--no-progress"] for c in runs)
    assert len(make_all["plan"](["timeline"], results, tmp_path, rerun=True)) == 2


def test_figs_command_and_missing_data(store, tmp_path, capsys):
    from mpx.errors import ConfigError
    from mpx.figures import draw
    from mpx.results import ResultsStore

    assert main(["figs", str(store), "timeline", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "timeline.png").is_file()
    from mpx.experiment.kinds import declared_tables

    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="no scaler scores"):
        st.declare(declared_tables())  # as mpx run does: every kind's tables, no rows
        draw(st, ["scaler_per_workload"], tmp_path)
    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="unknown figure"):
        draw(st, ["nosuch"], tmp_path)


def test_a_method_keeps_its_look_in_every_figure():
    from mpx.figures.style import METHODS, hatch, look

    looks = [(look(m)["color"], look(m)["marker"], str(look(m)["linestyle"]), hatch(m)) for m in METHODS]
    assert len(set(looks)) == len(METHODS)  # told apart
    assert all(c != "#000000" for c, *_ in looks)  # black is the truth's
    assert look("my_scaler") == look("my_scaler") and look("linear") != look("my_scaler")


@pytest.mark.slow
def test_figs_without_names_draws_what_the_data_supports(store, tmp_path, capsys):
    from mpx.figures import available, draw_supported
    from mpx.results import ResultsStore

    with ResultsStore(tmp_path / "empty.sqlite") as st:
        written, skipped = draw_supported(st, tmp_path / "none")
    assert written == [] and list(skipped) == available()
    assert main(["figs", str(store), "--out", str(tmp_path / "all")]) == 0
    drawn = {p.stem for p in (tmp_path / "all").glob("*.pdf")}
    assert drawn and drawn <= set(available())
    err = capsys.readouterr().err
    assert all(f"skipped {n}:" in err for n in set(available()) - drawn)


@pytest.mark.parametrize("name", [n for n in FIGURES if n != "partitioner_vs_kahypar"])
def test_every_figure_names_its_slice(name, store):
    """The store swept read_every (5, 10): every figure but the read-window one holds it and says so."""
    from mpx.figures import get
    from mpx.figures.style import style
    from mpx.results import ResultsStore

    style()
    with ResultsStore(store / "results.sqlite") as st:
        fig = get(name).draw(st, None)
    text = " ".join(" ".join(t.get_text().split()) for t in fig.texts)
    assert "Slice:" in text, name
    if name != "error_vs_read_window":
        assert "read every 5 quanta (also in the data, not shown: 10)" in text, name
