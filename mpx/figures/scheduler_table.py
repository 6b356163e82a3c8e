"""Figure ``scheduler_table``: utilization / sampling / co-scheduling per scheduler (+ .tex) (data: ``mpx run experiments/schedulers_real.toml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from mpx.errors import ConfigError
from mpx.figures.figure import Figure
from mpx.figures.slices import Slice, add_caption, hold
from mpx.experiment.store import to_latex
from mpx.figures.style import MAX_HEIGHT, WIDTH, height

__all__ = ["FIGURE", "draw", "write_latex"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """The scheduler table (utilization, sampling and co-scheduling ratios, configurations; means over
    cells) rendered as a figure — with several metric catalogs, three grey-scale heat maps (catalog x
    scheduler) instead; ``draw`` also writes the table as LaTeX."""
    t, sl = _scheduler_table(store, experiment)
    if t.index.nlevels > 1:
        fig = _scheduler_heatmaps(t)
        add_caption(fig, sl.caption("Means over cells (seeds) of each catalog and scheduler."))
        return fig
    fig, ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 1.3 + 0.24 * (len(t) + 3))))
    ax.axis("off")
    cells = [[f"{v:.1f}" if v == v else "—" for v in row] for row in t.to_numpy()]
    idx = [str(i) for i in t.index]
    heads = [_HEADS.get(c, c) for c in t.columns]
    # every column as wide as its longest line (header or cell), the row names' column too: no header
    # runs into its neighbour (issue 27)
    chars = [max(len(line) for line in h.split("\n")) for h in heads]
    chars = [max(n, *(len(r[j]) for r in cells)) + 2 for j, n in enumerate(chars)]
    first = max(len(i) for i in idx) + 2
    total = first + sum(chars)
    tab = ax.table(cellText=cells, rowLabels=idx, colLabels=heads, cellLoc="right", rowLoc="left", colLoc="right",
                   edges="horizontal", bbox=[first / total, 0, 1 - first / total, 1],
                   colWidths=[c / total for c in chars])
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    for (r, _c), cell in tab.get_celld().items():
        cell.set_linewidth(0.8 if r == 0 else 0.3)
        if r == 0:
            cell.set_height(cell.get_height() * 2.2)  # three header lines
    ax.set_title("Schedulers: PMC utilization, sampling and co-scheduling (means over cells)", pad=6)
    add_caption(fig, sl.caption("Means over the cells (workloads, seeds) of each scheduler."))
    return fig


def _scheduler_heatmaps(t: Any) -> Any:
    cols = list(t.columns[:4])
    cats = list(dict.fromkeys(t.index.get_level_values(0)))
    scheds = sorted(set(t.index.get_level_values(1)))
    fig, axes = plt.subplots(len(cols), 1, figsize=(WIDTH, height(len(cols), 0.25 * len(cats) + 1.2, 0.8)),
                             squeeze=False)
    for ax, col in zip(axes[:, 0], cols):
        m = np.full((len(cats), len(scheds)), np.nan)
        for (c, s), v in t[col].items():
            m[cats.index(c), scheds.index(s)] = v
        ax.imshow(np.ma.masked_invalid(m), cmap="Greys", vmin=0, vmax=100, aspect="auto")
        for i in range(len(cats)):
            for j in range(len(scheds)):
                v = m[i, j]
                ax.text(j, i, "—" if v != v else f"{v:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if v == v and v > 55 else "black")
        ax.set_xticks(range(len(scheds)), scheds, rotation=25, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(len(cats)), cats)
        ax.set_title(col.replace("\n", " ") + " (— : scheduler not applicable)", loc="left", fontsize=8)
        ax.grid(False)
        for sp in ax.spines.values():
            sp.set_visible(False)
    return fig


#: the table's column headers in the figure: short lines, so that narrow columns keep them apart
_HEADS = {"utilization\n(%)": "utilization\n(%)", "mean sampling\nratio (%)": "mean\nsampling\nratio (%)",
          "min. sampling\nratio (%)": "min.\nsampling\nratio (%)",
          "metrics fully\nco-scheduled (%)": "metrics\nfully co-\nscheduled (%)",
          "distinct\nconfigurations": "distinct\nconfigu-\nrations"}


def _scheduler_table(store: Any, experiment: str | None) -> tuple[Any, Slice]:
    sc = store.table("schedule", experiment)
    if sc.empty:
        raise ConfigError("the results store has no scheduler figures")
    if "skipped" in sc:
        sc = sc[sc["skipped"].isna()]
    cols = ["utilization", "mean_sampling_ratio", "min_sampling_ratio", "mean_coschedule_ratio", "groups"]
    sc = sc.copy()
    for c in cols:
        sc[c] = pd.to_numeric(sc[c], errors="coerce")
    # schedule experiments (one cell per metric catalog): a row per catalog and scheduler; scaling
    # experiments (one catalog over many workloads): a row per scheduler
    per_catalog = (sc["trace"].astype(str) != sc["dataset"].astype(str)).all() and sc["dataset"].nunique() > 1
    by = ["dataset", "scheduler"] if per_catalog else ["scheduler"]
    # a catalog brings its own PMU and counters: they are the row, not a setting to hold
    sl = hold(sc, shown=("scheduler", "pmu", "counters") if per_catalog else ("scheduler",))
    t = sl.rows.groupby(by)[cols].mean()
    t[cols[:-1]] = t[cols[:-1]] * 100
    return t.rename(columns={"utilization": "utilization\n(%)", "mean_sampling_ratio": "mean sampling\nratio (%)",
                             "min_sampling_ratio": "min. sampling\nratio (%)",
                             "mean_coschedule_ratio": "metrics fully\nco-scheduled (%)", "groups": "distinct\nconfigurations"}), sl


def write_latex(store: Any, experiment: str | None, out_dir: Path) -> list[Path]:
    """The scheduler table as LaTeX (``scheduler_table.tex``) beside the figure."""
    p = out_dir / "scheduler_table.tex"
    t, sl = _scheduler_table(store, experiment)
    t = t.round(1)
    t.columns = [c.replace("\n", " ") for c in t.columns]
    p.write_text(to_latex(t, "Schedulers: PMC utilization, sampling and co-scheduling ratios (means over cells). "
                          + sl.caption(), "tab:schedulers") + "\n")
    return [p]


FIGURE = Figure(name="scheduler_table", about="utilization / sampling / co-scheduling per scheduler (+ .tex)",
                experiment="experiments/schedulers_real.toml", draw=draw, extra=write_latex)
