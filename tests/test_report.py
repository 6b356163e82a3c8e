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
