"""Figure ``causal_vs_offline``: error distribution, causal vs offline scalers, one panel per scheduler and
noise setting (data: ``mpx run experiments/causal_offline.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.figures.data import scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold, setting_text
from mpx.figures.style import WIDTH, log_axis

__all__ = ["FIGURE", "draw"]

#: the settings this figure contrasts: one panel per combination, never pooled
PANELS = ("scheduler", "noise_rel_sigma", "noise_read_overhead")


def draw(store: Any, experiment: str | None = None) -> Any:
    """Each scaler's window MAPE over the workloads (and seeds) of one panel (box plot, log scale), causal
    scalers left, offline right; one panel per scheduler and noise setting, the scalers in the same order
    in every panel; any other varying setting held at one value and named in the caption."""
    sl = hold(scores(store, experiment), shown=PANELS)
    df = sl.rows[sl.rows["window_mape"] > 0]
    keys = [c for c in PANELS if c in df]
    panels = sorted({tuple(r) for r in df[keys].itertuples(index=False)}, key=str)
    med = df.groupby("scaler")["window_mape"].median()
    causal = df.groupby("scaler")["causal"].first().astype(bool)
    order = sorted(med.index, key=lambda n: (not causal[n], med[n]))
    fig, axes = plt.subplots(len(panels), 1, figsize=(WIDTH, 0.9 + 2.0 * len(panels)), sharex=True, sharey=True,
                             squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        part = df[np.logical_and.reduce([df[k] == v for k, v in zip(keys, panel)])]
        data = [part.loc[part["scaler"] == n, "window_mape"].to_numpy() * 100 for n in order]
        bp = ax.boxplot(data, patch_artist=True, widths=0.6, medianprops={"color": "black"},
                        flierprops={"marker": ".", "markersize": 3})
        for box, n in zip(bp["boxes"], order):
            box.set_facecolor("white" if causal[n] else "#bbbbbb")
            box.set_hatch("" if causal[n] else "///")
        log_axis(ax)
        ax.set_ylabel("window MAPE (%)")
        ax.set_title("; ".join(setting_text(k, v) for k, v in zip(keys, panel))
                     + f" ({part['workload'].nunique()} workloads)", loc="left")
        ax.grid(axis="x", visible=False)
    axes[-1, 0].set_xticks(range(1, len(order) + 1), [f"{n} ({'causal' if causal[n] else 'offline'})" for n in order],
                           rotation=25, ha="right", rotation_mode="anchor")
    fig.suptitle("Causal (online-usable, white) vs offline (hatched) scalers", fontsize=9)
    fig.tight_layout()
    add_caption(fig, sl.caption("Boxes: each scaler's window MAPE over the workloads and seeds of a panel; one "
                                "panel per scheduler and noise setting, never pooled."))
    return fig


FIGURE = Figure(name="causal_vs_offline", about="error distribution, causal vs offline scalers",
                experiment="experiments/causal_offline.toml", draw=draw)
