"""Pictures of ground truth, to look at a trace before multiplexing it (``mpx trace plot``).

Three views, in the figures' print style (`mpx.figures.style`), after the charts of gem5's stats tools:

- `timeline`: chosen events (per unit of time, so uneven intervals do not show as spikes) and catalog
  metrics, one panel each, against time;
- `breakdown`: a vector stat's parts stacked over time as shares of their sum (e.g. committed instructions
  by type, ``system.cpu.commit.committedInstType_0::*``), ``total`` and empty parts left out;
- `heatmap`: a family of per-unit stats (e.g. ``system.mem_ctrl.dram.perBankRdBursts::*``), one row per
  unit, colour = count per unit of time.

Families are ``fnmatch`` patterns over event names. Long traces are binned to at most ``bins`` columns
(counts summed, never sampled) so that every interval counts. Nothing here is a result: it is the truth.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.figures.style import MAX_HEIGHT, WIDTH, look, short_event, style, time_axis
from mpx.metrics.catalog import evaluate_trace
from mpx.trace import Trace

__all__ = ["timeline", "breakdown", "heatmap", "family"]


def family(trace: Trace, pattern: str, *, drop: Sequence[str] = ("total",)) -> list[str]:
    """The events matching ``pattern`` (fnmatch), without parts named in ``drop`` (after ``::``) and
    without events that never count; a ConfigError naming close names when none match."""
    names = [e for e in trace.events if fnmatch.fnmatchcase(e, pattern)
             and e.rsplit("::", 1)[-1] not in drop]
    names = [e for e in names if trace.counts[:, trace.index(e)].sum() > 0]
    if not names:
        stem = pattern.split("*")[0].split("::")[0]
        near = [e for e in trace.events if stem and stem.split(".")[-1] in e][:5]
        raise ConfigError(f"no counting event of {trace.meta.get('workload', 'the trace')!r} matches {pattern!r}"
                          + (f" (e.g. {near})" if near else ""))
    return names


def _binned(trace: Trace, events: Sequence[str], bins: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Counts of ``events`` on at most ``bins`` windows of whole intervals; their edges; the time scale."""
    n = trace.n_intervals
    cut = np.unique(np.linspace(0, n, min(bins, n) + 1).round().astype(int))
    edges = trace.edges[cut]
    counts = trace.rebin(events, edges)
    return counts, edges, _scale(trace, float(edges[-1]))[0]


def _scale(trace: Trace, span: float) -> tuple[float, str]:
    """The time axis's divisor and label: s/ms/µs/ns where the trace declares its rate (gem5: ``sim_freq``
    ticks per second), else the trace's unit in 10³ steps."""
    freq = trace.meta.get("sim_freq") if trace.time_unit == "ticks" else None
    return time_axis(trace.time_unit, span, 1.0 / float(freq) if freq else None)


def _unit(trace: Trace) -> str:
    """The time unit in the singular (``ticks`` → ``tick``), for "count per ..."."""
    u = trace.time_unit
    return u[:-1] if u.endswith("s") and u not in ("ns", "us", "ms", "s") else u


def _axis(trace: Trace, ax: Any, scale: float) -> None:
    ax.set_xlabel(f"position in the run ({_scale(trace, float(trace.edges[-1]))[1]})")


def timeline(trace: Trace, events: Sequence[str] = (), metrics: Sequence[str] = (), catalog: Any = None,
             bins: int = 400) -> Any:
    """One panel per event (count per unit of time) and per catalog metric, against time."""
    style()
    import matplotlib.pyplot as plt

    if not events and not metrics:
        raise ConfigError("timeline: name at least one event or metric")
    missing = [e for e in events if e not in trace.events]
    if missing:
        raise ConfigError(f"timeline: {missing} not in the trace (mpx trace info FILE --events lists them)")
    values: list[tuple[str, np.ndarray]] = []
    counts, edges, scale = _binned(trace, list(events), bins) if events else (None, None, 1.0)
    if events:
        width = np.diff(edges)
        values += [(f"{short_event(e)}\nper {_unit(trace)}", counts[:, i] / width) for i, e in enumerate(events)]
    if metrics:
        if catalog is None:
            raise ConfigError("timeline: metrics need a catalog (--metrics-catalog)")
        needed = sorted({v for m in metrics for v in _metric(catalog, m).events})
        absent = [v for v in needed if v not in trace.events]
        if absent:
            raise ConfigError(f"timeline: the metrics need {absent}, not in the trace")
        mc, edges, scale = _binned(trace, needed, bins)
        binned = Trace(tuple(needed), mc, edges, trace.time_unit, meta=dict(trace.meta))
        got = evaluate_trace(catalog, binned, names=list(metrics))
        values += [(m, np.asarray(got[m], dtype=float)) for m in metrics]
    mid = (edges[:-1] + edges[1:]) / 2 / scale
    fig, axes = plt.subplots(len(values), 1, figsize=(WIDTH, min(MAX_HEIGHT, 1.3 * len(values) + 0.8)), sharex=True, squeeze=False)
    for ax, (label, v) in zip(axes[:, 0], values):
        ax.plot(mid, v, color=look(label)["color"], linewidth=0.9)
        ax.set_ylabel(label, fontsize=7)
        ax.ticklabel_format(axis="y", useOffset=False, style="sci", scilimits=(-3, 4))
    _axis(trace, axes[-1, 0], scale)
    fig.suptitle(f"{trace.meta.get('workload', '')}: ground truth", fontsize=9)
    return fig


def _metric(catalog: Any, name: str) -> Any:
    return catalog.metric(name)  # an unknown name: UnknownNameError with close matches or the metrics


def breakdown(trace: Trace, pattern: str, bins: int = 200) -> Any:
    """The parts of a vector stat stacked as shares of their sum over time."""
    style()
    import matplotlib.pyplot as plt

    names = family(trace, pattern)
    counts, edges, scale = _binned(trace, names, bins)
    total = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    order = np.argsort(-counts.sum(axis=0))
    parts = [names[i].rsplit("::", 1)[-1] for i in order]
    fig, ax = plt.subplots(figsize=(WIDTH, 3.0))
    ax.stackplot(edges[:-1] / scale, *(100 * share[:, i] for i in order), step="post", labels=parts,
                 colors=[plt.get_cmap("tab20")(i % 20) for i in range(len(parts))], linewidth=0)
    ax.set_ylim(0, 100)
    ax.set_ylabel("share (%)")
    _axis(trace, ax, scale)
    ax.set_title(f"{pattern} ({len(names)} parts)", fontsize=8)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=6, ncol=1 + len(parts) // 18)
    return fig


def heatmap(trace: Trace, pattern: str, bins: int = 200) -> Any:
    """One row per unit of a per-unit stat family, colour = count per unit of time."""
    style()
    import matplotlib.pyplot as plt

    names = family(trace, pattern)
    counts, edges, scale = _binned(trace, names, bins)
    rate = counts / np.diff(edges)[:, None]
    fig, ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 0.9 + 0.16 * len(names))))
    im = ax.imshow(rate.T, aspect="auto", interpolation="nearest", cmap="viridis", origin="lower",
                   extent=(edges[0] / scale, edges[-1] / scale, -0.5, len(names) - 0.5))
    ax.set_yticks(range(len(names)), [n.rsplit("::", 1)[-1] for n in names], fontsize=6)
    ax.grid(False)
    _axis(trace, ax, scale)
    ax.set_title(f"{pattern}: count per {_unit(trace)}", fontsize=8)
    fig.colorbar(im, ax=ax, pad=0.01)
    return fig
