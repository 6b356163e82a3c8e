"""Two panels over a swept parameter, one row per scheduler: the error (log) and the share of event-windows a
scaler left without an estimate. Used by the duty-cycle, number-of-events and read-window figures; the
caller holds every other setting at one value (`mpx.figures.slices`) and captions the slice."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import textwrap

import pandas as pd

from mpx.errors import ConfigError
from mpx.figures.data import ERROR_LABEL
from mpx.figures.style import WIDTH, height, log_axis, look

__all__ = ["sweep_figure"]


def sweep_figure(df: Any, key: str, x: str, xlabel: str, title: str, error: str = "wape_all",
                 error_label: str = ERROR_LABEL, xlog: bool = False) -> Any:
    """Per scheduler (a row of panels), one line per scaler over the swept setting ``key`` (placed at the
    median of column ``x``): left the median over workloads of ``error`` (log), right the share of
    event-windows left without an estimate. ConfigError when ``key`` has fewer than two values (a sweep of
    one point is no sweep)."""
    df = df.copy()
    df["missing_share"] = pd.to_numeric(df.get("missing_share"), errors="coerce")
    df[error] = pd.to_numeric(df[error], errors="coerce")
    df[x] = pd.to_numeric(df[x], errors="coerce")
    df = df[df[x].notna()]
    if df[key].nunique() < 2:
        raise ConfigError(f"this figure needs at least two values of {key} in the data (has "
                          f"{sorted(df[key].dropna().unique().tolist())})")
    schedulers = sorted(df["scheduler"].unique())
    g = df.groupby(["scheduler", "scaler", key]).agg(x=(x, "median"), y=(error, "median"), m=("missing_share", "median"))
    order = g.groupby(level=1)["y"].median().sort_values().index
    fig, axes = plt.subplots(len(schedulers), 2, figsize=(WIDTH, height(len(schedulers), 2.6, 1.6, low=1.2)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    for (ax, ax2), sched in zip(axes, schedulers):
        part_s = g.loc[sched]
        for scaler in order:
            if scaler not in part_s.index.get_level_values(0):
                continue
            part = part_s.loc[scaler].sort_values("x")
            ax.plot(part["x"], part["y"] * 100, label=scaler, **look(scaler))
            ax2.plot(part["x"], part["m"] * 100, **look(scaler))
        log_axis(ax)
        if xlog:
            log_axis(ax, "x")
            log_axis(ax2, "x")
        ax2.set_ylim(bottom=0)
        ax.set_title(f"{sched} scheduler", loc="left")
    mid = (len(schedulers) - 1) // 2  # one y label per column, on the middle row: rows may be short
    axes[mid, 0].set_ylabel(f"{error_label},\nmedian over workloads", fontsize=8)
    axes[mid, 1].set_ylabel("windows without\nan estimate (%)", fontsize=8)
    axes[-1, 0].set_xlabel(xlabel)
    narrow = " ".join(xlabel.split())  # the right panels are narrower: lines of at most 28 characters
    axes[-1, 1].set_xlabel("\n".join(textwrap.wrap(narrow, 28)))
    handles, labels = {}, {}
    for ax in axes[:, 0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    labels = list(handles)
    # the title heads the legend: a suptitle and a legend above the panels would overlap
    fig.legend([handles[n] for n in labels], labels, loc="outside upper center", ncol=min(len(labels), 6),
               title=title, title_fontsize=9)
    return fig
