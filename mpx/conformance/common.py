"""What every conformance check shares: the one error it raises and the parameter-protocol checks.

`ConformanceError` names the plugin kind, the check, the plugin and every failure found. `param_failures`
is scikit-learn's parameter protocol, checked the same way for every kind of plugin with parameters
(schedulers, scalers, aligners, and any third-party one built on `mpx.params.Params`).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from mpx.errors import MpxError
from mpx.params import satisfies

__all__ = ["ConformanceError", "param_failures", "same_param"]


class ConformanceError(MpxError, AssertionError):
    """A plugin fails a conformance check: ``kind`` ("scaler"), ``check`` ("params"), ``plugin`` (a label:
    class and registry name) and ``failures`` (one sentence each). It is an `AssertionError` too, so a
    third-party test suite reports it as a failed test."""

    def __init__(self, kind: str, check: str, plugin: str, failures: list[str] | str) -> None:
        self.kind, self.check, self.plugin = kind, check, plugin
        self.failures = [failures] if isinstance(failures, str) else list(failures)
        super().__init__(f"check_{kind}[{check}] {plugin}: " + "; ".join(self.failures))


def same_param(a: Any, b: Any) -> bool:
    """Two hyper-parameter values are the same (arrays by content, NaN equal to NaN)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are not the same
        return False


def param_failures(obj: Any) -> list[str]:
    """scikit-learn's parameter protocol on ``obj`` (a `mpx.params.Params` instance): ``get_params`` has
    the constructor's arguments in their order; the constructor stores given and default values unchanged
    and sets no other attribute (work belongs in the verb, results in attributes ending in ``_``);
    ``param_constraints`` name parameters and the values satisfy them; ``clone`` reproduces the parameters
    and ``repr`` starts with the class name. Returns the failures (empty: it conforms)."""
    cls = type(obj)
    fails: list[str] = []
    try:
        params = obj.get_params()
        names = cls.param_names()
        if list(params) != list(names):
            fails.append(f"get_params() keys {list(params)} != constructor arguments {list(names)} "
                         "(same names, same order)")
        fresh = cls(**params)
        extra = sorted(set(vars(fresh)) - set(names))
        if extra:
            fails.append(f"the constructor sets attributes other than its parameters: {extra} (work belongs in "
                         "the verb, results in attributes ending in '_')")
        changed = [k for k in names if k in params and not same_param(getattr(fresh, k, None), params[k])]
        if changed:
            fails.append(f"the constructor does not store its parameters unchanged: {changed}")
        sig = inspect.signature(cls.__init__).parameters
        defaults = {k: p.default for k, p in sig.items() if k in params and p.default is not inspect.Parameter.empty}
        if len(defaults) == len(params):
            stored = cls().get_params()
            moved = [k for k in defaults if not same_param(stored[k], defaults[k])]
            if moved:
                fails.append(f"the constructor does not store its default parameters unchanged: {moved}")
        unknown = sorted(set(cls.param_constraints) - set(names))
        if unknown:
            fails.append(f"param_constraints name no parameter: {unknown}")
        bad = [k for k, spec in cls.param_constraints.items() if k in params and not satisfies(params[k], spec)]
        if bad:
            fails.append(f"its parameters {bad} do not satisfy its own param_constraints")
        clone = obj.clone()
        if type(clone) is not cls or not all(same_param(clone.get_params()[k], v) for k, v in params.items()):
            fails.append("clone() does not reproduce the parameters")
        if not repr(obj).startswith(cls.__name__):
            fails.append(f"repr {repr(obj)!r} does not start with the class name")
    except Exception as exc:  # noqa: BLE001 - reported as a failure
        fails.append(f"get_params/clone failed: {type(exc).__name__}: {exc}")
    return fails
