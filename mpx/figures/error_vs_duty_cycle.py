"""Figure ``error_vs_duty_cycle``: window MAPE vs duty cycle (counters swept) (data: ``mpx run experiments/duty_cycle.toml``)."""

from __future__ import annotations

from typing import Any


from mpx.figures.data import one_scheduler, values
from mpx.figures.figure import Figure
from mpx.figures.sweep import sweep_figure

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the duty cycle (mean share of quanta an event is counted), one line per
    scaler, median over workloads at each swept counter count; right: windows left without estimate."""
    df, s = one_scheduler(store, experiment)
    df["duty"] = df["mean_sampling_ratio"] * 100
    c = values(df, "counters")
    n = values(df, "n_events")
    return sweep_figure(df, "counters", "duty", "duty cycle: mean share of quanta\nan event is counted (%)",
                         f"Error against duty cycle: {s} scheduler, {', '.join(map(str, n))} events, "
                         f"{c[0]}-{c[-1]} counters")


FIGURE = Figure(name="error_vs_duty_cycle", about="window MAPE vs duty cycle (counters swept)",
                experiment="experiments/duty_cycle.toml", draw=draw)
