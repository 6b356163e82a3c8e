"""Reading hardware description files: TOML with line numbers in errors, and checked keys."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from mpx.errors import ConfigError, FormatError

__all__ = ["check_name", "loads_toml", "read_toml", "required_key", "str_list"]


def check_name(name: Any, what: str) -> None:
    """Raise `ConfigError` unless ``name`` is a usable counter or unit name (``what`` names it)."""
    if not isinstance(name, str) or not name or "/" in name or name != name.strip():
        raise ConfigError(f"{what} must be a non-empty string without '/' or surrounding spaces, got {name!r}")


def required_key(tbl: Mapping[str, Any], key: str, src: str, prefix: str = "") -> Any:
    """``tbl[key]``; a missing key is a `ConfigError` naming it and the file (no hardware defaults)."""
    if key not in tbl:
        full = f"{prefix}.{key}" if prefix else key
        raise ConfigError(f"{src}: missing key '{full}' (hardware parameters have no defaults)")
    return tbl[key]


def str_list(value: Any, src: str, key: str) -> list[str]:
    """``value`` checked to be a list of distinct strings (key ``key`` of file ``src``)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{src}: key '{key}' must be a list of strings, got {value!r}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{src}: key '{key}' lists a name twice: {list(value)}")
    return list(value)


def loads_toml(raw: bytes, path: Any) -> dict[str, Any]:
    """TOML bytes of file ``path`` as a dict; bad UTF-8 or TOML is a `FormatError` with the line."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(path, raw.count(b"\n", 0, e.start) + 1, f"not UTF-8 text ({e.reason})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise FormatError(path, int(m.group(1)) if m else None, f"invalid TOML: {e}") from None


def read_toml(path: str | os.PathLike) -> dict[str, Any]:
    """A TOML file as a dict (see `loads_toml`)."""
    with open(path, "rb") as fh:
        return loads_toml(fh.read(), path)
