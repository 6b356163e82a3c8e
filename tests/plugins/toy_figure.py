"""A toy figure, one file and a ``register()`` call: the headline error of every scaler, one bar each."""

from __future__ import annotations

from typing import Any

from mpx import figures
from mpx.errors import ConfigError
from mpx.figures import Figure


def draw(store: Any, experiment: str | None) -> Any:
    """Median WAPE over the done cells, per scaler."""
    import matplotlib.pyplot as plt
    import pandas as pd

    scores = store.table("scores", experiment)
    if scores.empty or "wape_all" not in scores:
        raise ConfigError("toy figure: no scaler scores in the store")
    done = scores[scores["status"] == "done"]
    med = pd.to_numeric(done["wape_all"], errors="coerce").groupby(done["scaler"]).median()
    fig, ax = plt.subplots()
    ax.bar(list(med.index), list(100 * med.values))
    ax.set_ylabel("WAPE (%)")
    return fig


FIGURE = Figure("toy", "median WAPE per scaler (a plugin example)", "tests/plugins", draw)


def register() -> None:
    figures.register("toy", FIGURE)
