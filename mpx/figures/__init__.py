"""Thesis figures, drawn from a results store only (`mpx.experiment.store.ResultsStore`), in one print style.

Each figure is a plugin: a module holding ``FIGURE = Figure(name, about, experiment, draw)``
(`mpx.figures.figure.Figure`), listed in `BUILTIN` or added by another package through the entry-point
group ``mpx.figures``. `draw` saves each as PDF (the thesis) and PNG (a quick look), plus any extra file the
figure writes (the scheduler table as LaTeX). The style (`mpx.figures.style`) is meant for print: 6.3 in
text width, 9 pt type, series told apart by marker, line style or hatch as well as colour. Nothing here
computes a result: numbers come from the store's tables (``scores``, ``events``, ``schedule``, ``series``,
``partition``), aggregated with medians over workloads where a figure says so. A figure never pools a
varying setting: what it neither puts on an axis nor splits into panels is held at one value and named,
with the values left out, in its caption (`mpx.figures.slices`); a figure the data cannot support (a
sweep of one value) raises `ConfigError`, so ``mpx figs`` without names skips it with the reason.

``mpx figs RESULTS [FIGURE...]`` is the command; ``python paper_figs/make_all.py`` regenerates every
thesis figure from the experiments each one names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mpx.errors import ConfigError
from mpx.figures.figure import Figure
from mpx.registry import Registry

__all__ = ["BUILTIN", "REGISTRY", "Figure", "available", "draw", "draw_supported", "get", "get_class", "register",
           "unregister"]

#: built-in figures: name → "module:FIGURE"
BUILTIN: dict[str, str] = {name: f"mpx.figures.{name}:FIGURE" for name in (
    "error_vs_duty_cycle", "error_vs_events", "scaler_per_workload", "scheduler_table", "timeline",
    "causal_vs_offline", "scaler_cost", "partitioner_vs_kahypar", "headline", "error_vs_read_window", "claims",
    "alignment_frontier", "verdicts")}
BUILTIN["scaler_per_workload_gem5"] = "mpx.figures.scaler_per_workload:GEM5"  # the same on gem5 ground truth

REGISTRY = Registry("figure", "mpx.figures", BUILTIN, protocol=("name", "about", "experiment", "draw", "extra"))

available, get, get_class, register, unregister = REGISTRY.verbs()


def draw(store: Any, names: list[str] | str, out_dir: str | os.PathLike, experiment: str | None = None) -> list[Path]:
    """Draw figures ``names`` (or ``"all"``) from ``store`` into ``out_dir`` as ``<name>.pdf`` and
    ``<name>.png`` (and each figure's extra files). Returns the files written."""
    import matplotlib.pyplot as plt

    from mpx.figures.style import style

    names = REGISTRY.select("all") if names == "all" else list(names)
    bad = [n for n in names if n not in REGISTRY]
    if bad:
        raise ConfigError(f"unknown figure(s) {bad}; figures: {', '.join(available())}")
    style()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for n in names:
        spec = get(n)
        fig = spec.draw(store, experiment)
        for ext in ("pdf", "png"):
            p = out / f"{n}.{ext}"
            fig.savefig(p)
            written.append(p)
        plt.close(fig)
        if spec.extra is not None:
            written += spec.extra(store, experiment, out)
    return written


def draw_supported(store: Any, out_dir: str | os.PathLike, experiment: str | None = None
                   ) -> tuple[list[Path], dict[str, str]]:
    """Every figure that loads (`mpx.registry.Registry.installed`: a broken installed one is a warning line) and
    the store has data for: the files written, and why each other figure was skipped."""
    written: list[Path] = []
    skipped: dict[str, str] = {}
    for name in REGISTRY.installed():
        try:
            written += draw(store, [name], out_dir, experiment=experiment)
        except ConfigError as exc:
            skipped[name] = str(exc)
    return written, skipped
