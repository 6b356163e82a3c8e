"""Figure ``scaler_per_workload``: each scaler's window MAPE per workload (data: ``mpx run experiments/scaler_accuracy.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.figures.data import scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import WIDTH, hatch, legend_below, log_axis, look

__all__ = ["FIGURE", "GEM5", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Grouped bars: window MAPE of each scaler on each workload, in one slice of the settings (perf
    scheduler when present; every held setting and the values left out named in the caption)."""
    sl = hold(scores(store, experiment))
    df = sl.rows
    s = {**sl.fixed, **sl.held}.get("scheduler", "?")
    piv = df.pivot_table(index="workload", columns="scaler", values="window_mape", aggfunc="median")
    piv = piv[piv.median().sort_values().index]  # scalers from best to worst
    n_w, n_s = piv.shape
    fig, ax = plt.subplots(figsize=(WIDTH, 3.4))
    width = 0.8 / n_s
    x = np.arange(n_w)
    for i, scaler in enumerate(piv.columns):
        face = look(scaler)["color"]
        ax.bar(x + (i - (n_s - 1) / 2) * width, piv[scaler].to_numpy() * 100, width, label=scaler,
               color=face, hatch=hatch(scaler), edgecolor="black", linewidth=0.4)
    crowded = n_w > 6 or max(len(str(i)) for i in piv.index) * n_w > 60  # labels would overlap
    ax.set_xticks(x, piv.index, rotation=25 if crowded else 0, ha="right" if crowded else "center",
                  rotation_mode="anchor")
    log_axis(ax)
    low = np.nanmin(piv.to_numpy() * 100)
    if np.isfinite(low) and low > 0:
        ax.set_ylim(bottom=10.0 ** np.floor(np.log10(low)))  # bars start at a round decade
    ax.set_xlabel("workload")
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title(f"Scaler error per workload ({s} scheduler; over the windows each scaler estimates)")
    ax.grid(axis="x", visible=False)
    legend_below(ax, n_s, gap=0.34 if crowded else 0.18)
    seeds = df["seed"].nunique() if "seed" in df else 1
    add_caption(fig, sl.caption("Bars: every scaler in the data" + (f", median over {seeds} seeds." if seeds > 1
                                                                     else ".")), width=130)
    return fig


FIGURE = Figure(name="scaler_per_workload", about="each scaler's window MAPE per workload",
                experiment="experiments/scaler_accuracy.toml", draw=draw)
GEM5 = Figure(name="scaler_per_workload_gem5", about="each scaler's window MAPE per gem5 workload",
              experiment="experiments/gem5_quickstart.toml", draw=draw)
