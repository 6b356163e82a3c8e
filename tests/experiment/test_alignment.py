"""``kind = "alignment"``: rows of both roads on a toy run set; the truth is the reference run's own trace."""

from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.errors import ConfigError
from mpx.recording.runset import RunSet
from mpx.trace import Trace

EVENTS = ("Ir", "a", "b", "c", "d", "e")

CONFIG = """
[experiment]
name = "atiny"
kind = "alignment"

[data]
runsets = ["toy.runs"]

[hardware]
pmu = "generic-N"
counters = 3
events = ["Ir", "a", "b", "c", "d", "e"]

[multiplex]
quantum_intervals = 1
read_every = 2

[alignment]
anchors = ["time", "Ir"]
aligners = ["naive", "dtw"]
scalers = ["linear"]
references = {refs}
"""


def trace(seed: int, n: int) -> Trace:
    rng = np.random.default_rng(seed)
    phase = (np.arange(n) // 15) % 2
    counts = np.stack([np.full(n, 1000.0)] + [rng.poisson(50 + 100 * phase * (k + 1)) for k in range(5)], axis=1)
    return Trace(EVENTS, counts.astype(float), np.arange(n + 1) * 1000.0, "cycles", meta={"workload": "toy"})


def setup(tmp: Path, traces, refs="[0]") -> Path:
    RunSet("toy", tuple(traces), tuple({"run": i} for i in range(len(traces)))).save(tmp / "toy.runs")
    cfg = tmp / "atiny.toml"
    cfg.write_text(CONFIG.format(refs=refs))
    return cfg


def rows(out: Path):
    from mpx.experiment.store import open_store

    with open_store(out) as st:
        return st.table("alignment")


@pytest.fixture(autouse=True)
def _pin_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


def test_identical_runs_align_exactly_and_both_roads_are_scored(tmp_path):
    cfg = setup(tmp_path, [trace(0, 60)] * 3)
    assert main(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress", "--no-figures"]) == 0
    r = rows(tmp_path / "o")
    assert {"multiplex", "multiplex_runs", "alignment", "floor"} <= set(r["road"])
    al = r[(r["road"] == "alignment") & (r["status"] == "done")]
    assert set(al["method"]) == {"naive", "dtw"} and (al["wape_all"].abs() < 1e-12).all()
    # dtw on the time axis is refused with the reason, not scored
    sk = r[(r["method"] == "dtw") & (r["anchor"] == "time")]
    assert list(sk["status"]) == ["skipped"] and "rate" in sk["reason"].iloc[0]
    # cost: the alignment plan's run count in reference lengths; one run for multiplexing
    assert (al["cost"] == al["runs"]).all() and (r[r["road"] == "multiplex"]["cost"] == 1).all()
    # the report's verdict table and the figure read these rows
    from mpx.figures import draw
    from mpx.studies.report import summary_text
    from mpx.experiment.store import open_store

    with open_store(tmp_path / "o") as st:
        text = summary_text(st, width=None)  # every table printed (mpx report --wide)
        assert "alignment vs multiplexing: the best method of each road" in text and "dtw@Ir" in text
        assert [p.name for p in draw(st, ["alignment_frontier"], tmp_path / "f")] == [
            "alignment_frontier.pdf", "alignment_frontier.png"]
        from mpx.figures import get
        from tests.figures.test_figures import _layout_problems

        assert _layout_problems(get("alignment_frontier").draw(st, None)) == []  # page-sized, labels apart


def test_the_truth_is_the_reference_runs_own_trace(tmp_path):
    # run 1 is longer (80 intervals): with reference 1 every row is scored on its 40 read windows
    cfg = setup(tmp_path, [trace(0, 60), trace(1, 80), trace(2, 60)], refs="[0, 1]")
    assert main(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress", "--no-figures"]) == 0
    r = rows(tmp_path / "o")
    done = r[r["status"] == "done"]
    assert set(done[done["reference"] == 0]["n_windows"]) == {30}
    assert set(done[done["reference"] == 1]["n_windows"]) == {40}


def test_config_errors(tmp_path):
    from mpx.experiment import load_config
    from mpx.experiment.alignment import AlignmentKind

    cfg = setup(tmp_path, [trace(0, 60)] * 2, refs="[5]")
    with pytest.raises(ConfigError, match="references: 5 is not a run"):
        AlignmentKind().cells(load_config(cfg))
    cfg.write_text(cfg.read_text().replace('scalers = ["linear"]', 'scalers = ["fusion"]'))
    with pytest.raises(ConfigError, match="'fusion' is learned"):
        load_config(cfg)


def test_a_swept_synthetic_variation_is_never_pooled(tmp_path):
    cfg = setup(tmp_path, [trace(0, 60)] * 3)
    text = cfg.read_text().replace('runsets = ["toy.runs"]',
                                   'synthetic = {from = "toy.runs", runs = 3, rate_noise = 0.0}')
    cfg.write_text(text + '\n[sweep]\n"data.synthetic.rate_noise" = [0.0, 0.3]\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress", "--no-figures"]) == 0
    from mpx.experiment.alignment import alignment_tables

    best = alignment_tables(rows(tmp_path / "o"))
    table = next(iter(best.values()))
    assert "synthetic_rate_noise" in table.index.names and len(table) == 2
    # no variation: the copies are the run, alignment is exact; noise makes it err
    assert table["align %"].tolist()[0] == 0.0 and table["align %"].tolist()[1] > 0


def test_aligned_truth_is_another_run_aligned_onto_the_reference(tmp_path):
    """BayesPerf's protocol: identical runs give the same scores as the run's own truth; different runs do not."""
    for name, traces in (("same", [trace(0, 60)] * 2), ("other", [trace(0, 60), trace(5, 60)])):
        d = tmp_path / name
        d.mkdir()
        cfg = setup(d, traces)
        cfg.write_text(cfg.read_text().replace('references = [0]', 'references = [0]\naligned_truth = "Ir"'))
        assert main(["run", str(cfg), "--out", str(d / "o"), "--no-progress", "--no-figures"]) == 0
        r = rows(d / "o")
        own = r[r["road"] == "multiplex"].set_index("method")["wape_all"].astype(float)
        sep = r[r["road"] == "multiplex_vs_aligned"].set_index("method")["wape_all"].astype(float)
        if name == "same":
            assert np.allclose(own, sep)
        else:
            assert not np.allclose(own, sep)


def test_aligner_parameters_are_settings_never_pooled(tmp_path):
    cfg = setup(tmp_path, [trace(0, 60), trace(3, 60)])
    text = cfg.read_text().replace('references = [0]', 'references = [0]\nparams = {dtw = {band = 0.1}}')
    cfg.write_text(text + '\n[sweep]\n"alignment.params.dtw.band" = [0.05, 0.5]\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "o"), "--no-progress", "--no-figures"]) == 0
    r = rows(tmp_path / "o")
    assert set(r["alignment_params"]) == {'{"dtw": {"band": 0.05}}', '{"dtw": {"band": 0.5}}'}
    from mpx.experiment.alignment import alignment_tables

    assert "alignment_params" in next(iter(alignment_tables(r).values())).index.names
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("band = 0.1", "band = 7"))
    from mpx.experiment import load_config

    with pytest.raises(ConfigError, match="band"):
        load_config(bad)
