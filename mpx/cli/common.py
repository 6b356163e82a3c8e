"""Argument helpers several subcommands share (not a subcommand: subcommand modules import this one,
never each other): ``--pmu NAME_OR_FILE [--counters N]`` and ``--metrics`` / ``--relations NAME_OR_PATH``,
resolved by the library (`mpx.pmu.resolve_pmu`, `mpx.metrics.resolve_catalog`) with messages naming the
option.
"""

from __future__ import annotations

from typing import Any

from mpx.errors import ConfigError

__all__ = ["load_catalog_arg", "pmu_arg"]


def load_catalog_arg(text: str, option: str = "--metrics") -> Any:
    """A catalog from a path (file or folder, any supported format) or a built-in catalog name."""
    from mpx.metrics import resolve_catalog

    return resolve_catalog(text, what=option)


def pmu_arg(text: str, counters: int | None = None) -> Any:
    """A PMU preset name or TOML file, with ``counters`` generic counters on its core unit
    (`mpx.pmu.PMU.with_generic_counters`)."""
    from mpx.pmu import resolve_pmu

    pmu = resolve_pmu(text)
    if counters is None:
        return pmu
    if isinstance(counters, bool) or not isinstance(counters, int) or counters < 1:
        raise ConfigError(f"--counters must be a positive integer, got {counters!r}")
    try:
        return pmu.with_generic_counters(counters)
    except ConfigError as exc:
        raise ConfigError(f"--counters {counters}: {exc}") from None
