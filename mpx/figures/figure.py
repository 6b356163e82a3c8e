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
    raises `~mpx.errors.ConfigError` when the store lacks its data; ``experiment`` is the config whose
    results it draws: a path relative to mpx's repository for the shipped figures (``experiments/*.toml``),
    an absolute path for another package's, or None (a figure of any store that has its data);
    ``paper_figs/make_all.py`` regenerates the figures whose config is a file and skips the others with a
    line; ``extra(store, experiment, out_dir)`` writes further files (e.g. a LaTeX table) and returns their
    paths."""

    name: str
    about: str
    experiment: str | None
    draw: Callable[[Any, str | None], Any]
    extra: Callable[[Any, str | None, Path], list[Path]] | None = None
