"""A toy scaler, written as a third party would: one file and a ``register()`` call. It scales each read
window like perf (``raw · ΔE / ΔR``) without the integer cast, and never fills a window where the event
did not run."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx import scalers
from mpx.scalers.base import Estimate, Scaler


class ToyScaler(Scaler):
    """perf's scaling in floating point; windows where an event did not run stay empty (flagged)."""

    name: ClassVar[str] = "toy"
    source: ClassVar[str] = "tests/plugins/toy_scaler.py (a plugin example)"
    view: ClassVar[str] = "read"
    causal: ClassVar[bool] = True

    def __init__(self, floor: float = 0.0) -> None:
        self.floor = floor

    def _estimate(self, observation) -> Estimate:
        r = observation.reads
        raw, ena, run = (np.nan_to_num(np.asarray(a, dtype=float)) for a in (r.raw, r.enabled, r.running))
        ran = run > 0
        est = np.where(ran, np.maximum(raw * ena / np.where(ran, run, 1.0), self.floor), np.nan)
        return self.make_estimate(observation, est, not_estimated=~ran)


def register() -> None:
    scalers.register("toy", ToyScaler)
