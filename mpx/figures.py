"""Thesis figures, drawn from a results store only (`mpx.results.ResultsStore`), in one style.

Every figure is a function ``fig_<name>(store, experiment=None) -> Figure`` registered in `FIGURES`;
`draw` saves each as PDF (the thesis) and PNG (a quick look). The style is meant for print: a 6.3 in
text width, 9 pt type, and every series told apart by marker, line style or hatch as well as by colour
(Okabe–Ito palette), so the figures stay readable in grey-scale. Errors are in percent; axes say their
unit. Nothing here computes a result: the numbers come from the store's tables (``scores``,
``events``, ``schedule``, ``series``), aggregated with medians over workloads where a figure says so.

Figures: ``error_vs_duty_cycle``, ``error_vs_events``, ``scaler_per_workload``, ``scheduler_table``,
``timeline`` (true vs estimated counts with the scaler's 90% band), ``causal_vs_offline``, ``scaler_cost``,
``partitioner_vs_kahypar`` (km1 relative to a reference and seconds per instance and tool; table ``partition``),
``headline`` (each ``[output] headline`` method's error over the best other scaler's against the number of
counters, with the bootstrap interval of `mpx.compare.headline`).
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


def _log_axis(ax: Any, axis: str = "y") -> None:
    """Log scale with plain numbers (1, 10, 100, 1000) and unlabelled minor ticks."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    getattr(ax, f"set_{axis}scale")("log")
    a = ax.yaxis if axis == "y" else ax.xaxis
    ax.autoscale_view()
    lo, hi = (ax.get_ylim() if axis == "y" else ax.get_xlim())
    if hi / max(lo, 1e-300) < 1e3:  # few decades: label 1-2-5 steps
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(NullFormatter())


def _sweep_figure(df: Any, key: str, x: Any, xlabel: str, title: str) -> Any:
    """Two panels over a swept parameter ``key``: window MAPE (log) and the share of event-windows a
    scaler left without an estimate — window MAPE scores only the windows that have one."""
    import matplotlib.pyplot as plt
    import pandas as pd

    df = df.copy()
    df["missing_share"] = pd.to_numeric(df.get("missing_share"), errors="coerce")
    g = df.groupby(["scaler", key]).agg(x=(x, "median"), y=("window_mape", "median"), m=("missing_share", "median"))
    order = g.groupby(level=0)["y"].median().sort_values().index
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH, 3.5), gridspec_kw={"width_ratios": [3, 2]})
    for i, scaler in enumerate(order):
        part = g.loc[scaler].sort_values("x")
        ax.plot(part["x"], part["y"] * 100, label=scaler, **_look(i))
        ax2.plot(part["x"], part["m"] * 100, **_look(i))
    _log_axis(ax)
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


def fig_error_vs_duty_cycle(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the duty cycle (mean share of quanta an event is counted), one line per
    scaler, median over workloads at each swept counter count; right: windows left without estimate."""
    df = _scores(store, experiment)
    s = _pick_scheduler(df)
    df = df[df["scheduler"] == s].copy()
    df["duty"] = df["mean_sampling_ratio"] * 100
    c = sorted(df["counters"].dropna().unique().astype(int))
    n = sorted(df["n_events"].dropna().unique().astype(int))
    return _sweep_figure(df, "counters", "duty", "duty cycle: mean share of quanta\nan event is counted (%)",
                         f"Error against duty cycle: {s} scheduler, {', '.join(map(str, n))} events, "
                         f"{c[0]}-{c[-1]} counters")


def fig_error_vs_events(store: Any, experiment: str | None = None) -> Any:
    """Window MAPE against the number of multiplexed events at a fixed number of counters."""
    df = _scores(store, experiment)
    s = _pick_scheduler(df)
    df = df[df["scheduler"] == s].copy()
    counters = sorted(df["counters"].dropna().unique().astype(int))
    return _sweep_figure(df, "n_events", "n_events", "events multiplexed (count)",
                         f"Error against the number of events: {s} scheduler, "
                         f"{', '.join(map(str, counters))} counters")


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
        # past the palette, white bars told apart by their hatch (a hatch on a black bar would not show)
        face = PALETTE[i] if i < len(PALETTE) else "white"
        ax.bar(x + (i - (n_s - 1) / 2) * width, piv[scaler].to_numpy() * 100, width, label=scaler,
               color=face, hatch=HATCHES[i % len(HATCHES)], edgecolor="black", linewidth=0.4)
    ax.set_xticks(x, piv.index, rotation=0)
    _log_axis(ax)
    low = np.nanmin(piv.to_numpy() * 100)
    if np.isfinite(low) and low > 0:
        ax.set_ylim(bottom=10.0 ** np.floor(np.log10(low)))  # bars start at a round decade
    ax.set_xlabel("workload")
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title(f"Scaler error per workload ({s} scheduler, {int(df['counters'].median())} counters; "
                 "over the windows each scaler estimates)")
    ax.grid(axis="x", visible=False)
    _legend_below(ax, n_s)
    return fig


def fig_scheduler_table(store: Any, experiment: str | None = None) -> Any:
    """The scheduler table (utilization, sampling and co-scheduling ratios, configurations; means over
    cells) rendered as a figure — with several metric catalogs, three grey-scale heat maps (catalog x
    scheduler) instead; ``draw`` also writes the table as LaTeX."""
    import matplotlib.pyplot as plt

    t = _scheduler_table(store, experiment)
    if t.index.nlevels > 1:
        return _scheduler_heatmaps(t)
    fig, ax = plt.subplots(figsize=(WIDTH, 0.5 + 0.26 * (len(t) + 2)))
    ax.axis("off")
    cells = [[f"{v:.1f}" if v == v else "—" for v in row] for row in t.to_numpy()]
    idx = [str(i) for i in t.index]
    tab = ax.table(cellText=cells, rowLabels=idx, colLabels=list(t.columns), cellLoc="right",
                   rowLoc="left", colLoc="right", edges="horizontal", bbox=[0.12, 0, 0.88, 1])
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    for (r, _c), cell in tab.get_celld().items():
        cell.set_linewidth(0.8 if r == 0 else 0.3)
    ax.set_title("Schedulers: PMC utilization, sampling and co-scheduling (means over cells)", pad=6)
    return fig


def _scheduler_heatmaps(t: Any) -> Any:
    import matplotlib.pyplot as plt
    import numpy as np

    cols = list(t.columns[:4])
    cats = list(dict.fromkeys(t.index.get_level_values(0)))
    scheds = sorted(set(t.index.get_level_values(1)))
    fig, axes = plt.subplots(len(cols), 1, figsize=(WIDTH, 0.25 * len(cats) * len(cols) + 1.2 * len(cols)),
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
        ax.set_title(col.replace("\n", " ") + " (— : scheduler not applicable)", loc="left")
        ax.grid(False)
        for sp in ax.spines.values():
            sp.set_visible(False)
    fig.tight_layout()
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
    # schedule experiments (one cell per metric catalog): a row per catalog and scheduler; scaling
    # experiments (one catalog over many workloads): a row per scheduler
    per_catalog = (sc["trace"].astype(str) != sc["dataset"].astype(str)).all() and sc["dataset"].nunique() > 1
    by = ["dataset", "scheduler"] if per_catalog else ["scheduler"]
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
    here = scores[(scores["dataset"] == dataset) & (scores["scheduler"] == s)]
    err = pd.to_numeric(here["window_mape"], errors="coerce").groupby(here["scaler"]).median()
    with_std.sort(key=lambda x: err.get(x, np.inf))  # the band of the most accurate scaler with a std
    pick = [x for x in ("linear", "dira", "cam") if x in set(ser["scaler"])][:2] + with_std[:1]
    pick = pick or sorted(ser["scaler"].unique())[:3]
    fig, axes = plt.subplots(len(events), 1, figsize=(WIDTH, 2.3 * len(events) + 0.6), sharex=True, squeeze=False)
    tmax = float(ser["end"].max())
    scale = 1e9 if tmax > 3e9 else 1e6 if tmax > 3e6 else 1e3 if tmax > 3e3 else 1.0
    scores = scores[(scores["dataset"] == dataset) & (scores["scheduler"] == s)]
    rw = pd.to_numeric(scores["read_window"], errors="coerce").dropna() if "read_window" in scores else None
    rw_text = (f", read window {rw.iloc[0] / scale:.3g}" + (" ×" if scale != 1 else "") + f" {_time_label(unit, scale)}"
               if rw is not None and len(rw) else "")
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
    ax.set_xticks(range(1, len(order) + 1), [f"{n} ({'causal' if causal[n] else 'offline'})" for n in order],
                  rotation=25, ha="right", rotation_mode="anchor")
    _log_axis(ax)
    ax.set_ylabel("window MAPE (%), log scale")
    ax.set_title(f"Causal (online-usable, white) vs offline (hatched) scalers: {df['cell_key'].nunique()} cells "
                 f"({df['workload'].nunique()} workloads x {df['scheduler'].nunique()} schedulers x settings)")
    ax.grid(axis="x", visible=False)
    return fig


def _eng(v: float) -> str:
    for f, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= f:
            return f"{v / f:.3g}{suffix}"
    return f"{v:.3g}"


def fig_scaler_cost(store: Any, experiment: str | None = None) -> Any:
    """Throughput of each scaler: event-windows per second of ``estimate()``, median over cells (dot)
    and the range over cells (line); log scale."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    df = _scores(store, experiment)
    df = df[df["event_windows_per_s"] > 0]
    g = df.groupby("scaler")["event_windows_per_s"].agg(["median", "min", "max"]).sort_values("median",
                                                                                               ascending=False)
    n_ew = (pd_num(df["n_windows"]) * pd_num(df["n_events"])).median()
    fig, ax = plt.subplots(figsize=(WIDTH, 0.5 + 0.3 * len(g)))
    for i, (n, r) in enumerate(g.iterrows()):
        ax.plot([r["min"], r["max"]], [i, i], color="#777777", linewidth=1.0)
        ax.plot(r["median"], i, marker=MARKERS[i % len(MARKERS)], color="black", markersize=6, linestyle="none")
        ax.annotate(_eng(r["median"]), (r["median"], i), textcoords="offset points", xytext=(0, 6), ha="center",
                    fontsize=7)
    ax.set_yticks(range(len(g)), g.index)
    ax.set_ylim(len(g) - 0.5, -0.7)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _eng(v)))
    ax.set_xlabel("throughput of estimate() (event-windows per second; log scale)")
    ax.set_title(f"Scaler cost: median (marker) and range over {df['cell_key'].nunique()} cells of ~{n_ew:,.0f} "
                 "event-windows; wall time on a shared machine")
    ax.grid(axis="y", visible=False)
    return fig


def _partition_rows(store: Any, experiment: str | None) -> Any:
    import pandas as pd

    df = store.table("partition", experiment)
    if df.empty:
        raise ConfigError("the results store has no partitioner results (mpx run experiments/partitioner.toml)")
    for c in ("km1", "partition_seconds", "reference_km1", "k", "n"):
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
        else:
            df[c] = float("nan")
    return df


_TOOL_NAMES = {"mpx": "mpx.partition", "kahypar": "KaHyPar", "mtkahypar": "Mt-KaHyPar"}


def _tool_settings(done: Any) -> str:
    """One line naming each tool's version and configuration, from the stored ``tool_params``."""
    import json
    from pathlib import Path

    parts = []
    order = {"mpx": 0, "kahypar": 1, "mtkahypar": 2}
    for tool, g in sorted(done.groupby("tool"), key=lambda x: order.get(x[0], 3)):
        p = json.loads(g["tool_params"].iloc[0]) if isinstance(g["tool_params"].iloc[0], str) else {}
        ver = g["tool_version"].dropna()
        name = _TOOL_NAMES.get(tool, tool) + (f" {ver.iloc[0]}" if len(ver) else "")
        if "ini" in p:
            name += f" ({Path(p['ini']).name})"
        elif "preset" in p:
            name += f" ({p['preset']} preset, {p.get('threads', 1)} thread{'s' if p.get('threads', 1) > 1 else ''})"
        elif p.get("context") == "auto":
            name += " (mpx.grouping's configuration on capped instances)"
        parts.append(name)
    return "; ".join(parts)


def fig_partitioner_vs_kahypar(store: Any, experiment: str | None = None) -> Any:
    """Per instance and tool: mean km1 over seeds relative to a reference (the published mean when the
    config gives one — KaHyPar-K on ibm01 — else the best km1 any tool found on that instance in the store),
    with the range over seeds; and the mean seconds of one partition call (log scale), with the range."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import FuncFormatter

    df = _partition_rows(store, experiment)
    tools = [t for t in ("mpx", "kahypar", "mtkahypar") if t in set(df["tool"])]
    tools += sorted(set(df["tool"]) - set(tools))
    done = df[(df["status"] == "done") & df["km1"].notna()].copy()
    if done.empty:
        raise ConfigError("the results store has no finished partitioner run")
    done["feasible"] = done["feasible"].astype(bool)
    fam_order = {"hmetis": 0, "events": 1, "catalog": 2}
    first = done.groupby("instance").agg(family=("family", "first"), n=("n", "first"), k=("k", "first"),
                                         cap=("cap", "first"), ref=("reference_km1", "first"))
    first["order"] = first["family"].map(fam_order).fillna(3)
    instances = list(first.sort_values(["order", "n", "k"], kind="mergesort").index)
    feas = done[done["feasible"]]
    best = feas.groupby("instance")["km1"].min()
    ref_label = done["reference_label"].dropna().iloc[0] if done["reference_label"].notna().any() else None
    published = {i for i in instances if first.loc[i, "ref"] == first.loc[i, "ref"] and first.loc[i, "ref"]}
    denom = {i: (first.loc[i, "ref"] if i in published else best.get(i, np.nan)) for i in instances}

    def label(i: str) -> str:
        r = first.loc[i]
        extra = f", n={int(r['n'])}, C={int(r['cap'])}" if r["family"] == "catalog" else (
            f", k={int(r['k'])}" if r["family"] == "events" else "")
        return f"{i}{extra}" + (" *" if i in published else "")

    seeds = done.groupby(["instance", "tool"])["seed"].nunique()
    notes = [(f"* reference = {ref_label}; other rows: best km1 found by any tool on the instance (feasible runs)"
              if published else "reference = best km1 found by any tool on the instance (feasible runs)")]
    notes.append(_tool_settings(done))
    for t, why in df[df["status"] == "skipped"].groupby("tool")["reason"].first().items():
        notes.append(f"{t}: skipped ({why})")
    for t, cnt in df[df["status"] == "failed"].groupby("tool").size().items():
        notes.append(f"{t}: {cnt} run(s) failed (the tool refused or crashed)")
    for t, cnt in done[~done["feasible"]].groupby("tool").size().items():
        notes.append(f"{t}: {cnt} run(s) violated the balance or the caps (not plotted)")
    notes.insert(0, f"markers: mean over {int(seeds.max())} seeds; lines: min to max; time: wall clock of one "
                    "partition call, all tools in the same run on one machine")
    height = 1.2 + 0.24 * len(instances) + 0.15 * len(notes)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH, height), sharey=True, layout="constrained")
    fills = ["black", "white", "#999999"]
    off = np.linspace(-0.2, 0.2, len(tools)) if len(tools) > 1 else np.zeros(1)
    for j, tool in enumerate(tools):
        g = feas[feas["tool"] == tool].groupby("instance")
        y = [i for i in range(len(instances)) if instances[i] in g.groups]
        if not y:
            continue
        names = [instances[i] for i in y]
        d = np.array([denom[n] for n in names], dtype=float)
        d = np.where(d > 0, d, np.nan)  # every tool at km1 = 0: no ratio (written out below)
        km = g["km1"].agg(["mean", "min", "max"]).loc[names]
        sec = g["partition_seconds"].agg(["mean", "min", "max"]).loc[names]
        look = {"marker": MARKERS[j % len(MARKERS)], "markerfacecolor": fills[j] if j < len(fills) else PALETTE[j],
                "markeredgecolor": "black", "color": "black", "linestyle": "none", "markersize": 5}
        yy = np.array(y) + off[j]
        ax.errorbar(km["mean"] / d, yy, xerr=[(km["mean"] - km["min"]) / d, (km["max"] - km["mean"]) / d],
                    elinewidth=0.7, capsize=0, label=_TOOL_NAMES.get(tool, tool), **look)
        ax2.errorbar(sec["mean"], yy, xerr=[sec["mean"] - sec["min"], sec["max"] - sec["mean"]], elinewidth=0.7,
                     capsize=0, **look)
    ax.axvline(1.0, color="#555555", linewidth=0.8, linestyle="--", zorder=0)
    for i, inst in enumerate(instances):
        if not denom[inst] > 0:
            ax.text(1.0, i, " km1 = 0 for every tool", va="center", ha="left", fontsize=7)
    ax.set_yticks(range(len(instances)), [label(i) for i in instances])
    ax.set_ylim(len(instances) - 0.5, -0.5)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 5, 10]))
    ax.set_xlabel("km1 / reference")
    ax2.set_xscale("log")
    ax2.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax2.set_xlabel("seconds per call (log scale)")
    for a in (ax, ax2):
        a.grid(axis="y", visible=False)
        for b in range(1, len(instances)):
            if first.loc[instances[b], "family"] != first.loc[instances[b - 1], "family"]:
                a.axhline(b - 0.5, color="#999999", linewidth=0.6)
    ax.set_title("km1 (lower is better)")
    ax2.set_title("time (lower is better)")
    handles, leg = ax.get_legend_handles_labels()
    fig.legend(handles, leg, loc="outside upper center", ncol=len(leg))
    import textwrap

    lines = [w for n in notes for w in textwrap.wrap(n, 118, subsequent_indent="  ")]  # within the text width
    fig.supxlabel("\n".join(lines), fontsize=7, x=0.01, ha="left", linespacing=1.4)
    return fig


def fig_headline(store: Any, experiment: str | None = None) -> Any:
    """Ratio of each headline method's window error (where the event ran) to the best other scaler's,
    against the number of counters, with 95% bootstrap intervals over workloads (`mpx.compare.headline`);
    one panel per workload set (shipped, held-out), one line per method and scheduler."""
    import matplotlib.pyplot as plt

    from mpx.compare import headline, headline_methods

    methods: list[str] = []
    for name in [experiment] if experiment else list(reversed(store.experiments())):  # latest with a headline
        methods = headline_methods(store, name)
        if methods:
            experiment = name
            break
    if not methods:
        raise ConfigError("figure headline: no run's config lists methods under [output] headline")
    h = headline(_scores(store, experiment), methods)
    if h.empty:
        raise ConfigError(f"figure headline: no scores of {methods} beside another scaler in the results store")
    sets = [s for s in ("shipped", "held-out") if s in set(h["set"])]
    fig, axes = plt.subplots(1, len(sets), figsize=(WIDTH, 2.8), sharey=True, squeeze=False)
    series = sorted({(m, s) for m, s in zip(h["method"], h["scheduler"])}, key=lambda t: (methods.index(t[0]), t[1]))
    for ax, group in zip(axes[0], sets):
        g = h[h["set"] == group]
        for i, (m, sched) in enumerate(series):
            d = g[(g["method"] == m) & (g["scheduler"] == sched)].sort_values("counters")
            if d.empty:
                continue
            x = d["counters"].to_numpy(float) + 0.08 * (i - (len(series) - 1) / 2)  # side by side
            ax.errorbar(x, d["ratio"], yerr=[d["ratio"] - d["ratio_lo"], d["ratio_hi"] - d["ratio"]], capsize=2,
                        label=f"{m} ({sched})", **_look(i))
        ax.axhline(1.0, color="#777777", linewidth=0.8)
        ax.axhline(0.5, color="#777777", linewidth=0.8, linestyle="--")
        ax.set_title(f"{group} workloads ({int(g['workloads'].max())})")
        ax.set_xlabel("generic counters")
        ax.set_xticks(sorted(set(g["counters"])))
    axes[0][0].set_ylabel("error / best baseline's error")
    last = axes[0][-1]
    last.text(last.get_xlim()[1], 1.0, "best baseline", ha="right", va="bottom", fontsize=7, color="#555555")
    last.text(last.get_xlim()[1], 0.5, "half (issue 7 target)", ha="right", va="bottom", fontsize=7, color="#555555")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=min(len(series), 4))
    fig.tight_layout()
    return fig


def pd_num(s: Any) -> Any:
    import pandas as pd

    return pd.to_numeric(s, errors="coerce")


FIGURES: dict[str, Callable[..., Any]] = {
    "error_vs_duty_cycle": fig_error_vs_duty_cycle,
    "error_vs_events": fig_error_vs_events,
    "scaler_per_workload": fig_scaler_per_workload,
    "scheduler_table": fig_scheduler_table,
    "timeline": fig_timeline,
    "causal_vs_offline": fig_causal_vs_offline,
    "scaler_cost": fig_scaler_cost,
    "partitioner_vs_kahypar": fig_partitioner_vs_kahypar,
    "headline": fig_headline,
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


def script_main(figure: str, default_results: str, argv: list[str] | None = None, doc: str | None = None) -> int:
    """The command line of a ``paper_figs/fig_*.py`` script: ``RESULTS [--out DIR] [--experiment NAME]``."""
    import argparse

    from mpx.results import open_store

    ap = argparse.ArgumentParser(description=(doc or f"Thesis figure {figure}").splitlines()[0])
    ap.add_argument("results", nargs="?", default=default_results, help="results folder or results.sqlite")
    ap.add_argument("--out", help="output folder (default: RESULTS/figures)")
    ap.add_argument("--experiment", help="experiment name (default: the latest run of each experiment)")
    args = ap.parse_args(argv)
    base = Path(args.results)
    out = Path(args.out) if args.out else (base if base.is_dir() else base.parent) / "figures"
    with open_store(args.results) as store:
        for p in draw(store, [figure], out, experiment=args.experiment):
            print(p)
    return 0
