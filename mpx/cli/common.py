"""Argument helpers several subcommands share (not a subcommand: subcommand modules import this one,
never each other).

``--pmu NAME_OR_FILE [--counters N]`` and ``--metrics`` / ``--relations NAME_OR_PATH`` resolve here; the
messages name the option. (To be replaced by the library resolvers ``mpx.pmu.resolve_pmu`` and
``mpx.metrics.resolve_catalog`` once they exist.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_catalog_arg", "pmu_arg"]


def load_catalog_arg(text: str) -> Any:
    """A catalog from a path (file or folder, any supported format) or a built-in catalog name."""
    import os

    from mpx.errors import ConfigError
    from mpx.metrics import builtin, builtin_names, load_catalog

    if os.path.exists(text):
        return load_catalog(text)
    if text in builtin_names():
        return builtin(text)
    raise ConfigError(f"--metrics {text!r} is neither an existing file or folder nor a built-in catalog "
                      f"({', '.join(builtin_names())})")


def pmu_arg(text: str, counters: int | None = None) -> Any:
    """A PMU preset name or TOML file, with ``counters`` generic counters on its core unit
    (`mpx.pmu.PMU.with_generic_counters`)."""
    import os

    from mpx.errors import ConfigError
    from mpx.pmu import PMU, preset

    pmu = PMU.from_file(text) if os.path.isfile(text) else preset(text)
    if counters is None:
        return pmu
    if isinstance(counters, bool) or not isinstance(counters, int) or counters < 1:
        raise ConfigError(f"--counters must be a positive integer, got {counters!r}")
    try:
        return pmu.with_generic_counters(counters)
    except ConfigError as exc:
        raise ConfigError(f"--counters {counters}: {exc}") from None
