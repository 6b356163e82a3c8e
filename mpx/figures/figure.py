"""A thesis figure as a plugin: its name, the function that draws it from a results store, and the
experiment whose results it needs (so one script can regenerate every figure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Figure"]


@dataclass(frozen=True)
class Figure:
    """``draw(store, experiment) -> matplotlib Figure`` reads the store only (never recomputes a result) and
    raises `~mpx.errors.ConfigError` when the store lacks its data; ``experiment`` is the config
    (``experiments/*.toml``) whose results it draws; ``extra(store, experiment, out_dir)`` writes further
    files (e.g. a LaTeX table) and returns their paths."""

    name: str
    about: str
    experiment: str
    draw: Callable[[Any, str | None], Any]
    extra: Callable[[Any, str | None, Path], list[Path]] | None = None
