"""What figures read from a results store: finished scaler scores with numeric columns, and the scheduler
a figure shows when several were run. Nothing here computes a result."""

from __future__ import annotations

from typing import Any

import pandas as pd

from mpx.errors import ConfigError

__all__ = ["ERROR_LABEL", "error_column", "num", "one_scheduler", "pick_scheduler", "scores", "values"]

#: the axis label of the headline measure (`mpx.scoring.measures.HEADLINE`, docs/scoring.md)
ERROR_LABEL = "WAPE, all windows (%)"


def scores(store: Any, experiment: str | None) -> Any:
    """The ``done`` rows of the ``scores`` table with numeric columns; ConfigError when there are none."""
    df = store.table("scores", experiment)
    if df.empty or "window_mape" not in df:
        raise ConfigError("the results store has no scaler scores for this figure")
    df = df[df["status"] == "done"].copy()
    for c in ("window_mape", "wape_all", "total_error", "mean_sampling_ratio", "event_windows_per_s", "counters", "n_events"):
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def pick_scheduler(df: Any, preferred: str = "perf") -> str:
    """``preferred`` when the rows have it, else the first scheduler by name."""
    names = sorted(df["scheduler"].unique())
    return preferred if preferred in names else names[0]


def num(s: Any) -> Any:
    """``s`` as numbers (NaN where not a number)."""
    return pd.to_numeric(s, errors="coerce")


def one_scheduler(store: Any, experiment: str | None) -> tuple[Any, str]:
    """The scores of the one scheduler a figure shows (`pick_scheduler`), and its name."""
    df = scores(store, experiment)
    s = pick_scheduler(df)
    return df[df["scheduler"] == s].copy(), s


def values(df: Any, column: str) -> list[int]:
    """The distinct whole-number values of ``column``, sorted (for titles naming a slice)."""
    return sorted(df[column].dropna().unique().astype(int))


def error_column(df: Any) -> tuple[str, str]:
    """The error a figure draws and its label: the headline measure (`mpx.scoring.measures.HEADLINE_COLUMN`, WAPE on
    every window: the same windows for every scaler, as `mpx report` ranks them); in a store written before
    it existed, window MAPE, labelled as over the windows each scaler fills (not comparable across scalers)."""
    from mpx.scoring.measures import HEADLINE_COLUMN

    if HEADLINE_COLUMN in df and pd.to_numeric(df[HEADLINE_COLUMN], errors="coerce").notna().any():
        return HEADLINE_COLUMN, ERROR_LABEL
    return "window_mape", "window MAPE over the windows each scaler fills (%)"
