"""Every registered figure draws from a small results store and writes a non-empty PDF and PNG; the
one script that regenerates them all plans each experiment once."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from mpx.cli import main
from tests._exp_helpers import write_config
from tests.conftest import SHARED

REPO = Path(__file__).resolve().parents[2]
FIGURES = ["error_vs_duty_cycle", "error_vs_events", "scaler_per_workload", "scheduler_table", "timeline",
           "causal_vs_offline", "scaler_cost", "partitioner_vs_kahypar", "headline", "error_vs_read_window",
           "scaler_per_workload_gem5", "verdicts"]
#: the figures drawn from the gem5 store
GEM5_FIGURES = {"scaler_per_workload_gem5", "verdicts"}


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


GEM5_CONFIG = """
[experiment]
name = "small_gem5"
[data]
datasets = ["gem5-phases"]
intervals = [0, 100]
[hardware]
pmu = "gem5-o3-g4"
counters = "preset"
metrics = "gem5"
[multiplex]
quantum_intervals = 1
read_every = 10
[schedulers]
use = ["perf"]
[scalers]
use = ["linear", "dira"]
[output]
series_events = ["system.cpu.dcache.demandMisses::total", "system.cpu.branchPred.mispredicted_0::total"]
series_workloads = ["gem5-phases"]
"""


@pytest.fixture(scope="module")
def gem5_store(tmp_path_factory):
    """A store of one short gem5 run (its own store: no callgrind rows in it)."""
    from mpx.datasets.shipped import names

    if "gem5-phases" not in names("gem5"):
        pytest.skip("gem5-phases is not shipped")
    mp = pytest.MonkeyPatch()
    mp.setenv("MPX_CODE_VERSION", "test")
    tmp = tmp_path_factory.mktemp("figs_gem5")
    (tmp / "g.toml").write_text(GEM5_CONFIG)
    assert main(["run", str(tmp / "g.toml"), "--out", str(tmp / "res"), "--no-progress", "--no-figures"]) == 0
    mp.undo()
    return tmp / "res"


def test_paper_figs_readme_matches_the_registry():
    from mpx.figures import REGISTRY, get

    rows = re.findall(r"^\| `(\w+)` \|.*\| `(experiments/[\w.]+)` \|$", (REPO / "paper_figs" / "README.md").read_text(), re.M)
    assert rows == [(n, get(n).experiment) for n in REGISTRY.builtin]  # the shipped figures, not what is installed
    for n in REGISTRY.builtin:
        assert (REPO / get(n).experiment).is_file(), n


@pytest.mark.parametrize("name", FIGURES)
def test_figure_writes_pdf_and_png(name, store, gem5_store, tmp_path):
    assert main(["figs", str(gem5_store if name in GEM5_FIGURES else store), name, "--out", str(tmp_path)]) == 0
    for ext in ("pdf", "png"):
        f = tmp_path / f"{name}.{ext}"
        assert f.is_file() and f.stat().st_size > 1000, f
    assert (tmp_path / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    if name == "scheduler_table":
        assert "\\begin{tabular}" in (tmp_path / "scheduler_table.tex").read_text()


def test_make_all_plans_every_figure_once(store, tmp_path):
    if not SHARED.is_dir():
        pytest.skip(f"partitioner.toml reads {SHARED}, which is absent")
    make_all = runpy.run_path(str(REPO / "paper_figs" / "make_all.py"), run_name="paper_figs_test")
    results = tmp_path / "results"
    (results / "quickstart").mkdir(parents=True)
    (results / "quickstart" / "results.sqlite").write_bytes(b"")
    cmds = make_all["plan"](list(FIGURES), results, tmp_path / "figs", rerun=False)
    runs = [c for c in cmds if c[0] == "run"]
    figs = [c for c in cmds if c[0] == "figs"]
    assert sorted(n for c in figs for n in c[2:-2]) == sorted(FIGURES)
    from mpx.figures import get

    experiments = {get(n).experiment for n in FIGURES}  # verdicts and scaler_per_workload_gem5 share one
    assert len(runs) == len({c[1] for c in runs}) == len(experiments) - 1  # quickstart's store exists already
    assert all(c[-2:] == ["--no-figures", "--no-progress"] for c in runs)
    assert len(make_all["plan"](["timeline"], results, tmp_path, rerun=True)) == 2


def test_figs_command_and_missing_data(store, tmp_path, capsys):
    from mpx.errors import ConfigError
    from mpx.figures import draw
    from mpx.experiment.store import ResultsStore

    assert main(["figs", str(store), "timeline", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "timeline.png").is_file()
    from mpx.experiment.kinds import declared_tables

    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="no scaler scores"):
        st.declare(declared_tables())  # as mpx run does: every kind's tables, no rows
        draw(st, ["scaler_per_workload"], tmp_path)
    with ResultsStore(tmp_path / "empty.sqlite") as st, pytest.raises(ConfigError, match="unknown figure"):
        draw(st, ["nosuch"], tmp_path)


def test_a_method_keeps_its_look_in_every_figure():
    from mpx.figures.style import COLORS, METHODS, hatch, look
    from mpx.scalers import REGISTRY

    looks = [(look(m)["color"], look(m)["marker"], str(look(m)["linestyle"]), hatch(m)) for m in METHODS]
    assert len(set(looks)) == len(METHODS)  # told apart
    assert all(c != "#000000" for c, *_ in looks)  # black is the truth's
    assert look("my_scaler") == look("my_scaler") and look("linear") != look("my_scaler")
    assert set(METHODS) == set(COLORS) <= set(REGISTRY.builtin)  # fixed entries name built-ins only
    # every built-in its own colour, fixed or (one added later) from the palette no fixed one uses; plugins
    # installed or not
    assert len({look(m)["color"] for m in REGISTRY.builtin}) == len(REGISTRY.builtin)
    for part in ("color", "marker"):  # no two methods share a colour, nor a marker
        assert len({look(m)[part] for m in METHODS}) == len(METHODS), part
    assert len({hatch(m) for m in METHODS}) == len(METHODS)  # nor a bar hatch
    for name in ("lim_scaler", "my_scaler", "another_one", "x"):  # a method added later: a colour of no fixed one
        assert look(name)["color"] not in COLORS.values()


def _layout_problems(fig) -> list[str]:
    from mpx.figures.style import MAX_HEIGHT, WIDTH
    from tests.figures.layout import outside, overlaps

    w, h = fig.get_size_inches()
    out = [] if abs(w - WIDTH) < 1e-9 and h <= MAX_HEIGHT + 1e-9 else [f"size {w:.2f} x {h:.2f} in"]
    out += [f"overlap: {a[:40]!r} / {b[:40]!r}" for a, b in overlaps(fig)]
    out += [f"outside the figure: {t[:40]!r}" for t in outside(fig)]
    return out


@pytest.mark.parametrize("name", FIGURES + ["timeline_gem5"])
def test_every_figure_is_page_sized_and_its_labels_do_not_overlap(name, store, gem5_store):
    """Drawn as saved: the text width wide (saved at exactly that width), at most a page tall, and no text
    over another or past the figure's edge (matplotlib's extents of every title, label, tick label, legend
    entry, table cell and caption)."""
    import io

    import matplotlib.pyplot as plt

    from mpx.figures import get
    from mpx.figures.style import WIDTH, style
    from mpx.experiment.store import ResultsStore

    style()
    path = gem5_store if name in GEM5_FIGURES or name == "timeline_gem5" else store
    with ResultsStore(path / "results.sqlite") as st:
        fig = get(name.replace("_gem5", "") if name == "timeline_gem5" else name).draw(st, None)
    assert _layout_problems(fig) == [], name
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    assert int.from_bytes(buf.getvalue()[16:20], "big") == round(WIDTH * 100)  # saved as wide as stated
    plt.close(fig)


def test_trace_views_are_page_sized_and_readable():
    import matplotlib.pyplot as plt

    from tests.figures.test_trace_view import vector_trace
    from mpx.figures.trace_view import breakdown, heatmap, timeline

    t = vector_trace()
    for fig in (timeline(t, ["cpu.inst::IntAlu", "cycles"]), breakdown(t, "cpu.inst::*", bins=10),
                heatmap(t, "bank::*", bins=10)):
        assert _layout_problems(fig) == []
    plt.close("all")


def test_gem5_figures_draw_gem5_data_only(store, gem5_store):
    """scaler_per_workload_gem5 is never a copy of the callgrind figure: each draws its own workloads and
    refuses a store without them; the gem5 timeline names events by the catalog's alias, time in µs."""
    from mpx.errors import ConfigError
    from mpx.figures import get
    from mpx.figures.style import style
    from mpx.experiment.store import ResultsStore

    style()
    with ResultsStore(store / "results.sqlite") as st, pytest.raises(ConfigError, match="no scaler scores on gem5"):
        get("scaler_per_workload_gem5").draw(st, None)
    with ResultsStore(gem5_store / "results.sqlite") as st:
        with pytest.raises(ConfigError, match="no scaler scores on callgrind"):
            get("scaler_per_workload").draw(st, None)
        fig = get("scaler_per_workload_gem5").draw(st, None)
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["phases"]  # gem5-phases
        assert fig.axes[0].get_ylabel() == "WAPE, all windows (%)"
        fig = get("timeline").draw(st, None)
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles[0].startswith("branch_misses on gem5-phases") and titles[1].startswith("L1_dcache_misses on")
    assert fig.axes[-1].get_xlabel() == "position in the run (µs)"
    assert "L1_dcache_misses = system.cpu.dcache.demandMisses::total" in " ".join(t.get_text().replace("\n", " ")
                                                                             for t in fig.texts)


def test_scaler_per_workload_ranks_as_the_report(store):
    """Bars in the order of mpx report's ranking: the mean over workloads of WAPE on all windows."""
    from mpx.figures import get
    from mpx.figures.data import scores
    from mpx.figures.slices import hold
    from mpx.figures.style import style
    from mpx.experiment.store import ResultsStore

    style()
    with ResultsStore(store / "results.sqlite") as st:
        fig = get("scaler_per_workload").draw(st, None)
        rows = hold(scores(st, None)).rows
    means = rows.groupby("scaler")["wape_all"].mean().sort_values()
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(means.index)
    assert fig.axes[0].get_ylabel() == "WAPE, all windows (%)"


@pytest.mark.slow
def test_figs_without_names_draws_what_the_data_supports(store, tmp_path, capsys):
    from mpx.figures import REGISTRY, draw_supported
    from mpx.experiment.store import ResultsStore

    available = REGISTRY.installed
    with ResultsStore(tmp_path / "empty.sqlite") as st:
        written, skipped = draw_supported(st, tmp_path / "none")
    assert written == [] and list(skipped) == available()  # installed figures too: `mpx figs` draws those
    assert main(["figs", str(store), "--out", str(tmp_path / "all")]) == 0
    drawn = {p.stem for p in (tmp_path / "all").glob("*.pdf")}
    assert drawn and drawn <= set(available())
    err = capsys.readouterr().err
    assert all(f"skipped {n}:" in err for n in set(available()) - drawn)


@pytest.mark.parametrize("name", [n for n in FIGURES if n != "partitioner_vs_kahypar" and n not in GEM5_FIGURES])
def test_every_figure_names_its_slice(name, store):
    """The store swept read_every (5, 10): every figure but the read-window one holds it and says so."""
    from mpx.figures import get
    from mpx.figures.style import style
    from mpx.experiment.store import ResultsStore

    style()
    with ResultsStore(store / "results.sqlite") as st:
        fig = get(name).draw(st, None)
    text = " ".join(" ".join(t.get_text().split()) for t in fig.texts)
    assert "Slice:" in text, name
    if name != "error_vs_read_window":
        assert "read every 5 quanta (also in the data, not shown: 10)" in text, name
