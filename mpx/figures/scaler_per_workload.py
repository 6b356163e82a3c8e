"""Figure ``scaler_per_workload``: each scaler's error (the headline measure, WAPE on all windows) per workload,
on the callgrind workloads (data: ``mpx run experiments/scaler_accuracy.toml``); ``scaler_per_workload_gem5``:
the same on the gem5 workloads (``experiments/gem5_quickstart.toml``). Each draws only its own workloads and
is skipped, saying why, when the store has none of them."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.errors import ConfigError
from mpx.figures.data import error_column, scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import WIDTH, hatch, look
from mpx.studies.compare import COLLAPSED

__all__ = ["FIGURE", "GEM5", "draw", "draw_gem5", "is_gem5"]


def is_gem5(df: Any) -> Any:
    """Which score rows are on gem5 ground truth: a shipped gem5 dataset, or a trace in gem5 ticks."""
    from mpx.datasets.shipped import names

    gem5 = set(names("gem5"))
    unit = df["time_unit"].astype(str) if "time_unit" in df else ""
    return df["dataset"].isin(gem5) | (unit == "ticks")


def _draw(store: Any, experiment: str | None, gem5: bool) -> Any:
    """Grouped bars: the headline error of each scaler on each workload (callgrind or gem5 ones), in one
    slice of the settings (perf scheduler when present; held settings named in the caption), scalers in
    the order of `mpx report`'s ranking (mean over workloads, best first)."""
    df = scores(store, experiment)
    df = df[is_gem5(df) == gem5]
    kind = "gem5" if gem5 else "callgrind"
    if df.empty:
        raise ConfigError(f"the results store has no scaler scores on {kind} workloads"
                          + ("" if gem5 else " (gem5 workloads: figure scaler_per_workload_gem5)"))
    sl = hold(df)
    df = sl.rows
    error, label = error_column(df)
    s = {**sl.fixed, **sl.held}.get("scheduler", "?")
    piv = df.pivot_table(index="workload", columns="scaler", values=error, aggfunc="mean") * 100  # mean over seeds
    piv = piv[piv.mean().sort_values().index]  # scalers from best to worst, as mpx report ranks them
    n_w, n_s = piv.shape
    names = [str(i).removeprefix("gem5-") if gem5 else str(i) for i in piv.index]  # the axis says gem5
    crowded = max(len(n) for n in names) * n_w > 70  # side by side, the labels would overlap
    rows = -(-n_s // 5)
    fig, ax = plt.subplots(figsize=(WIDTH, 3.3 + 0.2 * rows + (0.3 if crowded else 0)))
    width = 0.8 / n_s
    x = np.arange(n_w)
    # a collapsed bar (more than COLLAPSED x the workload's best) would set the axis for every other: clipped at
    # the top of the others, its value printed on it
    bad = piv.gt(COLLAPSED * piv.min(axis=1), axis=0)
    rest = piv.where(~bad).max().max()
    top = 1.15 * rest if bad.any().any() and np.isfinite(rest) and rest > 0 else None
    for i, scaler in enumerate(piv.columns):
        xs = x + (i - (n_s - 1) / 2) * width
        v = piv[scaler].to_numpy()
        ax.bar(xs, np.minimum(v, top) if top else v, width, label=scaler,
               color=look(scaler)["color"], hatch=hatch(scaler), edgecolor="black", linewidth=0.4)
        for xi, vi, b in zip(xs, v, bad[scaler].to_numpy()):
            if top and b:
                ax.text(xi, top * 0.98, f"{vi:,.0f}", rotation=90, ha="center", va="top", fontsize=5)
    ax.set_xticks(x, names, rotation=45 if crowded else 0, ha="right" if crowded else "center",
                  rotation_mode="anchor")
    ax.set_ylim(bottom=0, top=top)
    ax.set_xlabel("gem5 workload (gem5-…)" if gem5 else f"{kind} workload")
    ax.set_ylabel(label)
    ax.set_title(f"Scaler error per {kind} workload ({s} scheduler)", fontsize=9)
    ax.grid(axis="x", visible=False)
    fig.legend(loc="outside upper center", ncol=min(n_s, 5))
    seeds = df["seed"].nunique() if "seed" in df else 1
    means = ", ".join(f"{n} {v:.1f} %" for n, v in piv.mean().items())
    if top:
        means += (f"; bars clipped at {top:.0f} % with their value printed: collapsed, more than {COLLAPSED:g}x the "
                  "workload's best (" + ", ".join(sorted({c for c in piv.columns if bad[c].any()})) + ")")
    add_caption(fig, sl.caption(f"Bars: every scaler in the data, left to right as mpx report ranks them (mean over "
                                f"the {n_w} workloads: {means})" + (f"; mean over {seeds} seeds." if seeds > 1
                                                                    else ".")))
    return fig


def draw(store: Any, experiment: str | None = None) -> Any:
    """`_draw` on the callgrind workloads of the store."""
    return _draw(store, experiment, gem5=False)


def draw_gem5(store: Any, experiment: str | None = None) -> Any:
    """`_draw` on the gem5 workloads of the store."""
    return _draw(store, experiment, gem5=True)


FIGURE = Figure(name="scaler_per_workload", about="each scaler's error (WAPE, all windows) per callgrind workload",
                experiment="experiments/scaler_accuracy.toml", draw=draw)
GEM5 = Figure(name="scaler_per_workload_gem5", about="each scaler's error (WAPE, all windows) per gem5 workload",
              experiment="experiments/gem5_quickstart.toml", draw=draw_gem5)
