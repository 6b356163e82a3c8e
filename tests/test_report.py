"""`mpx.report` and `mpx.compare`: the ranking rules — winner, runner-up, the baseline pair, paired intervals,
the ranking under each measure — on hand-made score rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mpx.compare import measure_intervals, ranking_stability
from mpx.report import LINUX_DEFAULT, rank_pairs, winner_text


def _rows(pairs, workloads=("a", "b", "c")):
    """Score rows: per pair (headline error per workload, coverage)."""
    rows = []
    for (sched, scaler), (errs, cov) in pairs.items():
        for wl, err in zip(workloads, errs):
            rows.append({"scheduler": sched, "scaler": scaler, "workload": wl, "seed": 0, "causal": True,
                         "wape_all": err, "coverage_all": cov, "wape_ran": err / 2, "mdape_all": err * 2,
                         "mape_all": err, "lnq_all": err, "coverage_ran": 1.0})
    return pd.DataFrame(rows)


def test_winner_runner_up_and_the_linux_default_baseline():
    ok = _rows({("hypergraph", "fusion"): ((0.10, 0.10, 0.10), 1.0), ("perf", "dira"): ((0.15, 0.15, 0.15), 1.0),
                ("perf", "linear"): ((0.20, 0.30, 0.40), 0.8), ("tintin", "cam"): ((0.05, float("nan"), 0.05), 1.0)})
    pairs = rank_pairs(ok)
    assert list(pairs.index[pairs["complete"]]) == [("hypergraph", "fusion"), ("perf", "dira"), ("perf", "linear")]
    assert pairs.loc[("perf", "linear"), "error"] == pytest.approx(0.30)  # mean over workloads
    lines = winner_text(ok).splitlines()
    assert lines[0] == ("winner by the headline measure (WAPE on all windows): hypergraph + fusion, 10.00% "
                        "(95% interval [10.00, 10.00])")
    assert lines[1].startswith("runner-up: perf + dira: 15.00% (1.50x the winner's error, 95% interval [1.50, 1.50]")
    assert LINUX_DEFAULT == ("perf", "linear")
    # a ratio interval from paired resamples of the three workloads: between 2x and 4x, coverage stated
    assert lines[2].startswith("Linux default (perf + linear): 30.00% (3.00x the winner's error, 95% interval [2.")
    assert "80.0% of event-windows with a value, the rest charged as 0" in lines[2]
    assert lines[3] == "not ranked: 1 pair(s) without a value on every workload: tintin + cam"
    other = winner_text(ok, baseline=("perf", "dira"))
    assert "baseline (perf + dira): 15.00%" in other and "Linux default" not in other
    assert winner_text(ok.drop(columns="wape_all")) is None  # a store recorded before the measures


def test_intervals_are_paired_and_the_ranking_stability_is_measured():
    ok = _rows({("perf", "linear"): ((0.2, 0.4, 0.6), 0.8), ("perf", "dcam"): ((0.1, 0.3, 0.5), 1.0)})
    iv = measure_intervals(ok, sets=("all",), measures=("wape",))
    assert iv.loc["linear", ("all", "wape", "mean")] == pytest.approx(0.4)
    assert iv.loc["linear", ("all", "coverage", "mean")] == pytest.approx(0.8)
    lo, hi = iv.loc["linear", ("all", "wape", "lo")], iv.loc["linear", ("all", "wape", "hi")]
    assert 0.2 <= lo < 0.4 < hi <= 0.6
    # paired: the same resamples for both, so dcam's interval is linear's shifted by exactly 0.1
    assert iv.loc["dcam", ("all", "wape", "lo")] == pytest.approx(lo - 0.1)
    st = ranking_stability(ok, sets=("all",))
    assert st.loc["dcam", "wape_all"] == 1 and st.loc["linear", "wape_all"] == 2
    assert st.loc["dcam", "p_best"] == 1.0  # better on every workload: best in every resample
    assert st.loc["kendall_tau", "wape_all"] == pytest.approx(1.0)
    flipped = ok.assign(mdape_all=np.where(ok["scaler"] == "dcam", 0.9, 0.1))
    assert ranking_stability(flipped, sets=("all",)).loc["kendall_tau", "mdape_all"] == pytest.approx(-1.0)


def test_a_swept_setting_is_never_pooled_in_the_summary(tmp_path):
    from mpx.cli import main
    from mpx.report import summary_text
    from mpx.results import ResultsStore
    from tests._exp_helpers import write_config

    cfg = write_config(tmp_path, extra='[sweep]\n"multiplex.read_every" = [3, 6]\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    with ResultsStore(tmp_path / "r" / "results.sqlite") as st:
        lines = summary_text(st, wide_dir=tmp_path / "tables").splitlines()
        wide = summary_text(st, width=None)
    assert max(len(line) for line in lines) <= 120  # the terminal's width (issue 27); wide tables in files
    flat = " ".join(" ".join(lines).split())
    written = [w.split(" beside the results store")[0].strip() for w in flat.split("written to ")[1:]]
    assert len(written) == len(set(written)) == len(list((tmp_path / "tables").iterdir())) > 0
    for w in written:
        assert (tmp_path / w).read_text().splitlines()[2] in wide  # the table as --wide prints it
    text = " ".join(lines)  # sentences wrapped at 120 columns: compared as one line
    text = " ".join(text.split())
    for v in (3, 6):  # one winner and one scalers table per swept value, each saying which
        assert f"== [read_every = {v}]" in text and f"scalers (medians over cells) [read_every = {v}]" in text
    assert text.count("winner by the headline measure") == 2
    # each says its regime: 6 events on 2 counters rotate in 6 quanta under perf
    assert "regime: a read every 3 quanta, perf's rotation 6 quanta (read window = 0.50 rotations: shorter" in text
    assert "regime: a read every 6 quanta, perf's rotation 6 quanta (read window = 1.00 rotations: at least" in text
    assert "scalers on common windows, scheduler perf; the other 1 schedulers: csv/scores.csv [read_every = 3]" in text


def test_the_headline_comparison_never_pools_a_swept_read_window():
    from mpx.compare import headline

    rows = []
    for read_every, gain in ((10, 0.5), (25, 1.0)):
        for wl in ("a", "b"):
            for scaler, err in (("new", 0.2 * gain), ("linear", 0.2)):
                rows.append({"scheduler": "perf", "counters": 4, "read_every": read_every, "workload": wl,
                             "scaler": scaler, "causal": True, "wape_all": err})
    h = headline(pd.DataFrame(rows), ["new"]).set_index("read_every")
    assert list(h.index) == [10, 25]  # one comparison per regime, not one pooled ratio of 0.75
    assert h.loc[10, "ratio"] == pytest.approx(0.5) and h.loc[25, "ratio"] == pytest.approx(1.0)


LONG_REASON = ("this scaler cannot estimate these events because every one of them would need a second reading "
               "of the counters in the same window, which the replay never provides; give it another problem")


def _refusing_class():
    from mpx.errors import ConfigError
    from mpx.scalers.linear import LinearScaler

    class Refusing(LinearScaler):
        name = "refusing"

        def _estimate(self, observation):
            raise ConfigError(LONG_REASON)

    return Refusing


def test_report_keeps_skip_reasons_whole_and_prints_run_times_as_dates(tmp_path, capsys):
    # issue 17: reasons were cut at 110 characters mid sentence (terminal and LaTeX); --runs printed 1.795604e+09
    import re

    from mpx import scalers
    from mpx.cli import main
    from tests._exp_helpers import write_config

    scalers.register("refusing", _refusing_class())
    try:
        cfg = write_config(tmp_path)
        cfg.write_text(cfg.read_text().replace('use = ["linear", "dira"]', 'use = ["linear", "refusing"]')
                       .replace('use = ["perf", "round_robin"]', 'use = ["perf"]'))
        out = tmp_path / "r"
        assert main(["run", str(cfg), "--out", str(out), "--no-progress", "--no-figures"]) == 0
    finally:
        scalers.unregister("refusing")
    capsys.readouterr()
    reason = f"ConfigError: {LONG_REASON}"
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    block = text[text.index("== scalers skipped or failed"):].split("\n\n")[0]
    assert max(len(ln) for ln in block.splitlines()) <= 110 and reason in " ".join(block.split())
    assert main(["report", str(out), "--latex"]) == 0
    latex = capsys.readouterr().out
    assert LONG_REASON in latex and r"p{0.45\linewidth}" in latex
    assert main(["report", str(out), "--runs"]) == 0
    runs = capsys.readouterr().out
    assert "started (UTC)" in runs and "e+09" not in runs
    assert re.search(r"\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\b", runs)


def test_event_class_counts_add_up_to_the_events():
    """Issue 27: an event is classed per workload, so counting event names per class counted one event
    in two classes; the counts are (workload, event) pairs and add up, never-counting ones said apart."""
    import pandas as pd

    from mpx.measures import HEADLINE_COLUMN
    from mpx.report import event_class_tables

    rows = []
    for w, classes in (("w1", {"a": "steady", "b": "bursty", "c": "zero"}), ("w2", {"a": "bursty", "b": "bursty",
                                                                                 "c": "variable"})):
        for ev, cls in classes.items():
            for sc in ("linear", "dcam"):
                rows.append({"workload": w, "event": ev, "event_class": cls, "scaler": sc, HEADLINE_COLUMN: 0.1})
    (title, table), = event_class_tables(pd.DataFrame(rows)).items()
    assert list(table.columns) == ["bursty (3)", "steady (1)", "variable (1)"]
    assert "workload x event pairs of each, 6 in all; 1 never counting, left out" in title


def test_implausible_metric_errors_are_explained_in_place():
    """Issue 27: a metric MAPE of 18266.2 % [15.6, 54754.8] came with no word; a near-zero true metric
    makes a relative error explode, and the table says so where it happens."""
    from mpx.report import protocol_tables

    ok = _rows({("perf", "linear"): ((0.2, 0.4, 0.6), 0.8), ("perf", "dcam"): ((0.1, 0.3, 0.5), 1.0)})
    for s in ("all", "ran"):
        ok[f"metric_mape_{s}"] = np.where(ok["scaler"] == "dcam", 180.0, 0.3)
        ok[f"metric_wape_{s}"] = ok[f"metric_mdape_{s}"] = 0.2
        ok[f"metric_coverage_{s}"] = 1.0
    tables = protocol_tables(ok)
    (title, t), = [(k, v) for k, v in tables.items() if k.startswith("metrics on common")]
    assert "* over 1,000 %: the true metric is near zero in some windows" in title
    assert t.loc["dcam", "mape all"].endswith(" *") and not t.loc["linear", "mape all"].endswith("*")
    assert not t.loc["dcam", "mdape all"].endswith("*")
    ranks = next(v for k, v in tables.items() if k.startswith("ranking under"))
    assert set(ranks.loc["dcam"].drop("best in % of resamples")) <= {"1", "2"}  # whole ranks, one format
    assert all(len(v.split(".")[1]) == 2 for v in ranks.loc["kendall_tau"].drop("best in % of resamples"))
