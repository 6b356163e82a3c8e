"""Reading ``perf stat -I`` output (CSV with any ``-x`` separator, ``-j`` JSON lines) into a
`~mpx.readers.perfstat.run.PerfStatRun` (`read_perf_stat`); `sniff` recognises it (layouts: the package
docstring)."""

from __future__ import annotations

import json
import os
from typing import Literal

from mpx.errors import ConfigError, FormatError
from mpx.readers.textio import read_text, require_final_newline
from mpx.readers.perfstat.csv_output import CsvParser
from mpx.readers.perfstat.forms import form_of, read_form
from mpx.readers.perfstat.json_output import JsonParser
from mpx.readers.perfstat.rows import CSV_START, INT, PCT, RowError, RowParser
from mpx.readers.perfstat.run import PerfStatRun

__all__ = ["read_perf_stat", "sniff"]


def sniff(path: str | os.PathLike, head: str) -> bool:
    """Does ``head`` (the start of the file, decompressed) look like ``perf stat -I -x SEP`` or ``-j`` output?"""
    for raw in head.split("\n")[:50]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                return False
            return (isinstance(obj, dict) and "format" not in obj
                    and any(k in obj for k in ("counter-value", "event-runtime", "pcnt-running")))
        m = CSV_START.match(raw)
        if not m:
            return form_of(head.split("\n")[:50]) is not None
        fields = [f.strip() for f in raw.rstrip("\r").split(m.group(2))]
        return any(INT.match(a) and PCT.match(b) for a, b in zip(fields[3:], fields[4:]))
    return False



# -- the reader -----------------------------------------------------------------------------------


def read_perf_stat(
    path: str | os.PathLike,
    sep: str | None = None,
    *,
    missing: Literal["error", "record"] = "error",
    cgroup: bool | None = None,
    scaled: bool = True,
) -> PerfStatRun:
    """Read ``perf stat -I`` output (CSV with any ``-x`` separator, or ``-j`` JSON lines).

    ``sep``: the CSV separator (detected from the first row when None: the character after the first
    timestamp; give it for multi-character separators). ``missing``: what to do with a counter absent from
    some intervals ("error" or "record", see module doc). ``cgroup``: whether CSV rows carry a cgroup column
    (``-G``; detected when None). ``scaled=False`` says perf ran with ``--no-scale`` (values are raw).
    Compressed files (.xz, .gz, .bz2) are read transparently. Bad input raises `FormatError` with the line.
    """
    if missing not in ("error", "record"):
        raise ConfigError(f"missing must be 'error' or 'record', got {missing!r}")
    text = read_text(path)
    lines = text.split("\n")
    form = form_of(lines)
    if form is not None:  # plain, human -I, or -x/-j of a whole run (mpx.readers.perfstat.forms)
        if not text.endswith("\n"):
            raise FormatError(path, len(lines), "truncated file: the last line has no newline")
        return read_form(path, lines, form, missing=missing, scaled=scaled, sep=sep, cgroup=cgroup)
    first = None
    for i, raw in enumerate(lines):
        s = raw.strip()
        if s and not s.startswith("#"):
            first = (i + 1, raw)
            break
    if first is None:
        raise FormatError(path, None, "no perf stat rows (the file is empty or holds only comments)")
    lineno, raw = first
    s = raw.strip()
    if s.startswith("{"):
        parser: RowParser = JsonParser(path, scaled)
    else:
        if s.startswith("time,") or s.startswith("time" + (sep or ",")):
            raise FormatError(path, lineno, "perf stat --metric-only output is not supported "
                              "(it holds no counter values): re-run without --metric-only")
        if sep is None:
            m = CSV_START.match(raw)
            if not m:
                raise FormatError(
                    path, lineno, "not perf stat -I CSV or JSON output: expected a timestamp and a field "
                    f"separator at the start of {s[:60]!r}, nor any other perf stat form (the plain layout, "
                    "-x or -j of a whole run)")
            sep = m.group(2)
        elif sep == "" or sep.isspace() and sep != "\t":
            raise ConfigError(f"sep must be a non-blank string (or tab), got {sep!r}")
        parser = CsvParser(path, scaled, sep, cgroup)
    require_final_newline(path, text, len(lines))  # perf ends every line, blank or not, with a newline
    for i in range(lineno - 1, len(lines)):
        raw = lines[i].rstrip("\r")
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if i == len(lines) - 1:  # perf ends every row with a newline: this one was cut off
            raise FormatError(path, i + 1, "truncated file: the last row has no newline")
        try:
            parser.feed(i + 1, raw)
        except RowError as exc:
            raise FormatError(path, i + 1, str(exc)) from None
    return parser.finish(missing)
