"""perf's pmu-events JSON as hardware data: the ``Counter`` field and per-event counter masks.

Linux keeps per-CPU event lists in ``tools/perf/pmu-events/arch/<arch>/<cpu>/*.json``. Their ``Counter``
(hyper-threading on) and ``CounterHTOff`` (off) fields say which counters an event may use: ``"0,2,3"``
(generic counters), ``"Fixed counter N"`` (a fixed counter), ``"32"``, ``"33"``, ... (the kernel's fixed
counter indices 32 + N) or ``"FIXED"`` (an uncore fixed counter, index not given). `parse_counter_field`
is the one reader of that field (the PMU's mask import and the metric catalogs' `EventInfo` use it);
`counter_fields` reads the masks of whole files for `mpx.pmu.PMU.with_event_masks_from_perf_json`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mpx import strict_json
from mpx.errors import ConfigError, FormatError

__all__ = ["CounterField", "CounterFields", "counter_fields", "json_files", "parse_counter_field",
           "read_perf_json"]

_COUNTER_LIST = re.compile(r"^\s*\d+(\s*,\s*\d+)*\s*$")
_COUNTER_FIXED = re.compile(r"^\s*fixed counter\s*(\d+)\s*$", re.IGNORECASE)

KERNEL_FIXED_BASE = 32
"""INTEL_PMC_IDX_FIXED: the kernel numbers fixed counter N as 32 + N."""


@dataclass(frozen=True)
class CounterField:
    """A parsed ``Counter`` value: ``fixed`` (index of ``"Fixed counter N"``), ``numbers`` (the listed
    counter numbers, as written, for ``"0,1,2,3"``) or ``uncore_fixed`` (``"FIXED"``)."""

    fixed: int | None = None
    numbers: tuple[int, ...] | None = None
    uncore_fixed: bool = False


def parse_counter_field(text: str) -> CounterField:
    """perf's ``Counter`` value (``"0,1,2,3"``, ``"Fixed counter 1"``, ``"FIXED"``) → `CounterField`;
    anything else is a ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"not a perf Counter value: {text!r}")
    if _COUNTER_LIST.match(text):
        return CounterField(numbers=tuple(int(x) for x in text.split(",")))
    m = _COUNTER_FIXED.match(text)
    if m:
        return CounterField(fixed=int(m.group(1)))
    if text.strip().upper() == "FIXED":
        return CounterField(uncore_fixed=True)
    raise ValueError(f"not a perf Counter value: {text!r}")


def _placement(value: str, path: Any, line: int | None, event: str) -> tuple[int | None, tuple[int, ...]]:
    """A ``Counter`` value as (fixed counter index, ()) or (None, generic counter indices) for the mask
    import: kernel indices >= 32 are fixed counters; ``FIXED`` and unreadable values are errors."""
    try:
        f = parse_counter_field(value)
    except ValueError:
        f = CounterField()
    if f.fixed is not None:
        return f.fixed, ()
    if f.numbers is None:
        raise FormatError(path, line, f"event {event}: cannot read counter list {value!r}")
    fixed = [i - KERNEL_FIXED_BASE for i in f.numbers if i >= KERNEL_FIXED_BASE]
    if fixed:
        if len(f.numbers) != 1:
            raise FormatError(path, line, f"event {event}: mixes fixed and generic counters in {value!r}")
        return fixed[0], ()
    return None, tuple(sorted(set(f.numbers)))


@dataclass(frozen=True)
class CounterFields:
    """The placements read by `counter_fields`: per event ``(fixed index, generic indices)`` with the
    value, line and file it came from; the files; and how many entries were left out and why."""

    specs: dict[str, tuple[tuple[int | None, tuple[int, ...]], str, int | None, str]]
    files: tuple[str | os.PathLike, ...]
    skipped_uncore: int
    skipped_nofield: int
    skipped_other: int


def counter_fields(paths: str | os.PathLike | Iterable[str | os.PathLike], *, field: str = "Counter",
                   json_unit: str | None = None) -> CounterFields:
    """The ``field`` placement of every core event of perf JSON ``paths`` (files or folders). Entries
    with a ``Unit`` other than ``json_unit``, ``UNC_`` events, entries without ``field`` and non-event
    entries are counted, not read; one event with two different values is a `ConfigError`."""
    files = json_files(paths)
    specs: dict[str, tuple[tuple[int | None, tuple[int, ...]], str, int | None, str]] = {}
    skipped_uncore = skipped_nofield = skipped_other = 0
    for path in files:
        for entry, line in read_perf_json(path):
            ev = entry.get("EventName")
            if ev is None:
                skipped_other += 1
                continue
            if not isinstance(ev, str) or not ev:
                raise FormatError(path, line, f"EventName must be a non-empty string, got {ev!r}")
            if ("Unit" in entry and entry["Unit"] != json_unit) or ev.startswith("UNC_"):
                skipped_uncore += 1
                continue
            value = entry.get(field)
            if value is None:
                skipped_nofield += 1
                continue
            if not isinstance(value, str):
                raise FormatError(path, line, f"event {ev}: {field} must be a string, got {value!r}")
            value = value.strip()
            parsed = _placement(value, path, line, ev)
            prev = specs.get(ev)
            if prev is not None and prev[0] != parsed:
                raise ConfigError(
                    f"event {ev}: {field} is {prev[1]!r} in {prev[3]} but {value!r} in {os.fspath(path)}:{line}"
                )
            specs[ev] = (parsed, value, line, os.fspath(path))
    return CounterFields(specs, tuple(files), skipped_uncore, skipped_nofield, skipped_other)


def json_files(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[str | os.PathLike]:
    """The ``.json`` files of ``paths`` (files, or folders read in name order); none is a `ConfigError`."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    files: list[str | os.PathLike] = []
    for p in items:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json"))
        elif os.path.exists(p):
            files.append(p)
        else:
            raise FileNotFoundError(f"no such file or directory: {os.fspath(p)}")
    if not files:
        raise ConfigError(f"no perf JSON files in {[os.fspath(p) for p in items]}")
    return files


def read_perf_json(path: str | os.PathLike) -> list[tuple[dict[str, Any], int | None]]:
    """The entries of a perf pmu-events JSON file with the line each starts on.

    Accepts the kernel's list of event objects and a mapping ``EventName → fields``; a mapping of
    strings (``metricgroups.json``) has no events.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(path, raw.count(b"\n", 0, e.start) + 1, f"not UTF-8 text ({e.reason})") from None
    try:
        data = strict_json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(path, e.lineno, f"invalid JSON: {e.msg}") from None
    if isinstance(data, dict):
        out = []
        for k, v in data.items():
            if isinstance(v, str):  # metricgroups.json: group name → description
                out.append(({"MetricGroup": k, "Description": v}, _line_of(text, json.dumps(k))))
                continue
            if not isinstance(v, dict):
                line = _line_of(text, json.dumps(k))
                raise FormatError(path, line, f"entry {k!r} must be an object, got {type(v).__name__}")
            out.append(({"EventName": k, **v}, _line_of(text, json.dumps(k))))
        return out
    if not isinstance(data, list):
        raise FormatError(path, 1, f"expected a JSON list of events, got {type(data).__name__}")
    starts = _element_lines(text)
    out = []
    for i, entry in enumerate(data):
        line = starts[i] if i < len(starts) else None
        if not isinstance(entry, dict):
            raise FormatError(path, line, f"entry {i} must be an object, got {type(entry).__name__}")
        out.append((entry, line))
    return out


def _element_lines(text: str) -> list[int]:
    """1-based start lines of the elements of a top-level JSON list (valid JSON assumed)."""
    dec = json.JSONDecoder()
    i = text.index("[") + 1
    lines: list[int] = []
    n, line, counted = len(text), 1, 0
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            return lines
        line += text.count("\n", counted, i)  # from the last element on: counting from 0 each time was quadratic
        counted = i
        lines.append(line)
        _, i = dec.raw_decode(text, i)


def _line_of(text: str, needle: str) -> int | None:
    i = text.find(needle)
    return None if i < 0 else text.count("\n", 0, i) + 1
