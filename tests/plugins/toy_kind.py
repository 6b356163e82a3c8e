"""A toy experiment kind, one file and a ``register()`` call: ``[toy] values = [...]`` makes one cell per
value; a cell writes one row of its declared table ``toy`` (the value and its square), and the kind's
report section sums them."""

from __future__ import annotations

from typing import Any, ClassVar

from mpx.errors import ConfigError
from mpx.experiment import kinds
from mpx.experiment.grid import finish_cell
from mpx import code_version
from mpx.experiment.kinds import CellKind


class ToyKind(CellKind):
    """Squares numbers (a plugin example)."""

    name: ClassVar[str] = "toy"
    sections: ClassVar[dict[str, frozenset[str]]] = {"toy": frozenset({"values"})}
    tables: ClassVar[dict[str, tuple[str, ...]]] = {"toy": ("value",)}
    report: ClassVar[dict[str, str]] = {"toy": "tests.plugins.toy_kind:report_section"}

    def validate(self, exp: Any) -> None:
        for cfg in exp.variants():
            values = cfg.get("toy", {}).get("values")
            if not (isinstance(values, list) and values and all(isinstance(v, int) for v in values)):
                raise ConfigError(f"{exp.where}: [toy] values must be a list of integers, got {values!r}")

    def cells(self, exp: Any) -> list[dict]:
        return [finish_cell({"kind": "toy", "value": v, "code_version": code_version()}, exp.name)
                for cfg in exp.variants() for v in cfg["toy"]["values"]]

    def run(self, cell: dict) -> dict[str, Any]:
        return {"toy": [{"value": cell["value"], "square": cell["value"] ** 2}]}


def report_section(rows: Any) -> dict[str, Any]:
    """One table: the values and the sum of their squares."""
    return {"toy: squares": rows[["value", "square"]].set_index("value"),
            "toy: sum of squares": rows[["square"]].sum().to_frame("sum")}


def register() -> None:
    kinds.register("toy", ToyKind)
