"""Figure ``error_vs_duty_cycle``: WAPE on all windows vs duty cycle (counters swept), one row of panels per scheduler
(data: ``mpx run experiments/duty_cycle.toml``)."""

from __future__ import annotations

from typing import Any

from mpx.figures.data import error_column, scores, values
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold, replicates
from mpx.figures.sweep import sweep_figure

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """WAPE on all windows against the duty cycle (mean share of quanta an event is counted), one line per
    scaler, median over workloads at each swept counter count, one row per scheduler; right: windows left
    without an estimate. Every other setting is held at one value and named in the caption."""
    sl = hold(scores(store, experiment), shown=("counters", "scheduler"))
    df = sl.rows
    error, label = error_column(df)
    df["duty"] = df["mean_sampling_ratio"] * 100
    c = values(df, "counters")
    n = values(df, "n_events")
    fig = sweep_figure(df, "counters", "duty", "duty cycle: mean share of quanta\nan event is counted (%)",
                       f"Error against duty cycle: {', '.join(map(str, n))} events, {c[0]}-{c[-1]} counters",
                       error=error, error_label=label)
    add_caption(fig, sl.caption(f"Lines: every scaler in the data; {replicates(df)}"))
    return fig


FIGURE = Figure(name="error_vs_duty_cycle", about="WAPE on all windows vs duty cycle (counters swept)",
                experiment="experiments/duty_cycle.toml", draw=draw)
