"""A cell reused across experiments: stored once, read under the name of each experiment that asked for it.

A cell's key covers its config, data and code, not the experiment's name (`mpx.experiment.grid.finish_cell`): a
second experiment that asks for a cell already stored reuses it instead of computing it again. Its stored rows
name the experiment that computed it; `as_asked` gives them the name of the experiment whose run is read (`mpx run`
exports a second experiment's reused cells under the second's name, issue 40 item 11).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["as_asked"]


def as_asked(df: Any, col: str, asked: dict[str, list[str]]) -> Any:
    """The rows of each experiment's cells (``asked``: name → cell keys, `ResultsStore.asked_by`) under that
    experiment's name. A cell is stored once, by the experiment that computed it; another experiment that asks for
    the same cell (same config, data and code) reuses it, and its export names it, not the first one: its
    ``experiment`` column, and the ``experiment`` of a ``cells`` row's config. Pooled (several experiments), a cell
    two of them asked for is listed once under each."""
    import pandas as pd

    parts = []
    for name, keys in asked.items():
        part = df[df[col].isin(set(keys))]
        if "experiment" in part.columns and (part["experiment"] != name).any():
            part = part.assign(experiment=name)
            if "config" in part.columns and col == "key":
                part = part.assign(config=[_renamed(c, name) for c in part["config"]])
        parts.append(part)
    full = [p for p in parts if not p.empty]
    return (full or parts)[0] if len(full) < 2 else pd.concat(full, ignore_index=True)


def _renamed(config: Any, experiment: str) -> Any:
    """A cell's config (JSON text, as `mpx.experiment.rows.cell_row` writes it) naming ``experiment``."""
    try:
        cell = json.loads(config)
    except (TypeError, ValueError):
        return config
    if not isinstance(cell, dict) or cell.get("experiment") == experiment:
        return config
    return json.dumps(dict(cell, experiment=experiment), sort_keys=True)
