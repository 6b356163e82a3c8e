"""A read-window scaler: perf's scaling (``raw · ΔE / ΔR``, in floating point) where an event ran, and in a
window where it did not, the rate it had when it last ran times the window's enabled time (causal: only
earlier windows are used). An event that never ran is flagged not estimated in every window."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.params import StrOptions
from mpx.scalers.base import Estimate, Scaler


class CarryScaler(Scaler):
    """perf's ratio where an event ran; its last rate carried forward where it did not (``fill="carry"``) or
    nothing (``fill="none"``: flagged). Example plugin, after perf stat's scaling (tools/perf/util/stat.c)."""

    name: ClassVar[str] = "example_carry"
    source: ClassVar[str] = "mpx-example-plugin (after perf stat's scaling, tools/perf/util/stat.c)"
    view: ClassVar[str] = "read"
    causal: ClassVar[bool] = True
    param_constraints: ClassVar[dict[str, Any]] = {"fill": [StrOptions({"carry", "none"})]}

    def __init__(self, fill: str = "carry") -> None:
        self.fill = fill

    def _estimate(self, observation: Any) -> Estimate:
        r = observation.reads
        raw, ena, run = (np.nan_to_num(np.asarray(a, dtype=float)) for a in (r.raw, r.enabled, r.running))
        ran = run > 0
        est = np.full(raw.shape, np.nan)
        rate = np.full(raw.shape[1], np.nan)  # counts per unit of running time, when the event last ran
        for w in range(raw.shape[0]):
            now = np.where(ran[w], raw[w] / np.where(ran[w], run[w], 1.0), np.nan)
            rate = np.where(ran[w], now, rate if self.fill == "carry" else np.nan)
            est[w] = rate * ena[w]
        return self.make_estimate(observation, est, not_estimated=~np.isfinite(est))
