"""Thesis figures, drawn from a results store only (`mpx.results.ResultsStore`), in one style.

Every figure is a function ``fig_<name>(store, experiment=None) -> Figure`` registered in `FIGURES`;
`draw` saves each as PDF (the thesis) and PNG (a quick look). The style is meant for print: a 6.3 in
text width, 9 pt type, and every series told apart by marker, line style or hatch as well as by colour
(Okabe–Ito palette), so the figures stay readable in grey-scale. Errors are in percent; axes say their
unit. Nothing here computes a result: the numbers come from the store's tables (``scores``,
``events``, ``schedule``, ``series``), aggregated with medians over workloads where a figure says so.

Figures: ``error_vs_duty_cycle``, ``error_vs_events``, ``scaler_per_workload``, ``scheduler_table``,
``timeline`` (true vs estimated counts with the scaler's 90% band), ``causal_vs_offline``, ``scaler_cost``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from mpx.errors import ConfigError

__all__ = ["FIGURES", "draw", "style"]

PALETTE = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#999999"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 2, 2))]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++", "|||", "**"]
WIDTH = 6.3  # inches: a thesis text width


def style() -> None:
    """Apply the figures' matplotlib style (Agg backend, print sizes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8,
        "ytick.labelsize": 8, "axes.grid": True, "grid.color": "#d0d0d0", "grid.linewidth": 0.5,
        "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 200,
        "savefig.bbox": "tight", "pdf.fonttype": 42, "lines.linewidth": 1.3, "lines.markersize": 5,
        "legend.frameon": False, "hatch.linewidth": 0.6,
    })


def _look(i: int) -> dict[str, Any]:
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)]}


def _scores(store: Any, experiment: str | None) -> Any:
    import pandas as pd

    df = store.table("scores", experiment)
    if df.empty or "window_mape" not in df:
        raise ConfigError("the results store has no scaler scores for this figure")
    df = df[df["status"] == "done"].copy()
    for c in ("window_mape", "total_error", "mean_sampling_ratio", "event_windows_per_s", "counters", "n_events"):
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def _pick_scheduler(df: Any, preferred: str = "perf") -> str:
    names = sorted(df["scheduler"].unique())
    return preferred if preferred in names else names[0]


def _time_label(unit: str, scale: float) -> str:
    prefix = {1.0: "", 1e3: "10$^3$ ", 1e6: "10$^6$ ", 1e9: "10$^9$ "}.get(scale, f"{scale:g} ")
    return f"{prefix}{unit}"


def _legend_below(ax: Any, n: int) -> None:
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(n, 5))


# -- the figures ------------------------------------------------------------------------------------


def fig_error_vs_duty_cycle(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the duty cycle (mean share of quanta an event is counted), one line per
    scaler, median over workloads at each swept counter count."""
    import matplotlib.pyplot as plt

    df = _scores(store, experiment)
    s = _pick_scheduler(df)
    df = df[df["scheduler"] == s]
    g = df.groupby(["scaler", "counters"]).agg(x=("mean_sampling_ratio", "median"), y=("window_mape", "median"))
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    for i, (scaler, part) in enumerate(g.groupby(level=0)):
        part = part.sort_values("x")
        ax.plot(part["x"] * 100, part["y"] * 100, label=scaler, **_look(i))
    ax.set_xlabel("duty cycle: mean share of quanta an event is counted (%)")
    ax.set_ylabel("window MAPE (%), median over workloads")
    ax.set_yscale("log")
    ax.set_title(f"Error against duty cycle ({s} scheduler; counters swept)")
    _legend_below(ax, g.index.get_level_values(0).nunique())
    return fig


def fig_error_vs_events(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the number of multiplexed events at a fixed number of counters."""
    import matplotlib.pyplot as plt

    df = _scores(store, experiment)
    s = _pick_scheduler(df)
    df = df[df["scheduler"] == s]
    g = df.groupby(["scaler", "n_events"])["window_mape"].median()
    counters = sorted(df["counters"].dropna().unique().astype(int))
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    for i, (scaler, part) in enumerate(g.groupby(level=0)):
        x = part.index.get_level_values(1)
        ax.plot(x, part.to_numpy() * 100, label=scaler, **_look(i))
    ax.set_xlabel(f"events multiplexed on {', '.join(map(str, counters))} counter(s) (count)")
    ax.set_ylabel("window MAPE (%), median over workloads")
    ax.set_yscale("log")
    ax.set_title(f"Error against the number of events ({s} scheduler)")
    _legend_below(ax, g.index.get_level_values(0).nunique())
    return fig


def fig_scaler_per_workload(store: Any, experiment: str | None = None) -> Any:
    """Grouped bars: window MAPE of each scaler on each workload (one scheduler: perf when present)."""
    import matplotlib.pyplot as plt
    import numpy as np

    df = _scores(store, experiment)
    s = _pick_scheduler(df)
    df = df[df["scheduler"] == s]
    piv = df.pivot_table(index="workload", columns="scaler", values="window_mape", aggfunc="median")
    piv = piv[piv.median().sort_values().index]  # scalers from best to worst
    n_w, n_s = piv.shape
    fig, ax = plt.subplots(figsize=(WIDTH, 3.4))
    width = 0.8 / n_s
    x = np.arange(n_w)
    for i, scaler in enumerate(piv.columns):
        ax.bar(x + (i - (n_s - 1) / 2) * width, piv[scaler].to_numpy() * 100, width, label=scaler,
               color=PALETTE[i % len(PALETTE)], hatch=HATCHES[i % len(HATCHES)], edgecolor="black", linewidth=0.4)
    ax.set_xticks(x, piv.index, rotation=0)
    ax.set_yscale("log")
    ax.set_xlabel("workload")
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title(f"Scaler error per workload ({s} scheduler, {int(df['counters'].median())} counters)")
    ax.grid(axis="x", visible=False)
    _legend_below(ax, n_s)
    return fig


def fig_scheduler_table(store: Any, experiment: str | None = None) -> Any:
    """The scheduler table (utilization, sampling and co-scheduling ratios, configurations; means over
    cells) rendered as a figure; ``draw`` also writes it as a LaTeX table."""
    import matplotlib.pyplot as plt

    t = _scheduler_table(store, experiment)
    fig, ax = plt.subplots(figsize=(WIDTH, 0.35 + 0.24 * (len(t) + 1)))
    ax.axis("off")
    cells = [[f"{v:.1f}" if v == v else "—" for v in row] for row in t.to_numpy()]
    idx = [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in t.index]
    tab = ax.table(cellText=cells, rowLabels=idx, colLabels=list(t.columns), loc="center", cellLoc="right",
                   rowLoc="left", colLoc="right", edges="horizontal")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1, 1.25)
    for (r, _c), cell in tab.get_celld().items():
        cell.set_linewidth(0.8 if r == 0 else 0.3)
        if r == 0:
            cell.set_height(cell.get_height() * 1.9)
    ax.set_title("Schedulers: PMC utilization, sampling and co-scheduling (means over cells)", pad=14)
    return fig


def _scheduler_table(store: Any, experiment: str | None) -> Any:
    import pandas as pd

    sc = store.table("schedule", experiment)
    if sc.empty:
        raise ConfigError("the results store has no scheduler figures")
    if "skipped" in sc:
        sc = sc[sc["skipped"].isna()]
    cols = ["utilization", "mean_sampling_ratio", "min_sampling_ratio", "mean_coschedule_ratio", "groups"]
    sc = sc.copy()
    for c in cols:
        sc[c] = pd.to_numeric(sc[c], errors="coerce")
    by = ["catalog", "scheduler"] if sc["catalog"].nunique() > 1 else ["scheduler"]
    t = sc.groupby(by)[cols].mean()
    t[cols[:-1]] = t[cols[:-1]] * 100
    return t.rename(columns={"utilization": "utilization\n(%)", "mean_sampling_ratio": "mean sampling\nratio (%)",
                             "min_sampling_ratio": "min. sampling\nratio (%)",
                             "mean_coschedule_ratio": "metrics fully\nco-scheduled (%)", "groups": "distinct\nconfigurations"})


def fig_timeline(store: Any, experiment: str | None = None) -> Any:
    """True vs estimated counts per read window for one event and workload, with the 90% band of the
    scalers that report a std (Gaussian: estimate ± 1.645 std); one panel per stored event (up to 2)."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    ser = store.table("series", experiment)
    if ser.empty:
        raise ConfigError("the results store has no per-window series (set [output] series_events)")
    cells = store.table("cells", experiment).set_index("key")
    ser = ser.join(cells[["dataset", "scheduler"]], on="cell_key")
    s = _pick_scheduler(ser)
    ser = ser[ser["scheduler"] == s]
    dataset = sorted(ser["dataset"].unique())[0]
    ser = ser[ser["dataset"] == dataset]
    for c in ("start", "end", "truth", "estimate", "std"):
        ser[c] = pd.to_numeric(ser[c], errors="coerce")
    events = sorted(ser["event"].unique())[:2]
    scores = store.table("scores", experiment)
    unit = scores["time_unit"].dropna().iloc[0] if "time_unit" in scores and scores["time_unit"].notna().any() else "time"
    with_std = [x for x in sorted(ser["scaler"].unique()) if ser.loc[ser["scaler"] == x, "std"].notna().any()]
    pick = [x for x in ("linear", "dira", "cam") if x in set(ser["scaler"])][:2] + with_std[:1]
    pick = pick or sorted(ser["scaler"].unique())[:3]
    fig, axes = plt.subplots(len(events), 1, figsize=(WIDTH, 2.3 * len(events) + 0.6), sharex=True, squeeze=False)
    tmax = float(ser["end"].max())
    scale = 1e9 if tmax > 3e9 else 1e6 if tmax > 3e6 else 1e3 if tmax > 3e3 else 1.0
    scores = scores[(scores["dataset"] == dataset) & (scores["scheduler"] == s)]
    rw = pd.to_numeric(scores["read_window"], errors="coerce").dropna() if "read_window" in scores else None
    rw_text = f", read window {rw.iloc[0] / scale:.3g} {_time_label(unit, scale)}" if rw is not None and len(rw) else ""
    for ax, ev in zip(axes[:, 0], events):
        part = ser[ser["event"] == ev]
        first = part[part["scaler"] == pick[0]].sort_values("window")
        mid = (first["start"] + first["end"]).to_numpy() / 2 / scale
        top = float(np.nanmax(part[["truth", "estimate"]].to_numpy())) if len(part) else 1.0
        ysc = 10.0 ** max(0, 3 * int(np.floor(np.log10(max(top, 1.0)) / 3)))
        ax.plot(mid, first["truth"] / ysc, color="black", linewidth=1.6, label="truth")
        for i, sc in enumerate(pick, start=1):
            p = part[part["scaler"] == sc].sort_values("window")
            look = _look(i)
            ax.plot(mid, p["estimate"] / ysc, color=look["color"], linestyle=look["linestyle"],
                    marker=look["marker"], markevery=max(1, len(p) // 15), markersize=3.5, linewidth=1.0, label=sc)
            if p["std"].notna().any():
                lo = np.maximum(p["estimate"] - 1.645 * p["std"], 0) / ysc
                hi = (p["estimate"] + 1.645 * p["std"]) / ysc
                ax.fill_between(mid, lo, hi, color=look["color"], alpha=0.25, linewidth=0,
                                label=f"{sc}: 90% band")
        unit_y = "" if ysc == 1 else f" (10$^{{{int(round(np.log10(ysc)))}}}$)"
        ax.set_ylabel(f"{ev} per read window{unit_y}")
        ax.set_title(f"{ev} on {dataset} ({s} scheduler{rw_text})", loc="left")
    axes[-1, 0].set_xlabel(f"position in the run ({_time_label(unit, scale)})")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), bbox_to_anchor=(0.5, 0.0))
    return fig


def fig_causal_vs_offline(store: Any, experiment: str | None = None) -> Any:
    """Each scaler's window MAPE over every cell (box plot, log scale), causal scalers left, offline right."""
    import matplotlib.pyplot as plt

    df = _scores(store, experiment)
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
    ax.set_xticks(range(1, len(order) + 1), [f"{n}\n({'causal' if causal[n] else 'offline'})" for n in order])
    ax.set_yscale("log")
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title("Causal (online-usable) vs offline scalers, every cell")
    ax.grid(axis="x", visible=False)
    return fig


def fig_scaler_cost(store: Any, experiment: str | None = None) -> Any:
    """Throughput of each scaler (event-windows per second, median over cells; log scale)."""
    import matplotlib.pyplot as plt

    df = _scores(store, experiment)
    v = df.groupby("scaler")["event_windows_per_s"].median().sort_values(ascending=False)
    fig, ax = plt.subplots(figsize=(WIDTH, 3.0))
    for i, (n, x) in enumerate(v.items()):
        ax.barh(i, x, color=PALETTE[i % len(PALETTE)], hatch=HATCHES[i % len(HATCHES)], edgecolor="black",
                linewidth=0.4)
    ax.set_yticks(range(len(v)), v.index)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("throughput (event-windows per second, median over cells; log scale)")
    ax.set_title("Scaler cost (wall time of estimate(); shared machine)")
    ax.grid(axis="y", visible=False)
    return fig


FIGURES: dict[str, Callable[..., Any]] = {
    "error_vs_duty_cycle": fig_error_vs_duty_cycle,
    "error_vs_events": fig_error_vs_events,
    "scaler_per_workload": fig_scaler_per_workload,
    "scheduler_table": fig_scheduler_table,
    "timeline": fig_timeline,
    "causal_vs_offline": fig_causal_vs_offline,
    "scaler_cost": fig_scaler_cost,
}


def draw(store: Any, names: list[str] | str, out_dir: str | os.PathLike, experiment: str | None = None) -> list[Path]:
    """Draw figures ``names`` (or ``"all"``) from ``store`` into ``out_dir`` as ``<name>.pdf`` and
    ``<name>.png``; the scheduler table also as ``scheduler_table.tex``. Returns the files written."""
    import matplotlib.pyplot as plt

    names = list(FIGURES) if names == "all" else list(names)
    bad = [n for n in names if n not in FIGURES]
    if bad:
        raise ConfigError(f"unknown figure(s) {bad}; figures: {', '.join(FIGURES)}")
    style()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for n in names:
        fig = FIGURES[n](store, experiment)
        for ext in ("pdf", "png"):
            p = out / f"{n}.{ext}"
            fig.savefig(p)
            written.append(p)
        plt.close(fig)
        if n == "scheduler_table":
            from mpx.results import to_latex

            p = out / "scheduler_table.tex"
            t = _scheduler_table(store, experiment).round(1)
            t.columns = [c.replace("\n", " ") for c in t.columns]
            p.write_text(to_latex(t, "Schedulers: PMC utilization, "
                                  "sampling and co-scheduling ratios (means over cells)", "tab:schedulers") + "\n")
            written.append(p)
    return written
