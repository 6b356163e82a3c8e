"""Which slice of a results store a figure shows (reports and figures never pool a sweep).

Every setting of a run that a figure neither puts on an axis nor splits into panels is held at one value,
and the figure's caption names it — so a store that swept ``read_every`` or the noise gives a figure of one
``read_every`` saying which, never a median over both. The settings are the config's own (`SETTINGS`: the
scheduler, PMU, counters, event cap, quantum and read window, noise, experiment); values derived from a
workload (its quantum in trace units, its rotation length) are not settings. Workloads and seeds are the
replicates a figure summarises over, and its caption says so.

The held value: the preferred one when the data has it (the ``perf`` scheduler, no noise), else the value
with the most rows (ties: the lower median of the tied values, so a symmetric sweep keeps its middle).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mpx.errors import ConfigError
from mpx.experiment.rows import SETTINGS as SWEPT, varying_settings

__all__ = ["PREFERRED", "SETTINGS", "Slice", "add_caption", "hold", "replicates", "setting_text", "varying"]

#: columns of the ``scores``/``schedule`` rows that are settings of a run, in caption order: the experiment, the
#: scheduler and the PMU, then the settings a config sweeps (`mpx.experiment.rows.SETTINGS`)
SETTINGS = ("experiment", "scheduler", "pmu", *SWEPT)

#: the value a figure holds a setting at when the data has it
PREFERRED: dict[str, Any] = {"scheduler": "perf", "noise_rel_sigma": 0.0, "noise_read_overhead": 0.0}

_LABEL = {"experiment": "experiment {}", "scheduler": "{} scheduler", "pmu": "PMU {}", "counters": "{} counters",
          "max_events": "at most {} events", "quantum_intervals": "quantum {} trace intervals",
          "quantum_ms": "quantum {} ms", "read_every": "read every {} quanta", "noise_rel_sigma": "relative count noise {}",
          "noise_read_overhead": "read overhead {}"}


def _present(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and v != v)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _values(df: Any, col: str) -> list[Any]:
    """The distinct present values of ``col``, sorted (numbers numerically)."""
    vals = [v for v in df[col].unique() if _present(v)]
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=str)


def varying(df: Any, exclude: Iterable[str] = ()) -> dict[str, list[Any]]:
    """Setting → its distinct values (None last where rows lack it), for every setting of `SETTINGS` that
    varies in ``df`` (`mpx.experiment.rows.varying_settings`; ``exclude``: the figure's axes and panels)."""
    return {c: _values(df, c) + ([None] if df[c].isna().any() else [])
            for c in varying_settings(df, tuple(exclude), SETTINGS)}


def setting_text(col: str, value: Any) -> str:
    """One setting in words, e.g. ``read every 10 quanta``."""
    if col in ("noise_rel_sigma", "noise_read_overhead") and value == 0:
        return "no count noise" if col == "noise_rel_sigma" else "no read overhead"
    return _LABEL.get(col, col + " {}").format(_fmt(value))


@dataclass
class Slice:
    """The rows of one slice (``rows``), each held setting's value (``held``), the other values the data has
    for it (``left_out``) and the settings that are the same in every row (``fixed``)."""

    rows: Any
    held: dict[str, Any] = field(default_factory=dict)
    left_out: dict[str, list[Any]] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)

    def caption(self, summary: str = "") -> str:
        """The slice in words: held settings (with the values not shown), then fixed ones, then ``summary``
        (what the figure summarises over)."""
        parts = [f"{setting_text(c, v)} (also in the data, not shown: {', '.join(map(_fmt, self.left_out[c]))})"
                 for c, v in self.held.items()]
        parts += [setting_text(c, v) for c, v in self.fixed.items()]
        text = "Slice: " + "; ".join(parts) + "." if parts else ""
        return (text + (" " if text and summary else "") + summary).strip()


def _choose(col: str, df: Any, vals: list[Any]) -> Any:
    if col in PREFERRED and PREFERRED[col] in vals:
        return PREFERRED[col]
    counts = df[col].value_counts()
    top = counts.max()
    tied = [v for v in vals if counts.get(v, 0) == top]
    return tied[(len(tied) - 1) // 2]


def hold(df: Any, shown: Iterable[str] = (), fixed_value: dict[str, Any] | None = None) -> Slice:
    """The rows of one slice of ``df``: every setting that varies and is not in ``shown`` is held at one
    value (``fixed_value[col]`` when given, else `PREFERRED`, else the most common); ConfigError when no row
    is left."""
    shown = set(shown)
    fixed_value = fixed_value or {}
    rows = df
    held: dict[str, Any] = {}
    left: dict[str, list[Any]] = {}
    for col, vals in varying(df, shown).items():
        v = fixed_value[col] if col in fixed_value else _choose(col, rows, vals)
        held[col] = v
        left[col] = [x for x in vals if x != v]
        rows = rows[rows[col] == v]
    if rows.empty:
        raise ConfigError(f"no rows in the slice {held}")
    fixed = {c: vals[0] for c in SETTINGS if c in rows and c not in shown and c not in held
             and c != "experiment" and len(vals := _values(rows, c)) == 1}
    return Slice(rows.copy(), held, left, fixed)


def add_caption(fig: Any, text: str, width: int | None = None) -> None:
    """``text`` at the bottom of the figure, under everything it draws (legends below the axes included),
    wrapped to the figure's width (or to ``width`` characters). It is the figure's ``supxlabel``, for which
    the constrained layout (`mpx.figures.style.style`) makes room inside the figure."""
    from mpx.figures.style import wrap

    wrapped = "\n".join(textwrap.wrap(text, width)) if width else wrap(text, 7, fig.get_size_inches()[0] - 0.1)
    fig.supxlabel(wrapped, x=0.01, ha="left", fontsize=7, color="#333333", linespacing=1.3)


def replicates(df: Any, stat: str = "median") -> str:
    """What a figure summarises over, in words: ``median over 9 workloads and 3 seeds``."""
    n_w = df["workload"].nunique() if "workload" in df else 0
    n_s = df["seed"].nunique() if "seed" in df else 1
    return f"{stat} over {n_w} workload{'s' if n_w != 1 else ''}" + (f" and {n_s} seeds." if n_s > 1 else ".")
