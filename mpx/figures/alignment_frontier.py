"""Figure ``alignment_frontier``: error against measurement cost, trace alignment and multiplexing, one panel
per workload × counter count (data: ``mpx run experiments/alignment.toml``).

Each point is one method's median WAPE on all windows over the reference runs; x is its measurement cost
in reference-run lengths. Filled circles: one multiplexed run with each scaler (cost 1); open squares:
the same scalers on as many multiplexed runs as the alignment plan, merged; triangles: trace alignment
(aligner, anchor); black crosses: the run-to-run floor of each aligner (other runs' true counts). The
frontier is the lower-left envelope: what the best method gives for what it costs."""

from __future__ import annotations

from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption
from mpx.figures.style import WIDTH, height, look, style
from mpx.experiment.alignment import alignment_frontier

__all__ = ["FIGURE", "draw", "frontier_table"]

_MARK = {"multiplex": "o", "multiplex_runs": "s", "alignment": "^", "floor": "x"}


def frontier_table(store: Any, experiment: str | None = None) -> Any:
    """`mpx.experiment.alignment.alignment_frontier` of the store's alignment rows."""
    df = store.table("alignment", experiment)
    if df.empty:
        raise ConfigError("the results store has no alignment rows (mpx run experiments/alignment.toml)")
    return alignment_frontier(df)


def draw(store: Any, experiment: str | None = None) -> Any:
    style()
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    t = frontier_table(store, experiment)
    loads, counters = sorted(t["workload"].unique()), sorted(t["counters"].unique())
    fig, axes = plt.subplots(len(loads), len(counters), figsize=(WIDTH, height(len(loads), 2.0, 1.6, low=1.2)),
                             squeeze=False, sharey="row")
    labels: dict[str, Any] = {}
    for i, w in enumerate(loads):
        for j, k in enumerate(counters):
            ax = axes[i][j]
            sub = t[(t["workload"] == w) & (t["counters"] == k)]
            for r in sub.itertuples():
                name = r.method if r.road != "alignment" and r.road != "floor" else f"{r.method}@{r.anchor}"
                label = {"multiplex": f"{r.method} (1 run)", "multiplex_runs": f"{r.method} (R runs, merged)",
                         "alignment": f"align {name}", "floor": "floor (run-to-run variation)"}[r.road]
                lk = look(name if r.road != "multiplex_runs" else r.method)
                kw = {"color": "#000000", "markersize": 4} if r.road == "floor" else {"color": lk["color"]}
                if r.road == "multiplex_runs":
                    kw = {"markerfacecolor": "none", "markeredgecolor": lk["color"], "color": lk["color"]}
                h = ax.plot([r.cost], [100 * r.wape_all], linestyle="none", marker=_MARK[r.road], **kw)[0]
                labels.setdefault(label, h)
            ax.set_title(f"{w} · {k} counters ({sub['events_per_counter'].iloc[0]:.1f} ev./ctr)"
                         if len(sub) else f"{w} · {k} counters", fontsize=7)
            if i == len(loads) - 1 and j == len(counters) // 2:
                ax.set_xlabel("cost (runs' total length / one run)")
            if j == 0:
                ax.set_ylabel("WAPE, all windows (%)")
            ax.set_xlim(0.5, max(float(sub["cost"].max()) if len(sub) else 1.0, 1.0) + 0.5)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(bottom=0)
    fig.legend(list(labels.values()), list(labels.keys()), loc="outside upper center", ncol=3, fontsize=7,
               title="Trace alignment vs multiplexing: error against measurement cost", title_fontsize=9)
    refs = int(np.nanmax(t["references"])) if len(t) else 0
    add_caption(fig, f"Median over {refs} reference run(s) of each set; the truth of every point is the reference "
                     "run's own trace. Floor: the aligner fed every other run's true counts (what run-to-run "
                     "variation alone costs it).")
    return fig


FIGURE = Figure(name="alignment_frontier", about="trace alignment vs multiplexing: error against measurement cost",
                experiment="experiments/alignment.toml", draw=draw)
