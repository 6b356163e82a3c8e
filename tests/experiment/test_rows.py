"""`mpx.experiment.rows`: the regime columns every replay row carries."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.multiplex import multiplex


def test_the_regime_of_a_replay_is_recorded():
    from mpx.experiment.rows import regime
    from mpx.pmu import preset
    from mpx.problem import Problem
    from mpx.trace import Trace

    events = [f"e{i}" for i in range(6)]
    tr = Trace(events, np.ones((60, 6)), np.arange(61) * 1e6, "ns")  # 1 ms intervals
    obs = multiplex(tr, Problem(tuple(events), preset("generic-2")), "round_robin", quantum=1e6, read_every=2)
    r = regime(obs, {})
    assert r["rotation_quanta"] == 3 and r["read_per_rotation"] == pytest.approx(2 / 3)  # a read < a rotation
    assert r["quantum_in_ms"] == pytest.approx(1.0) and r["read_window_in_ms"] == pytest.approx(2.0)
    tr_i = Trace(events, np.ones((60, 6)), np.arange(61) * 1e6, "instructions")
    online = multiplex(tr_i, Problem(tuple(events), preset("generic-2")), "tintin", quantum=1e6, read_every=6)
    r = regime(online, {})
    assert r["rotation_quanta"] is None and r["read_per_rotation"] is None  # online: no fixed rotation
    assert r["quantum_in_ms"] is None  # an instructions axis has no declared rate
