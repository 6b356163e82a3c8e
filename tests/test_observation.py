"""`mpx.observation`: observations made without a replay, and the one quantum → read-window reduction."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.observation import Observation, ReadView
from mpx.pmu import preset
from mpx.problem import Problem
from mpx.trace import Trace


def test_from_reads_says_its_time_unit_and_copies_read_only():
    raw = np.array([[10.0, 5.0], [0.0, 5.0]])
    obs = Observation.from_reads(["x", "y"], [0, 100, 200], raw, [[100, 100], [100, 100]], [[50, 100], [0, 100]],
                                 time_unit="ms")
    assert obs.time_unit == "ms" and obs.quantum == 100.0 and obs.problem.pmu is None
    assert not obs.reads.raw.flags.writeable and raw.flags.writeable
    np.testing.assert_array_equal(obs.quanta.running, [[True, True], [False, True]])
    with pytest.raises(ConfigError, match="unknown time unit 'seconds'"):
        Observation.from_reads(["x"], [0, 1], [[1]], [[1]], [[1]], time_unit="seconds")


def test_from_reads_on_a_declared_pmu():
    obs = Observation.from_reads(["x"], [0, 1], [[1]], [[1]], [[1]], time_unit="ns", pmu="generic-2")
    assert obs.problem.pmu.name == "generic-2" and obs.errors == {}
    never = Observation.from_reads(["x"], [0, 1], [[0]], [[0]], [[0]], time_unit="ns")
    assert never.errors == {"x": "never enabled"}


def test_the_read_view_of_quanta_is_the_multiplexers():
    rng = np.random.default_rng(1)
    tr = Trace(["a", "b", "c"], rng.integers(0, 100, (30, 3)), np.arange(31.0), "us")
    obs = multiplex(tr, Problem(tr.events, preset("generic-2")), "perf", quantum=2.0, read_every=4)
    again = ReadView.from_quanta(obs.quanta, 4)
    for k in ("edges", "quanta", "raw", "enabled", "running"):
        np.testing.assert_array_equal(getattr(again, k), getattr(obs.reads, k), err_msg=k)
    counts = np.where(obs.quanta.running, obs.quanta.counts, 0.0)
    made = Observation.from_quanta(tr.events, obs.quanta.edges, counts, obs.quanta.running, 4, time_unit="us")
    np.testing.assert_array_equal(made.reads.raw, obs.reads.raw)
    np.testing.assert_array_equal(made.reads.running, obs.reads.running)
