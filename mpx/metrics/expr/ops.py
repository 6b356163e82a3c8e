"""perf's operators and functions on numbers and numpy arrays (division by zero is NaN, ``d_ratio``
gives 0, NaN rules of ``|`` and ``&``): the one definition the evaluator and constant folding share."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["apply_binary", "apply_call", "is_number", "scalar_binary", "scalar_call"]


def apply_binary(op: str, a: Any, b: Any) -> Any:
    """``a op b`` elementwise with perf's semantics (see `mpx.metrics.expr`)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return np.where(b == 0, np.nan, a / np.where(b == 0, 1.0, b))
    if op == "%":
        ta, tb = np.trunc(a), np.trunc(b)
        return np.where(tb == 0, np.nan, np.fmod(ta, np.where(tb == 0, 1.0, tb)))
    nan = np.isnan(a) | np.isnan(b)
    if op == "|":  # a known non-zero operand decides, even against NaN (perf's expr.y)
        true = ((a != 0) & ~np.isnan(a)) | ((b != 0) & ~np.isnan(b))
        return np.where(true, 1.0, np.where(nan, np.nan, 0.0))
    if op == "&":  # a zero operand decides, even against NaN
        false = (a == 0) | (b == 0)
        return np.where(false, 0.0, np.where(nan, np.nan, 1.0))
    if op == "^":
        r = (a != 0) != (b != 0)
    elif op == "<":
        r = a < b
    elif op == ">":
        r = a > b
    elif op == "<=":
        r = a <= b
    elif op == ">=":
        r = a >= b
    elif op == "==":
        r = a == b
    elif op == "!=":
        r = a != b
    else:
        raise ValueError(f"unknown operator {op!r}")
    return np.where(nan, np.nan, np.asarray(r, dtype=np.float64))


def apply_call(func: str, a: Any, b: Any) -> Any:
    """``func(a, b)`` for ``min``, ``max``, ``d_ratio`` elementwise."""
    if func == "min":
        return np.where(a < b, a, b)
    if func == "max":
        return np.where(a > b, a, b)
    if func == "d_ratio":
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))
    raise ValueError(f"unknown function {func!r}")


def is_number(v: Any) -> bool:
    """Whether ``v`` is a plain or numpy scalar number."""
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


def scalar_binary(op: str, a: float, b: float) -> float:
    """`apply_binary` on two scalars, as a float."""
    with np.errstate(all="ignore"):
        return float(apply_binary(op, np.float64(a), np.float64(b)))


def scalar_call(func: str, a: float, b: float) -> float:
    """`apply_call` on two scalars, as a float."""
    with np.errstate(all="ignore"):
        return float(apply_call(func, np.float64(a), np.float64(b)))
