"""Figure ``causal_vs_offline``: error distribution, causal vs offline scalers (data: ``mpx run experiments/causal_offline.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from mpx.figures.data import scores
from mpx.figures.figure import Figure
from mpx.figures.style import WIDTH, log_axis

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Each scaler's window MAPE over every cell (box plot, log scale), causal scalers left, offline right."""
    df = scores(store, experiment)
    df = df[df["window_mape"] > 0]
    med = df.groupby("scaler")["window_mape"].median()
    causal = df.groupby("scaler")["causal"].first().astype(bool)
    order = sorted(med.index, key=lambda n: (not causal[n], med[n]))
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    data = [df.loc[df["scaler"] == n, "window_mape"].to_numpy() * 100 for n in order]
    bp = ax.boxplot(data, patch_artist=True, widths=0.6, medianprops={"color": "black"},
                    flierprops={"marker": ".", "markersize": 3})
    for i, (box, n) in enumerate(zip(bp["boxes"], order)):
        box.set_facecolor("white" if causal[n] else "#bbbbbb")
        box.set_hatch("" if causal[n] else "///")
    ax.set_xticks(range(1, len(order) + 1), [f"{n} ({'causal' if causal[n] else 'offline'})" for n in order],
                  rotation=25, ha="right", rotation_mode="anchor")
    log_axis(ax)
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title(f"Causal (online-usable, white) vs offline (hatched) scalers: {df['cell_key'].nunique()} cells "
                 f"({df['workload'].nunique()} workloads x {df['scheduler'].nunique()} schedulers x settings)")
    ax.grid(axis="x", visible=False)
    return fig


FIGURE = Figure(name="causal_vs_offline", about="error distribution, causal vs offline scalers",
                experiment="experiments/causal_offline.toml", draw=draw)
