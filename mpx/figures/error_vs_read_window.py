"""Figure ``error_vs_read_window``: the main scalers' error against the read window's length relative to the
schedule's rotation, one row of panels per scheduler (data: ``mpx run experiments/read_window.toml``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from mpx.errors import ConfigError
from mpx.figures.data import error_column, scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold, replicates
from mpx.figures.sweep import sweep_figure

__all__ = ["FIGURE", "MAIN", "draw"]

#: the scalers this figure draws (those present): perf's and PAPI's scaling, NeoMPX's four interpolators,
#: BayesPerf and mpx's own estimator
MAIN = ("linear", "papi", "dira", "tam", "dcam", "cam", "bayesperf", "fusion")


def draw(store: Any, experiment: str | None = None) -> Any:
    """Per scheduler with a fixed rotation, the median over workloads of each main scaler's WAPE on all
    event-windows (windows a scaler leaves empty charged: `mpx.scoring.measures`; window MAPE when the store has
    no WAPE) against ``read_per_rotation`` = read window / rotation length (quanta), log x, a line at one
    read per rotation; right: windows left without an estimate. Needs >= 2 values of ``read_every``."""
    sl = hold(scores(store, experiment), shown=("read_every", "scheduler"))
    df = sl.rows
    if df["read_every"].nunique() < 2:
        raise ConfigError(f"figure error_vs_read_window needs at least two values of read_every (has "
                          f"{sorted(df['read_every'].dropna().unique().tolist())})")
    rot = pd.to_numeric(df.get("read_per_rotation"), errors="coerce")
    online = sorted(set(df.loc[rot.isna(), "scheduler"]))
    df = df[rot.notna()]
    if df.empty:
        raise ConfigError("figure error_vs_read_window: no scheduler with a fixed rotation in the data")
    main = [m for m in MAIN if m in set(df["scaler"])]
    if not main:
        raise ConfigError(f"figure error_vs_read_window: none of the main scalers {MAIN} in the data")
    others = sorted(set(df["scaler"]) - set(main))
    df = df[df["scaler"].isin(main)]
    error, label = error_column(df)
    fig = sweep_figure(df, "read_every", "read_per_rotation",
                       "read window / rotation (quanta, log)",
                       "Error against the read window's length relative to the schedule's rotation",
                       error=error, error_label=label, xlog=True)
    for ax in fig.axes:
        if ax.get_xlabel() or ax.get_ylabel():
            ax.axvline(1.0, color="#777777", linewidth=0.8, linestyle="--")
    note = (f"Lines: {', '.join(main)}" + (f"; other scalers in the data, not drawn: {', '.join(others)}" if others
                                           else "")
            + (f"; schedulers without a fixed rotation, not drawn: {', '.join(online)}" if online else "")
            + f". Dashed: one read per rotation (left of it some events miss whole windows); {replicates(df)}")
    add_caption(fig, sl.caption(note))
    return fig


FIGURE = Figure(name="error_vs_read_window",
                about="main scalers' error vs read window length relative to the schedule's rotation",
                experiment="experiments/read_window.toml", draw=draw)
