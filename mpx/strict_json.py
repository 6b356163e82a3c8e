"""JSON as mpx reads its inputs: a key repeated in one object is refused.

Python's `json` keeps the last of two values of one key silently; no tool mpx reads (perf, hperf, LIKWID's
JSON, mpx's own files) writes a key twice, so a repeated key is damage or a hand edit, and a reader that picked
one of the values would load a number the file does not say. Every JSON reader parses through `loads` (or the
`pairs` hook): the error is a `json.JSONDecodeError` (so the reader's existing handling names the file and
line), at the repeated key when it can be found in the text.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["RepeatedKey", "loads", "pairs"]


class RepeatedKey(json.JSONDecodeError):
    """A key given twice in one JSON object (``key``)."""

    key = ""


class _Repeat(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a repeated key (raises ``ValueError``; `loads` adds where)."""
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            raise _Repeat(key)
        out[key] = value
    return out


def loads(text: str, **options: Any) -> Any:
    """`json.loads` with repeated keys refused (`RepeatedKey`, at the key's second occurrence in an object when
    found, else its first); ``options`` go to `json.loads` (``parse_constant``...)."""
    try:
        return json.loads(text, object_pairs_hook=pairs, **options)
    except _Repeat as exc:
        err = RepeatedKey(f"key {exc.key!r} given twice in one object", text, _where(text, exc.key))
        err.key = exc.key
        raise err from None


def _where(text: str, key: str) -> int:
    """Offset of the second occurrence of ``key`` in one object (one pass: each ``"key":`` gets the object it is
    in, braces inside strings skipped); 0 when not found (a key written with other escapes)."""
    starts = {m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)}
    stack, seen, count = [0], set(), 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            if i in starts:
                if stack[-1] in seen:
                    return i
                seen.add(stack[-1])
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            count += 1
            stack.append(count)
        elif c == "}" and len(stack) > 1:
            stack.pop()
        i += 1
    return 0
