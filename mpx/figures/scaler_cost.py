"""Figure ``scaler_cost``: scaler throughput (event-windows/s) (data: ``mpx run experiments/scaler_cost.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

from mpx.figures.data import num, scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import MAX_HEIGHT, WIDTH, look
from mpx.util.fmt import eng

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Throughput of each scaler: event-windows per second of ``estimate()``, median over cells (dot)
    and the range over cells (line); log scale."""
    sl = hold(scores(store, experiment))
    df = sl.rows[sl.rows["event_windows_per_s"] > 0]
    g = df.groupby("scaler")["event_windows_per_s"].agg(["median", "min", "max"]).sort_values("median",
                                                                                               ascending=False)
    n_ew = (num(df["n_windows"]) * num(df["n_events"])).median()
    fig, ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 1.5 + 0.28 * len(g))))
    for i, (n, r) in enumerate(g.iterrows()):
        ax.plot([r["min"], r["max"]], [i, i], color="#777777", linewidth=1.0)
        ax.plot(r["median"], i, marker=look(n)["marker"], color="black", markersize=6, linestyle="none")
        ax.annotate(eng(r["median"]), (r["median"], i), textcoords="offset points", xytext=(0, 6), ha="center",
                    fontsize=7)
    ax.set_yticks(range(len(g)), g.index)
    ax.set_ylim(len(g) - 0.5, -0.7)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: eng(v)))
    ax.set_xlabel("throughput of estimate() (event-windows per second; log scale)")
    ax.set_title(f"Scaler cost: median (marker) and range over {df['cell_key'].nunique()} cells of ~{n_ew:,.0f} "
                 "event-windows\n(wall time on a shared machine)")
    ax.grid(axis="y", visible=False)
    add_caption(fig, sl.caption(f"Every scaler in the data; range over {df['workload'].nunique()} workloads."))
    return fig


FIGURE = Figure(name="scaler_cost", about="scaler throughput (event-windows/s)",
                experiment="experiments/scaler_cost.toml", draw=draw)
