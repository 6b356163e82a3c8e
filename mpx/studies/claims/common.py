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


# -- helpers --------------------------------------------------------------------------------------------


def _done(store: Any, experiment: str, table: str = "scores") -> pd.DataFrame:
    t = store.table(table, experiment)
    if t.empty:
        return t
    if "status" in t:
        t = t[t["status"] == "done"]
    return t.copy()


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
