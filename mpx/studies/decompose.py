"""Where a method's gain comes from: its schedule, its estimator, or its filling (issue 34).

A paper that pairs a schedule with an estimator (BayesPerf, Tintin) compares *baseline schedule + baseline
estimator* with *its schedule + its estimator*, and credits the estimator with the whole ratio. The 2 × 2 of
the two axes says how much each did:

    bb = baseline schedule + baseline estimator      bm = baseline schedule + method's estimator
    mb = method's schedule + baseline estimator      mm = method's schedule + method's estimator

The paper's ratio is ``bb / mm`` (errors, larger is a larger gain). It is split into a *schedule factor* and an
*estimator factor* whose product is exactly the ratio, each the geometric mean of its effect under the two
settings of the other axis (the Shapley split of the log-ratio, so no axis is favoured by the order it is taken
in): ``schedule = sqrt((bb / mb) · (bm / mm))``, ``estimator = sqrt((bb / bm) · (mb / mm))``. A method whose
estimator fills windows the baseline leaves empty is also compared with its *fill-matched* baseline (the
method's schedule + the baseline estimator with the same fill, ``mf``): the estimator's effect under the
method's schedule, ``mb / mm``, is the product of the *fill factor* ``mb / mf`` and the *rest* ``mf / mm``.

Errors are means over the workloads every compared row has (rows ``"<scheduler> + <scaler>"`` × workloads,
as `mpx.studies.claims.tintin._pairs` gives them); the paper's ratio carries a 95 % paired bootstrap interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mpx.studies.compare import BOOT, paired_bootstrap

__all__ = ["Decomposition", "decompose", "pair_table"]


@dataclass(frozen=True)
class Decomposition:
    """The 2 × 2 of a paired claim (module docstring): mean errors per cell, the paper's ratio with its
    interval, and the factors (> 1: that axis lowers the error)."""

    cells: dict[str, float]
    ratio: tuple[float, float, float]
    schedule: float
    estimator: float
    schedule_alone: float       # bb / mb: the method's schedule under the baseline estimator
    estimator_alone: float      # bb / bm: the method's estimator under the baseline schedule
    same_schedule: float        # mb / mm: the method's estimator under the method's schedule
    fill: float | None = None   # mb / mf
    rest: float | None = None   # mf / mm
    fill_label: str | None = None
    workloads: int = 0

    def schedule_share(self) -> float:
        """The schedule's share of the log gain; NaN when the two factors pull opposite ways (a share outside
        0-100 % says nothing) or the pairing gains nothing."""
        a, b = math.log(self.schedule), math.log(self.estimator)
        return a / (a + b) if a * b >= 0 and a + b != 0 else float("nan")

    def text(self, measure: str) -> str:
        """One ledger sentence: the four cells, the paper's ratio, and the factors in numbers."""
        cells = ", ".join(f"{k} {100 * v:.1f} %" for k, v in self.cells.items())
        r, lo, hi = self.ratio
        share = self.schedule_share()
        out = (f"2x2 ({measure}, mean over {self.workloads} workloads): {cells}; the paper's pairing {r:.2f}x "
               f"[{lo:.2f}, {hi:.2f}] = schedule {self.schedule:.2f}x x estimator {self.estimator:.2f}x (Shapley "
               f"split{'' if not math.isfinite(share) else f'; the schedule {100 * share:.0f} % of the log gain'}); "
               f"the method's schedule alone (baseline estimator) {self.schedule_alone:.2f}x, its estimator alone "
               f"(baseline schedule) {self.estimator_alone:.2f}x, its estimator on its own schedule "
               f"{self.same_schedule:.2f}x")
        if self.fill is not None:
            out += (f"; fill-matched ({self.fill_label}) {100 * self.cells['fill-matched']:.1f} %: of the "
                    f"{self.same_schedule:.2f}x the fill {self.fill:.2f}x, the rest of the estimator "
                    f"{self.rest:.2f}x")
        return out


def decompose(per: pd.DataFrame, base: tuple[str, str], method: tuple[str, str], fill: str | None = None,
              *, boot: int = BOOT, seed: int = 0) -> Decomposition:
    """The 2 × 2 decomposition of ``method`` = (scheduler, scaler) against ``base`` from ``per`` (rows
    ``"<scheduler> + <scaler>"``, columns workloads, values errors); ``fill``: the row of the fill-matched
    baseline, if any. When both sides share a schedule (``base[0] == method[0]``) the schedule factor is 1.
    Raises KeyError naming a missing row."""
    bb, mm = f"{base[0]} + {base[1]}", f"{method[0]} + {method[1]}"
    mb, bm = f"{method[0]} + {base[1]}", f"{base[0]} + {method[1]}"
    rows = list(dict.fromkeys([bb, bm, mb, mm] + ([fill] if fill else [])))
    missing = [r for r in rows if r not in per.index]
    if missing:
        raise KeyError(f"no rows of {', '.join(missing)}")
    two = per.loc[rows].dropna(axis=1)
    if two.shape[1] == 0:
        raise KeyError(f"no workload has every one of {', '.join(rows)}")
    e = two.mean(axis=1)
    s = paired_bootstrap(two.loc[[bb, mm]], boot, seed)
    rb = s[:, 0] / np.maximum(s[:, 1], 1e-300)
    ratio = (float(e[bb] / e[mm]), float(np.percentile(rb, 2.5)), float(np.percentile(rb, 97.5)))
    cells = {bb: float(e[bb]), bm: float(e[bm]), mb: float(e[mb]), mm: float(e[mm])}
    f = rest = None
    if fill:
        cells["fill-matched"] = float(e[fill])
        f, rest = float(e[mb] / e[fill]), float(e[fill] / e[mm])
    return Decomposition(
        cells=cells, ratio=ratio,
        schedule=float(math.sqrt((e[bb] / e[mb]) * (e[bm] / e[mm]))),
        estimator=float(math.sqrt((e[bb] / e[bm]) * (e[mb] / e[mm]))),
        schedule_alone=float(e[bb] / e[mb]), estimator_alone=float(e[bb] / e[bm]), same_schedule=float(e[mb] / e[mm]),
        fill=f, rest=rest, fill_label=fill, workloads=int(two.shape[1]))


def pair_table(rows: pd.DataFrame, col: str, label: dict[tuple[str, str], str] | None = None) -> pd.DataFrame:
    """Per workload (columns) the mean ``col`` of each (scheduler, scaler) of the score ``rows`` (rows named
    ``"<scheduler> + <scaler>"``, or ``label[(scheduler, scaler)]``): the input of `decompose`."""
    v = pd.to_numeric(rows[col], errors="coerce")
    t = v.groupby([rows["scheduler"], rows["scaler"], rows["workload"]]).mean().unstack("workload")
    label = label or {}
    t.index = [label.get((a, b), f"{a} + {b}") for a, b in t.index]
    return t
