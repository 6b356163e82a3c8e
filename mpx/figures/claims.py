"""Figure ``claims``: each claim's number as mpx measures it over the paper's (data: ``mpx run experiments/claims.toml``)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from mpx.studies.claims import VERDICTS, ledger
from mpx.errors import ConfigError
from mpx.figures.figure import Figure
from mpx.figures.slices import add_caption
from mpx.figures.style import MAX_HEIGHT, WIDTH

__all__ = ["FIGURE", "draw"]

#: one grey level and marker per verdict (print-safe)
VERDICT_LOOK = {"reproduced": ("#000000", "o"), "direction reproduced": ("#555555", "s"),
                "not reproduced": ("#999999", "X"), "not reproducible here": ("#bbbbbb", "D"),
                "not measured": ("#dddddd", "v")}


def draw(store: Any, experiment: str | None = None) -> Any:
    """mpx's number over the paper's for every claim that has both (log scale, 1 = the paper's number),
    one marker per verdict; the claims without a comparable number are listed in the caption."""
    table = ledger(store)
    has = table.dropna(subset=["number", "paper_number"])
    has = has[(has["number"] > 0) & (has["paper_number"] > 0)]
    if has.empty:
        raise ConfigError("figure claims: no claim has a number to compare (run mpx run experiments/claims.toml)")
    ratio = has["number"] / has["paper_number"]
    fig, ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 1.6 + 0.3 * len(has))))
    y = np.arange(len(has))[::-1]
    for verdict in VERDICTS:
        sel = (has["verdict"] == verdict).to_numpy()
        if sel.any():
            colour, marker = VERDICT_LOOK[verdict]
            ax.scatter(ratio[sel], y[sel], color=colour, marker=marker, s=36, label=verdict, zorder=3)
    ax.axvline(1.0, color="#777777", linewidth=0.8)
    ax.set_xscale("log")
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10) if ratio.min() / 1.5 <= t <= ratio.max() * 1.5]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_yticks(y)
    ax.set_yticklabels([f"{i}: {c[:48]}" for i, c in zip(has.index, has["claim"])], fontsize=7)
    ax.set_xlabel("mpx's number / the paper's (1 = as published)")
    ax.set_title("The thesis's quantitative claims re-measured in mpx", fontsize=9)
    fig.legend(loc="outside upper center", ncol=3, fontsize=7, frameon=False)
    left = [str(i) for i in table.index if i not in has.index]
    add_caption(fig, "Each claim in its own setting (docs/claims.md)."
                + (f" Not drawn (no positive number comparable with the paper's; see the ledger): claims "
                   f"{', '.join(left)}." if left else ""))
    return fig


FIGURE = Figure(name="claims", about="each claim's number as mpx measures it over the paper's",
                experiment="experiments/claims.toml", draw=draw)
