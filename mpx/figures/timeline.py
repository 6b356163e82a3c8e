"""Figure ``timeline``: true vs estimated counts per read window, 90% band (data: ``mpx run experiments/quickstart.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from mpx.errors import ConfigError
from mpx.figures.data import error_column, scores as done_scores
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption, hold
from mpx.figures.style import WIDTH, look, short_event, time_axis

__all__ = ["FIGURE", "aliases", "draw", "seconds_per_unit"]


def aliases(store: Any, experiment: str | None) -> dict[str, str]:
    """Event → its short name in the run's metric catalog: the metric that is that one event alone (the gem5
    catalog's perf-like names, e.g. ``L1_dcache_misses`` for ``system.cpu.dcache.demandMisses::total``),
    preferring the catalog's ``perf`` group; empty without a catalog."""
    cfg = store.run_config(experiment) or {}
    name = (cfg.get("hardware") or {}).get("metrics")
    if not isinstance(name, str):
        return {}
    try:
        from mpx.metrics.catalog import resolve_catalog

        cat = resolve_catalog(name)
    except Exception:  # noqa: BLE001 - a catalog that no longer loads: full names, never a failed figure
        return {}
    out: dict[str, str] = {}
    for m in sorted(cat.metrics.values(), key=lambda m: ("perf" not in m.groups, len(m.name))):
        e = m.expr.strip()
        if m.events == {e} and not m.literals and e not in out:
            out[e] = m.name
    return out


def seconds_per_unit(rows: Any, dataset: str, unit: str) -> float | None:
    """Seconds per unit of the trace's time axis: from the rows' read window in ms when the run declared a
    rate, else (gem5 ticks) the recorded trace's own ``sim_freq``; None when the axis has no relation to time."""
    if "read_window_in_ms" in rows:
        ms = pd.to_numeric(rows["read_window_in_ms"], errors="coerce")
        rw = pd.to_numeric(rows["read_window"], errors="coerce")
        ok = ms.notna() & (rw > 0)
        if ok.any():
            return float(ms[ok].iloc[0] / rw[ok].iloc[0] / 1e3)
    if unit == "ticks":
        try:
            from mpx.datasets.shipped import load

            freq = load(dataset, verify=False).meta.get("sim_freq")
        except Exception:  # noqa: BLE001 - not a shipped dataset: stay in ticks
            return None
        return 1.0 / float(freq) if freq else None
    return None


def draw(store: Any, experiment: str | None = None) -> Any:
    """True vs estimated counts per read window for one event and workload, with the 90% band of the
    scalers that report a std (Gaussian: estimate ± 1.645 std); one panel per stored event (up to 2), named
    by its short name (`aliases`, `mpx.figures.style.short_event`); time in s/ms/µs where the axis has a rate."""
    ser = store.table("series", experiment)
    if ser.empty:
        raise ConfigError("the results store has no per-window series (set [output] series_events)")
    cells = store.table("cells", experiment).set_index("key")
    ser = ser.join(cells[["dataset", "scheduler"]], on="cell_key")
    sl = hold(done_scores(store, experiment)[lambda d: d["cell_key"].isin(set(ser["cell_key"]))])
    ser = ser[ser["cell_key"].isin(set(sl.rows["cell_key"]))]
    s = {**sl.fixed, **sl.held}.get("scheduler", "?")
    dataset = sorted(ser["dataset"].unique())[0]
    key = sorted(ser.loc[ser["dataset"] == dataset, "cell_key"].unique())[0]  # one run (one seed)
    ser = ser[ser["cell_key"] == key]
    seed = cells.loc[key, "seed"]
    for c in ("start", "end", "truth", "estimate", "std"):
        ser[c] = pd.to_numeric(ser[c], errors="coerce")
    stored_events = sorted(ser["event"].unique())
    events = stored_events[:2]
    scores = store.table("scores", experiment)
    unit = scores["time_unit"].dropna().iloc[0] if "time_unit" in scores and scores["time_unit"].notna().any() else "time"
    with_std = [x for x in sorted(ser["scaler"].unique()) if ser.loc[ser["scaler"] == x, "std"].notna().any()]
    scores = scores[scores["cell_key"] == key]
    error, _ = error_column(scores)
    err = pd.to_numeric(scores[error], errors="coerce").groupby(scores["scaler"]).median()
    with_std.sort(key=lambda x: err.get(x, np.inf))  # the band of the most accurate scaler with a std
    pick = [x for x in ("linear", "dira", "cam") if x in set(ser["scaler"])][:2] + with_std[:1]
    pick = pick or sorted(ser["scaler"].unique())[:3]
    alias = aliases(store, experiment)
    short = {e: short_event(e, alias) for e in events}
    fig, axes = plt.subplots(len(events), 1, figsize=(WIDTH, 2.1 * len(events) + 1.2), sharex=True, squeeze=False)
    tmax = float(ser["end"].max())
    sec = seconds_per_unit(scores, dataset, unit)
    scale, tunit = time_axis(unit, tmax, sec)
    rw = pd.to_numeric(scores["read_window"], errors="coerce").dropna() if "read_window" in scores else None
    rw_text = ""
    if rw is not None and len(rw):
        rscale, runit = time_axis(unit, float(rw.iloc[0]), sec)  # in its own unit: 50 µs, not 0.05 ms
        times = " × " if runit.startswith("10$") else " "  # 18.2 × 10⁶ instructions
        rw_text = f", read window {rw.iloc[0] / rscale:.3g}{times}{runit}"
    for ax, ev in zip(axes[:, 0], events):
        part = ser[ser["event"] == ev]
        first = part[part["scaler"] == pick[0]].sort_values("window")
        mid = (first["start"] + first["end"]).to_numpy() / 2 / scale
        top = float(np.nanmax(part[["truth", "estimate"]].to_numpy())) if len(part) else 1.0
        ysc = 10.0 ** max(0, 3 * int(np.floor(np.log10(max(top, 1.0)) / 3)))
        ax.plot(mid, first["truth"] / ysc, color="black", linewidth=1.6, label="truth")
        for sc in pick:
            p = part[part["scaler"] == sc].sort_values("window")
            lk = look(sc)
            ax.plot(mid, p["estimate"] / ysc, color=lk["color"], linestyle=lk["linestyle"],
                    marker=lk["marker"], markevery=max(1, len(p) // 15), markersize=3.5, linewidth=1.0, label=sc)
            if p["std"].notna().any():
                lo = np.maximum(p["estimate"] - 1.645 * p["std"], 0) / ysc
                hi = (p["estimate"] + 1.645 * p["std"]) / ysc
                ax.fill_between(mid, lo, hi, color=lk["color"], alpha=0.25, linewidth=0,
                                label=f"{sc}: 90% band")
        unit_y = "" if ysc == 1 else f" (10$^{{{int(round(np.log10(ysc)))}}}$)"
        ax.set_ylabel(f"count per read\nwindow{unit_y}")
        ax.set_title(f"{short[ev]} on {dataset} ({s} scheduler{rw_text})", loc="left")
    axes[-1, 0].set_xlabel(f"position in the run ({tunit})")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=min(len(labels), 5))
    rest = sorted(set(ser["scaler"]) - set(pick))
    more = [e for e in stored_events if e not in events]
    named = [f"{short[e]} = {e}" for e in events if short[e] != e]
    note = (f"One run: {dataset}, seed {seed}. Drawn: {', '.join(pick)}"
            + (f"; stored but not drawn (legibility): {', '.join(rest)}" if rest else "")
            + (f"; events stored but not drawn: {', '.join(more)}" if more else "") + "."
            + (f" Events: {'; '.join(named)}." if named else ""))
    add_caption(fig, sl.caption(note))
    return fig


FIGURE = Figure(name="timeline", about="true vs estimated counts per read window, 90% band",
                experiment="experiments/quickstart.toml", draw=draw)
