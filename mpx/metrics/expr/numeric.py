"""Values of a tree: the vectorised `Evaluator` (perf's semantics over numpy arrays), `evaluate`, and
`linear_form` (the coefficients of a linear expression, for relations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.metrics.expr.analysis import fold, lookup_literal
from mpx.metrics.expr.nodes import Binary, Call, IfElse, Literal, Name, Node, Num, Query, Unary
from mpx.metrics.expr.ops import apply_binary, apply_call, cpuid_matches, is_number
from mpx.metrics.expr.syntax import parse, to_text

__all__ = ["Evaluator", "evaluate", "linear_form"]


def _as_value(v):
    a = np.asarray(v, dtype=np.float64)
    return a[()] if a.ndim == 0 else a


class Evaluator:
    """Evaluates ASTs over an environment of numpy arrays (or scalars).

    ``env`` maps names to values; ``literals`` maps literal names (without ``#``) to numbers (``cpuid``
    may be a string). Override `name_value` to resolve names differently (the catalog resolves metric
    references there). A missing name or literal raises `ConfigError` naming it.
    """

    def __init__(self, env: Mapping[str, Any], literals: Mapping[str, Any] | None = None, what: str | None = None):
        self.env = env
        self.literals = dict(literals or {})
        self.what = what

    def _missing(self, kind: str, name: str) -> ConfigError:
        where = f" (needed by {self.what})" if self.what else ""
        return ConfigError(f"{kind} {name!r} is not available{where}")

    def name_value(self, name: str):
        try:
            return self.env[name]
        except KeyError:
            raise self._missing("event", name) from None

    def has(self, name: str) -> bool:
        return name in self.env

    def literal_value(self, name: str) -> Any:
        try:
            return lookup_literal(self.literals, name)
        except KeyError:
            shown = name if name.startswith("source_count(") or name == "cpuid" else "#" + name
            raise self._missing("literal", shown) from None

    def __call__(self, node: Node):
        with np.errstate(all="ignore"):
            return _as_value(self._eval(node))

    def _eval(self, n: Node):
        if isinstance(n, Num):
            return np.float64(n.value)
        if isinstance(n, Name):
            return np.asarray(self.name_value(n.name), dtype=np.float64)
        if isinstance(n, Literal):
            v = self.literal_value(n.name)
            if not is_number(v):
                raise ConfigError(f"literal #{n.name} must be a number, got {v!r}")
            return np.float64(v)
        if isinstance(n, Unary):
            return -self._eval(n.operand)
        if isinstance(n, Binary):
            a = self._eval(n.left)
            if n.op in ("|", "&") and np.ndim(a) == 0 and not np.isnan(a):
                # short-circuit on a scalar left operand: the right side may need absent events
                if n.op == "|" and a != 0:
                    return np.float64(1.0)
                if n.op == "&" and a == 0:
                    return np.float64(0.0)
            return apply_binary(n.op, a, self._eval(n.right))
        if isinstance(n, IfElse):
            c = self._eval(n.cond)
            if np.ndim(c) == 0:
                return self._eval(n.other) if c == 0 else self._eval(n.then)
            return np.where(c == 0, self._eval(n.other), self._eval(n.then))
        if isinstance(n, Call):
            return apply_call(n.func, self._eval(n.args[0]), self._eval(n.args[1]))
        if isinstance(n, Query):
            if n.func == "has_event":
                return np.float64(1.0 if self.has(n.arg) else 0.0)
            if n.func == "source_count":
                return np.float64(self.literal_value(f"source_count({n.arg})"))
            return np.float64(1.0 if cpuid_matches(n.arg, str(self.literal_value("cpuid"))) else 0.0)
        raise TypeError(f"not an expression node: {n!r}")


def evaluate(node: Node | str, env: Mapping[str, Any] | None = None, literals: Mapping[str, Any] | None = None):
    """Value of ``node`` (an AST or expression text) over ``env`` (name → array or scalar)."""
    if isinstance(node, str):
        node = parse(node)
    return Evaluator(env or {}, literals)(node)


# -- linear forms (relations) -----------------------------------------------------------------------


def linear_form(node: Node, literals: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Coefficients of ``node`` as a homogeneous linear form in its names: ``{name: a_i}`` with
    ``node == sum_i a_i * name_i``. Products and quotients must have a constant side (literals
    count as constants when known); anything else — including a constant term — raises ValueError."""
    literals = literals or {}

    def const(n: Node) -> float | None:
        v, deps = fold(n, literals)
        return v if (v is not None and not deps) else None

    def go(n: Node, scale: float, acc: dict[str, float]) -> None:
        if isinstance(n, Name):
            acc[n.name] = acc.get(n.name, 0.0) + scale
            return
        c = const(n)
        if c is not None:
            if c != 0 and scale != 0:
                raise ValueError(f"a relation cannot have a constant term ({to_text(n)})")
            return
        if isinstance(n, Unary):
            go(n.operand, -scale, acc)
        elif isinstance(n, Binary) and n.op in "+-":
            go(n.left, scale, acc)
            go(n.right, scale if n.op == "+" else -scale, acc)
        elif isinstance(n, Binary) and n.op == "*":
            cl, cr = const(n.left), const(n.right)
            if cl is not None:
                go(n.right, scale * cl, acc)
            elif cr is not None:
                go(n.left, scale * cr, acc)
            else:
                raise ValueError(f"not linear: product of two non-constant terms ({to_text(n)})")
        elif isinstance(n, Binary) and n.op == "/":
            cr = const(n.right)
            if cr is None or cr == 0:
                raise ValueError(f"not linear: division by a non-constant or zero ({to_text(n)})")
            go(n.left, scale / cr, acc)
        else:
            raise ValueError(f"not linear: {to_text(n)}")

    acc: dict[str, float] = {}
    go(node, 1.0, acc)
    return {k: v for k, v in acc.items() if v != 0}
