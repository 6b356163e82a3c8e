"""The parameter base (`mpx.params`): declared constraints checked once, with messages naming the
parameter and the value; the scikit-learn protocol (param_names, get/set/clone, repr)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx import scalers, schedulers
from mpx.errors import ConfigError
from mpx.params import Interval, ListOf, Params, StrOptions, describe, satisfies


class _Thing(Params):
    param_constraints = {"k": [None, Interval(int, 1, None)], "x": Interval(float, 0, 1, closed="neither"),
                         "mode": StrOptions(("a", "b")), "flag": "boolean", "names": ListOf(str, "names")}

    def __init__(self, k=None, x=0.5, mode="a", flag=True, names=()):
        self.k, self.x, self.mode, self.flag, self.names = k, x, mode, flag, names


def test_constraints_accept_and_refuse():
    assert satisfies(3, Interval(int, 1, None)) and satisfies(np.int64(3), Interval(int, 1, None))
    assert not satisfies(True, Interval(int, 0, None)) and not satisfies(2.0, Interval(int, 0, None))
    assert not satisfies(float("nan"), Interval(float, 0, None)) and not satisfies(float("inf"), Interval(float, 0, None))
    assert satisfies(0, Interval(float, 0, None)) and not satisfies(0, Interval(float, 0, None, closed="neither"))
    assert satisfies(np.bool_(True), "boolean") and not satisfies(1, "boolean")
    assert not satisfies("ab", ListOf(str, "names")) and satisfies(["a"], ListOf(str, "names"))
    assert describe([None, Interval(int, 1, None)]) == "None or an integer >= 1"
    assert describe(Interval(float, 0, 1, closed="right")) == "a finite number in (0, 1]"


@pytest.mark.parametrize("params, name", [
    ({"k": 0}, "k"), ({"x": 1.0}, "x"), ({"mode": "c"}, "mode"), ({"flag": 1}, "flag"), ({"names": "ab"}, "names"),
])
def test_validate_params_names_the_parameter_and_the_value(params, name):
    t = _Thing(**params)
    with pytest.raises(ConfigError, match=rf"^_Thing: {name} must be .*, got {params[name]!r}$"):
        t.validate_params()
    _Thing().validate_params()


def test_protocol():
    t = _Thing(k=2)
    assert _Thing.param_names() == ["k", "x", "mode", "flag", "names"]
    assert t.get_params()["k"] == 2 and t.clone().get_params() == t.get_params()
    assert repr(t).startswith("_Thing(k=2")
    with pytest.raises(ConfigError, match="no parameter"):
        t.set_params(nope=1)


@pytest.mark.parametrize("kind, name", [("scheduler", n) for n in schedulers.REGISTRY.builtin]
                         + [("scaler", n) for n in scalers.REGISTRY.builtin])
def test_declared_constraints_name_parameters_and_defaults_satisfy_them(kind, name):
    reg = schedulers if kind == "scheduler" else scalers
    cls = reg.get_class(name)
    assert set(cls.param_constraints) <= set(cls.param_names())
    cls(**cls.example_params).validate_params()


def test_plugins_check_their_parameters_when_they_run():
    from mpx.problem import Problem

    p = Problem.from_perf_events("a,b,c", "generic-2")
    with pytest.raises(ConfigError, match=r"^perf: assignment must be one of \('matching', 'perf'\), got 'x'$"):
        schedulers.get("perf", assignment="x").schedule(p)
    with pytest.raises(ConfigError, match=r"^tintin: hyperperiod must be an integer >= 1, got 0$"):
        schedulers.get("tintin", hyperperiod=0).start(p)
    from mpx.conformance.scalers import generic_observation

    with pytest.raises(ConfigError, match=r"^LinearScaler: fill must be one of .*, got 'formula'$"):
        scalers.get("linear", fill="formula").estimate(generic_observation())
