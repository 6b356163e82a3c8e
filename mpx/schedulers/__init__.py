"""Multiplexing schedulers, by name: ``mpx.schedulers.get("perf")``, ``available()``.

Built-in schedulers are listed in `BUILTIN` (name → ``"module:Class"``, imported on first use). Other
packages add schedulers without touching mpx through the entry-point group ``mpx.schedulers``; in
their ``pyproject.toml``::

    [project.entry-points."mpx.schedulers"]
    mine = "my_package.my_module:MyScheduler"

A scheduler is a subclass of `mpx.schedulers.base.StaticScheduler` or
`mpx.schedulers.base.OnlineScheduler` (read that module's docstring). A built-in name wins over an
entry point of the same name; `register` adds one at run time (notebooks, tests).
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any

from mpx.errors import ConfigError

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "available", "get", "get_class", "register", "unregister"]

#: built-in schedulers: name → "module:Class"
BUILTIN: dict[str, str] = {
    "perf": "mpx.schedulers.perf:PerfScheduler",
    "round_robin": "mpx.schedulers.round_robin:RoundRobinScheduler",
    "likwid": "mpx.schedulers.likwid:LikwidScheduler",
    "arm_topdown": "mpx.schedulers.arm_topdown:ArmTopdownScheduler",
    "hperf": "mpx.schedulers.hperf:HperfScheduler",
    "tintin": "mpx.schedulers.tintin:TintinScheduler",
    "bayesperf": "mpx.schedulers.bayesperf:BayesPerfScheduler",
    "optimal": "mpx.schedulers.optimal:OptimalScheduler",
    "hypergraph": "mpx.schedulers.hypergraph:HypergraphScheduler",
    "fusion_aware": "mpx.schedulers.fusion_aware:FusionAwareScheduler",
}

ENTRY_POINT_GROUP = "mpx.schedulers"

_registered: dict[str, type] = {}


def _entry_points() -> dict[str, Any]:
    try:
        eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except TypeError:  # pragma: no cover - Python < 3.10 API
        eps = metadata.entry_points().get(ENTRY_POINT_GROUP, [])
    return {ep.name: ep for ep in eps}


def available() -> list[str]:
    """Names of every scheduler: built-in, registered at run time, and from entry points."""
    return sorted(set(BUILTIN) | set(_registered) | set(_entry_points()))


def register(name: str, cls: type) -> None:
    """Make ``cls`` available as ``name`` for this process."""
    from mpx.schedulers.base import Scheduler

    if not (isinstance(cls, type) and issubclass(cls, Scheduler)):
        raise ConfigError(f"register({name!r}): {cls!r} is not a mpx.schedulers.base.Scheduler subclass")
    if name in BUILTIN:
        raise ConfigError(f"register({name!r}): a built-in scheduler has that name")
    _registered[name] = cls


def unregister(name: str) -> None:
    """Forget a scheduler added with `register`."""
    _registered.pop(name, None)


def get_class(name: str) -> type:
    """The scheduler class registered as ``name``."""
    from mpx.schedulers.base import Scheduler

    if name in BUILTIN:
        module, _, attr = BUILTIN[name].partition(":")
        cls = getattr(importlib.import_module(module), attr)
    elif name in _registered:
        cls = _registered[name]
    else:
        ep = _entry_points().get(name)
        if ep is None:
            raise ConfigError(f"unknown scheduler {name!r}; available: {', '.join(available())}")
        try:
            cls = ep.load()
        except Exception as exc:  # a broken third-party plugin: say which one
            raise ConfigError(f"scheduler {name!r} (entry point {ep.value!r}) failed to load: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Scheduler)):
        raise ConfigError(f"scheduler {name!r} resolves to {cls!r}, not a mpx.schedulers.base.Scheduler subclass")
    return cls


def get(name: str, **params: Any):
    """A new scheduler ``name`` with hyper-parameters ``params``."""
    cls = get_class(name)
    allowed = cls._param_names()
    bad = sorted(set(params) - set(allowed))
    if bad:
        raise ConfigError(f"scheduler {name!r} has no parameter(s) {bad}; it takes {allowed}")
    return cls(**params)
