"""A figure: the share of read windows each scaler gave a value (``coverage_all``), median over the done cells
of a results store. It draws any store with scaler scores, so it names no experiment."""

from __future__ import annotations

from typing import Any

from mpx.errors import ConfigError
from mpx.figures import Figure


def draw(store: Any, experiment: str | None) -> Any:
    """One bar per scaler: its median coverage over the done cells."""
    import matplotlib.pyplot as plt
    import pandas as pd

    scores = store.table("scores", experiment)
    if scores.empty or "coverage_all" not in scores:
        raise ConfigError("example_coverage: no scaler scores in the store")
    done = scores[scores["status"] == "done"]
    if done.empty:
        raise ConfigError("example_coverage: no done cell in the store")
    med = pd.to_numeric(done["coverage_all"], errors="coerce").groupby(done["scaler"]).median()
    fig, ax = plt.subplots()
    ax.bar(list(med.index), list(100 * med.values))
    ax.set_ylabel("read windows with a value (%)")
    ax.tick_params(axis="x", labelrotation=60)
    return fig


FIGURE = Figure("example_coverage", "median coverage per scaler (an example plugin)", None, draw)
