"""PMU presets (TOML files in ``mpx/data/pmu/`` and ``generic-N``) and the one name-or-file resolver."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from mpx.errors import ConfigError
from mpx.pmu.files import loads_toml
from mpx.pmu.model import PMU

__all__ = ["preset", "presets", "resolve_pmu"]

_GENERIC_N = re.compile(r"^generic-(\d+)$")


def _preset_dir() -> Any:
    return resources.files("mpx").joinpath("data", "pmu")


def presets() -> list[str]:
    """Names of the presets: the TOML files of ``mpx/data/pmu/`` and the pattern ``generic-N``."""
    names = sorted(p.name[:-5] for p in _preset_dir().iterdir() if p.name.endswith(".toml"))
    return names + ["generic-N"]


@lru_cache(maxsize=None)
def preset(name: str) -> PMU:
    """The preset ``name`` (one PMU object per name, so its assignment cache is shared).

    ``generic-N`` is N generic counters and no fixed counter on one unit ``cpu``, for traces whose
    events are not hardware events (callgrind, simulator stats).
    """
    m = _GENERIC_N.match(name)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise ConfigError(f"preset {name!r}: a PMU needs at least one counter")
        return PMU.from_dict(
            {"name": name, "description": f"{n} generic counters, no fixed counter",
             "units": {"cpu": {"generic": n, "fixed": {}}}},
            source=f"<preset {name}>",
        )
    if name.lower() == "generic-n":
        raise ConfigError(f"preset {name!r}: replace N by the number of generic counters, e.g. generic-4")
    path = _preset_dir().joinpath(f"{name}.toml")
    if not path.is_file():
        raise ConfigError(f"unknown PMU preset {name!r}; presets: {', '.join(presets())} (N: a number of counters)")
    with path.open("rb") as fh:
        data = loads_toml(fh.read(), path)
    return PMU.from_dict(data, source=f"<preset {name}>")


def is_preset(name: str) -> bool:
    """Is ``name`` a preset name (a file of ``mpx/data/pmu/`` or ``generic-<n>``)?"""
    return bool(_GENERIC_N.match(name)) or name in presets()


def resolve_pmu(name_or_path: str | os.PathLike | PMU) -> PMU:
    """The one name-or-file resolver: a PMU TOML file when ``name_or_path`` is an existing file, else
    the preset of that name (`preset`; an unknown name lists the presets). A `PMU` is returned as is."""
    if isinstance(name_or_path, PMU):
        return name_or_path
    if os.path.isfile(name_or_path):
        return PMU.from_file(name_or_path)
    return preset(os.fspath(name_or_path))
