"""Internal utilities every floor may use: number formatting, progress bars, the numba rule, kept solutions; and
where mpx keeps what it computes once per machine (`machine_cache`)."""

from __future__ import annotations

import os
from pathlib import Path


def machine_cache(name: str, env: str) -> Path | None:
    """The machine-wide folder of cache ``name``: ``~/.cache/mpx/NAME`` (``$XDG_CACHE_HOME`` is followed); the
    environment variable ``env`` names another folder, and set to "" turns the cache off (None)."""
    given = os.environ.get(env)
    if given is not None:
        return Path(given).expanduser() if given else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mpx" / name
