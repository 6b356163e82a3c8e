"""Issue 40, item 11: the smaller findings of a new user's run."""

from __future__ import annotations

import pytest

from mpx.cli import main
from tests._exp_helpers import write_config


def test_datasets_list_fits_120_columns(capsys):
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) > 10 and max(map(len, out)) <= 120, max(map(len, out))


def test_trace_takes_the_dataset_names_evaluate_takes(capsys):
    """`mpx trace plot` refused the dataset names `mpx evaluate` accepts."""
    assert main(["trace", "info", "xz"]) == 0
    assert "Trace('xz'" in capsys.readouterr().out
    assert main(["trace", "info", "no-such-dataset-or-file"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "neither an existing trace file nor a shipped dataset" in err[0]


def test_trace_plot_takes_a_dataset_name(tmp_path, capsys):
    """The command the finding named: `mpx trace plot NAME` (a shipped dataset, as `mpx evaluate NAME`)."""
    out = tmp_path / "xz.png"
    assert main(["trace", "plot", "xz", "-o", str(out), "--events", "Ir"]) == 0
    assert out.stat().st_size > 0 and capsys.readouterr().err == ""


def test_gem5_long_datasets_train_on_their_collection():
    """`mpx evaluate gem5-long-*` trained no learned scaler ("trained on: none")."""
    from mpx.datasets import shipped
    from mpx.scoring.replay import training_traces

    long = shipped.names("gem5", "gem5-long")
    if len(long) < 2:
        pytest.skip("fewer than two gem5-long datasets shipped")
    traces, how = training_traces(None, long[0], None)
    assert len(traces) == len(long) - 1 and long[0] not in how and long[1] in how


def test_a_second_experiment_in_one_folder_is_said_and_the_export_is_its_own(tmp_path, capsys):
    """A second config run into an existing results folder was accepted silently and left a stale series.csv of
    the first in csv/; `mpx run` and `mpx report` wrote the same wide tables under two names."""
    out = tmp_path / "out"
    a = write_config(tmp_path, "first")
    assert main(["run", str(a), "--out", str(out), "--jobs", "1", "--no-progress", "--no-figures"]) == 0
    assert "note:" not in capsys.readouterr().out
    tables = sorted(p.name for p in (out / "tables").iterdir())
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in (out / "tables").iterdir()) == tables  # the same names
    (out / "csv" / "series.csv").write_text("stale\n")
    b = write_config(tmp_path, "second")
    assert main(["run", str(b), "--out", str(out), "--jobs", "1", "--no-progress", "--no-figures"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "note:" in text and "already holds experiment(s) first" in text and "0 computed" in text
    assert not (out / "csv" / "series.csv").exists()
    # every cell of the second is the first's, reused: stored once, exported under the name of the one that asked
    import json

    import pandas as pd

    from mpx.experiment.store import open_store

    for table in ("cells", "scores", "schedule"):
        df = pd.read_csv(out / "csv" / f"{table}.csv")
        assert len(df) and set(df["experiment"]) == {"second"}, table
    cells = pd.read_csv(out / "csv" / "cells.csv")
    assert {json.loads(c)["experiment"] for c in cells["config"]} == {"second"}
    with open_store(out) as st:
        stored = st.conn.execute("SELECT DISTINCT experiment FROM cells").fetchall()
        assert stored == [("first",)]  # stored once, as the first computed it
        first, both = st.table("cells", "first"), st.table("cells")
        assert set(first["experiment"]) == {"first"} and len(first) == len(cells)
        assert sorted(both["experiment"]) == sorted(["first", "second"] * len(cells))  # pooled: under each name
        assert set(st.table("scores", run_id=2)["experiment"]) == {"second"}
