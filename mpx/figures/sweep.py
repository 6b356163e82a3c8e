"""Two panels over a swept parameter: window MAPE (log) and the share of event-windows a scaler left
without an estimate (window MAPE scores only the windows that have one). Used by the duty-cycle and
number-of-events figures."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from mpx.figures.style import WIDTH, log_axis, look

__all__ = ["sweep_figure"]


def sweep_figure(df: Any, key: str, x: Any, xlabel: str, title: str) -> Any:
    """Two panels over a swept parameter ``key``: window MAPE (log) and the share of event-windows a
    scaler left without an estimate — window MAPE scores only the windows that have one."""
    df = df.copy()
    df["missing_share"] = pd.to_numeric(df.get("missing_share"), errors="coerce")
    g = df.groupby(["scaler", key]).agg(x=(x, "median"), y=("window_mape", "median"), m=("missing_share", "median"))
    order = g.groupby(level=0)["y"].median().sort_values().index
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH, 3.5), gridspec_kw={"width_ratios": [3, 2]})
    for scaler in order:
        part = g.loc[scaler].sort_values("x")
        ax.plot(part["x"], part["y"] * 100, label=scaler, **look(scaler))
        ax2.plot(part["x"], part["m"] * 100, **look(scaler))
    log_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("window MAPE (%), median over workloads")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("windows without an estimate (%)")
    ax2.set_ylim(bottom=0)
    fig.suptitle(title, fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0.11, 1, 0.97))
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), bbox_to_anchor=(0.5, 0.0))
    return fig
