"""`mpx.conformance.check`: one entry for every kind, taking a class, an instance or a registry name; every
failure a `ConformanceError` naming the check it failed (never a bare plugin error), one test item per check
for a plugin author (`plugin_checks`), and `check_figure`."""

from __future__ import annotations

from typing import ClassVar

import pytest

from mpx import conformance
from mpx.conformance import ConformanceError, check, check_figure, plugin_checks
from mpx.conformance.suites import checks
from mpx.errors import ConfigError
from mpx.figures import Figure
from mpx.problem import Problem
from mpx.scalers.linear import LinearScaler
from mpx.schedulers.base import Schedule, StaticScheduler
from tests.plugins.toy_scaler import ToyScaler


class Renamed(LinearScaler):
    """The constructor's argument was renamed, the attribute was not: get_params fails in every check."""

    name = "renamed"

    def __init__(self, how: str = "nan") -> None:
        super().__init__(fill=how)


class Needy(ToyScaler):
    """Needs a constructor argument, declared in example_params: conforms."""

    name = "needy"
    example_params: ClassVar[dict] = {"floor": 1.0}

    def __init__(self, floor: float) -> None:
        super().__init__(floor=floor)


class Failing(StaticScheduler):
    """Raises in every schedule: each check that needs the runs fails under its own name."""

    name = "failing"
    source = "a test of the conformance entry"

    def _schedule(self, problem: Problem) -> Schedule:
        raise RuntimeError("a bug in the scheduler")


@pytest.mark.parametrize("given", ["linear", LinearScaler, LinearScaler()])
def test_a_class_an_instance_or_a_name(given):
    facts = check("scaler", given, only=["class_tags", "interface"])
    assert facts["view"] == "read"


def test_a_renamed_parameter_fails_every_check_by_name():
    with pytest.raises(ConformanceError) as err:
        check("scaler", Renamed)
    names = [e.check for e in err.value.errors]
    assert names and set(names) <= set(checks("scaler")) and len(set(names)) == len(names)
    assert all(isinstance(e, ConformanceError) and e.kind == "scaler" for e in err.value.errors)
    assert "interface" in names and "shapes" in names
    assert err.value.check == ", ".join(names)


def test_a_plugin_that_needs_a_constructor_argument_conforms():
    assert check("scaler", Needy)["view"] == "read"
    with pytest.raises(ConformanceError, match=r"check_scaler\[example_params\].*declares them in example_params"):
        check("scaler", type("NoExample", (Needy,), {"example_params": {}}))


def test_a_failed_base_run_is_named_by_the_check_that_needed_it():
    with pytest.raises(ConformanceError) as err:
        check("scheduler", Failing)
    by = {e.check: e for e in err.value.errors}
    assert "runs" in by and "observes" in by and "no_overcommit" in by
    assert all("a bug in the scheduler" in str(e) for e in by.values() if e.check not in ("declares", "params"))


def test_one_item_per_check():
    pairs = plugin_checks("scaler", Needy)
    assert [i for i, _ in pairs] == [f"scaler-Needy-{c}" for c in checks("scaler")]
    for _, run in pairs[:3]:
        run()
    with pytest.raises(ConfigError, match="not a mpx.scalers.base.Scaler"):
        check("scaler", object())


def _draw(store, experiment):
    raise ConfigError("no data")


def test_check_figure_takes_a_figure_without_an_experiment():
    check_figure(Figure("third_party", "a figure of another package", None, _draw))
    with pytest.raises(ConformanceError, match=r"check_figure\[declares\].*experiment must be None"):
        check_figure(Figure("bad", "a figure", "", _draw))
    assert conformance.check_figure is check_figure
