"""A scaler whose constructor needs an argument: perf's scaling times ``factor``."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.scalers.base import Estimate, Scaler


class NeedyScaler(Scaler):
    """perf's ratio scaled by ``factor`` (required): a test fixture."""

    name: ClassVar[str] = "needy"
    source: ClassVar[str] = "tests/plugins/broken_package (a test fixture)"
    view: ClassVar[str] = "read"
    causal: ClassVar[bool] = True
    example_params: ClassVar[dict] = {"factor": 1.0}

    def __init__(self, factor: float) -> None:
        self.factor = factor

    def _estimate(self, observation) -> Estimate:
        r = observation.reads
        raw, ena, run = (np.nan_to_num(np.asarray(a, dtype=float)) for a in (r.raw, r.enabled, r.running))
        ran = run > 0
        est = np.where(ran, self.factor * raw * ena / np.where(ran, run, 1.0), np.nan)
        return self.make_estimate(observation, est, not_estimated=~ran)
