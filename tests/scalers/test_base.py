"""The scaler interface: Estimate validation, scikit-learn style parameters, the registry (with entry
points), and the rule that a scaler receives only an Observation."""

from __future__ import annotations

import gc
from importlib import metadata

import numpy as np
import pytest

from mpx import scalers
from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.scalers.base import Estimate, Scaler, ScalerError
from mpx.conformance.scalers import generic_trace, observation_from_reads
from mpx.scalers.linear import LinearScaler


def test_registry_lists_the_baselines():
    names = scalers.available()
    for n in ("linear", "papi", "papi_sw", "dira", "tam", "dcam", "cam"):
        assert n in names
        cls = scalers.get_class(n)
        assert cls.name == n and issubclass(cls, Scaler) and cls.source
    with pytest.raises(ConfigError, match="unknown scaler"):
        scalers.get("nope")
    with pytest.raises(ConfigError, match="no parameter"):
        scalers.get("linear", bogus=1)


def test_register_and_entry_points(monkeypatch):
    class Mine(LinearScaler):
        name = "mine"

    scalers.register("mine", Mine)
    try:
        assert isinstance(scalers.get("mine"), Mine)
        with pytest.raises(ConfigError, match="built-in"):
            scalers.register("linear", Mine)
        with pytest.raises(ConfigError, match="not a"):
            scalers.register("x", int)
    finally:
        scalers.unregister("mine")
    assert "mine" not in scalers.available()

    ep = metadata.EntryPoint("plug", "mpx.scalers.linear:LinearScaler", scalers.ENTRY_POINT_GROUP)
    broken = metadata.EntryPoint("broken", "no_such_module:X", scalers.ENTRY_POINT_GROUP)
    monkeypatch.setattr(scalers.REGISTRY, "entry_points", lambda: {"plug": ep, "broken": broken})
    assert {"plug", "broken"} <= set(scalers.available())
    assert isinstance(scalers.get("plug"), LinearScaler)
    with pytest.raises(ConfigError, match="failed to load"):
        scalers.get("broken")


def test_params_stored_unchanged_and_clone():
    s = scalers.get("dira", gaps="neompx", fill="formula", integer=False)
    assert s.get_params() == {"gaps": "neompx", "fill": "formula", "integer": False, "te_fix": False,
                              "outlier_fix": False, "missing_fix": False}
    c = s.clone()
    assert c is not s and c.get_params() == s.get_params()
    assert "gaps='neompx'" in repr(s)
    s.set_params(fill="nan")
    assert s.fill == "nan"
    with pytest.raises(ConfigError):
        s.set_params(nope=1)


def test_bad_params_are_config_errors_at_estimate_time():
    obs = observation_from_reads(["x"], [0, 1], [[1]], [[1]], [[1]])
    for name, params in [("linear", {"fill": "guess"}), ("dira", {"gaps": "x"}), ("papi", {"fill": "guess"}),
                         ("papi_sw", {"attribution": "x"}), ("linear", {"integer": 1})]:
        with pytest.raises(ConfigError):
            scalers.get(name, **params).estimate(obs)


def test_a_scaler_never_receives_a_trace():
    tr = generic_trace()
    with pytest.raises(ConfigError, match="never receives a Trace"):
        scalers.get("linear").estimate(tr)


def test_estimate_from_an_observation_whose_trace_is_gone():
    from mpx.conformance.scalers import SPEC, generic_pmu

    tr = generic_trace()
    obs = multiplex(tr, Problem.from_perf_events(SPEC, generic_pmu()), "perf", quantum=10.0, read_every=3)
    del tr
    gc.collect()
    e = scalers.get("linear").estimate(obs)
    assert e.counts.shape == obs.reads.raw.shape
    assert e.meta["trace_checksum"] == obs.meta["trace_checksum"] and e.meta["scaler"] == "linear"
    assert e.meta["scheduler"] == "perf" and e.params["fill"] == "nan"


def test_a_hand_made_observation_needs_no_trace():
    obs = observation_from_reads(["x", "y"], [0, 10, 20], [[10, 5], [0, 5]], [[10, 10], [10, 10]],
                                 [[5, 10], [0, 10]])
    e = scalers.get("linear").estimate(obs)
    np.testing.assert_array_equal(e.counts, [[20, 5], [np.nan, 5]])


def test_estimate_validation():
    ok = dict(events=("a",), edges=[0, 1, 2], counts=[[1], [np.nan]], not_estimated=[[False], [True]])
    e = Estimate(**ok)
    assert e.n_windows == 2 and not e.has_std and e.totals()[0] == 1
    assert not e.counts.flags.writeable
    with pytest.raises(ScalerError, match="not flagged"):
        Estimate(**{**ok, "not_estimated": [[False], [False]]})
    with pytest.raises(ScalerError, match="shape"):
        Estimate(**{**ok, "counts": [[1, 2], [3, 4]]})
    with pytest.raises(ScalerError, match="negative std"):
        Estimate(**ok, std=[[-1.0], [0.0]])
    with pytest.raises(ScalerError, match="quantum_edges"):
        Estimate(**ok, quantum_counts=[[1.0]])
    with pytest.raises(ConfigError):
        e.column("zz")


def test_base_checks_what_a_scaler_returns():
    class Bad(Scaler):
        name = "bad"

        def _estimate(self, observation):
            return np.zeros(3)

    class WrongShape(Scaler):
        name = "wrong"

        def _estimate(self, observation):
            obs2 = observation_from_reads(["q"], [0, 1], [[1]], [[1]], [[1]])
            return self.make_estimate(obs2, np.ones((1, 1)))

    obs = observation_from_reads(["x", "y"], [0, 1, 2], np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ScalerError, match="not an Estimate"):
        Bad().estimate(obs)
    with pytest.raises(ScalerError, match="differ"):
        WrongShape().estimate(obs)


def test_learned_scaler_must_be_fitted():
    class Learned(LinearScaler):
        name = "learned"
        learned = True

        def _fit(self, items):
            self.n_seen_ = len(items)

    obs = observation_from_reads(["x"], [0, 1], [[1]], [[1]], [[1]])
    s = Learned()
    with pytest.raises(ConfigError, match="fit"):
        s.estimate(obs)
    with pytest.raises(ConfigError, match="at least one"):
        s.fit([])
    assert s.fit([generic_trace()]).n_seen_ == 1
    assert s.estimate(obs).counts[0, 0] == 1
    assert LinearScaler().fit([]) is not None  # unlearned scalers accept and ignore data


def test_learned_scaler_refuses_the_trace_it_was_fitted_on():
    # issue 17: the CLI refused fitting on the scored trace, the Python API did not
    class Learned(LinearScaler):
        name = "learned"
        learned = True

        def _fit(self, items):
            pass

    train, other = generic_trace(seed=1, workload="a"), generic_trace(seed=2, workload="b")
    problem = Problem(train.events, "generic-2")
    obs_train = multiplex(train, problem, "perf", quantum=1.0, read_every=1)
    obs_other = multiplex(other, problem, "perf", quantum=1.0, read_every=1)
    s = Learned().fit([train])
    assert s.training_checksums_ == {train.checksum()}
    with pytest.raises(ConfigError, match="fitted on the trace it is asked to estimate"):
        s.estimate(obs_train)
    assert s.estimate(obs_other).counts.shape == obs_other.reads.raw.shape
    with pytest.raises(ConfigError, match="fitted on the trace"):  # also when trained on its Observation
        Learned().fit([obs_other]).estimate(obs_other)
