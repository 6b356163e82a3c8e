"""Figure ``partitioner_vs_kahypar``: km1 relative to a reference, and seconds, per instance and tool (data: ``mpx run experiments/partitioner.toml``)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from mpx.errors import ConfigError
from mpx.figures.figure import Figure
from mpx.figures.style import MARKERS, PALETTE, WIDTH, log_axis

__all__ = ["FIGURE", "draw"]


def draw(store: Any, experiment: str | None = None) -> Any:
    """Per instance and tool: mean km1 over seeds relative to a reference (the published mean when the
    config gives one — KaHyPar-K on ibm01 — else the best km1 any tool found on that instance in the store),
    with the range over seeds; and the mean seconds of one partition call (log scale), with the range."""
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

    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 5, 10]))
    ax.set_xlabel("km1 / reference")
    log_axis(ax2, "x")  # plain numbers, minor ticks unlabelled: less than a decade of seconds made them collide
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

    lines = [w for n in notes for w in textwrap.wrap(n, 118, subsequent_indent="  ")]  # within the text width
    fig.supxlabel("\n".join(lines), fontsize=7, x=0.01, ha="left", linespacing=1.4)
    return fig


def _partition_rows(store: Any, experiment: str | None) -> Any:
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
            name += " (mpx.grouping.partitioned's configuration on capped instances)"
        parts.append(name)
    return "; ".join(parts)


FIGURE = Figure(name="partitioner_vs_kahypar", about="km1 relative to a reference, and seconds, per instance and tool",
                experiment="experiments/partitioner.toml", draw=draw)
