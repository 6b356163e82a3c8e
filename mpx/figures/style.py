"""The figures' print style, stated once here and used by every figure: 6.3 in text width (`WIDTH`), at most
8.5 in tall (`MAX_HEIGHT`: a page with its caption), 9 pt type, and every series told apart by marker, line
style or hatch as well as by a colour of its own, so figures stay readable in grey-scale. One colour rule
(`color`): the built-in methods have fixed entries (`COLORS`: no two share one), any other name (a plugin's, a
built-in added later) a colour of `EXTRA_COLORS` picked by its name: stable across runs and machines, never a
fixed one's. Figures are laid out by matplotlib's constrained layout and saved at exactly their
size (no ``bbox_inches="tight"``, which grew them past the text width): captions, legends and titles are
placed inside the figure."""

from __future__ import annotations

import re
import textwrap
import zlib
from typing import Any

__all__ = ["COLORS", "EXTRA_COLORS", "HATCHES", "LINESTYLES", "MARKERS", "MAX_HEIGHT", "METHODS", "PALETTE", "WIDTH",
           "color", "height", "hatch", "log_axis", "look", "short_event", "style", "time_axis",
           "time_label", "wrap"]

WIDTH = 6.3  # inches: the thesis text width; every figure is this wide
MAX_HEIGHT = 8.5  # inches: the tallest figure that fits a page with its caption
PALETTE = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#999999"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "p", "h", "d", "H", "8"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 2, 2))]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++", "|||", "**", "//..", "\\\\oo", "--||", "++..", "xx--"]

#: methods in a fixed order: each keeps one colour, marker, line style and hatch in every figure (black is
#: kept for the truth and references)
METHODS = ("linear", "papi", "papi_sw", "dira", "tam", "dcam", "cam", "bayesperf", "bayesperf_smooth", "fusion",
           "fusion_smooth", "tam_paper", "papi_cumulative", "tintin", "counterminer")

#: the one colour map of the methods: Okabe–Ito first, then Paul Tol's muted colours; no two alike
COLORS: dict[str, str] = {
    "linear": "#E69F00", "papi": "#56B4E9", "papi_sw": "#661100", "dira": "#0072B2", "tam": "#D55E00",
    "dcam": "#CC79A7", "cam": "#009E73", "bayesperf": "#999999", "bayesperf_smooth": "#332288",
    "fusion": "#999933", "fusion_smooth": "#44AA99", "tam_paper": "#DDCC77", "papi_cumulative": "#AA4499",
    "tintin": "#882255", "counterminer": "#6699CC",
}
#: colours of methods not in `COLORS` (picked by the name, stable across runs), none of them a fixed one's
EXTRA_COLORS = ("#117733", "#E7298A", "#7570B3", "#A6761D", "#1B9E77", "#B2182B")


def style() -> None:
    """Apply the figures' matplotlib style (Agg backend, print sizes, constrained layout, saved as drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8,
        "ytick.labelsize": 8, "axes.grid": True, "grid.color": "#d0d0d0", "grid.linewidth": 0.5,
        "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 200,
        "savefig.bbox": "standard", "figure.constrained_layout.use": True, "figure.figsize": (WIDTH, 3.5),
        "pdf.fonttype": 42, "lines.linewidth": 1.3, "lines.markersize": 5, "legend.frameon": False,
        "hatch.linewidth": 0.6,
    })


def _index(name: str) -> int:
    return METHODS.index(name) if name in METHODS else len(METHODS) + zlib.crc32(name.encode()) % 89


def color(name: str) -> str:
    """The colour of method ``name``: its own in `COLORS`, else one of `EXTRA_COLORS` chosen by the name."""
    return COLORS.get(name) or EXTRA_COLORS[zlib.crc32(name.encode()) % len(EXTRA_COLORS)]


def look(name: str) -> dict[str, Any]:
    """Colour, marker and line style of method ``name``: the same in every figure."""
    i = _index(name)
    return {"color": color(name), "marker": MARKERS[i % len(MARKERS)], "linestyle": LINESTYLES[i % len(LINESTYLES)]}


def hatch(name: str) -> str:
    """Bar hatch of method ``name``."""
    return HATCHES[_index(name) % len(HATCHES)]


def height(rows: int, per_row: float, extra: float = 0.0, low: float = 1.0) -> float:
    """A figure height for ``rows`` rows of panels ``per_row`` inches tall plus ``extra`` (titles, legend,
    caption), shrinking the rows (to no less than ``low`` in) so the figure stays within `MAX_HEIGHT`."""
    row = max(low, min(per_row, (MAX_HEIGHT - extra) / max(rows, 1)))
    return min(MAX_HEIGHT, rows * row + extra)


def wrap(text: str, fontsize: float = 7.0, width: float = WIDTH) -> str:
    """``text`` wrapped to lines that fit ``width`` inches at ``fontsize`` points."""
    chars = int(width * 72 / (0.55 * fontsize))
    return "\n".join(textwrap.wrap(text, chars))


_SI = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_PER_SECOND = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def time_axis(unit: str, span: float, seconds_per_unit: float | None = None) -> tuple[float, str]:
    """How to show times of ``span`` (on an axis in ``unit``): the divisor and the unit's label. In s, ms, µs
    or ns when the axis has a known relation to time (``unit`` a time unit, or ``seconds_per_unit`` given,
    e.g. gem5's 1e-12 s per tick), else ``unit`` scaled by 10³ steps (``10⁶ instructions``)."""
    sec = _PER_SECOND.get(unit, seconds_per_unit)
    if sec:
        total = span * sec
        for factor, name in _SI:
            if total >= 3 * factor or factor == 1e-9:
                return factor / sec, name
    scale = 1e9 if span > 3e9 else 1e6 if span > 3e6 else 1e3 if span > 3e3 else 1.0
    return scale, time_label(unit, scale)


def time_label(unit: str, scale: float) -> str:
    """An axis label for ``unit`` scaled by ``scale`` (10³, 10⁶, 10⁹)."""
    prefix = {1.0: "", 1e3: "10$^3$ ", 1e6: "10$^6$ ", 1e9: "10$^9$ "}.get(scale, f"{scale:g} ")
    return f"{prefix}{unit}"


def short_event(name: str, aliases: dict[str, str] | None = None, limit: int = 28) -> str:
    """A short name of event ``name`` for labels: its alias (``aliases``, e.g. a catalog's perf-like name of a
    gem5 stat) when it has one, else the stat name without gem5's ``system.``/``cpu.`` prefixes and its
    ``::total`` suffix, cut to its last dotted parts when still longer than ``limit``."""
    if aliases and name in aliases:
        return aliases[name]
    s = re.sub(r"::total$", "", name)
    s = re.sub(r"^system\.(cpu\d*\.)?", "", s)
    parts = s.split(".")
    while len(s) > limit and len(parts) > 1:
        parts = parts[1:]
        s = ".".join(parts)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def log_axis(ax: Any, axis: str = "y") -> None:
    """Log scale with plain numbers (1, 10, 100, 1000) and unlabelled minor ticks."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    getattr(ax, f"set_{axis}scale")("log")
    a = ax.yaxis if axis == "y" else ax.xaxis
    ax.autoscale_view()
    lo, hi = (ax.get_ylim() if axis == "y" else ax.get_xlim())
    if hi / max(lo, 1e-300) < 10:  # less than a decade: a few round values, as on a linear axis
        a.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    elif hi / max(lo, 1e-300) < 1e2:  # under two decades: label 1-2-5 steps (over two, on a half-width axis,
        # 0.005 and 0.01 are 0.3 decade apart and collide: the labels would depend on the measured range)
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(NullFormatter())
