"""Multiplexing scalers (estimators), by name: ``mpx.scalers.get("linear")``, ``available()``.

A scaler turns an `~mpx.multiplex.Observation` into an `~mpx.scalers.base.Estimate`; read
`mpx.scalers.base` for the interface and how to write one. Built-in scalers are listed in `BUILTIN`
(name → ``"module:Class"``, imported on first use):

- ``linear``: perf stat's Δraw·ΔE/ΔR per read window (causal; ``<not counted>`` when ΔR = 0);
- ``papi``: PAPI's kernel-multiplexing scaling, integer-percent scale factor (causal);
- ``papi_sw``: PAPI's software-multiplexing rate estimator (cycles-based, per quantum; causal);
- ``dira`` (offline: looks one read window ahead), ``tam`` (causal: uses the previous window) —
  NeoMPX's interpolating estimators;
- ``dcam``, ``cam``: NeoMPX's geometric / exponential-rate estimators (offline);
- ``bayesperf``, ``bayesperf_smooth``: BayesPerf's factor graph with Expectation Propagation, causal
  filter and offline smoother (`mpx.scalers.bayesperf`).
- ``fusion``, ``fusion_smooth``: a Kalman filter / RTS smoother on log-rates with cross-event
  covariances learned from other workloads and catalog relations (learned; `mpx.scalers.fusion`).

The read-window scalers (``linear`` to ``cam``) take NeoMPX's post-processing fixes as options (see
`mpx.scalers.neompx`).

Other packages add scalers without touching mpx through the entry-point group ``mpx.scalers``; in their
``pyproject.toml``::

    [project.entry-points."mpx.scalers"]
    mine = "my_package.my_module:MyScaler"

A built-in name wins over an entry point of the same name; `register` adds one at run time (notebooks,
tests). Every scaler must pass `mpx.scalers.check.check_scaler`.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any

from mpx.errors import ConfigError

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "available", "get", "get_class", "register", "unregister"]

#: built-in scalers: name → "module:Class"
BUILTIN: dict[str, str] = {
    "linear": "mpx.scalers.linear:LinearScaler",
    "papi": "mpx.scalers.linear:PapiScaler",
    "papi_sw": "mpx.scalers.papi_sw:PapiSwScaler",
    "dira": "mpx.scalers.interpolation:DiraScaler",
    "tam": "mpx.scalers.interpolation:TamScaler",
    "dcam": "mpx.scalers.neompx:DcamScaler",
    "cam": "mpx.scalers.neompx:CamScaler",
    "bayesperf": "mpx.scalers.bayesperf:BayesPerfScaler",
    "bayesperf_smooth": "mpx.scalers.bayesperf:BayesPerfSmoother",
    "fusion": "mpx.scalers.fusion:FusionScaler",
    "fusion_smooth": "mpx.scalers.fusion:FusionSmoother",
}

ENTRY_POINT_GROUP = "mpx.scalers"

_registered: dict[str, type] = {}


def _entry_points() -> dict[str, Any]:
    try:
        eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except TypeError:  # pragma: no cover - Python < 3.10 API
        eps = metadata.entry_points().get(ENTRY_POINT_GROUP, [])
    return {ep.name: ep for ep in eps}


def available() -> list[str]:
    """Names of every scaler: built-in, registered at run time, and from entry points."""
    return sorted(set(BUILTIN) | set(_registered) | set(_entry_points()))


def register(name: str, cls: type) -> None:
    """Make ``cls`` available as ``name`` for this process."""
    from mpx.scalers.base import Scaler

    if not (isinstance(cls, type) and issubclass(cls, Scaler)):
        raise ConfigError(f"register({name!r}): {cls!r} is not a mpx.scalers.base.Scaler subclass")
    if name in BUILTIN:
        raise ConfigError(f"register({name!r}): a built-in scaler has that name")
    _registered[name] = cls


def unregister(name: str) -> None:
    """Forget a scaler added with `register`."""
    _registered.pop(name, None)


def get_class(name: str) -> type:
    """The scaler class registered as ``name``."""
    from mpx.scalers.base import Scaler

    if name in BUILTIN:
        module, _, attr = BUILTIN[name].partition(":")
        cls = getattr(importlib.import_module(module), attr)
    elif name in _registered:
        cls = _registered[name]
    else:
        ep = _entry_points().get(name)
        if ep is None:
            raise ConfigError(f"unknown scaler {name!r}; available: {', '.join(available())}")
        try:
            cls = ep.load()
        except Exception as exc:  # a broken third-party plugin: say which one
            raise ConfigError(f"scaler {name!r} (entry point {ep.value!r}) failed to load: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Scaler)):
        raise ConfigError(f"scaler {name!r} resolves to {cls!r}, not a mpx.scalers.base.Scaler subclass")
    return cls


def get(name: str, **params: Any):
    """A new scaler ``name`` with hyper-parameters ``params``."""
    cls = get_class(name)
    allowed = cls._param_names()
    bad = sorted(set(params) - set(allowed))
    if bad:
        raise ConfigError(f"scaler {name!r} has no parameter(s) {bad}; it takes {allowed}")
    return cls(**params)
