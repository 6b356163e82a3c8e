"""Figure ``error_vs_events``: WAPE on all windows vs number of multiplexed events at fixed counters, one row of panels
per scheduler (data: ``mpx run experiments/n_events.toml``)."""

from __future__ import annotations

from typing import Any

from mpx.figures.data import error_column, scores, values
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold, replicates
from mpx.figures.sweep import sweep_figure

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """WAPE on all windows against the number of multiplexed events at a fixed number of counters, one row per
    scheduler; every other setting held at one value and named in the caption."""
    sl = hold(scores(store, experiment), shown=("max_events", "scheduler"))
    df = sl.rows
    error, label = error_column(df)
    counters = values(df, "counters")
    fig = sweep_figure(df, "n_events", "n_events", "events multiplexed (count)",
                       f"Error against the number of events: {', '.join(map(str, counters))} counters",
                       error=error, error_label=label)
    add_caption(fig, sl.caption(f"Lines: every scaler in the data; {replicates(df)}"))
    return fig


FIGURE = Figure(name="error_vs_events", about="WAPE on all windows vs number of multiplexed events at fixed counters",
                experiment="experiments/n_events.toml", draw=draw)
