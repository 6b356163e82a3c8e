"""`mpx.report`: the ranking rules — winner, runner-up, the baseline pair — on hand-made score rows."""

from __future__ import annotations

import pandas as pd

from mpx.report import LINUX_DEFAULT, rank_pairs, winner_text


def _rows(pairs):
    rows = []
    for (sched, scaler), (err, missing) in pairs.items():
        for wl in ("a", "b", "c"):
            rows.append({"scheduler": sched, "scaler": scaler, "workload": wl, "seed": 0, "window_mape": err,
                         "missing_share": missing, "n_events_never_estimated": 0})
    return pd.DataFrame(rows)


def test_winner_runner_up_and_the_linux_default_baseline():
    ok = _rows({("hypergraph", "fusion"): (0.10, 0.0), ("perf", "dira"): (0.15, 0.0),
                ("perf", "linear"): (0.30, 0.2), ("tintin", "cam"): (0.05, 0.5)})
    pair, missing, never, good = rank_pairs(ok)
    assert list(pair.index[good]) == [("hypergraph", "fusion"), ("perf", "dira")]
    text = winner_text(ok)
    lines = text.splitlines()
    assert lines[0] == "winner: hypergraph + fusion, median window MAPE 10.00%"
    assert lines[1].startswith("runner-up: perf + dira, 15.00% (1.50x")
    assert LINUX_DEFAULT == ("perf", "linear")
    assert lines[2].startswith("Linux default (perf + linear): 30.00% (3.00x the winner's error; leaves 20.0%")
    assert lines[3].startswith("not ranked: 2 pair(s)") and "tintin + cam, 5.00%" in lines[3]
    other = winner_text(ok, baseline=("perf", "dira"))
    assert "baseline (perf + dira): 15.00% (1.50x the winner's error)" in other and "Linux default" not in other


def test_common_windows_table_medians_coverage_and_order():
    from mpx.report import common_windows_table

    rows = []
    for scaler, wape_all, cov in (("linear", 0.4, 0.7), ("dcam", 0.3, 1.0)):
        for wl, k in (("a", 1.0), ("b", 2.0), ("c", 3.0)):
            row = {"scaler": scaler, "workload": wl}
            for s in ("ran", "all"):
                row.update({f"coverage_{s}": cov if s == "all" else 1.0, f"wape_{s}": wape_all * k / 2,
                            f"mdape_{s}": 0.1 * k, f"mape_{s}": 0.2 * k, f"lnq_{s}": 0.05 * k})
            rows.append(row)
    t = common_windows_table(pd.DataFrame(rows))
    assert list(t.index) == ["dcam", "linear"]  # by WAPE on all windows
    assert t.loc["linear", ("all", "wape")] == 40.0 and t.loc["linear", ("all", "coverage")] == 70.0
    assert t.loc["dcam", ("ran", "mdape")] == 20.0 and t.loc["dcam", ("all", "lnq")] == 0.1
    assert common_windows_table(pd.DataFrame([{"scaler": "x", "window_mape": 0.1}])) is None  # older stores
    swept = pd.DataFrame([{**r, "read_every": re} for r in rows for re in (4, 18)])
    t = common_windows_table(swept)  # a swept setting is a level of the index, never pooled
    assert t.index.names == ["read_every", "scaler"] and len(t) == 4


def test_a_swept_setting_is_never_pooled_in_the_summary(tmp_path):
    from mpx.cli import main
    from mpx.report import summary_text
    from mpx.results import ResultsStore
    from tests._exp_helpers import write_config

    cfg = write_config(tmp_path, extra='[sweep]\n"multiplex.read_every" = [3, 6]\n')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    with ResultsStore(tmp_path / "r" / "results.sqlite") as st:
        text = summary_text(st)
    for v in (3, 6):  # one winner and one scalers table per swept value, each saying which
        assert f"== [read_every = {v}]" in text and f"scalers (medians over cells) [read_every = {v}]" in text
    assert text.count("winner:") == 2
