"""The figures' print style: 6.3 in text width, 9 pt type, and every series told apart by marker, line
style or hatch as well as by colour (Okabe–Ito palette), so figures stay readable in grey-scale."""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["HATCHES", "LINESTYLES", "MARKERS", "METHODS", "PALETTE", "WIDTH", "hatch", "legend_below", "log_axis",
           "look", "style", "time_label"]

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


#: methods in a fixed order: each keeps one colour, marker, line style and hatch in every figure (black is
#: kept for the truth and references); other names get a look derived from the name, stable across runs
METHODS = ("linear", "papi", "papi_sw", "dira", "tam", "dcam", "cam", "bayesperf", "bayesperf_smooth", "fusion",
           "fusion_smooth", "tam_paper", "papi_cumulative")


def _index(name: str) -> int:
    return METHODS.index(name) if name in METHODS else len(METHODS) + zlib.crc32(name.encode()) % 89


def look(name: str) -> dict[str, Any]:
    """Colour, marker and line style of method ``name``: the same in every figure."""
    i = _index(name)
    return {"color": PALETTE[1 + i % (len(PALETTE) - 1)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)]}


def hatch(name: str) -> str:
    """Bar hatch of method ``name`` (bars past the palette's colours are told apart by it)."""
    return HATCHES[_index(name) % len(HATCHES)]


def time_label(unit: str, scale: float) -> str:
    """An axis label for ``unit`` scaled by ``scale`` (10³, 10⁶, 10⁹)."""
    prefix = {1.0: "", 1e3: "10$^3$ ", 1e6: "10$^6$ ", 1e9: "10$^9$ "}.get(scale, f"{scale:g} ")
    return f"{prefix}{unit}"


def legend_below(ax: Any, n: int, gap: float = 0.18) -> None:
    """The legend under the axes (``gap``: axes heights below them; more under rotated tick labels), up to
    5 columns."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -gap), ncol=min(n, 5))


def log_axis(ax: Any, axis: str = "y") -> None:
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
