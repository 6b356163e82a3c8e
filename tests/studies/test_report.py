"""`mpx.studies.report` and `mpx.studies.compare`: the ranking rules — winner, runner-up, the baseline pair, paired intervals,
the ranking under each measure — on hand-made score rows."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from mpx.studies.compare import floored_rows, hard_share, measure_intervals, ranking_stability, select_best
from mpx.studies.report import LINUX_DEFAULT, rank_pairs, winner_text


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
                        "(95% interval [10.00, 10.00]); each of the other 2 pairs is worse with simultaneous 95% "
                        "confidence")
    assert lines[1].startswith("the choice, redone in each of 2000 resamples of the 3 workloads: hypergraph + fusion "
                               "lowest in 100.0% of them;")
    assert lines[2].startswith("runner-up: perf + dira: 15.00% (1.50x the lowest error, 95% interval [1.50, 1.50]")
    assert LINUX_DEFAULT == ("perf", "linear")
    # a ratio interval from paired resamples of the three workloads: between 2x and 4x, coverage stated
    assert lines[3].startswith("Linux default (perf + linear): 30.00% (3.00x the lowest error, 95% interval [2.")
    assert "80.0% of event-windows with a value, the rest charged as 0" in lines[3]
    assert lines[4] == "not ranked: 1 pair(s) without a value on every workload: tintin + cam"
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
    from mpx.studies.report import summary_text
    from mpx.experiment.store import ResultsStore
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
    from mpx.studies.compare import headline

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


# -- issue 28: the floor, the hard events, the selection; issue 27: a partial store says so ------------------

def _events(cells):
    """``events`` rows: per (cell, scaler) a list of (event, median_true, wape_all)."""
    return pd.DataFrame([{"cell_key": c, "workload": wl, "seed": 0, "scheduler": sch, "scaler": sc, "event": e,
                          "median_true": m, "wape_all": w}
                         for (c, wl, sch, sc), evs in cells.items() for e, m, w in evs])


def test_the_floored_headline_keeps_only_events_that_carry_counts():
    ev = _events({("k1", "a", "perf", "linear"): [("big", 50.0, 0.2), ("rare", 0.0, 9.0), ("edge", 1.0, 0.4)],
                  ("k1", "a", "perf", "dcam"): [("big", 50.0, 0.1), ("rare", 0.0, 1.0), ("edge", 1.0, 0.3)],
                  ("k2", "b", "perf", "linear"): [("rare", 0.5, 2.0), ("nan", 3.0, float("nan"))]})
    ok = pd.DataFrame([{"cell_key": c, "workload": wl, "scheduler": "perf", "scaler": sc, "seed": 0}
                       for c, wl in (("k1", "a"), ("k2", "b")) for sc in ("linear", "dcam")])
    fl = floored_rows(ok, ev).set_index(["cell_key", "scaler"])
    # median read-window count >= 1 keeps `big` and `edge` (the floor is inclusive), never `rare`
    assert fl.loc[("k1", "linear"), "wape_all_floored"] == pytest.approx((0.2 + 0.4) / 2)
    assert fl.loc[("k1", "dcam"), "wape_all_floored"] == pytest.approx((0.1 + 0.3) / 2)
    assert fl.loc[("k1", "linear"), "events_floored"] == 2 and fl.loc[("k1", "linear"), "events_scored"] == 3
    # a cell whose only scored event is under the floor has no floored headline (NaN, 0 events), not 0 %
    assert np.isnan(fl.loc[("k2", "linear"), "wape_all_floored"]) and fl.loc[("k2", "linear"), "events_floored"] == 0
    # rows recorded before median_true existed: no floored number rather than a wrong one
    assert floored_rows(ok, ev.drop(columns="median_true"))["wape_all_floored"].isna().all()


def test_the_hard_events_share_of_the_headline():
    # event h is >= 80 % wrong for every scaler of its cell: hard; event m is not (dcam gets it)
    ev = _events({("k1", "a", "perf", "linear"): [("e", 1, 0.1), ("h", 1, 0.9), ("m", 1, 1.0)],
                  ("k1", "a", "perf", "dcam"): [("e", 1, 0.2), ("h", 1, 3.0), ("m", 1, 0.5)],
                  ("k2", "b", "perf", "linear"): [("e", 1, 0.3), ("h", 1, 0.1)],
                  ("k2", "b", "perf", "dcam"): [("e", 1, 0.3), ("h", 1, 0.2)]})
    hs = hard_share(ev)
    # linear: headline = mean over workloads of (0.1+0.9+1.0)/3 and (0.3+0.1)/2; h carries 0.9/3 of workload a
    assert hs.loc[("perf", "linear"), "share"] == pytest.approx((0.9 / 3 / 2) / ((2.0 / 3 + 0.2) / 2))
    assert hs.loc[("perf", "dcam"), "share"] == pytest.approx((3.0 / 3 / 2) / ((3.7 / 3 + 0.25) / 2))
    assert hs.loc[("perf", "linear"), "hard_pairs"] == 1 and hs.loc[("perf", "linear"), "pairs"] == 5


def test_the_winner_accounts_for_choosing_among_many_pairs():
    rng = np.random.default_rng(1)
    base = rng.uniform(0.1, 0.5, 8)
    # 30 pairs that are the same method up to noise, and one clearly better: the noisy ones tie with each
    # other, the better one wins outright
    per = pd.DataFrame({f"w{i}": base[i] * (1 + 0.05 * rng.standard_normal(30)) for i in range(8)},
                       index=[f"same{j}" for j in range(30)])
    sel = select_best(per)
    assert sel["best"] in sel["rows"].index and len(sel["tied"]) >= 5
    rows = sel["rows"]
    assert rows["p_best"].sum() == pytest.approx(1.0) and rows.loc[sel["best"], "p_best"] < 0.9
    # the simultaneous bound is below every pair's own paired bound: it allows for the many comparisons
    varied = rows.drop(index=sel["best"])
    assert (varied["ratio_simul"] <= varied["ratio_lo"] + 1e-12).all()
    assert (varied["ratio_simul"] < varied["ratio_lo"]).any()
    # the re-selected lowest, judged on the workloads its resample left out, is no better than it looked
    assert sel["oob"] >= sel["apparent"] - 1e-12
    better = pd.concat([per, pd.DataFrame({c: [0.5 * per[c].min()] for c in per.columns}, index=["better"])])
    sel2 = select_best(better)
    assert sel2["best"] == "better" and sel2["tied"] == []
    assert sel2["rows"].loc["better", "p_best"] == pytest.approx(1.0)
    # a row missing a workload is not ranked
    assert "same0" not in select_best(per.assign(w0=[np.nan] + list(per["w0"][1:])))["rows"].index


def test_winner_text_says_tied_when_the_runner_up_cannot_be_separated():
    ok = _rows({("a", "x"): ((0.10, 0.20, 0.30, 0.12), 1.0), ("a", "y"): ((0.11, 0.19, 0.33, 0.12), 1.0),
                ("perf", "linear"): ((0.40, 0.50, 0.60, 0.45), 1.0)}, workloads="abcd")
    lines = winner_text(ok).splitlines()
    assert lines[0].startswith("no single winner by the headline measure (WAPE on all windows): lowest a + x, 18.00%")
    assert "tied with 1 of the other 2 pairs" in lines[0] and "a + y (1.04x" in lines[0]
    assert "winner" not in lines[0].replace("no single winner", "")
    assert lines[2].startswith("runner-up: a + y: 18.75% (1.04x the lowest error") and lines[2].endswith("tied)")
    assert "simultaneous lower bound" in lines[3] and "separated" in lines[3]


def test_winner_text_with_events_prints_the_floored_headline_and_the_hard_share():
    ok = _rows({("perf", "dcam"): ((0.10, 0.20, 0.30), 1.0), ("perf", "linear"): ((0.40, 0.50, 0.60), 1.0)})
    ok["cell_key"] = ok["workload"]
    ev = _events({(wl, wl, "perf", sc): [("big", 9.0, err), ("rare", 0.1, 0.9 if sc == "dcam" else 2.0)]
                  for sc, errs in (("dcam", (0.1, 0.2, 0.3)), ("linear", (0.4, 0.5, 0.6)))
                  for wl, err in zip("abc", errs)})
    text = winner_text(ok, events=ev)
    assert "the headline on events that carry counts (median true read-window count >= 1: 1.0 of 2.0 events" in text
    assert "on events that carry counts: perf + dcam 20.00% (all events 20.00%); perf + linear 50.00%" in text
    # rare is >= 80 % wrong for both scalers in every workload: 3 of 6 pairs, its part of each headline
    assert "hard events (every scaler >= 80% wrong on it): 3 of 6 (workload, event) pairs under perf" in text
    assert f"perf + dcam {100 * 0.9 / (0.9 + 0.2):.1f}%" in text


def test_report_of_an_interrupted_store_says_so_first(tmp_path, capsys):
    import sqlite3

    from mpx.cli import main
    from tests._exp_helpers import write_config

    cfg = write_config(tmp_path)
    out = tmp_path / "r"
    assert main(["run", str(cfg), "--out", str(out), "--no-progress", "--no-figures"]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "INCOMPLETE" not in capsys.readouterr().out
    with sqlite3.connect(out / "results.sqlite") as con:  # as a kill leaves it: one cell never written
        key = con.execute("select key from cells where status = 'done' limit 1").fetchone()[0]
        for table, col in (("cells", "key"), ("scores", "cell_key"), ("events", "cell_key"),
                           ("metrics", "cell_key"), ("schedule", "cell_key"), ("series", "cell_key"),
                           ("cell_checksums", "cell_key")):  # a kill leaves no checksum either
            con.execute(f"delete from {table} where {col} = ?", (key,))
        con.execute("update runs set status = 'interrupted', finished = null")
        n = con.execute("select n_cells from runs").fetchone()[0]
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out.strip()
    assert text.splitlines()[0].startswith("INCOMPLETE STORE: run 1 of ")
    assert f"is interrupted: {n - 1} of {n} cells stored, 1 missing" in text.splitlines()[0]
    assert "PARTIAL RESULTS: run 1 of " in text


def test_event_class_counts_add_up_to_the_events():
    """Issue 27: an event is classed per workload, so counting event names per class counted one event
    in two classes; the counts are (workload, event) pairs and add up, never-counting ones said apart."""
    import pandas as pd

    from mpx.scoring.measures import HEADLINE_COLUMN
    from mpx.studies.report import event_class_tables

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
    from mpx.studies.report import protocol_tables

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


def test_the_report_prints_the_top_down_verdicts_per_scaler_and_scheduler():
    """Issue 26: the verdict columns of the score rows reach `mpx report` (hand-made rows: two workloads, the
    means and the interval worked by hand), and a catalog without a hierarchy (callgrind: None) adds nothing."""
    from mpx.studies.report import verdict_tables

    rows = []
    for w, (a, b) in {"w1": (0.9, 0.5), "w2": (0.7, 0.3)}.items():
        for sched, shift in (("perf", 0.0), ("round_robin", 0.1)):
            for scaler, v in (("dcam", a), ("linear", b)):
                rows.append({"workload": w, "scheduler": sched, "scaler": scaler, "seed": 0, "status": "done",
                             "verdict_l1_agreement": v + shift, "verdict_l2_agreement": v / 2,
                             "verdict_l1_serious": 0.1, "verdict_no_verdict": 0.0, "verdict_out_of_range": 0.0,
                             "verdict_out_of_range_true": 0.0, "verdict_run_l1": 1.0 if w == "w1" else 0.0,
                             "verdict_run_l2": None})
    ok = pd.DataFrame(rows)
    tables = verdict_tables(ok)
    (matrix_title, matrix), (detail_title, detail) = tables.items()
    assert "scaler x scheduler" in matrix_title and "scheduler perf" in detail_title
    assert matrix.loc["dcam", "perf"] == pytest.approx(80.0)
    assert matrix.loc["linear", "round_robin"] == pytest.approx(50.0)
    assert list(matrix.index) == ["dcam", "linear"]  # best first
    assert detail.loc["dcam", "L1 %"] == pytest.approx(80.0) and detail.loc["dcam", "L2 %"] == pytest.approx(40.0)
    assert detail.loc["dcam", "run L1 %"] == pytest.approx(50.0)
    assert detail.loc["dcam", "95% CI"] == "[70.0, 90.0]"  # resamples of two workloads: w2 twice .. w1 twice
    # a swept setting gets its own tables; no hierarchy, no tables
    swept = pd.concat([ok.assign(read_every=10), ok.assign(read_every=25)])
    assert sum("read_every = 25" in t for t in verdict_tables(swept)) == 2
    assert verdict_tables(ok.assign(verdict_l1_agreement=None)) == {}


def test_the_verdict_table_shows_the_constant_verdict_and_contested_windows():
    """Issue 34: the constant verdict (a row's whole-run verdict in every window) and the contested windows reach
    the report's verdict table beside the per-window agreement."""
    from mpx.studies.report import verdict_tables

    rows = [{"workload": w, "scheduler": "perf", "scaler": s, "seed": 0, "status": "done",
             "verdict_l1_agreement": v, "verdict_contested_share": 0.2, "verdict_l1_contested": c,
             "verdict_const_l1": 0.8, "verdict_const_l1_contested": 0.5}
            for w in ("w1", "w2") for s, v, c in (("dcam", 0.9, 0.7), ("linear", 0.0, 0.0))]
    (_, _), (_, _), (title, detail) = verdict_tables(pd.DataFrame(rows)).items()
    assert "constant verdict" in title and "contested" in title
    assert detail.loc[("perf", "dcam"), "L1 contested %"] == pytest.approx(70.0)
    assert detail.loc[("perf", "linear"), "constant L1 %"] == pytest.approx(80.0)
    assert detail.loc[("perf", "linear"), "constant contested %"] == pytest.approx(50.0)
    assert detail.loc[("perf", "dcam"), "contested %"] == pytest.approx(20.0)
