"""Hyper-parameters the scikit-learn way, for every plugin class (schedulers, scalers, ...).

The constructor of a `Params` subclass only stores its arguments, unchanged, under their own names;
`Params` then gives ``param_names()``, ``get_params()``, ``set_params(**p)``, ``clone()`` and a
``repr`` listing them (Buitinck et al., "API design for machine learning software", 2013).

What a parameter may hold is *declared*, not checked by hand, in ``param_constraints`` (scikit-learn's
``_parameter_constraints``): a mapping from parameter name to one constraint or a list of them, any of
which may match::

    param_constraints = {
        "alpha": Interval(float, 0, None, closed="neither"),   # a finite number > 0
        "k": [None, Interval(int, 1, None)],                    # None or an integer >= 1
        "mode": StrOptions({"fast", "exact"}),
        "strict": "boolean",                                    # True or False
    }

`Params.validate_params` checks them once, when the plugin's verb runs (``schedule``, ``start``,
``estimate``, ``fit``: not in the constructor, so ``set_params`` may pass through invalid states), and
then calls the ``_check_params`` hook for rules that tie several parameters together. A failure is a
`~mpx.errors.ConfigError` naming the plugin, the parameter, what it must be and the value given.
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError

__all__ = ["Constraint", "Interval", "ListOf", "Options", "Params", "StrOptions", "describe", "satisfies"]


class Constraint:
    """One rule a parameter value may satisfy; ``describe`` reads like "an integer >= 1"."""

    def is_satisfied_by(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()!r})"


class Interval(Constraint):
    """An ``int`` (Python or numpy integer, never a bool) or a finite ``float`` (any real number, never
    a bool or NaN/inf) between ``left`` and ``right`` (None: unbounded); ``closed`` says which ends
    belong to it: ``"left"``, ``"right"``, ``"both"`` or ``"neither"``."""

    def __init__(self, kind: type, left: float | None, right: float | None, *, closed: str = "both") -> None:
        if kind not in (int, float):
            raise ValueError(f"Interval kind must be int or float, got {kind!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.kind is int:
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real) or not math.isfinite(value):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed not in ("left", "both")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed not in ("right", "both")):
                return False
        return True

    def describe(self) -> str:
        what = "an integer" if self.kind is int else "a finite number"
        lo_in = self.closed in ("left", "both")
        hi_in = self.closed in ("right", "both")
        if self.left is not None and self.right is not None:
            return f"{what} in {'[' if lo_in else '('}{self.left}, {self.right}{']' if hi_in else ')'}"
        if self.left is not None:
            return f"{what} {'>=' if lo_in else '>'} {self.left}"
        if self.right is not None:
            return f"{what} {'<=' if hi_in else '<'} {self.right}"
        return what


class Options(Constraint):
    """One of a fixed set of values (compared with ``==``)."""

    def __init__(self, options: Iterable[Any]) -> None:
        self.options = tuple(options)

    def is_satisfied_by(self, value: Any) -> bool:
        try:
            return any(bool(value == o) for o in self.options)
        except Exception:  # noqa: BLE001 - arrays and other values that do not compare to one bool
            return False

    def describe(self) -> str:
        return f"one of {self.options}"


class StrOptions(Options):
    """One of a fixed set of strings (kept in the order given, for the message)."""

    def __init__(self, options: Iterable[str]) -> None:
        super().__init__(options)
        if not all(isinstance(o, str) for o in self.options):
            raise ValueError("StrOptions takes strings only")

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.options


class ListOf(Constraint):
    """A list or tuple (never a bare string) whose items are all of type ``item``; ``what`` names the
    items in messages ("group names")."""

    def __init__(self, item: type, what: str) -> None:
        self.item, self.what = item, what

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, (list, tuple)) and all(isinstance(x, self.item) for x in value)

    def describe(self) -> str:
        return f"a list of {self.what}"


class _Boolean(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "True or False"


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"


class _TypeConstraint(Constraint):
    def __init__(self, kind: type, text: str) -> None:
        self.type, self.text = kind, text

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, self.type) and not isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return self.text


_NAMED: dict[Any, Constraint] = {"boolean": _Boolean(), None: _NoneConstraint(), str: _TypeConstraint(str, "a string")}


def _as_list(spec: Any) -> list[Constraint]:
    items = spec if isinstance(spec, list) else [spec]
    out = []
    for c in items:
        if isinstance(c, Constraint):
            out.append(c)
        elif c in _NAMED:
            out.append(_NAMED[c])
        else:
            raise ValueError(f"not a parameter constraint: {c!r} (use Interval, StrOptions, Options, "
                             "ListOf, 'boolean', None or str)")
    return out


def satisfies(value: Any, spec: Any) -> bool:
    """True when ``value`` meets one of the constraints ``spec`` (one constraint or a list)."""
    return any(c.is_satisfied_by(value) for c in _as_list(spec))


def describe(spec: Any) -> str:
    """What ``spec`` (one constraint or a list) asks for, e.g. "None or an integer >= 1"."""
    return " or ".join(c.describe() for c in _as_list(spec))


class Params:
    """scikit-learn style hyper-parameters: the constructor stores its arguments unchanged under the
    same names; ``param_constraints`` declares what each may hold (see the module docstring)."""

    #: parameter name -> a constraint or a list of constraints (any may match); checked by `validate_params`
    param_constraints: ClassVar[Mapping[str, Any]] = {}
    #: the error raised when a subclass breaks the protocol (does not store an argument)
    _contract_error: ClassVar[type[Exception]] = ConfigError

    @classmethod
    def param_names(cls) -> list[str]:
        """The constructor's hyper-parameter names, in signature order."""
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def params_json(self) -> dict[str, Any]:
        """`get_params` as JSON values for provenance (what JSON cannot hold: its ``repr``)."""
        return {k: _jsonable(v) for k, v in self.get_params().items()}

    def _label(self) -> str:
        """How messages name this object."""
        return type(self).__name__

    def get_params(self) -> dict[str, Any]:
        """The constructor's hyper-parameters, as stored."""
        try:
            return {k: getattr(self, k) for k in self.param_names()}
        except AttributeError as exc:
            raise self._contract_error(f"{type(self).__name__} must store each constructor argument under its "
                                       f"own name ({exc})") from None

    def set_params(self, **params: Any) -> Params:
        """Change hyper-parameters (unknown names are an error); returns self."""
        names = set(self.param_names())
        bad = sorted(set(params) - names)
        if bad:
            raise ConfigError(f"{type(self).__name__} has no parameter(s) {bad}; it has {sorted(names)}")
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def clone(self) -> Params:
        """A fresh, unfitted object with the same hyper-parameters."""
        return type(self)(**self.get_params())

    def validate_params(self) -> None:
        """Check every declared constraint, then the `_check_params` hook; raises `ConfigError` naming the
        parameter and the bad value."""
        for name, spec in self.param_constraints.items():
            value = getattr(self, name)
            if not satisfies(value, spec):
                raise ConfigError(f"{self._label()}: {name} must be {describe(spec)}, got {value!r}")
        self._check_params()

    def _check_params(self) -> None:
        """Rules the declared constraints cannot say (several parameters together); raise `ConfigError`."""

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"


def _jsonable(v: Any) -> Any:
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        if isinstance(v, (tuple, list)):
            return [_jsonable(x) for x in v]
        if isinstance(v, Mapping):
            return {str(k): _jsonable(x) for k, x in v.items()}
        return repr(v)
    return v
