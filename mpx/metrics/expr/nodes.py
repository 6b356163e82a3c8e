"""The expression tree: `Num`, `Name`, `Literal`, `Unary`, `Binary`, `IfElse`, `Call`, `Query` (`Node`),
the operators and functions of the language, and `ExprSyntaxError`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from mpx.errors import FormatError

__all__ = ["BINARY_OPS", "FUNCTIONS", "QUERIES", "Binary", "Call", "ExprSyntaxError", "IfElse", "Literal", "Name",
           "Node", "Num", "Query", "Unary"]


@dataclass(frozen=True)
class Num:
    """A number. ``value`` is never negative when parsed (``-3`` is ``Unary('-', Num(3))``)."""

    value: float
    text: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Name:
    """An event, pseudo-event (``duration_time``) or a reference to another metric, by name."""

    name: str


@dataclass(frozen=True)
class Literal:
    """A platform literal ``#name`` (stored without the ``#``)."""

    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Node"


@dataclass(frozen=True)
class Binary:
    op: str
    left: "Node"
    right: "Node"


@dataclass(frozen=True)
class IfElse:
    """``then if cond else other``."""

    then: "Node"
    cond: "Node"
    other: "Node"


@dataclass(frozen=True)
class Call:
    """``min``, ``max`` or ``d_ratio`` with two arguments."""

    func: str
    args: tuple["Node", ...]


@dataclass(frozen=True)
class Query:
    """``has_event(NAME)``, ``source_count(NAME)`` or ``strcmp_cpuid_str(ID)``: a function of a name."""

    func: str
    arg: str


Node = Union[Num, Name, Literal, Unary, Binary, IfElse, Call, Query]

#: binary operators and their binding powers (higher binds tighter)
BINARY_OPS: dict[str, int] = {
    "|": 2,
    "^": 3,
    "&": 4,
    "<": 5, ">": 5, "<=": 5, ">=": 5, "==": 5, "!=": 5,
    "+": 6, "-": 6,
    "*": 7, "/": 7, "%": 7,
}

FUNCTIONS = ("min", "max", "d_ratio")
QUERIES = ("has_event", "source_count", "strcmp_cpuid_str")


class ExprSyntaxError(FormatError):
    """A malformed expression: a FormatError that also carries the expression and the 0-based
    ``position`` of the offending character."""

    def __init__(self, path, line, message: str, expression: str, position: int) -> None:
        self.expression = expression
        self.position = position
        super().__init__(path, line, message)
