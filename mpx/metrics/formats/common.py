"""Helpers every catalog format shares: reading a file once (text, and the parsed JSON when it is
JSON), finding the line of a key for messages, and typed field checks that name file and line."""

from __future__ import annotations

import bisect
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

from mpx import strict_json
from mpx.errors import FormatError
from mpx.readers.textio import read_text

__all__ = ["as_str", "as_str_list", "json_line", "line_of", "read_source", "where"]

_LONG_INT = re.compile(r"\d{4301}")
_TOML_HEADER = re.compile(r"\s*\[\s*[A-Za-z_\"'][^\]\n]*\]\s*(#[^\n]*)?\n")


def read_source(path: str | os.PathLike) -> tuple[str, Any]:
    """The text of ``path`` (decompressed) and, when it looks like JSON, the parsed object (None
    otherwise). Invalid JSON is a `FormatError` with the line, unless the file is TOML (a ``.toml``
    name or a ``[table]`` header)."""
    text = read_text(path)
    obj = None
    if text.lstrip()[:1] in ("[", "{"):
        try:
            obj = strict_json.loads(text)
        except json.JSONDecodeError as exc:
            if not (".toml" in Path(path).name or _TOML_HEADER.match(text)):
                raise FormatError(path, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise FormatError(path, None, "invalid JSON: nested too deeply") from None
        except ValueError as exc:  # an integer of more than 4,300 digits (Python's int() limit)
            long = _LONG_INT.search(text)
            line = text.count("\n", 0, long.start()) + 1 if long else None
            raise FormatError(path, line, f"invalid JSON: {str(exc).split(';')[0]}") from None
    return text, obj


@functools.lru_cache(maxsize=8)
def _newlines(text: str) -> list[int]:
    """Where ``text``'s newlines are, for the line of an offset in O(log n): counting the newlines before each
    entry of a catalog made loading quadratic (half of the 6 s the 385 Intel perfmon files took)."""
    out, i = [], text.find("\n")
    while i >= 0:
        out.append(i)
        i = text.find("\n", i + 1)
    return out


def line_at(text: str, offset: int) -> int:
    """1-based line of the character at ``offset`` of ``text``."""
    return bisect.bisect_left(_newlines(text), offset) + 1


def line_of(text: str, needle: str, start: int = 0) -> int | None:
    """1-based line of the first occurrence of ``needle`` in ``text`` (None when absent)."""
    i = text.find(needle, start)
    return None if i < 0 else line_at(text, i)


def json_line(text: str, key: str, value: str) -> int | None:
    """Line of ``"key": "value"`` in JSON ``text`` (tolerates any spacing after the colon)."""
    k, v = json.dumps(key), json.dumps(value)
    i = text.find(v)
    while i >= 0:  # a plain search and a look back: a regex per call compiled a pattern per entry (most of a load)
        j = i
        while j > 0 and text[j - 1].isspace():
            j -= 1
        if j > 0 and text[j - 1] == ":":
            j -= 1
            while j > 0 and text[j - 1].isspace():
                j -= 1
            if text.endswith(k, 0, j):
                return line_at(text, j - len(k))
        i = text.find(v, i + 1)
    return None


def where(path: Any, line: int | None) -> str:
    """``path:line`` (just the path when the line is unknown), for messages."""
    return f"{path}:{line}" if line else str(path)


def as_str(v: Any, path: Any, line: int | None, what: str, *, optional: bool = False) -> str | None:
    """``v`` checked to be a string (or None when ``optional``); else a `FormatError` at ``path:line``."""
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise FormatError(path, line, f"{what} must be a string, got {v!r}")
    return v


def as_str_list(v: Any, path: Any, line: int | None, what: str) -> list[str]:
    """``v`` checked to be a list of strings; else a `FormatError` at ``path:line``."""
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise FormatError(path, line, f"{what} must be a list of strings, got {v!r}")
    return list(v)
