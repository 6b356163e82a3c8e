"""The human-readable ``perf stat`` layout (no ``-x``, no ``-j``), whole-run or ``-I``: `PlainParser`.

Built from perf's own printing code (``tools/perf/util/stat-display.c``: ``print_counter_value_std``,
``print_aggr_id_std``, ``print_noise_pct_std``, ``print_running_std``, ``prepare_interval``, ``print_footer``;
perf 4.x-6.x) and checked against real files (``tests/data/perfstat/real/SOURCES.md``). One counter row::

    [TIME] [AGGR-ID [N-CPUS]] VALUE [UNIT] EVENT [CGROUP] [# METRIC UNIT] [( +- NN.NN% )] [(NN.NN%)]

- ``TIME``: ``%6lu.%09lu`` with ``-I`` (the ``.`` is literal: locales do not change it).
- aggregation id: ``CPU3`` (``-A``), ``S0-D0-C1`` / ``S0-C1`` + CPU count (``--per-core``), ``S0-D0``,
  ``S0``, ``N0`` + CPU count, ``comm-pid`` (``--per-thread``).
- ``VALUE``: ``%'18.0f`` (``%'18.2f`` for a fractional scale: ``msec task-clock``; ``%18.6f`` in perf 4.x)
  with the locale's thousands separator (``LC_NUMERIC``: ``1,234,567``, ``1.234.567``, ``1 234 567``,
  ``1'234'567``) and decimal mark (``1.101,01``), or ``<not counted>`` / ``<not supported>``. A group of
  exactly three digits after a separator is a thousands group, two or six digits a fraction (perf prints
  no other widths); the running percentage (always two decimals) fixes the file's decimal mark.
- ``(NN.NN%)``: the running share, printed only when the counter did not run the whole time, computed in
  floating point (``100.0 * run / ena``), so not truncated. ``( +- NN.NN% )``: the relative standard
  deviation of ``-r N`` runs (values are then means over the runs).
- ``# METRIC``: perf's derived metric; further metrics come on their own ``#`` lines and metric-group
  rows (perf 6.5+) carry no value: both are skipped (`PerfStatRun.dropped`).

Not printed: the running time in ns. A whole-run file becomes one interval ``[0, elapsed]`` (``seconds time
elapsed``), ``-I`` files one per timestamp; each cell's running time is its printed share of the (approximate)
enabled time, said in `PerfStatRun.dropped`. Two ``Performance counter stats`` headers (``--append``,
``>>``) are refused: split the file there.
"""

from __future__ import annotations

import dataclasses
import math
import re

from mpx.readers.numbers import U64_MAX
from mpx.readers.perfstat.rows import AGGR_CSV, RowError, RowParser, check_cpu_count, check_pct, parse_int
from mpx.readers.perfstat.run import NOT_COUNTED, NOT_SUPPORTED, STATUS_NOT_COUNTED, STATUS_NOT_SUPPORTED, \
    COUNTED, PerfStatRow

__all__ = ["HEADER", "PlainParser", "looks_plain", "parse_grouped"]

#: the header of each run (``print_header_std``)
HEADER = re.compile(r"^\s*Performance counter stats for (.*?)(?: \((\d+) runs\))?:\s*$")
ELAPSED = re.compile(r"^\s*((?:0|[1-9]\d*)[.,]\d+)\s+(?:\+-\s*\d+(?:[.,]\d+)?\s+)?seconds time elapsed",
                     re.ASCII)
SKIP = re.compile(r"^\s*(\d+(?:[.,]\d+)?\s+seconds (user|sys)|#\s+(Table of individual measurements|Final result):"
                  r"|\d+(?:[.,]\d+)?\s+\([-+]\d+(?:[.,]\d+)?\)\s+#+\s*$)")
#: perf's hints after the counters (``print_footer``): skipped up to the next blank line
HINT = re.compile(r"^\s*(Some events weren't counted|The events in group usually have to be from the same PMU"
                  r"|Error:|Warning:)")
TIME = re.compile(r"\s*(\d+\.\d{9})\s+", re.ASCII)
_SEP = ",.'\u00a0\u202f "
VALUE = re.compile(r"(?:<not counted>|<not supported>|\d{1,3}(?:[" + _SEP + r"]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
                   r"(?=\s)", re.ASCII)
AGGR = re.compile(r"(CPU\d+|S\d+(?:-D\d+)?(?:-L\d+-ID\d+|-C\d+)?|N\d+)\s+(?:(\d+)\s+(?=[<\d]))?", re.ASCII)
THREAD = re.compile(r"(\S+-\d+)\s+(?=[<\d])")
RUNNING = re.compile(r"\s\(\s*(\d+[.,]\d+)%\)\s*$", re.ASCII)
NOISE = re.compile(r"\s\(\s*\+-\s*(\d+[.,]\d+|nan|inf)%\s*\)\s*$", re.IGNORECASE | re.ASCII)
#: units perf prints between value and event (``evsel->unit``: software clocks, RAPL, IMC, tool events)
UNITS = frozenset({"msec", "ns", "us", "ms", "sec", "Joules", "MiB", "KiB", "GiB", "MB", "Watts", "B", "bytes"})
#: a value after a wide gap inside a metric comment: perf pads the metric's unit, and the next row begins there
MERGED = re.compile(r"\s{4,}(?:[0-9]|<not )")
METRIC_VALUE = re.compile(r"(\d[\d" + _SEP + r"]*(?:[.,]\d+)?)\s*(%?\s*.*)$")


def looks_plain(lines: list[str]) -> bool:
    """Whether the first meaningful lines are perf stat's human-readable layout."""
    for raw in lines[:60]:
        s = raw.strip()
        if not s or s.startswith("# started on"):
            continue
        if HEADER.match(raw) or s.startswith("#") and s.split()[1:2] == ["time"]:
            return True
        m = TIME.match(raw)
        rest = raw[m.end():] if m else raw
        a = AGGR.match(rest.lstrip()) or THREAD.match(rest.lstrip())
        rest = rest.lstrip()[a.end():] if a else rest.lstrip()
        v = VALUE.match(rest)
        return bool(v and rest[v.end():v.end() + 1].isspace() and re.match(r"\s+[A-Za-z_]", rest[v.end():]))
    return False


def parse_grouped(text: str, decimal: str | None) -> tuple[float, str | None]:
    """A counter value perf printed with ``%'.0f``/``%'.2f``/``%.6f`` in some locale → (value, its decimal mark
    or None).

    Three digits after the last separator are a thousands group, two or six a fraction (perf prints no other
    widths); ``decimal``, the file's decimal mark when known, must not group thousands.
    """
    marks = [i for i, c in enumerate(text) if not c.isdigit()]
    if not marks:
        whole, fraction, mark = text, "", None
    else:
        whole, fraction, mark = _split_grouped(text, marks, decimal)
    if len(whole) > 1 and whole[0] == "0" or len(whole) > 20 or int(whole) > U64_MAX:
        raise RowError(f"number {text[:40]!r} is not a value as perf prints it (a leading zero, or beyond 64 bits)")
    return float(f"{whole}.{fraction}" if fraction else whole), mark


def _split_grouped(text: str, marks: list[int], decimal: str | None) -> tuple[str, str, str | None]:
    """``text`` (with separators at ``marks``) → its integer digits, fraction digits and decimal mark."""
    last = marks[-1]
    tail, mark = text[last + 1:], text[last]
    if mark in ".," and len(tail) in (2, 6):
        whole, fraction = text[:last], tail
    elif len(tail) == 3:
        whole, fraction, mark = text, "", None
    else:
        raise RowError(f"number {text!r} is neither grouped by thousands nor a two- or six-decimal fraction")
    group = {c for c in whole if not c.isdigit()}
    if len(group) > 1:
        raise RowError(f"number {text!r} mixes thousands separators {sorted(group)}")
    if group:
        g = group.pop()
        parts = whole.split(g)
        if not (1 <= len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:])):
            raise RowError(f"number {text!r} is not grouped by thousands")
        if g in (decimal, mark):
            raise RowError(f"number {text!r} uses the decimal mark {g!r} as a thousands separator")
        whole = "".join(parts)
    if mark is not None and decimal is not None and mark != decimal:
        raise RowError(f"number {text!r} has decimal mark {mark!r}; the file's other numbers have {decimal!r}")
    return whole, fraction, mark


def _metric(text: str, decimal: str | None) -> float:
    """A metric value (``%8.3f`` etc. in the locale): NaN when it cannot be read."""
    d = decimal or "."
    t = "".join(c for c in text if c.isdigit() or c == d).replace(d, ".")
    try:
        return float(t)
    except ValueError:
        return math.nan


def _pct(text: str) -> tuple[float, str]:
    """A two-decimal percentage (``12.34`` or ``12,34``) → (value, decimal mark)."""
    return float(text.replace(",", ".")), text[-3]


class PlainParser(RowParser):
    """Rows of the human-readable layout (whole-run or ``-I``); see the module docstring."""

    fmt = "plain"

    def __init__(self, path, scaled: bool) -> None:
        super().__init__(path, scaled)
        self.decimal: str | None = None
        self.headers: list[int] = []
        self.runs = 1
        self.elapsed: float | None = None
        self.in_hint = False
        self.interval: bool | None = None

    def _mark(self, mark: str | None, what: str) -> None:
        if mark is None:
            return
        if self.decimal is None:
            self.decimal = mark
        elif mark != self.decimal:
            raise RowError(f"{what} uses decimal mark {mark!r}; earlier numbers of the file use {self.decimal!r}")

    def feed(self, lineno: int, raw: str) -> None:
        s = raw.strip()
        if self.in_hint:
            self.in_hint = bool(s)
            return
        if s.count("#") > 1:
            raise RowError("two '#' on one line (perf prints one comment or metric per line): two rows merged?")
        h = HEADER.match(raw)
        if h:
            if self.headers:
                raise RowError(f"a second 'Performance counter stats' header (the first at line {self.headers[0]}):"
                               " several perf stat runs appended in one file; split the file at these headers")
            self.headers.append(lineno)
            self.runs = parse_int(h.group(2) or "1", "number of runs")
            return
        if s.startswith("#") and not TIME.match(raw):
            if s.split()[1:2] == ["time"]:  # the -I column header, repeated every 25 intervals
                if not s.endswith("counts unit events"):  # what print_header_interval_std ends with
                    raise RowError(f"an -I column header that does not end in 'counts unit events' ({s[-40:]!r}): "
                                   "--metric-only output (not supported) or a data row merged into it")
                return
            self._continuation(raw)
            return
        e = ELAPSED.match(raw)
        if e:
            if self.elapsed is not None:
                raise RowError("a second 'seconds time elapsed' line: several runs appended in one file?")
            text = e.group(1)
            if "," in text or "." in text:
                self._mark(text[-10] if len(text) > 10 and not text[-10].isdigit() else None, "elapsed time")
            self.elapsed = float(text.replace(",", "."))
            return
        if SKIP.match(raw):
            return
        if HINT.match(raw):
            self.in_hint = True
            self.drop("perf's hints", "advice perf prints after the counters")
            return
        self._counter(lineno, raw)

    def _continuation(self, text: str) -> None:
        """A further metric line of the counter above (or a metric-group row): skipped, but a running share or
        ``-r`` variance at its end is the counter's (perf prints them after the last metric)."""
        self.drop("metric lines", "further metrics and metric-group rows carry no counter value")
        r, n = RUNNING.search(text), NOISE.search(text)
        if not (r or n):
            return
        if self.last is None or self.last[1] is None or self.last[0].pct_running != 100.0 and r:
            raise RowError("a running percentage on a metric line that follows no counter row without one")
        row, key = self.last
        changes = {}
        if r:
            pct, mark = _pct(r.group(1))
            check_pct(pct)
            self._mark(mark, "running percentage")
            changes["pct_running"] = pct
            text = text[:r.start()]
            n = NOISE.search(text)
        if n and n.group(1).lower() not in ("nan", "inf"):
            changes["variance_pct"] = _pct(n.group(1))[0]
        row = dataclasses.replace(row, **changes)
        self.cells[-1][key] = row
        self.last = (row, key)

    def _counter(self, lineno: int, raw: str) -> None:
        time = None
        pos = 0
        m = TIME.match(raw)
        if m:
            time = float(m.group(1))
            pos = m.end()
        if self.interval is None:
            self.interval = time is not None
        elif self.interval != (time is not None) and not (self.times and time is None):
            raise RowError("a row with an interval timestamp in a whole-run file (or the reverse)")
        rest = raw[pos:].lstrip()
        aggr_id, n_agg = None, None
        a = AGGR.match(rest) or THREAD.match(rest)
        if a and not VALUE.fullmatch(a.group(1)):
            aggr_id = a.group(1)
            kind = "thread" if a.re is THREAD else next(
                (k for k, pat, _ in AGGR_CSV if pat.match(aggr_id)), None)
            if kind is None:
                raise RowError(f"aggregation id {aggr_id!r} is none perf prints")
            if a.re is AGGR and a.group(2) is not None:
                n_agg = check_cpu_count(parse_int(a.group(2), "CPU count"), "CPU count")
            self.set_aggregation(kind)
            rest = rest[a.end():]
        elif self.aggregation not in (None, "global"):
            raise RowError(f"a row without the file's {self.aggregation!r} aggregation id")
        v = VALUE.match(rest)
        if not v:
            head = rest.split("#")[0].strip()
            if "#" in rest and not head:
                self._continuation(rest)
                return
            if "#" in rest and re.fullmatch(r"[A-Za-z][\w.]*( \(\w+\))?", head):  # TopdownL1 (cpu_core)  # ...
                self.drop("metric lines", "further metrics and metric-group rows carry no counter value")
                return
            raise RowError(f"cannot read {raw.strip()[:60]!r} as a perf stat counter row "
                           "([time] [cpu/core/socket id] value [unit] event ...)")
        text = v.group(0)
        rest = rest[v.end():]
        if not rest[:1].isspace():
            raise RowError(f"cannot read {raw.strip()[:60]!r}: no blank after the value {text!r}")
        pct, variance = 100.0, None
        r = RUNNING.search(rest)
        if r:
            pct, mark = _pct(r.group(1))
            check_pct(pct)
            self._mark(mark, "running percentage")
            rest = rest[:r.start()]
        n = NOISE.search(rest)
        if n:
            g = n.group(1)
            variance = math.nan if g.lower() in ("nan", "inf") else _pct(g)[0]
            if not math.isnan(variance):
                self._mark(_pct(g)[1], "variance")
            rest = rest[:n.start()]
        left, hash_, metric = rest.partition(" #")
        if text == NOT_COUNTED:
            value, status = math.nan, STATUS_NOT_COUNTED
        elif text == NOT_SUPPORTED:
            value, status = math.nan, STATUS_NOT_SUPPORTED
        else:
            value, mark = parse_grouped(text, self.decimal)
            self._mark(mark, f"counter value {text!r}")
            status = COUNTED
        tokens = left.split()
        if not tokens:
            raise RowError(f"no event name after the value {text!r}")
        unit = ""
        if len(tokens) > 1 and tokens[0] in UNITS:
            unit = tokens.pop(0)
        event = tokens.pop(0)
        while tokens and (tokens[0].startswith("[") or tokens[0].startswith("(")) and \
                (tokens[0].endswith("]") or tokens[0].endswith(")")):
            event = f"{event} {tokens.pop(0)}"  # "cycles [cpu]" (uniquified), "task-clock (msec)" (perf 4.x)
        cgroup = tokens.pop(0) if len(tokens) == 1 else None
        if tokens:
            raise RowError(f"cannot read {left.strip()[:60]!r} as [unit] event [cgroup]")
        metrics: tuple[tuple[float, str], ...] = ()
        if hash_ and MERGED.search(metric.strip()):
            raise RowError(f"a counter value after the metric comment ({metric.strip()[:60]!r}): two rows merged?")
        mm = METRIC_VALUE.match(metric.strip()) if hash_ else None
        if mm:
            metrics = ((_metric(mm.group(1).rstrip(_SEP), self.decimal), mm.group(2).strip()),)
        running = 0 if status != COUNTED else -1  # filled in from the share once the interval length is known
        row = PerfStatRow(lineno, time if self.interval else 1.0, aggr_id, n_agg, cgroup, event, unit, value,
                          status, running, pct, variance, metrics)
        if self.interval and time is None:  # --summary after -I intervals: the whole run's block
            row = PerfStatRow(lineno, None, aggr_id, n_agg, cgroup, event, unit, value, status, running, pct,
                              variance, metrics)
            if (aggr_id, cgroup, event) not in self.columns_of:
                raise RowError(f"a row without a timestamp for {event!r}, which no interval counts")
        self.add_row(row)
