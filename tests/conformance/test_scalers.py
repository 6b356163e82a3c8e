"""`check_scaler` catches scalers that look ahead while claiming to be causal, read
the truth, are not deterministic or break on events that never ran."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from mpx.conformance.common import ConformanceError
from mpx.conformance.scalers import check_scaler
from mpx.scalers.linear import LinearScaler
from mpx.trace import Trace


@pytest.mark.parametrize("name, params", [
    ("linear", {"fill": "carry"}), ("linear", {"fill": "interpolate", "integer": False}),
    ("linear", {"te_fix": True, "outlier_fix": True, "missing_fix": True}),
    ("papi", {"fill": "nan"}), ("papi_cumulative", {"fill": "carry"}), ("tam", {"gaps": "neompx", "fill": "formula"}),
    ("dira", {"gaps": "neompx", "fill": "formula"}), ("dcam", {"fill": "carry"}), ("cam", {"fill": "zero"}),
    ("papi_sw", {"attribution": "spread"}), ("papi_sw", {"cycles_event": "time", "min_cycles": 1.0}),
])
def test_options_conform(name, params):
    check_scaler(name, params)


def test_offline_scalers_really_look_ahead():
    # declaring offline is always allowed, but the check reports that these do use the future
    for name in ("dira", "dcam", "cam"):
        assert check_scaler(name)["behaves_causally"] is False


class Peeker(LinearScaler):
    """Claims to be causal, uses the next window."""

    name = "peeker"

    @property
    def causal(self):
        return True

    def _core(self, raw, enabled, running, observation):
        est, f = super()._core(raw, enabled, running, observation)
        est = est.copy()
        est[:-1] += 0.001 * raw[1:]
        return est, f


class TruthReader(LinearScaler):
    """Finds the replayed trace among the live objects (by the checksum the observation carries) and
    reads its true counts."""

    name = "truth_reader"

    def _core(self, raw, enabled, running, observation):
        est, f = super()._core(raw, enabled, running, observation)
        want = observation.meta.get("trace_checksum")
        live = [o for o in gc.get_objects() if isinstance(o, Trace) and o.checksum() == want]
        cached = live[0] if live else None
        if cached is not None:
            t = np.asarray(cached.counts)
            w = raw.shape[0]
            est = np.add.reduceat(t, observation.reads.quanta[:-1], axis=0)[:w, : raw.shape[1]]
            est = est.astype(float)
        return est, f


class Noisy(LinearScaler):
    name = "noisy"

    def _core(self, raw, enabled, running, observation):
        est, f = super()._core(raw, enabled, running, observation)
        return est * np.random.default_rng().uniform(0.9, 1.1, est.shape), f


class Crashy(LinearScaler):
    name = "crashy"

    def _core(self, raw, enabled, running, observation):
        if (enabled == 0).any():
            raise ZeroDivisionError("event in error")
        return super()._core(raw, enabled, running, observation)


class Sticky(LinearScaler):
    """Changes its parameter in the constructor."""

    name = "sticky"

    def __init__(self, fill: str = "nan"):
        super().__init__(fill="zero" if fill == "nan" else fill)


@pytest.mark.parametrize("bad, message", [
    (Peeker, "declared causal"),
    (TruthReader, "reads the truth"),
    (Noisy, "differ"),
    (Crashy, "raise"),
    (Sticky, "unchanged"),
])
def test_the_check_catches_bad_scalers(bad, message):
    with pytest.raises(ConformanceError, match=message):
        check_scaler(bad)
