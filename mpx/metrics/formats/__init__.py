"""Catalog formats: one module per format, found through `REGISTRY` (entry points ``mpx.catalog_formats``).

Built in: ``perfjson`` (Linux perf pmu-events), ``likwid`` (LIKWID groups), ``armtelemetry`` (Arm Top-down
Tool specifications), ``hperf`` (hperf configurations), ``toml`` (mpx's own format, schema in its
docstring). A format is a module (or any object) with ``NAME``, ``sniff(path, text, obj) -> bool`` (``obj``
is the parsed JSON or None) and ``load(path) -> Catalog``; `mpx.metrics.load_catalog` detects a file's
format by asking each in `detection_order`. Shared helpers: `mpx.metrics.formats.common`.
"""

from __future__ import annotations

from mpx.registry import Registry

__all__ = ["REGISTRY", "available", "detection_order", "get", "get_class", "register", "unregister"]


REGISTRY = Registry("catalog format", "mpx.catalog_formats", builtin={
    "perfjson": "mpx.metrics.formats.perfjson",
    "likwid": "mpx.metrics.formats.likwid",
    "armtelemetry": "mpx.metrics.formats.armtelemetry",
    "hperf": "mpx.metrics.formats.hperf",
    "toml": "mpx.metrics.formats.toml",
}, protocol=("NAME", "sniff", "load"))

available, get, get_class, register, unregister = REGISTRY.verbs()


def detection_order() -> list[str]:
    """Format names in the order they are asked to claim a file: the built-ins in their fixed order
    (specific formats before mpx's TOML), then plugins by name that load (`mpx.registry.Registry.installed`)."""
    return REGISTRY.installed()
