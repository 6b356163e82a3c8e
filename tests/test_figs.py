"""Every paper_figs script draws from a small results store and writes a non-empty PDF and PNG."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from mpx.cli import main
from tests._exp_helpers import write_config

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((REPO / "paper_figs").glob("fig_*.py"))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("MPX_CODE_VERSION", "test")
    tmp = tmp_path_factory.mktemp("figs")
    cfg = write_config(tmp, extra='[sweep]\n"hardware.counters" = [2, 3]\n"hardware.max_events" = [4, 6]\n'
                                  '[output]\nseries_events = ["D1mr", "Bcm"]\nseries_workloads = ["sqlite"]\n'
                                  'headline = ["bayesperf"]\n')
    cfg.write_text(cfg.read_text().replace('use = ["linear", "dira"]', 'use = ["linear", "dira", "bayesperf"]'))
    assert main(["run", str(cfg), "--out", str(tmp / "res"), "--no-progress", "--no-figures"]) == 0
    from tests.test_experiment_partition import write as write_partition  # same store: partitioner figure

    assert main(["run", str(write_partition(tmp)), "--out", str(tmp / "res"), "--no-progress", "--no-figures"]) == 0
    mp.undo()
    return tmp / "res"


def test_every_figure_has_a_script():
    from mpx.figures import FIGURES

    assert {p.stem[4:] for p in SCRIPTS} == set(FIGURES)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_writes_pdf_and_png(script, store, tmp_path):
    mod = runpy.run_path(str(script), run_name="paper_figs_test")
    assert mod["main"]([str(store), "--out", str(tmp_path)]) == 0
    name = mod["FIGURE"]
    for ext in ("pdf", "png"):
        f = tmp_path / f"{name}.{ext}"
        assert f.is_file() and f.stat().st_size > 1000, f
    assert (tmp_path / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")


def test_figs_command_and_missing_data(store, tmp_path, capsys):
    from mpx.errors import ConfigError
    from mpx.figures import draw
    from mpx.results import ResultsStore

    assert main(["figs", str(store), "timeline", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "timeline.png").is_file()
    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="no scaler scores"):
        draw(st, ["scaler_per_workload"], tmp_path)
    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="unknown figure"):
        draw(st, ["nosuch"], tmp_path)
