"""What every claim of the ledger is made of: the verdicts, `Finding` and `Claim`, and the helpers that read
a results store for them (`mpx.studies.claims`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mpx.studies.compare import BOOT, paired_bootstrap


REPRODUCED = "reproduced"
DIRECTION = "direction reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_REPRODUCIBLE = "not reproducible here"
NOT_MEASURED = "not measured"
VERDICTS = (REPRODUCED, DIRECTION, NOT_REPRODUCED, NOT_REPRODUCIBLE, NOT_MEASURED)


@dataclass(frozen=True)
class Finding:
    """What mpx measured for one claim (see the module docstring for the verdicts). ``number`` and
    ``paper_number`` are the two values put side by side in the figure (None: nothing comparable)."""

    mpx_setting: str
    mpx_value: str
    verdict: str
    why: str
    paper_definition: str = ""
    number: float | None = None
    paper_number: float | None = None


@dataclass(frozen=True)
class Claim:
    """One quantitative claim: ``id``, the ``claim`` as cited, its ``source``, the paper's setting and
    number, the store ``experiment`` that supplies mpx's data (None: the measure needs none) and the
    ``measure`` that reads it; ``rule``: the verdict rule in words, with why its tolerance is that wide."""

    id: int
    claim: str
    source: str
    paper_setting: str
    paper_value: str
    experiment: str | None
    measure: Callable[[Any], Finding]
    rule: str = ""
    #: the time scale the paper measured at (its multiplexing quantum and read), "" where it has none (a
    #: schedule's static property) or does not say
    paper_scale: str = ""
    #: the experiments whose rows give mpx's time scale (default: ``experiment``); () for a claim without one
    scale_from: tuple[str, ...] | None = None


# -- helpers --------------------------------------------------------------------------------------------


def _done(store: Any, experiment: str, table: str = "scores") -> pd.DataFrame:
    t = store.table(table, experiment)
    if t.empty:
        return t
    if "status" in t:
        t = t[t["status"] == "done"]
    return t.copy()


def _duration(value: float, unit: str) -> str:
    """A span of the trace's time axis as text: seconds where the unit has them (``ticks`` are gem5's
    picoseconds), else the unit itself (callgrind's instructions)."""
    from mpx.trace import SECONDS_PER_UNIT
    from mpx.util.fmt import eng

    if unit in SECONDS_PER_UNIT:
        sec = value * SECONDS_PER_UNIT[unit]
        return f"{sec * 1e6:.3g} us" if sec < 1e-3 else f"{sec * 1e3:.3g} ms"
    return f"{eng(value)} {unit}"


def time_scale(store: Any, experiments: tuple[str, ...]) -> str:
    """The multiplexing quantum and the read window the rows of ``experiments`` were scored at (medians over
    workloads, each value of a sweep listed), e.g. ``quantum 50 us, read 400 us``; "" when the rows carry none."""
    parts = []
    for exp in experiments:
        rows = _done(store, exp)
        if rows.empty or "quantum" not in rows or "time_unit" not in rows:
            continue
        seen = []
        for unit, g in rows.groupby("time_unit", sort=True):
            for re_, h in g.groupby(_num(g, "read_every"), sort=True):
                q = _num(h, "quantum").groupby(h["workload"]).median().median()
                if not np.isfinite(q):
                    continue
                ms = _num(h, "quantum_in_ms").median() if "quantum_in_ms" in h else float("nan")
                if np.isfinite(ms):  # the trace declared its time axis (gem5: ticks at its sim_freq)
                    q, unit_ = ms * 1e-3, "s"
                else:
                    unit_ = unit
                text = f"quantum {_duration(q, unit_)}, read {_duration(q * re_, unit_)}"
                if text not in seen:
                    seen.append(text)
        if seen:
            parts.append("; ".join(seen))
    return "; ".join(dict.fromkeys(parts))


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    return pd.to_numeric(df[col], errors="coerce")


def _ratio(per: pd.DataFrame, a: str, b: str) -> tuple[float, float, float]:
    """mean(a) / mean(b) over workloads with its 95 % paired bootstrap interval."""
    two = per.loc[[a, b]].dropna(axis=1)
    s = paired_bootstrap(two, BOOT, 0)
    r = s[:, 0] / np.maximum(s[:, 1], 1e-300)
    return float(two.loc[a].mean() / two.loc[b].mean()), float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5))


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _better(gain: float, what: str = "better") -> str:
    """A relative gain as words: ``0.3`` → "30.0 % better", ``-0.2`` → "20.0 % worse"."""
    worse = {"better": "worse", "lower": "higher", "more accurate": "less accurate"}[what]
    return f"{_pct(abs(gain))} {what if gain >= 0 else worse}"


def ratio_verdict(paper: float, est: float, lo: float, hi: float, tol: float) -> str:
    """A claimed ratio ``paper`` > 1 (baseline error over the method's): reproduced within ``tol``
    (relative), the direction when the interval lies above 1, else not reproduced."""
    if abs(est - paper) <= tol * paper:
        return REPRODUCED
    if lo > 1:
        return DIRECTION
    return NOT_REPRODUCED


def _slice(rows: pd.DataFrame, **fixed: Any) -> pd.DataFrame:
    for k, v in fixed.items():
        if k in rows:
            rows = rows[_num(rows, k) == v] if isinstance(v, (int, float)) else rows[rows[k] == v]
    return rows


SETTING = "9 shipped callgrind workloads, 14 events, generic counters"
