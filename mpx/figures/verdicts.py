"""Figure ``verdicts``: which top-down verdict a multiplexed run gets right (issue 26; data: ``mpx run
experiments/gem5_quickstart.toml``, or any store of a catalog with a hierarchy).

Top: the share of read windows whose level-1 bottleneck (`mpx.scoring.verdicts`) is the true one, per scaler ×
scheduler (mean over workloads). Below: the level-1 confusion under one scheduler (perf's rotation when
present) for six scalers, rows the true node, columns the node the estimate names and "none" for windows
without a verdict, each row as a share of its windows (summed over workloads and seeds): the Linux default
(linear scaling), the three scalers most often right and the two least often right that are not linear.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.errors import ConfigError
from mpx.figures.data import num, scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import MAX_HEIGHT, WIDTH
from mpx.scoring.verdicts import confusion_counts

__all__ = ["FIGURE", "draw"]

#: short axis labels of the level-1 nodes, by a word of their name (Intel's "Frontend_Bound", the gem5
#: catalog's "tma_frontend_bound", ...)
_SHORT = (("front", "FE"), ("bad", "BadSpec"), ("back", "BE"), ("retir", "Ret"))


def _short(node: str) -> str:
    low = node.lower()
    return next((label for word, label in _SHORT if word in low), node[:8])


def draw(store: Any, experiment: str | None = None) -> Any:
    """The agreement heat map and six confusion matrices (module docstring)."""
    df = scores(store, experiment)
    if "verdict_l1_agreement" not in df or num(df["verdict_l1_agreement"]).isna().all():
        raise ConfigError("verdicts: no score row carries top-down verdicts (the catalog declares no hierarchy: "
                          "run a gem5 experiment, e.g. experiments/gem5_quickstart.toml)")
    if "verdict_l1_confusion" not in df:
        raise ConfigError("verdicts: the store's score rows carry no level-1 confusion (written before it was "
                          "stored): run the experiment again into a new folder")
    df = df[num(df["verdict_l1_agreement"]).notna()]
    sl = hold(df, shown=("scheduler",))
    rows = sl.rows
    agree = (num(rows["verdict_l1_agreement"]).groupby([rows["scaler"], rows["scheduler"], rows["workload"]]).mean()
             .groupby(["scaler", "scheduler"]).mean().unstack("scheduler") * 100)
    sched = "perf" if "perf" in agree.columns else agree.columns[0]
    agree = agree.loc[agree[sched].sort_values(ascending=False).index]
    order = list(agree.index)
    rest = [s for s in order if s != "linear"]
    picks = (["linear"] if "linear" in order else []) + rest[:3] + [s for s in rest[-2:] if s not in rest[:3]]

    fig = plt.figure(figsize=(WIDTH, min(MAX_HEIGHT, 3.0 + 0.16 * len(order) + 3.6)))
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.0 + 0.16 * len(order), 3.6])
    ax = top.subplots()
    im = ax.imshow(agree.to_numpy(), cmap="Greys", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(agree.shape[1]), [str(c) for c in agree.columns], rotation=30, ha="right")
    ax.set_yticks(range(agree.shape[0]), order)
    ax.grid(False)
    for i in range(agree.shape[0]):
        for j in range(agree.shape[1]):
            v = agree.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=6.5, color="white" if v > 60 else "black")
    ax.set_title(f"level-1 bottleneck right, % of read windows (mean over {rows['workload'].nunique()} workloads)")
    top.colorbar(im, ax=ax, shrink=0.8, label="%")

    axes = bottom.subplots(2, 3).ravel()
    one = rows[rows["scheduler"] == sched]
    for ax, scaler in zip(axes, picks):
        texts = one.loc[one["scaler"] == scaler, "verdict_l1_confusion"].dropna()
        if texts.empty:
            ax.set_visible(False)
            continue
        nodes, total = None, None
        for t in texts:
            n, c = confusion_counts(t)
            nodes, total = n, (c if total is None else total + c)
        share = total / np.maximum(total.sum(axis=1, keepdims=True), 1)
        ax.imshow(share, cmap="Greys", vmin=0, vmax=1, aspect="auto")
        for i in range(share.shape[0]):
            for j in range(share.shape[1]):
                if total[i].sum():
                    ax.text(j, i, f"{100 * share[i, j]:.0f}", ha="center", va="center", fontsize=6,
                            color="white" if share[i, j] > 0.6 else "black")
        ax.set_xticks(range(len(nodes) + 1), [_short(n) for n in nodes] + ["none"], fontsize=6.5)
        ax.set_yticks(range(len(nodes)), [_short(n) for n in nodes], fontsize=6.5)
        ax.grid(False)
        ax.set_title(f"{scaler} ({agree.at[scaler, sched]:.0f} %)", fontsize=8)
    for ax in axes[len(picks):]:
        ax.set_visible(False)
    bottom.supxlabel("estimated level-1 node", fontsize=8)
    bottom.supylabel("true node", fontsize=8)
    bottom.suptitle(f"level-1 confusion under {sched}, % of each true node's windows (summed over workloads)",
                    fontsize=9)
    add_caption(fig, sl.caption("FE Frontend Bound, BadSpec Bad Speculation, BE Backend Bound, Ret Retiring; "
                                "none: no verdict (a level-1 share left undefined by the scaler); in brackets the "
                                "share of windows right."))
    return fig


FIGURE = Figure(name="verdicts", about="top-down verdicts: level-1 agreement per scaler x scheduler, confusions",
                experiment="experiments/gem5_quickstart.toml", draw=draw)
