"""Every plugin kind's conformance suite in one table: its registry, its named checks and how a check
gets the plugin, so one test runs every (kind × registered name × check) triple (`cases`, `run_check`)."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

__all__ = ["SUITES", "Suite", "cases", "plugin", "registry", "run_check"]


class Suite(NamedTuple):
    """``registry`` and ``checks`` as ``"module:attr"``; ``make``: how a registry name becomes the object
    the checks take (``"example"``: the class with its ``example_params``; ``"get"``: ``registry.get``)."""

    registry: str
    checks: str
    make: str


SUITES: dict[str, Suite] = {
    "scheduler": Suite("mpx.schedulers:REGISTRY", "mpx.conformance.schedulers:SCHEDULER_CHECKS", "example"),
    "scaler": Suite("mpx.scalers:REGISTRY", "mpx.conformance.scalers:SCALER_CHECKS", "example"),
    "aligner": Suite("mpx.aligners:REGISTRY", "mpx.conformance.aligners:ALIGNER_CHECKS", "get"),
    "reader": Suite("mpx.readers:REGISTRY", "mpx.conformance.plugins:READER_CHECKS", "get"),
    "catalog_format": Suite("mpx.metrics.formats:REGISTRY", "mpx.conformance.plugins:CATALOG_FORMAT_CHECKS", "get"),
    "figure": Suite("mpx.figures:REGISTRY", "mpx.conformance.plugins:FIGURE_CHECKS", "get"),
    "kind": Suite("mpx.experiment.kinds:REGISTRY", "mpx.conformance.plugins:KIND_CHECKS", "get"),
}


def _load(where: str) -> Any:
    module, _, attr = where.partition(":")
    return getattr(importlib.import_module(module), attr)


def registry(kind: str) -> Any:
    """The `mpx.registry.Registry` of plugin kind ``kind``."""
    return _load(SUITES[kind].registry)


def checks(kind: str) -> dict[str, Any]:
    """The named checks of plugin kind ``kind``."""
    return _load(SUITES[kind].checks)


def plugin(kind: str, name: str) -> Any:
    """The object the checks of ``kind`` take for registry name ``name``."""
    reg = registry(kind)
    if SUITES[kind].make == "example":
        cls = reg.get_class(name)
        return cls(**cls.example_params)
    return reg.get(name)


def cases(kinds: list[str] | None = None) -> list[tuple[str, str, str]]:
    """Every (kind, registered name, check) triple."""
    return [(k, n, c) for k in (kinds or list(SUITES)) for n in registry(k).available() for c in checks(k)]


def run_check(kind: str, name: str, check: str) -> Any:
    """Run one check on one registered plugin (raises `~mpx.conformance.common.ConformanceError`)."""
    return checks(kind)[check](plugin(kind, name))
