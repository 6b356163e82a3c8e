"""A small timeline of a trace as inline SVG: a few events' counts per unit of time against time.

Hand-written SVG (a polyline per event, each on its own scale) keeps a data-set page a few kilobytes and
needs no figure backend; the counts are the trace's own, binned on whole intervals (`mpx.trace.Trace.rebin`:
summed, never sampled), divided by each bin's length so uneven intervals do not show as spikes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mpx.site.html import esc
from mpx.trace import Trace

__all__ = ["pick_events", "timeline_svg"]

COLOURS = ("#1f77b4", "#d62728", "#2ca02c")


def pick_events(trace: Trace, wanted: Sequence[str] = (), n: int = 2) -> list[str]:
    """The events to draw: those of ``wanted`` the trace has, else the ``n`` counting events with the
    largest totals after the first (usually instructions or cycles, drawn first)."""
    have = [e for e in wanted if e in trace.events]
    if have:
        return have[:n]
    totals = trace.counts.sum(axis=0)
    order = [int(i) for i in np.argsort(-totals, kind="mergesort") if totals[i] > 0]
    return [trace.events[i] for i in order[:n]]


def timeline_svg(trace: Trace, events: Sequence[str], bins: int = 200, width: int = 640, height: int = 70) -> str:
    """One panel per event (count per unit of time on at most ``bins`` bins), stacked; an SVG element with a
    ``<title>`` for screen readers."""
    n = trace.n_intervals
    cut = np.unique(np.linspace(0, n, min(bins, n) + 1).round().astype(int))
    edges = np.asarray(trace.edges, dtype=float)[cut]
    counts = np.asarray(trace.rebin(list(events), edges), dtype=float)
    rate = counts / np.maximum(np.diff(edges), 1e-300)[:, None]
    x = (edges[:-1] + edges[1:]) / 2
    span = float(edges[-1] - edges[0]) or 1.0
    pad, label = 4, 14
    panel = height + label
    parts = []
    for j, e in enumerate(events):
        y = rate[:, j]
        top = float(np.nanmax(y)) if np.isfinite(y).any() and np.nanmax(y) > 0 else 1.0
        y0 = j * panel + label
        px = pad + (x - edges[0]) / span * (width - 2 * pad)
        py = y0 + height - (np.nan_to_num(y) / top) * (height - pad)
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py))
        parts.append(f'<text x="{pad}" y="{y0 - 3}" font-size="11">{esc(e)} (peak {top:.3g} per {esc(trace.time_unit)})'
                     f'</text><polyline fill="none" stroke="{COLOURS[j % len(COLOURS)]}" stroke-width="1" '
                     f'points="{pts}"/>')
    total = panel * len(events) + pad
    title = (f"timeline of {', '.join(events)}: count per {trace.time_unit} over {len(edges) - 1} bins of whole "
             f"intervals, {n} intervals in all")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{total}" '
            f'viewBox="0 0 {width} {total}"><title>{esc(title)}</title>{"".join(parts)}</svg>')
