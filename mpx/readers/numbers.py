"""The number grammar of each text format mpx reads: the forms its tool prints, and nothing else.

A reader that takes whatever ``float()`` or ``int()`` accepts loads numbers no tool wrote — ``-0``, ``+5``, ``5e3``,
``.5``, ``1e-999`` (read as 0), ``1e308``, 2**64, 300 leading zeros — as counts. Each format's readers call one
function here, which refuses any other form with a `NumberError` (a ``ValueError``: the reader names the file and
line):

- perf stat (``-x`` CSV and ``-j`` JSON): `perf_decimal` — what perf's ``%.0f``/``%.2f``/``%f`` and ``%lu``
  print: digits without leading zeros, an optional fraction, no sign unless ``signed`` (metric values), no
  exponent; counts within perf's ``u64``;
- mpx-stats JSON lines: `python_json_number` — what Python's ``json.dumps`` prints (``str(int)``,
  ``repr(float)``), integers within 64 bits;
- callgrind: `callgrind_count` — valgrind's ``%llu``: digits without leading zeros, within 64 bits;
- likwid-perfctr: `likwid_number` — its ``num2str``: counts as integers, other values ``%.4f`` or ``%e``.
"""

from __future__ import annotations

import re

__all__ = ["U64_MAX", "NumberError", "callgrind_count", "likwid_number", "perf_decimal", "python_json_number"]

#: the largest count any of these tools keeps (an unsigned 64-bit integer)
U64_MAX = 2**64 - 1

_PERF = re.compile(r"(-?)(0|[1-9][0-9]{0,19})(\.[0-9]{1,20})?\Z", re.ASCII)
_DIGITS = re.compile(r"(0|[1-9][0-9]{0,19})\Z", re.ASCII)
_LIKWID = re.compile(r"(0|[1-9][0-9]{0,19})(\.[0-9]{1,20})?\Z|[0-9]\.[0-9]{1,20}e[-+][0-9]{2,3}\Z", re.ASCII)


class NumberError(ValueError):
    """A number in a form its tool never prints."""


def _show(text: str) -> str:
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


def perf_decimal(text: str, what: str, signed: bool = False) -> float:
    """``text`` as perf stat prints a number (``123``, ``98.988238``; ``-1.50`` when ``signed``), at most
    2**64-1 in size; anything else is a `NumberError` naming ``what``."""
    m = _PERF.match(text)
    if not m or (m.group(1) and not signed):
        raise NumberError(f"{what} {_show(text)} is not a number as perf prints it (digits, an optional fraction"
                          f"{'' if signed else ', no sign'}, no exponent, no leading zeros)")
    if int(m.group(2)) > U64_MAX:
        raise NumberError(f"{what} {_show(text)} is beyond perf's 64-bit counts")
    return float(text)


def python_json_number(token: str) -> int | float:
    """A JSON number token as Python's ``json.dumps`` writes it (``json.loads``'s ``parse_int``/``parse_float``
    hook): an integer within 64 bits written as ``str(int)``, a float written as ``repr(float)``."""
    if "." in token or "e" in token or "E" in token:
        try:
            v = float(token)
        except ValueError:
            raise NumberError(f"number {_show(token)} is not a number") from None
        if repr(v) != token:
            raise NumberError(f"number {_show(token)} is not written as Python writes a float "
                              f"({'not finite' if v != v or v in (float('inf'), float('-inf')) else repr(v)})")
        return v
    if len(token) > 21 or token != str(int(token)) or not -U64_MAX <= int(token) <= U64_MAX:
        raise NumberError(f"integer {_show(token)} is not a 64-bit integer as Python writes it")
    return int(token)


def callgrind_count(text: str, what: str) -> int:
    """A cost as callgrind writes it (``%llu``): digits without leading zeros, at most 2**64-1."""
    if not _DIGITS.match(text) or int(text) > U64_MAX:
        raise NumberError(f"{what}: {_show(text)} is not a non-negative integer as callgrind writes it "
                          "(0..2**64-1, no leading zeros)")
    return int(text)


def likwid_number(text: str, what: str) -> float:
    """A value as likwid-perfctr prints it (``num2str``, ``src/applications/likwid-perfctr.lua``'s tables): an
    integer count (``4414042000``), ``%.4f`` (``0.4653``) or ``%e`` (``2.132045e-06``); no sign (counts and
    times), at most 2**64-1."""
    m = _LIKWID.match(text)
    if not m or (m.group(1) is not None and int(m.group(1)) > U64_MAX):
        raise NumberError(f"{what} {_show(text)} is not a number as likwid-perfctr prints it (an integer, %.4f or "
                          "%e; no sign, no leading zeros)")
    return float(text)
