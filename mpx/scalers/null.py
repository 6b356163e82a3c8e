"""Null baselines for counts: what a method must beat before its gain means anything (issue 34).

- ``constant_rate`` (offline): every window gets the event's **whole-run scaled rate** × the window's
  length. The rate is read from the observation only, never the truth: ``Σ Δraw / Σ ΔR`` over the run's
  read windows (perf's whole-run scaling divided by the run's enabled time), times the window's ``ΔE``
  (its enabled time, the window's length for an event enabled throughout). It ignores every per-window
  reading: a method that does not beat it has learned nothing about time from the counters.
- ``constant_rate_causal``: the same with the rate of the windows up to and including w (``Σ_{v<=w}``),
  so window w uses nothing after it; not estimated before the event first ran.
- ``linear_interpolate`` (offline) and ``linear_carry`` (causal): perf's linear scaling with the window fill
  of the interpolating scalers (`mpx.scalers.reads`, ``fill``): DIRA, DCAM, CAM and CounterMiner fill the windows
  where an event did not run by interpolating its rate in time, TAM carries the last rate. A linear scaling
  with the *same* fill separates what the fill earns from what the method's own formula earns: the
  **fill-matched** baseline of that scaler (`fill_matched`).

An event that never ran has no rate: not estimated (NaN) under every null baseline.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.scalers.base import Estimate, Scaler
from mpx.scalers.linear import LinearScaler
from mpx.scalers.reads import clean_reads

__all__ = ["ConstantRateCausal", "ConstantRateScaler", "FILL_BASELINES", "LinearCarry", "LinearInterpolate",
           "NULL_BASELINES", "fill_matched"]

#: a window fill (`mpx.scalers.reads.FILLS`) → the registered linear scaling with that fill
FILL_BASELINES: dict[str, str] = {"interpolate": "linear_interpolate", "carry": "linear_carry"}
#: every null baseline of counts, by registry name
NULL_BASELINES: tuple[str, ...] = ("constant_rate", "constant_rate_causal", "linear_interpolate", "linear_carry")


class ConstantRateScaler(Scaler):
    """The whole-run scaled rate × each window's enabled time (module docstring); offline."""

    name: ClassVar[str] = "constant_rate"
    view: ClassVar[str] = "read"
    causal: ClassVar[bool] = False
    source: ClassVar[str] = ("mpx null baseline (issue 34): perf's whole-run scaling (tools/lib/perf/evsel.c "
                             "perf_counts_values__scale on the run's totals) spread evenly over the run's time")
    _so_far: ClassVar[bool] = False

    def _estimate(self, observation: Any) -> Estimate:
        raw, ena, run, _ = clean_reads(observation)
        if self._so_far:
            sraw, srun = np.cumsum(raw, axis=0), np.cumsum(run, axis=0)
        else:
            sraw, srun = raw.sum(axis=0)[None, :], run.sum(axis=0)[None, :]
        has = srun > 0
        rate = np.where(has, sraw / np.where(has, srun, 1.0), np.nan)
        est = np.broadcast_to(rate, raw.shape) * ena
        return self.make_estimate(observation, est, not_estimated=~np.isfinite(est),
                                  notes=[f"null baseline: {'the rate so far' if self._so_far else 'the whole-run rate'}"
                                         " x each window's enabled time"])


class ConstantRateCausal(ConstantRateScaler):
    """`ConstantRateScaler` with the rate of the windows up to w (causal)."""

    name: ClassVar[str] = "constant_rate_causal"
    causal: ClassVar[bool] = True
    _so_far: ClassVar[bool] = True


class LinearInterpolate(LinearScaler):
    """perf's linear scaling with the interpolating fill (``fill="interpolate"``): the fill-matched baseline
    of DIRA, DCAM, CAM and CounterMiner; offline."""

    name: ClassVar[str] = "linear_interpolate"
    source: ClassVar[str] = "mpx null baseline (issue 34): " + LinearScaler.source + "; fill as mpx.scalers.reads"

    def __init__(self, fill: str = "interpolate", integer: bool = True, te_fix: bool = False,
                 outlier_fix: bool = False, missing_fix: bool = False):
        super().__init__(fill=fill, integer=integer, te_fix=te_fix, outlier_fix=outlier_fix, missing_fix=missing_fix)


class LinearCarry(LinearScaler):
    """perf's linear scaling carrying the last rate (``fill="carry"``): the fill-matched baseline of TAM;
    causal."""

    name: ClassVar[str] = "linear_carry"
    source: ClassVar[str] = LinearInterpolate.source

    def __init__(self, fill: str = "carry", integer: bool = True, te_fix: bool = False,
                 outlier_fix: bool = False, missing_fix: bool = False):
        super().__init__(fill=fill, integer=integer, te_fix=te_fix, outlier_fix=outlier_fix, missing_fix=missing_fix)


def fill_matched(scaler: Any) -> str | None:
    """The fill-matched null baseline (a registry name) of a scaler instance that fills the windows where an
    event did not run (its ``fill``, or ``fills_like`` for a wrapper such as CounterMiner); None when it fills
    nothing or is a null baseline itself."""
    if getattr(scaler, "name", None) in NULL_BASELINES or getattr(scaler, "name", None) == "linear":
        return None
    fill = getattr(scaler, "fills_like", None) or getattr(scaler, "fill", None)
    return FILL_BASELINES.get(fill) if isinstance(fill, str) else None
