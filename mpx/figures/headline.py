"""Figure ``headline``: each headline method's error over the best other scaler's, against counters (data: ``mpx run experiments/headline.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from mpx.studies.compare import fair_headline, headline, headline_methods, varying_settings
from mpx.errors import ConfigError
from mpx.figures.data import scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import LINESTYLES, WIDTH, height, look

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Ratio of each headline method's error (the headline measure, `mpx.scoring.measures.HEADLINE`) to the best
    other scaler's, against the number of counters, with 95% bootstrap intervals over workloads (`mpx.studies.compare.headline`);
    one panel per workload set (shipped, held-out) and per value of every other setting that varies (a
    row of panels each, its value in the titles: never pooled), one line per method and scheduler."""
    methods: list[str] = []
    for name in [experiment] if experiment else list(reversed(store.experiments())):  # latest with a headline
        methods = headline_methods(store, name)
        if methods:
            experiment = name
            break
    if not methods:
        raise ConfigError("figure headline: no run's config lists methods under [output] headline")
    sl = hold(scores(store, experiment), shown=("counters", "scheduler"))
    h = headline(sl.rows, methods)
    if h.empty:
        raise ConfigError(f"figure headline: no scores of {methods} beside another scaler in the results store")
    fair = fair_headline(sl.rows, methods)   # each side on its own best schedule (issue 34)
    sets = [s for s in ("shipped", "held-out") if s in set(h["set"])]
    other = varying_settings(h, exclude=("counters",))
    slices = [()] if not other else list(h[other].drop_duplicates().sort_values(other).itertuples(index=False))
    fig, axes = plt.subplots(len(slices), len(sets), figsize=(WIDTH, height(len(slices), 2.6, 1.4, low=1.4)), sharey=True, squeeze=False)
    series = sorted({(m, s) for m, s in zip(h["method"], h["scheduler"])}, key=lambda t: (methods.index(t[0]), t[1]))
    schedulers = sorted({sched for _, sched in series})  # line style: the scheduler; colour and marker: the method
    for row, values in zip(axes, slices):
        part = h
        for k, v in zip(other, values):
            part = part[part[k] == v]
        where = "".join(f", {k} = {v}" for k, v in zip(other, values))
        for ax, group in zip(row, sets):
            g = part[part["set"] == group]
            for i, (m, sched) in enumerate(series):
                d = g[(g["method"] == m) & (g["scheduler"] == sched)].sort_values("counters")
                if d.empty:
                    continue
                x = d["counters"].to_numpy(float) + 0.08 * (i - (len(series) - 1) / 2)  # side by side
                ax.errorbar(x, d["ratio"], yerr=[d["ratio"] - d["ratio_lo"], d["ratio_hi"] - d["ratio"]], capsize=2,
                            label=f"{m} (same schedule: {sched})",
                            **{**look(m), "linestyle": LINESTYLES[schedulers.index(sched) % len(LINESTYLES)]})
            f = fair[fair["set"] == group] if not fair.empty else fair
            for k, v in zip(other, values):
                f = f[f[k] == v] if k in f else f
            for m in methods:
                d = f[f["method"] == m].sort_values("counters") if not f.empty else f
                if d.empty:
                    continue
                ax.errorbar(d["counters"].to_numpy(float), d["ratio"], capsize=3, linewidth=2.0,
                            yerr=[d["ratio"] - d["ratio_lo"], d["ratio_hi"] - d["ratio"]],
                            label=f"{m} (FAIR: each side on its own best schedule)",
                            **{**look(m), "linestyle": "-", "marker": "D"})
            ax.axhline(1.0, color="#777777", linewidth=0.8)
            ax.axhline(0.5, color="#777777", linewidth=0.8, linestyle="--")
            ax.set_title(f"{group} workloads ({int(g['workloads'].max()) if len(g) else 0}){where}", fontsize=8)
            ax.set_xlabel("generic counters")
            ax.set_xticks(sorted(set(g["counters"])))
        row[0].set_ylabel("error / best baseline's error")
        last = row[-1]
        last.text(last.get_xlim()[1], 1.0, "best baseline", ha="right", va="bottom", fontsize=7, color="#555555")
        last.text(last.get_xlim()[1], 0.5, "half (the target)", ha="right", va="bottom", fontsize=7,
                  color="#555555")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=min(len(series), 4))
    add_caption(fig, sl.caption("Ratio of the method's error (the headline measure, WAPE on all windows: the same "
                                "windows for every scaler) to the best other scaler's, 95% paired bootstrap intervals "
                                "over workloads: thick lines on fair terms, each side on its own best schedule "
                                "(mpx.studies.compare.fair_headline); thin lines under one shared schedule each "
                                "(mpx.studies.compare.headline)."))
    return fig


FIGURE = Figure(name="headline", about="each headline method's error over the best other scaler's, against counters",
                experiment="experiments/headline.toml", draw=draw)
