"""perf's operators and functions on numbers and numpy arrays (division by zero is NaN, ``d_ratio``
gives 0, NaN rules of ``|`` and ``&``): the one definition the evaluator and constant folding share."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["apply_binary", "apply_call", "cpuid_matches", "is_number", "scalar_binary", "scalar_call"]

_MIDR_VARIANT = 0xF << 20
_MIDR_REVISION = 0xF


def cpuid_matches(map_id: str, cpuid: str) -> bool:
    """``strcmp_cpuid_str(map_id)`` on a CPU whose id is ``cpuid`` (perf's ``expr__strcmp_cpuid_str``:
    ``!strcmp_cpuid_str(test_id, cpuid)``). Two hexadecimal MIDRs compare as arm64 does
    (``tools/perf/arch/arm64/util/header.c``): same part (every field but variant and revision), and a
    variant.revision (rNpM) of ``cpuid`` equal or newer. Otherwise perf's default (``util/pmu.c``, the
    weak ``strcmp_cpuid_str``): ``map_id`` is a regular expression that must match all of ``cpuid``."""
    try:
        want, have = int(map_id, 16), int(cpuid, 16)
    except ValueError:
        try:
            return re.fullmatch(map_id, cpuid) is not None
        except re.error:
            return False
    fields = ~(_MIDR_VARIANT | _MIDR_REVISION)
    if want & fields != have & fields:
        return False
    wv, hv = (want & _MIDR_VARIANT) >> 20, (have & _MIDR_VARIANT) >> 20
    return hv > wv or (hv == wv and have & _MIDR_REVISION >= want & _MIDR_REVISION)


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
