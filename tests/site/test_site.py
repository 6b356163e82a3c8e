"""``mpx site``: the pages, their links, and every leaderboard number against the store (no browser: the
pages are read back with the standard library's parser; `test_browser` renders them)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.site._parse import board, broken_links


def _store_means(store: Path) -> dict[tuple, float]:
    """The headline measure per (experiment, settings text, scheduler, scaler) computed straight from the
    SQLite rows, not through mpx: the mean over workloads of the mean over seeds of ``wape_all``."""
    con = sqlite3.connect(store / "results.sqlite")
    rows = con.execute("SELECT experiment, read_every, quantum_intervals, scheduler, scaler, workload, seed, wape_all "
                       "FROM scores WHERE status = 'done'").fetchall()
    con.close()
    per: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for exp, read, qi, sched, scaler, workload, seed, v in rows:
        settings = f"read_every = {read}" if exp == "small" else f"quantum_intervals = {qi}"
        per[(exp, settings, sched, scaler)][workload].append(v)
    return {k: float(np.mean([np.mean(s) for s in w.values()])) for k, w in per.items()}


def test_the_site_has_every_page_and_no_broken_link(small_site):
    _, site = small_site
    pages = sorted(site.rglob("*.html"))
    names = {p.relative_to(site).as_posix() for p in pages}
    assert {"index.html", "methods.html", "datasets.html", "timescale.html", "methods/scaler-linear.html",
            "methods/scheduler-perf.html", "methods/aligner-dtw.html", "datasets/sqlite.html"} <= names
    assert "claims.html" not in names  # the store ran no claim: no page and no link to one
    assert 'href="claims.html"' not in (site / "index.html").read_text()
    assert broken_links(site) == []
    assert (site / "static" / "site.js").is_file() and (site / "static" / "site.css").is_file()


def test_every_leaderboard_number_equals_the_store(small_site):
    from mpx.experiment.store import open_store
    from mpx.site import leaderboard_rows

    store, site = small_site
    truth = _store_means(store)
    with open_store(store) as st:
        rows = leaderboard_rows([st], ["small"])
    groups = board(site / "index.html").groups
    assert len(groups) == 4  # two read windows, two quanta: never pooled
    seen = 0
    for g in groups:
        exp, settings = g["attrs"]["data-experiment"], g["attrs"]["data-settings"]
        mine = rows[(rows["experiment"] == exp) & (rows["settings"] == settings)].set_index(["scheduler", "scaler"])
        assert len(g["rows"]) == len(mine) == 4
        for r in g["rows"]:
            sched, scaler = r["attrs"]["data-pair"].split("+")
            cells = {h: (v, text) for h, v, text in r["cells"]}
            v, text = cells["WAPE all %"]
            assert float(v) == pytest.approx(truth[(exp, settings, sched, scaler)], rel=1e-12, abs=0)
            assert text == f"{100 * truth[(exp, settings, sched, scaler)]:.2f}"
            expect = mine.loc[(sched, scaler)]
            for header, column in (("95% lo", "error_lo"), ("95% hi", "error_hi"), ("x lowest", "ratio"),
                                   ("simul. bound", "ratio_simul"), ("lowest in % of resamples", "p_best"),
                                   ("coverage %", "coverage"), ("rank", "rank")):
                assert float(cells[header][0]) == expect[column], (header, sched, scaler)
            assert float(cells["95% lo"][0]) <= float(v) <= float(cells["95% hi"][0])
            seen += 1
        csv = pd.read_csv(site / "csv" / "leaderboard" / f"{g['attrs']['id']}.csv")
        for _, c in csv.iterrows():
            assert c["error"] == pytest.approx(truth[(exp, settings, c["scheduler"], c["scaler"])], rel=1e-12)
    assert seen == 16


def test_a_method_page_shows_the_leaderboard_numbers_of_every_group_it_ran_in(small_site):
    store, site = small_site
    truth = _store_means(store)
    index = {g["attrs"]["id"]: g["attrs"] for g in board(site / "index.html").groups}
    for kind, name in (("scaler", "dira"), ("scheduler", "perf")):
        (results,) = board(site / "methods" / f"{kind}-{name}.html").groups
        assert len(results["rows"]) == 8  # 4 groups x 2 partners
        for r in results["rows"]:
            sched, scaler = r["attrs"]["data-pair"].split("+")
            assert name in (sched, scaler)
            g = index[r["attrs"]["data-group"]]
            v, text = {h: (v, t) for h, v, t in r["cells"]}["WAPE all %"]
            assert float(v) == pytest.approx(truth[(g["data-experiment"], g["data-settings"], sched, scaler)],
                                             rel=1e-12, abs=0)


def test_ties_are_ranked_as_ties():
    from mpx.site.leaderboard import rank_group

    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.3, 8)
    rows = []
    for w in range(8):  # b is a's twin up to noise: tied; c is three times worse on every workload: separated
        for scaler, v in (("a", base[w]), ("b", base[w] * (1 + 0.01 * (-1) ** w)), ("c", 3 * base[w])):
            rows.append({"scheduler": "perf", "scaler": scaler, "workload": f"w{w}", "seed": 0, "wape_all": v,
                         "coverage_all": 1.0, "causal": True})
    r = rank_group(pd.DataFrame(rows)).set_index("scaler")
    assert r.loc["a", "rank"] == r.loc["b", "rank"] == 1
    assert bool(r.loc["b", "tied"]) != bool(r.loc["a", "tied"])  # the lowest and the one tied with it
    assert r.loc["c", "rank"] == 3 and not r.loc["c", "tied"]
    assert r.loc["c", "ratio"] == pytest.approx(3 * base.mean() / min(r.loc["a", "error"], r.loc["b", "error"]))


def test_the_time_scale_page_has_the_store_means(small_site):
    store, site = small_site
    truth = _store_means(store)
    csv = next((site / "csv" / "timescale").glob("*.csv"))
    t = pd.read_csv(csv, index_col=0)
    # the quantum as set (N trace intervals: another length on each trace): workloads never split
    assert list(t.columns) == ["300,000 bb dumps, quantum_intervals = 1", "300,000 bb dumps, quantum_intervals = 2"]
    for j, q in enumerate((1, 2)):
        for scaler in ("linear", "dira"):
            assert t.iloc[:, j][scaler] == pytest.approx(truth[("timescale_small", f"quantum_intervals = {q}",
                                                                "perf", scaler)], rel=1e-12)
    assert "kendall_tau vs finest" in t.index


def test_mpx_site_command(small_site, tmp_path, capsys):
    from mpx.cli import main

    store, _ = small_site
    assert main(["site", str(store), "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    n = int(out.split()[0])
    assert n == len(list((tmp_path / "s").rglob("*.html"))) >= 5
    assert main(["site", str(tmp_path / "nothing"), "--out", str(tmp_path / "t")]) != 0
    err = capsys.readouterr().err
    assert "no results store" in err and "Traceback" not in err


def test_make_all_builds_the_site_of_the_stores_it_drew_from(tmp_path, monkeypatch, capsys):
    import importlib.util

    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("make_all", repo / "paper_figs" / "make_all.py")
    ma = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ma)
    steps = ma.plan(["verdicts"], tmp_path / "r", tmp_path / "f", False, tmp_path / "site")
    assert steps[-1] == ["site", str(tmp_path / "r" / "gem5_quickstart"), "--out", str(tmp_path / "site")]
    assert ma.plan(["verdicts"], tmp_path / "r", tmp_path / "f", False)[-1][0] == "figs"  # --no-site
    # a store whose run failed is left out of the site; the others are built
    steps = [["run", "a.toml", "--out", "A", "--no-figures", "--no-progress"], ["site", "A", "B", "--out", "s"]]
    monkeypatch.setattr(ma, "plan", lambda *a: steps)
    called = []
    monkeypatch.setattr(ma, "mpx", lambda cmd: called.append(" ".join(cmd)) or (1 if cmd[0] == "run" else 0))
    assert ma.main(["--results", "r"]) == 1
    assert called[-1] == "site B --out s"


def test_the_claims_page_is_the_ledger_of_a_store_that_ran_a_claim(tmp_path, capsys):
    from mpx.cli import main
    from mpx.experiment.store import open_store
    from mpx.site import build_site
    from mpx.studies.claims import ledger
    from tests._exp_helpers import write_config

    cfg = write_config(tmp_path, name="claims_scalers")  # one experiment of the claims suite, a small one
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures", "--jobs", "1"]) == 0
    build_site([tmp_path / "r"], tmp_path / "site")
    assert 'href="claims.html"' in (tmp_path / "site" / "index.html").read_text()
    shown = pd.read_csv(tmp_path / "site" / "csv" / "claims.csv")
    with open_store(tmp_path / "r") as st:
        t = ledger(st)
    assert list(shown["verdict"]) == list(t["verdict"]) and list(shown["claim"]) == list(t["claim"])
    assert broken_links(tmp_path / "site") == []


def test_the_verdict_page_shows_the_report_tables_number_for_number(tmp_path):
    """Hand-made score rows with verdicts (as tests/studies/test_report.py's): the page's cells and its CSV are
    `mpx.studies.report.verdict_tables`' values."""
    from mpx.site.studies import verdict_page
    from mpx.studies.report import verdict_tables

    rows = [{"workload": w, "scheduler": s, "scaler": c, "seed": 0, "status": "done",
             "verdict_l1_agreement": v + d, "verdict_l2_agreement": v / 2, "verdict_run_l1": 1.0}
            for w, (a, b) in {"w1": (0.9, 0.5), "w2": (0.7, 0.3)}.items()
            for s, d in (("perf", 0.0), ("round_robin", 0.1)) for c, v in (("dcam", a), ("linear", b))]
    frames = verdict_tables(pd.DataFrame(rows))
    page = verdict_page(tmp_path, {f"s / e: {k}": v for k, v in frames.items()}, ["index.html", "verdicts.html"])
    text = page.read_text()
    matrix = next(iter(frames.values()))
    for scaler in matrix.index:
        for sched in matrix.columns:
            assert f'data-v="{float(matrix.loc[scaler, sched])!r}"' in text
    csvs = sorted((tmp_path / "csv" / "verdicts").glob("*.csv"))
    assert len(csvs) == len(frames) == 2
    back = pd.read_csv(csvs[0], index_col=0)
    pd.testing.assert_frame_equal(back, matrix, check_names=False, check_column_type=False)


def test_each_scaler_row_on_its_best_schedule_names_its_null_baselines(tmp_path):
    """#34's null baselines on the leaderboard: a store holding a scaler and its nulls gets, on the scaler's own
    best schedule, whether it beats them (here linear_carry is its own fill-matched null: not listed)."""
    import pandas as pd

    from mpx.site.leaderboard import null_columns

    rows = pd.DataFrame({"scheduler": ["perf", "perf"], "scaler": ["linear", "constant_rate_causal"]})
    ok = pd.DataFrame([{"scheduler": "perf", "scaler": s, "workload": w, "causal": True, "scaler_params": "{}",
                        "wape_all": e + 0.01 * i}
                       for i, w in enumerate("abcdef") for s, e in (("linear", 0.10), ("constant_rate_causal", 0.30))])
    out = null_columns(rows, ok)
    text = out.loc[out["scaler"] == "linear", "nulls"].item()
    assert text.startswith("beats constant_rate_causal (0.")
    assert out.loc[out["scaler"] == "constant_rate_causal", "nulls"].item() == ""
