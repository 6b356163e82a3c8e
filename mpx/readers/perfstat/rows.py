"""What the CSV and JSON parsers of ``perf stat -I`` share: field patterns, number readers, and
`RowParser`, which collects counter rows into a `~mpx.readers.perfstat.run.PerfStatRun`."""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from typing import Literal

import numpy as np

from mpx.errors import FormatError
from mpx.readers.numbers import NumberError, perf_decimal
from mpx.readers.perfstat.run import (
    COUNTED,
    MISSING,
    NOT_COUNTED,
    NOT_SUPPORTED,
    STATUS_NOT_COUNTED,
    STATUS_NOT_SUPPORTED,
    ExtraMetric,
    PerfColumn,
    PerfStatRow,
    PerfStatRun,
)

__all__ = [
    "AGGR_CSV", "ASCII", "CSV_START", "INT", "JSON_AGGR_KEYS", "JSON_KNOWN", "NUM", "PCT", "RowError",
    "RowParser", "THREAD", "TS", "U64_MAX", "VAR", "check_pct", "check_u64", "parse_int", "parse_number",
    "parse_value", "value_like",
]

ASCII = re.ASCII
TS = re.compile(r"\d+(\.\d+)?\Z", ASCII)
INT = re.compile(r"\d+\Z", ASCII)
PCT = re.compile(r"\d+(\.\d+)?\Z", ASCII)
NUM = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z", ASCII)
VAR = re.compile(r"[-+]?(\d+(\.\d*)?|nan|inf)%\Z", ASCII | re.IGNORECASE)
CSV_START = re.compile(r"\s*(\d+\.\d+|summary)([^\w\s.<>+\-]|\t)", ASCII)

#: CSV aggregation ids: kind → (pattern, columns); ``core`` may also come with 1 column (see module doc)
AGGR_CSV: tuple[tuple[str, re.Pattern, int], ...] = (
    ("cpu", re.compile(r"CPU\d+\Z", ASCII), 1),
    ("cache", re.compile(r"S\d+-D\d+-L\d+-ID\d+\Z", ASCII), 2),
    ("core", re.compile(r"S\d+-(D\d+-)?C\d+\Z", ASCII), 2),
    ("die", re.compile(r"S\d+-D\d+\Z", ASCII), 2),
    ("socket", re.compile(r"S\d+\Z", ASCII), 2),
    ("node", re.compile(r"N\d+\Z", ASCII), 2),
)
THREAD = re.compile(r".+-\d+\Z", ASCII | re.DOTALL)
JSON_AGGR_KEYS = ("cpu", "core", "cache", "die", "socket", "node", "thread")
JSON_KNOWN = frozenset(
    JSON_AGGR_KEYS
    + ("interval", "aggregate-number", "counter-value", "unit", "event", "cgroup", "variance",
       "event-runtime", "pcnt-running", "metric-value", "metric-unit", "metricgroup")
)


#: perf keeps counts and times as ``u64`` (``tools/perf/util/counts.h``): nothing it prints is larger.
U64_MAX = 2**64 - 1


class RowError(Exception):
    """A problem with one row; turned into a FormatError naming the file and line."""


def check_u64(v: int, what: str) -> int:
    """``v`` unless it is outside perf's ``u64`` (then `RowError`)."""
    if not 0 <= v <= U64_MAX:
        raise RowError(f"{what} {str(v)[:40]}{'...' if len(str(v)) > 40 else ''} is outside 0..2**64-1")
    return v


def parse_int(text: str, what: str) -> int:
    """A non-negative integer field (perf's ``u64``): at most 20 digits, so ``int()`` never meets its
    4,300-digit limit."""
    if not INT.match(text) or len(text) > 20:
        raise RowError(f"{what} {text[:40]!r} is not an integer of 0..2**64-1")
    return check_u64(int(text), what)


#: perf keeps the number of CPUs aggregated in an ``int`` (``struct perf_stat_aggr.nr``, tools/perf/util/stat.h).
INT_MAX = 2**31 - 1


def check_cpu_count(v: int, what: str) -> int:
    """A CPU count (``-x`` per-socket field, JSON ``aggregate-number``): perf's ``int``, so 0..2**31-1."""
    if not 0 <= v <= INT_MAX:
        raise RowError(f"{what} {str(v)[:40]} is outside 0..2**31-1 (perf counts aggregated CPUs in an int)")
    return v


def parse_number(text: str, what: str) -> float:
    """``text`` as a number in perf's notation (`mpx.readers.numbers.perf_decimal`; else `RowError` naming
    ``what``)."""
    try:
        return perf_decimal(text, what, signed=True)
    except NumberError as exc:
        raise RowError(str(exc)) from None


def parse_value(text: str) -> tuple[float, int]:
    """A counter value cell → (value, status): NaN for ``<not counted>`` / ``<not supported>``."""
    if text == NOT_COUNTED:
        return math.nan, STATUS_NOT_COUNTED
    if text == NOT_SUPPORTED:
        return math.nan, STATUS_NOT_SUPPORTED
    if text.startswith("-"):  # counts are u64 (tools/perf/util/counts.h); perf prints them with %.0f or %.2f
        raise RowError(f"counter value {text[:40]!r} is negative: perf counts are unsigned")
    try:
        return perf_decimal(text, "counter value"), COUNTED
    except NumberError as exc:
        raise RowError(str(exc)) from None


def value_like(text: str) -> bool:
    """Whether ``text`` could be a counter value cell."""
    return text in (NOT_COUNTED, NOT_SUPPORTED) or bool(NUM.match(text))


def check_pct(pct: float) -> None:
    """Raise `RowError` unless ``pct`` is a percentage."""
    if not 0.0 <= pct <= 100.0:
        raise RowError(f"percent running {pct!r} is outside 0..100")


class RowParser:
    """Collects rows into intervals; subclasses split lines into `PerfStatRow`s."""

    fmt: Literal["csv", "json"] = "csv"

    def __init__(self, path: str | os.PathLike, scaled: bool) -> None:
        self.path = path
        self.scaled = scaled
        self.sep: str | None = None
        self.aggregation: str | None = None
        self.times: list[float] = []
        self.first_line: list[int] = []  # first line of each interval
        self.cells: list[dict[tuple, PerfStatRow]] = []  # per interval: (aggr, cgroup, event, occ) → row
        self.extra: list[tuple[int, int, tuple, float, str]] = []  # line, t, key, value, unit
        self.summary: list[PerfStatRow] = []
        self.summary_extra: list[tuple[int, float, str]] = []
        self.dropped: dict[str, dict] = {}
        self.last: tuple[PerfStatRow, tuple | None] | None = None  # last counter row and its key
        self.in_group = False  # after a metric-group header row, until the next counter row
        self.units: dict[tuple, tuple[str, int]] = {}  # column key → unit, line first seen
        self.columns_of: Counter[tuple] = Counter()  # (aggr, cgroup, event) → its columns (occurrences)
        self.summary_lines: dict[tuple, list[int]] = {}  # (aggr, cgroup, event) → lines of its summary rows

    def drop(self, what: str, why: str) -> None:
        entry = self.dropped.setdefault(what, {"what": what, "why": why, "count": 0})
        entry["count"] += 1

    def set_aggregation(self, kind: str) -> None:
        if self.aggregation is None:
            self.aggregation = kind
        elif kind != self.aggregation:
            raise RowError(f"aggregation changes from {self.aggregation!r} to {kind!r} within the file")

    def metric_group(self) -> None:
        """A metric-group header row (perf >= 6.5 default metric groups): the metric rows after it are the group's,
        printed in place of its events (``printout``: a ``default_metricgroup`` event's own row is not printed), so
        they belong to no counter row printed before them."""
        self.drop("metric group headers", "metric group names on their own rows carry no values")
        self.in_group = True

    def add_row(self, row: PerfStatRow) -> None:
        self.in_group = False
        if row.time is None:
            counter = (row.aggr_id, row.cgroup, row.event)
            same = self.summary_lines.setdefault(counter, [])
            if same and len(same) >= self.columns_of[counter]:  # perf prints one summary row per counter
                raise RowError(f"a second summary row of {row.event!r} (the first at line {same[0]}); "
                               "the intervals count it once")
            same.append(row.line)
            self.summary.append(row)
            self.last = (row, None)
            return
        if self.summary:
            raise RowError("an interval row after the --summary rows")
        if not self.times or row.time > self.times[-1]:
            if row.time <= 0:
                raise RowError(f"timestamp {row.time!r} s is not positive")
            self.times.append(row.time)
            self.first_line.append(row.line)
            self.cells.append({})
        elif row.time < self.times[-1]:
            raise RowError(
                f"timestamp goes backwards ({row.time!r} s after {self.times[-1]!r} s); several runs "
                "(-r with -I, --append) in one file? split them")
        cell = self.cells[-1]
        occ = 0
        while (row.aggr_id, row.cgroup, row.event, occ) in cell:
            occ += 1
        key = (row.aggr_id, row.cgroup, row.event, occ)
        cell[key] = row
        if key not in self.units:
            self.columns_of[key[:3]] += 1
            if occ:
                self.drop("repeated events", "an event printed more than once per interval (perf -e X,X opens one "
                          "counter each): kept as separate columns, the second named X#2")
        seen = self.units.setdefault(key, (row.unit, row.line))
        if seen[0] != row.unit:
            raise RowError(f"unit of {row.event!r} changes from {seen[0]!r} (line {seen[1]}) "
                            f"to {row.unit!r}")
        self.last = (row, key)

    def add_metric(self, time: float | None, aggr_id: str | None, value: float, unit: str, line: int) -> None:
        if self.in_group:
            self.drop("metric group metrics", "metrics of a default metric group (perf >= 6.5), printed without their "
                      "events' rows: they belong to no counter printed before them")
            return
        if self.last is None:
            raise RowError("a metric continuation row before any counter row")
        row, key = self.last
        if row.time != time or row.aggr_id != aggr_id:
            raise RowError(f"a metric continuation row that does not follow its counter row "
                            f"(time {time!r}, id {aggr_id!r} after time {row.time!r}, id {row.aggr_id!r})")
        if key is None:
            self.summary_extra.append((line, value, unit))
        else:
            self.extra.append((line, len(self.cells) - 1, key, value, unit))

    def feed(self, lineno: int, raw: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def finish(self, missing: str) -> PerfStatRun:
        if not self.times:
            raise FormatError(self.path, None, "no interval rows: not perf stat -I output "
                              "(run perf stat with -I MS)")
        if self.summary:  # perf prints the summary row of every counter: a partial block was cut off
            lacking = [c for c, n in self.columns_of.items() if len(self.summary_lines.get(c, ())) < n]
            if lacking:
                more = f" (and {len(lacking) - 1} more)" if len(lacking) > 1 else ""
                raise FormatError(self.path, self.summary[-1].line,
                                  f"the --summary block has no row for {lacking[0][2]!r}{more}, which the "
                                  "intervals count: a truncated or damaged file?")
        order: dict[tuple, int] = {}
        for cell in self.cells:
            for key in cell:
                order.setdefault(key, len(order))
        keys = list(order)
        n_t, n_e = len(self.times), len(keys)
        value = np.full((n_t, n_e), np.nan)
        running = np.full((n_t, n_e), np.nan)
        pct = np.full((n_t, n_e), np.nan)
        status = np.full((n_t, n_e), MISSING, dtype=np.int8)
        n_agg = np.full((n_t, n_e), -1, dtype=np.int64)
        has_var = any(r.variance_pct is not None for cell in self.cells for r in cell.values())
        var = np.full((n_t, n_e), np.nan) if has_var else None
        mval = np.full((n_t, n_e), np.nan)
        munit = np.full((n_t, n_e), "", dtype=object)
        lines = np.zeros((n_t, n_e), dtype=np.int64)
        for t, cell in enumerate(self.cells):
            if missing == "error" and len(cell) != n_e:
                absent = [k for k in keys if k not in cell]
                label = PerfColumn(absent[0][2], absent[0][0], absent[0][1], absent[0][3]).label
                more = f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""
                raise FormatError(
                    self.path, self.first_line[t],
                    f"counter {label!r}{more} is missing from the interval at {self.times[t]!r} s but "
                    "present in others (read with missing='record' to keep such files)")
            for key, r in cell.items():
                e = order[key]
                value[t, e] = r.value
                running[t, e] = r.running_ns
                pct[t, e] = r.pct_running
                status[t, e] = r.status
                n_agg[t, e] = -1 if r.n_aggregated is None else r.n_aggregated
                if var is not None and r.variance_pct is not None:
                    var[t, e] = r.variance_pct
                if r.metrics:
                    mval[t, e], munit[t, e] = r.metrics[0]
                lines[t, e] = r.line
        if missing == "record" and (status == MISSING).any():
            self.drop("missing cells", "counter rows absent from some intervals (missing='record')")
            self.dropped["missing cells"]["count"] = int((status == MISSING).sum())
        extra = tuple(ExtraMetric(line, t, order[key], v, u) for line, t, key, v, u in self.extra)
        extra += tuple(ExtraMetric(line, -1, -1, v, u) for line, v, u in self.summary_extra)
        summary = tuple(self.summary)
        columns = tuple(PerfColumn(k[2], k[0], k[1], k[3]) for k in keys)
        units = tuple(self.units[k][0] for k in keys)
        arrays = [value, running, pct, status, n_agg, mval, munit, lines] + ([var] if var is not None else [])
        for a in arrays:
            a.setflags(write=False)
        times = np.array(self.times, dtype=np.float64)
        times.setflags(write=False)
        return PerfStatRun(
            source=None if self.path is None else os.fspath(self.path), format=self.fmt, separator=self.sep,
            aggregation=self.aggregation or "global", timestamps=times, columns=columns, units=units,
            value=value, running_ns=running, pct_running=pct, status=status, n_aggregated=n_agg,
            variance_pct=var, metric_value=mval, metric_unit=munit, lines=lines, extra_metrics=extra,
            summary=summary, scaled=self.scaled, dropped=tuple(self.dropped.values()),
        )
