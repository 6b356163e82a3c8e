"""Figure ``error_vs_events``: window MAPE vs number of multiplexed events at fixed counters (data: ``mpx run experiments/n_events.toml``)."""

from __future__ import annotations

from typing import Any


from mpx.figures.data import one_scheduler, values
from mpx.figures.figure import Figure
from mpx.figures.sweep import sweep_figure

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the number of multiplexed events at a fixed number of counters."""
    df, s = one_scheduler(store, experiment)
    counters = values(df, "counters")
    return sweep_figure(df, "n_events", "n_events", "events multiplexed (count)",
                         f"Error against the number of events: {s} scheduler, "
                         f"{', '.join(map(str, counters))} counters")


FIGURE = Figure(name="error_vs_events", about="window MAPE vs number of multiplexed events at fixed counters",
                experiment="experiments/n_events.toml", draw=draw)
