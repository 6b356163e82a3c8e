"""Argument helpers several subcommands share (not a subcommand: subcommand modules import this one,
never each other): ``--pmu NAME_OR_FILE [--counters N]`` and ``--metrics`` / ``--relations NAME_OR_PATH``,
resolved by the library (`mpx.pmu.resolve_pmu`, `mpx.metrics.resolve_catalog`) with messages naming the
option.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from mpx.errors import ConfigError, MpxWarning

__all__ = ["load_catalog_arg", "pmu_arg", "show_warnings_as_one_line"]

_show_warning = warnings.showwarning


def show_warnings_as_one_line() -> None:
    """Print every `~mpx.errors.MpxWarning` as one line ``mpx: warning: <message>`` on stderr (other
    warnings keep Python's format). Installed when a subcommand loads these helpers."""

    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        if issubclass(category, MpxWarning):
            print(f"mpx: warning: {message}", file=sys.stderr if file is None else file)
        else:
            _show_warning(message, category, filename, lineno, file, line)

    warnings.showwarning = show


show_warnings_as_one_line()


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
