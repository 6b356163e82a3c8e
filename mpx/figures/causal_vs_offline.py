"""Figure ``causal_vs_offline``: error distribution, causal vs offline scalers, one panel per scheduler and
noise setting (data: ``mpx run experiments/causal_offline.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.figures.data import error_column, scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold, setting_text
from mpx.figures.style import WIDTH, height, log_axis

__all__ = ["FIGURE", "draw"]

#: the settings this figure contrasts: one panel per combination, never pooled
PANELS = ("scheduler", "noise_rel_sigma", "noise_read_overhead")


def draw(store: Any, experiment: str | None = None) -> Any:
    """Each scaler's error (the headline measure, WAPE on all windows) over the workloads (and seeds) of one
    panel (box plot, log scale), causal scalers left, offline right; one panel per scheduler and noise
    setting (two columns of panels when there are more than three, to stay within a page), the scalers in
    the same order in every panel; any other varying setting held at one value and named in the caption."""
    sl = hold(scores(store, experiment), shown=PANELS)
    error, label = error_column(sl.rows)
    df = sl.rows[sl.rows[error] > 0]
    keys = [c for c in PANELS if c in df]
    panels = sorted({tuple(r) for r in df[keys].itertuples(index=False)}, key=str)
    med = df.groupby("scaler")[error].median()
    causal = df.groupby("scaler")["causal"].first().astype(bool)
    order = sorted(med.index, key=lambda n: (not causal[n], med[n]))
    cols = 1 if len(panels) <= 3 else 2
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH, height(rows, 1.9, 2.4, low=1.1)), sharex=True, sharey=True,
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    differ = [k for i, k in enumerate(keys) if len({p[i] for p in panels}) > 1] or keys[:1]
    same = [setting_text(k, panels[0][i]) for i, k in enumerate(keys) if k not in differ]
    short = {"noise_rel_sigma": "noise", "noise_read_overhead": "read overhead"}
    for ax, panel in zip(axes.flat, panels):
        part = df[np.logical_and.reduce([df[k] == v for k, v in zip(keys, panel)])]
        data = [part.loc[part["scaler"] == n, error].to_numpy() * 100 for n in order]
        bp = ax.boxplot(data, patch_artist=True, widths=0.6, medianprops={"color": "black"},
                        flierprops={"marker": ".", "markersize": 3})
        for box, n in zip(bp["boxes"], order):
            box.set_facecolor("white" if causal[n] else "#bbbbbb")
            box.set_hatch("" if causal[n] else "///")
        log_axis(ax)
        words = [setting_text(k, v) for k, v in zip(keys, panel) if k in differ]
        if cols > 1:  # narrow panels: the scheduler and the noise values only
            words = [str(v) if k == "scheduler" else f"{short.get(k, k)} {v:g}" for k, v in zip(keys, panel)
                     if k in differ]
        ax.set_title(", ".join(words) + f" ({part['workload'].nunique()} workloads)", loc="left", fontsize=8 if cols == 1 else 7.5)
        ax.grid(axis="x", visible=False)
    for ax in axes[:, 0]:
        ax.set_ylabel(label.replace(" (%)", ",\n%") if cols > 1 else label, fontsize=8)
    for ax in axes.flat:
        if ax.get_visible():
            ax.tick_params(axis="x", labelbottom=False)
    for j in range(cols):
        col = [ax for ax in axes[:, j] if ax.get_visible()]
        col[-1].tick_params(axis="x", labelbottom=True)
        names = [n if cols > 1 else f"{n} ({'causal' if causal[n] else 'offline'})" for n in order]  # narrow:
        col[-1].set_xticks(range(1, len(order) + 1), names, rotation=90 if cols > 1 else 25,  # white/hatched tell
                           ha="right" if cols == 1 else "center", rotation_mode="anchor" if cols == 1 else "default",
                           fontsize=7 if cols > 1 else 8)
    fig.suptitle("Causal (online-usable, white) vs offline (hatched) scalers", fontsize=9)
    add_caption(fig, sl.caption(("Every panel: " + "; ".join(same) + ". " if same else "") + "Boxes: each scaler's error (WAPE on all windows: the same windows for every "
                                "scaler) over the workloads and seeds of a panel; one panel per scheduler and noise "
                                "setting, never pooled."))
    return fig


FIGURE = Figure(name="causal_vs_offline", about="error distribution, causal vs offline scalers",
                experiment="experiments/causal_offline.toml", draw=draw)
