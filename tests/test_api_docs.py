"""The Python API's docstring examples run as written (issue 17 item 1: the API had to be read out of the
source): what ``get`` returns and how it takes parameters, a PMU and a Problem built in code."""

from __future__ import annotations

import re
import textwrap

import pytest

from mpx import scalers, schedulers
from mpx.errors import ConfigError
from mpx.pmu import PMU
from mpx.problem import Problem


def code_block(doc: str) -> str:
    """The first literal block (the indented lines after a line ending in ``::``) of a docstring."""
    lines = doc.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.rstrip().endswith("::")) + 1
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    block = []
    for ln in lines[start:]:
        if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
            break
        block.append(ln)
    return textwrap.dedent("\n".join(block))


@pytest.mark.parametrize("registry", [scalers, schedulers])
def test_get_returns_an_instance_with_the_documented_parameters(registry):
    example = re.search(r"``(get\(\"(\w+)\", (\w+)=\"(\w+)\"\))``", registry.__doc__)
    obj = eval(example.group(1), {"get": registry.get})  # noqa: S307 - our own docstring
    assert isinstance(obj, registry.get_class(example.group(2)))
    assert obj.get_params()[example.group(3)] == example.group(4)
    obj.validate_params()  # the documented value is a valid one
    with pytest.raises(TypeError, match="not callable"):
        registry.get(example.group(2))()
    with pytest.raises(ConfigError, match="has no parameter"):
        registry.get(example.group(2), no_such_parameter=1)


def test_pmu_from_dict_example_runs():
    ns: dict = {"PMU": PMU}
    exec(code_block(PMU.from_dict.__doc__), ns)  # noqa: S102
    pmu = ns["pmu"]
    assert pmu.fits(["cycles", "l2_miss", "a", "b", "c"])
    assert not pmu.fits(["l2_miss", "a", "b", "c", "d"])  # five programmable events on four counters
    assert [c.name for c in pmu.allowed("l2_miss")] == ["gp0", "gp1"]


def test_problem_example_runs():
    ns: dict = {"Problem": Problem}
    exec(code_block(Problem.__doc__), ns)  # noqa: S102
    problem = ns["problem"]
    assert problem.groups[0].events == ("Dr", "Dw") and problem.metrics[0].events == ("D1mr", "Dr")
    assert problem.fits(["Dr", "Dw"]) and not problem.fits(["Dr", "Dw", "Ir"])
