"""Reader of ``likwid-perfctr`` output: measured counts per group, region and hardware thread, re-estimated where
LIKWID multiplexed its groups (``-g A -g B``, switched every ``-T``). Like ``perf stat`` output it has no ground
truth, so it is read into a `~mpx.readers.perfstat.PerfStatRun` (`read_likwid_perfctr`), which ``mpx estimate``
re-estimates; not into a Trace. (LIKWID's *group files*, the metric catalog, are `mpx.metrics.formats.likwid`.)

Built from LIKWID's own printing code (RRZE-HPC/likwid: ``src/applications/likwid.lua`` ``printOutput``,
``printtable``, ``printcsv``, ``num2str``; ``src/applications/likwid-perfctr.lua``, the ``-t`` loop; the same in
4.3.x, 5.0-5.4 and master). The forms (`FORMS`):

- **table** (default; ``-o FILE.txt`` adds a ``CPU name:`` header before every group): per group (and region of
  the Marker API, ``-m``) a title ``Group 1: FLOPS_DP`` / ``Region R, Group 1: FLOPS_DP``, then ASCII tables:
  ``Region Info`` (per thread ``RDTSC Runtime [s]`` ``%.6f`` and ``call count``; regions only), the raw counts
  ``Event | Counter | HWThread 0 | ...`` (``Core 0`` before 5.2), with a first row ``Runtime (RDTSC) [s] | TSC``
  (``%e``; since 5.1 only for groups without metrics), and, derived from these, ``... STAT`` (Sum/Min/Max/Avg over
  threads) and ``Metric`` tables. Lines that belong to no table (the measured program's own output) are skipped.
- **csv** (``-O``): the same tables as ``TABLE,Group 1 Raw,NAME,ROWS`` / ``TABLE,Region R,Group 1 Raw,NAME,ROWS``
  (``Raw STAT``, ``Metric``, ``Metric STAT``), each followed by its header and ``ROWS`` rows, the region's
  ``Region Info`` rows first; ``STRUCT,Info,3`` and three ``CPU ...:`` lines before each group; every row padded
  with commas to the widest table.
- **timeline** (``-t DURATION``): ``# HWThreads: 0|1`` (``# Cores`` before 5.2) and one header per group,
  ``# GID|EventCount|CpuCount|Total runtime [s]|EVENT...`` (on stdout; with ``-o`` the delimiter is a blank, or a
  comma with ``-O``), then per read one line ``GID EVENTS CPUS TIME V...`` (stderr) of the active group's counts
  since the previous read (``getLastResults``), event-major (each event's threads in turn), ``TIME`` the seconds
  since the start. A group with metrics prints its metrics there instead (``MetricsCount``): no counts, refused.

Values: ``num2str`` prints counts as integers, other numbers ``%.4f`` or ``%e``; ``-`` (LIKWID's ``nan2value``)
or ``nan`` where a counter gave no result: read as not supported (no count to scale). Every value equals the file.

Semantics (``src/perfmon.c``): a counter's result accumulates over the periods its group was active
(``perfmon_stopCounters``/``perfmon_readCounters``: ``fullResult += result``), and ``getRuntimeOfGroup`` is the sum
of those periods (``runTime += rdtscTime``), which the ``time`` of every metric is (``perfmon_getTimeOfGroup``).
LIKWID never extrapolates: with several groups each count covers its group's share of the run only. So a cell's
running time is its group's runtime on that thread (the raw table's ``Runtime (RDTSC) [s]`` row, else the region's
``RDTSC Runtime [s]``, else the metric ``Runtime (RDTSC) [s]``), its enabled time the runtimes of all groups summed
(the run, or the region's time over all groups), and the value the raw count (``scaled=False``): a single group
counted the whole time (100 %). A whole run or region is one interval; regions and groups are columns: label
``[REGION:]CPUn:EVENT[@GROUP]`` (the group named only when there are several; an event LIKWID counts on several
counters of one group, such as an uncore event on each box, is ``EVENT:COUNTER``). A timeline is one interval
per read: the active group's counts ran the whole interval, the other groups' were not counted.

Refused with one line naming the form: a title or table repeated (several runs appended in one file), a table
cut short, timeline metrics, timeline data lines without their headers, GPU tables (``nvmon``/``rocmon``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import FormatError
from mpx.readers.numbers import NumberError, likwid_number
from mpx.readers.perfstat.run import COUNTED, STATUS_NOT_COUNTED, STATUS_NOT_SUPPORTED, PerfColumn, PerfStatRun
from mpx.readers.textio import read_text, require_final_newline
from mpx.trace import Trace

__all__ = ["FORMS", "NAME", "form_of", "read", "read_likwid_perfctr", "sniff"]

NAME = "likwid_perfctr"
#: the forms `form_of` names, as error messages say them
FORMS = {"table": "likwid-perfctr table output", "csv": "likwid-perfctr -O (CSV) output",
         "timeline": "likwid-perfctr -t (timeline) output"}

_TITLE = re.compile(r"^(?:Region (?P<region>.+), )?Group (?P<gid>\d{1,9}): (?P<name>\S.*?)$")
_CSV_TABLE = re.compile(r"^TABLE,(?:Region (?P<region>[^,]*),)?Group (?P<gid>\d{1,9}) (?P<kind>Raw|Metric)"
                        r"(?P<stat> STAT| Stat)?,(?P<name>[^,]*),(?P<rows>\d{1,9})")
_BORDER = re.compile(r"^\+-[-+]*\+$")  # a table border: nothing else on the line
_THREAD = re.compile(r"^(?:HWThread|Core|core) (\d{1,9})$")
_TL_HEAD = re.compile(r"^# GID(?P<d>[|, ])(?P<kind>EventCount|MetricsCount)(?P=d)CpuCount(?P=d)Total runtime \[s\]")
_TL_CPUS = re.compile(r"^# (?:HWThreads|Cores)(?:: |[ ,])(?P<list>.*)$")
_TL_DATA = re.compile(r"^\d{1,9}([ ,])\d{1,9}\1\d{1,9}\1")
_STAT_COLS = ["Sum", "Min", "Max", "Avg"]
_RUNTIME = "Runtime (RDTSC) [s]"


class _Error(Exception):
    """A problem at one line (turned into a `FormatError` naming the file)."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line


def form_of(lines: list[str]) -> str | None:
    """``table``, ``csv`` or ``timeline`` for likwid-perfctr output, else None."""
    for i, raw in enumerate(lines):
        s = raw.strip()
        if _TL_HEAD.match(s):
            return "timeline"
        if s.startswith("STRUCT,Info,") or _CSV_TABLE.match(s):
            return "csv"
        if _TITLE.match(s):
            nxt = next((x.strip() for x in lines[i + 1:i + 3] if x.strip()), "")
            if nxt.startswith("+-"):
                return "table"
    return None


def sniff(path: str | os.PathLike, head: str) -> bool:
    """Does ``head`` (the start of the file) hold likwid-perfctr output?"""
    return form_of(head.split("\n")) is not None


def read(path: str | os.PathLike, **options: Any) -> Trace:
    """Refuses: likwid-perfctr output has no ground truth. Use `read_likwid_perfctr` (or ``mpx estimate``)."""
    raise FormatError(path, None, "likwid-perfctr output is measured data without ground truth, not a Trace: use "
                      "mpx.readers.likwid_perfctr.read_likwid_perfctr (or `mpx estimate`)")


def read_likwid_perfctr(path: str | os.PathLike) -> PerfStatRun:
    """Read likwid-perfctr output (table, ``-O`` CSV or ``-t`` timeline; the module docstring) into a
    `PerfStatRun` of raw counts (``scaled=False``) with each cell's running and enabled time."""
    text = read_text(path)
    lines = text.split("\n")
    form = form_of(lines)
    if form is None:
        raise FormatError(path, None, "not likwid-perfctr output: no 'Group N: NAME' title before a table, no "
                          "'TABLE,Group N Raw' line (-O) and no '# GID|EventCount|...' line (-t)")
    require_final_newline(path, text, len(lines))
    try:
        if form == "timeline":
            return _timeline(path, lines)
        blocks = _table_blocks(lines) if form == "table" else _csv_blocks(lines)
        return _whole(path, form, blocks)
    except _Error as exc:
        raise FormatError(path, exc.line, f"{FORMS[form]}: {exc}") from None


# -- tables (plain and CSV) into blocks -------------------------------------------------------------------


@dataclass
class _Block:
    """One group (of one region) as printed: its raw counts and the times that say how long it counted."""

    region: str | None
    gid: int
    name: str
    line: int
    threads: list[int] = field(default_factory=list)
    rows: list[tuple[str, str, list[str], int]] = field(default_factory=list)  # event, counter, values, line
    runtime: list[str] | None = None  # the raw table's Runtime (RDTSC) [s] row (%e)
    region_time: list[str] | None = None  # Region Info's RDTSC Runtime [s] (%.6f)
    metric_runtime: list[str] | None = None  # the Metric table's Runtime (RDTSC) [s] (%.4f or %e)
    derived: int = 0  # STAT and Metric tables (derived from the counts)


def _new_block(blocks: list[_Block], seen: dict, region: str | None, gid: int, name: str, line: int) -> _Block:
    key = (region, gid)
    if key in seen:
        what = f"Region {region}, Group {gid}" if region is not None else f"Group {gid}"
        raise _Error(line, f"{what} printed twice (lines {seen[key]} and {line}): several runs appended in one file; "
                     "split the file there")
    seen[key] = line
    block = _Block(region, gid, name, line)
    blocks.append(block)
    return block


def _threads(header: list[str], line: int) -> list[int]:
    out = []
    for h in header:
        m = _THREAD.match(h)
        if not m:
            raise _Error(line, f"column {h!r} is not a hardware thread ('HWThread N' or 'Core N'; GPU tables of "
                         "nvmon/rocmon are not read)")
        out.append(int(m.group(1)))
    if len(set(out)) != len(out):
        raise _Error(line, f"a hardware thread named twice in {header}")
    return out


def _take(block: _Block | None, header: list[str], rows: list[tuple[list[str], int]], line: int) -> None:
    """Put one table (header and rows, as printed) into ``block``."""
    if block is None:
        raise _Error(line, "a table before any 'Group N: NAME' title")
    first = header[0]
    if first == "Region Info":
        threads = _threads(header[1:], line)
        got = {r[0]: (r[1:], ln) for r, ln in rows}
        if "RDTSC Runtime [s]" not in got:
            raise _Error(line, "a Region Info table without its 'RDTSC Runtime [s]' row")
        block.region_time = got["RDTSC Runtime [s]"][0]
        block.threads = block.threads or threads
        if threads != block.threads:
            raise _Error(line, "the Region Info table names other threads than the counts")
        return
    if first == "Event" and header[1:2] == ["Counter"]:
        if header[2:] == _STAT_COLS:
            block.derived += 1
            return
        if block.rows:
            raise _Error(line, f"a second table of raw counts for group {block.gid}")
        threads = _threads(header[2:], line)
        if block.threads and threads != block.threads:
            raise _Error(line, "the counts name other threads than the Region Info table")
        block.threads = threads
        first_line: dict[tuple[str, str], int] = {}
        for r, ln in rows:
            if first_line.setdefault((r[0], r[1]), ln) != ln:
                raise _Error(ln, f"{r[0]!r} on counter {r[1]!r} twice in one table (the first at line "
                                 f"{first_line[r[0], r[1]]})")
            if r[0] == _RUNTIME and r[1] == "TSC":
                block.runtime = r[2:]
            else:
                block.rows.append((r[0], r[1], r[2:], ln))
        if not block.rows:
            raise _Error(line, f"group {block.gid} has no event rows")
        return
    if first == "Metric":
        block.derived += 1
        if header[1:] != _STAT_COLS:
            _threads(header[1:], line)
            for r, _ln in rows:
                if r[0] == _RUNTIME:
                    block.metric_runtime = r[1:]
        return
    raise _Error(line, f"a table headed {' | '.join(header[:3])!r}: not one likwid-perfctr prints for CPUs")


def _cells(s: str) -> list[str]:
    body = s.strip()
    if not (body.startswith("|") and body.endswith("|")):
        raise _Error(None, "not a table row")
    return [c.strip() for c in body[1:-1].split(" | ")]


def _table_blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    seen: dict = {}
    block = None
    i, n = 0, len(lines)
    while i < n:
        s = lines[i].rstrip("\r").strip()
        m = _TITLE.match(s)
        if m:
            block = _new_block(blocks, seen, m.group("region"), int(m.group("gid")), m.group("name"), i + 1)
            i += 1
            continue
        if not (s.startswith("+-") and block is not None):
            i += 1  # the program's own output, LIKWID's header lines, blank lines
            continue
        if not _BORDER.match(s):
            raise _Error(i + 1, f"a damaged table border (something after it: {s[-40:]!r})")
        start = i + 1
        if i + 1 >= n or not lines[i + 1].strip().startswith("|"):
            raise _Error(i + 2, "a table border without a header row after it (a cut table?)")
        header = _cells(lines[i + 1])
        i += 2
        if i >= n or not _BORDER.match(lines[i].rstrip("\r").strip()):
            raise _Error(i + 1, "no border under the table's header (a cut table or a damaged border?)")
        i += 1
        rows = []
        while i < n and lines[i].strip().startswith("|"):
            cells = _cells(lines[i])
            if len(cells) != len(header):
                raise _Error(i + 1, f"a row of {len(cells)} cells under a header of {len(header)} (a damaged table?)")
            rows.append((cells, i + 1))
            i += 1
        if rows:
            if i >= n or not _BORDER.match(lines[i].rstrip("\r").strip()):
                raise _Error(i + 1, "a table without its closing border (cut short, or a damaged border?)")
            i += 1
        _take(block, header, rows, start)
    return blocks


def _csv_blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    seen: dict = {}
    block = None
    i, n = 0, len(lines)

    def row(k: int, width: int | None) -> list[str]:
        if k >= n or not lines[k].strip():
            raise _Error(k + 1, "the table ends before the row count its TABLE line gives (cut short?)")
        f = lines[k].rstrip("\r").split(",")
        if width is None:
            while f and f[-1] == "":
                f.pop()
            return f
        if any(x for x in f[width:]):
            raise _Error(k + 1, f"a row of {len(f)} fields under a header of {width} (a damaged table?)")
        if len(f) < width:
            raise _Error(k + 1, f"a row of {len(f)} fields under a header of {width} (a damaged table?)")
        return [x.strip() for x in f[:width]]

    while i < n:
        s = lines[i].rstrip("\r")
        if s.startswith("STRUCT,"):
            f = s.split(",")
            if len(f) < 3 or not re.fullmatch(r"[0-9]{1,9}", f[2]):
                raise _Error(i + 1, f"a STRUCT line without its row count: {s[:60]!r}")
            i += 1 + int(f[2])  # CPU name/type/clock
            continue
        if not s.startswith("TABLE,"):
            i += 1
            continue
        m = _CSV_TABLE.match(s)
        if not m:
            raise _Error(i + 1, f"a TABLE line likwid-perfctr does not print: {s[:80]!r}")
        region, gid, name = m.group("region"), int(m.group("gid")), m.group("name")
        start = i + 1
        if m.group("kind") == "Raw" and not m.group("stat"):
            block = _new_block(blocks, seen, region, gid, name, start)
        elif block is None or (block.region, block.gid) != (region, gid):
            kind = m.group("kind") + (m.group("stat") or "")
            raise _Error(start, f"a {kind} table of group {gid} before its raw counts")
        i += 1
        if region is not None and m.group("kind") == "Raw" and not m.group("stat"):
            header = row(i, None)
            info = [(row(i + k, len(header)), i + k + 1) for k in (1, 2)]
            _take(block, header, info, i + 1)
            i += 3
        header = row(i, None)
        rows = [(row(i + 1 + k, len(header)), i + 2 + k) for k in range(int(m.group("rows")))]
        _take(block, header, rows, i + 1)
        i += 1 + len(rows)
    return blocks


# -- blocks into a run ---------------------------------------------------------------------------------


def _number(tok: str, line: int) -> tuple[float, int]:
    if tok in ("-", "nan", "-nan"):
        return float("nan"), STATUS_NOT_SUPPORTED
    try:
        return likwid_number(tok, "value"), COUNTED
    except NumberError as exc:
        raise _Error(line, f"a negative count {tok!r}" if tok.startswith("-") and tok[1:2].isdigit() else str(exc)) \
            from None


def _digits(tok: str) -> int:
    """Significant digits a printed number carries (``0.000002``: 1; ``2.132045e-06``: 7)."""
    mantissa = tok.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return len(mantissa)


def _seconds(block: _Block) -> tuple[list[str], str]:
    """Each thread's runtime of the group as printed, the most precise of the three places LIKWID prints it
    (all three are the same time: ``markerRegionTime`` in a region, ``getRuntimeOfGroup`` in a whole run); each
    printed one must be a number, used or not."""
    for vals in (block.runtime, block.region_time, block.metric_runtime):
        for tok in vals or ():
            _number(tok, block.line)
    if block.runtime is not None:
        return block.runtime, "Runtime (RDTSC) [s] of the raw table"
    if block.region_time is not None and block.metric_runtime is not None:
        best = [m if _digits(m) > _digits(r) else r for r, m in zip(block.region_time, block.metric_runtime)]
        return best, "RDTSC Runtime [s] of the Region Info table or the Metric table's, the more precise"
    for vals, what in ((block.region_time, "RDTSC Runtime [s] of the Region Info table"),
                       (block.metric_runtime, "Runtime (RDTSC) [s] of the Metric table")):
        if vals is not None:
            return vals, what
    raise _Error(block.line, f"group {block.gid} ({block.name}) has no runtime: no 'Runtime (RDTSC) [s]' row and "
                 "no Region Info table, so how long it counted is unknown")


def _group_labels(blocks: list[_Block]) -> dict[int, str | None]:
    names = {b.gid: b.name for b in blocks}
    if len(names) == 1:
        return {g: None for g in names}
    dup = {v for v in names.values() if list(names.values()).count(v) > 1}
    return {g: (f"{g}:{v}" if v in dup else v) for g, v in names.items()}


def _event_names(block: _Block) -> list[str]:
    events = [r[0] for r in block.rows]
    return [f"{e}:{c}" if events.count(e) > 1 else e for e, c, _v, _l in block.rows]


def _whole(path: str | os.PathLike, form: str, blocks: list[_Block]) -> PerfStatRun:
    if not blocks:
        raise _Error(None, "no group title with tables")
    label = _group_labels(blocks)
    runtime: dict[tuple, float] = {}  # (region, gid, thread) -> s
    precision = set()
    for b in blocks:
        if not b.rows:
            raise _Error(b.line, f"group {b.gid} ({b.name}) has no table of raw counts")
        vals, what = _seconds(b)
        precision.add(what)
        for t, tok in zip(b.threads, vals):
            v, st = _number(tok, b.line)
            if st != COUNTED:
                raise _Error(b.line, f"group {b.gid}: runtime {tok!r} on thread {t}")
            runtime[(b.region, b.gid, t)] = v
    enabled_of: dict[tuple, float] = {}
    for (region, _g, t), v in runtime.items():
        enabled_of[(region, t)] = enabled_of.get((region, t), 0.0) + v
    cols, value, run, ena, status, lines = [], [], [], [], [], []
    for b in blocks:
        for ev, (_e, _c, vals, ln) in zip(_event_names(b), b.rows):
            if len(vals) != len(b.threads):
                raise _Error(ln, f"{len(vals)} values for {len(b.threads)} threads")
            for t, tok in zip(b.threads, vals):
                v, st = _number(tok, ln)
                aggr = f"CPU{t}" if b.region is None else f"{b.region}:CPU{t}"
                cols.append(PerfColumn(ev, aggr, label[b.gid]))
                value.append(v)
                run.append(runtime[(b.region, b.gid, t)] * 1e9)
                ena.append(enabled_of[(b.region, t)] * 1e9)
                status.append(st)
                lines.append(ln)
    cols = _unique(cols)
    run_a = np.array([run], dtype=np.float64)
    ena_a = np.array([ena], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = np.where(ena_a > 0, 100.0 * run_a / np.where(ena_a > 0, ena_a, 1.0), 0.0)
    pct = np.where(run_a >= ena_a, 100.0, pct)
    st_a = np.array([status], dtype=np.int8)
    derived = sum(b.derived for b in blocks)
    dropped = [{"what": "interval length", "why": "a whole run (or region) as one interval; each cell's enabled time "
                "is its region's (or the run's) runtimes of all groups summed", "count": 1},
               {"what": "runtimes", "why": "how long each group counted, from " + "; ".join(sorted(precision)) +
                " as printed (%e: 7 significant digits, %.6f, %.4f)", "count": len(runtime)}]
    if derived:
        dropped.append({"what": "derived tables", "why": "STAT and Metric tables are computed by LIKWID from the "
                        "counts (a catalog recomputes metrics from re-estimated counts)", "count": derived})
    return _run(path, form, "," if form == "csv" else None, np.array([float(ena_a.max()) / 1e9]), cols,
                np.array([value]), run_a, pct, st_a, np.array([lines], dtype=np.int64), ena_a, dropped)


def _unique(cols: list[PerfColumn]) -> list[PerfColumn]:
    seen: dict[tuple, int] = {}
    out = []
    for c in cols:
        k = (c.event, c.aggr_id, c.cgroup)
        out.append(PerfColumn(c.event, c.aggr_id, c.cgroup, seen.get(k, 0)))
        seen[k] = seen.get(k, 0) + 1
    return out


def _run(path, form: str, sep: str | None, times: np.ndarray, cols: list[PerfColumn], value: np.ndarray,
         running: np.ndarray, pct: np.ndarray, status: np.ndarray, lines: np.ndarray, enabled: np.ndarray | None,
         dropped: list[dict]) -> PerfStatRun:
    t, e = value.shape
    value = np.where(status == COUNTED, value, np.nan)
    arrays = {"value": value.astype(np.float64), "running_ns": running.astype(np.float64),
              "pct_running": pct.astype(np.float64), "status": status.astype(np.int8),
              "n_aggregated": np.full((t, e), -1, dtype=np.int64), "metric_value": np.full((t, e), np.nan),
              "metric_unit": np.full((t, e), "", dtype=object), "lines": lines}
    if enabled is not None:
        arrays["enabled_printed"] = enabled.astype(np.float64)
    times = times.astype(np.float64)
    for a in list(arrays.values()) + [times]:
        a.setflags(write=False)
    return PerfStatRun(source=os.fspath(path), format=f"likwid-{form}", separator=sep,  # type: ignore[arg-type]
                       aggregation="cpu", timestamps=times, columns=tuple(cols), units=("",) * e,
                       variance_pct=None, scaled=False, dropped=tuple(dropped), **arrays)


# -- timeline ------------------------------------------------------------------------------------------


def _timeline(path: str | os.PathLike, lines: list[str]) -> PerfStatRun:
    cpus: list[int] | None = None
    heads: list[tuple[str, list[str], int]] = []  # kind, names, line
    data: list[tuple[int, list[str], str, int]] = []
    other = 0
    for i, raw in enumerate(lines):
        s = raw.rstrip("\r").strip()
        m = _TL_HEAD.match(s)
        if m:
            d = m.group("d")
            rest = s[m.end():]
            names = [x for x in rest.split(d)] if rest else []
            if names and names[0] == "":
                names = names[1:]
            heads.append((m.group("kind"), names, i + 1))
            continue
        m = _TL_CPUS.match(s)
        if m:
            toks = [x for x in re.split(r"[|, ]", m.group("list")) if x]
            if not all(re.fullmatch(r"[0-9]{1,9}", x) for x in toks):
                raise _Error(i + 1, f"a thread list that is not numbers: {m.group('list')[:60]!r}")
            cpus = [int(x) for x in toks]
            continue
        m = _TL_DATA.match(s)
        if m:
            data.append((i + 1, s.split(m.group(1)), m.group(1), i + 1))
            continue
        if s:
            other += 1
    if not heads:
        raise _Error(data[0][0] if data else None, "data lines without their '# GID|EventCount|CpuCount|Total "
                     "runtime [s]|...' header lines (printed on stdout, the data on stderr: save both): the events "
                     "cannot be named")
    metrics = [h for h in heads if h[0] == "MetricsCount"]
    if metrics:
        raise _Error(metrics[0][2], "a timeline of a performance group's metrics (MetricsCount): likwid-perfctr -t "
                     "prints a group's derived metrics, not its counts; mpx re-estimates counts: run -t with a "
                     "custom event set (-g EVENT:COUNTER,...)")
    if not data:
        raise _Error(None, "no data lines (GID EventCount CpuCount time values...)")
    if cpus is None:
        raise _Error(heads[0][2], "no '# HWThreads' line: the threads of the values are unknown")
    n_g = len(heads)
    label = {g + 1: (f"G{g + 1}" if n_g > 1 else None) for g in range(n_g)}
    cols, offset = [], {}
    for g, (_k, names, _ln) in enumerate(heads, start=1):
        offset[g] = len(cols)
        events = [f"{e}#{names[:j].count(e) + 1}" if names.count(e) > 1 else e for j, e in enumerate(names)]
        cols.extend(PerfColumn(e, f"CPU{c}", label[g]) for e in events for c in cpus)
    n_t, n_e = len(data), len(cols)
    value = np.full((n_t, n_e), np.nan)
    running = np.zeros((n_t, n_e))
    pct = np.zeros((n_t, n_e))
    status = np.full((n_t, n_e), STATUS_NOT_COUNTED, dtype=np.int8)
    lines_a = np.zeros((n_t, n_e), dtype=np.int64)
    times = np.zeros(n_t)
    prev = 0.0
    for t, (ln, f, _d, _l) in enumerate(data):
        try:
            gid, n_ev, n_cpu, now = int(f[0]), int(f[1]), int(f[2]), likwid_number(f[3], "time")
        except (ValueError, IndexError):
            raise _Error(ln, "a data line whose first fields are not GID, EventCount, CpuCount, time") from None
        if not 1 <= gid <= n_g:
            raise _Error(ln, f"group {gid}, but the headers name {n_g} group(s)")
        names = heads[gid - 1][1]
        if n_ev != len(names) or n_cpu != len(cpus):
            raise _Error(ln, f"{n_ev} events x {n_cpu} threads, but the headers say {len(names)} x {len(cpus)}")
        vals = f[4:]
        if len(vals) != n_ev * n_cpu:
            raise _Error(ln, f"{len(vals)} values where EventCount x CpuCount is {n_ev * n_cpu} (a cut line?)")
        if not now > prev:
            raise _Error(ln, f"time {now!r} s after {prev!r} s: several runs appended in one file? split them")
        times[t] = now
        o = offset[gid]
        for k, tok in enumerate(vals):  # event-major: each event's threads in turn (likwid-perfctr.lua)
            v, st = _number(tok, ln)
            value[t, o + k], status[t, o + k], lines_a[t, o + k] = v, st, ln
            running[t, o + k], pct[t, o + k] = (now - prev) * 1e9, 100.0
        prev = now
    dropped = [{"what": "timeline reads", "why": "each line is one read of the active group: its counts ran the whole "
                "interval since the previous line, the other groups' were not counted", "count": n_t}]
    if other:
        dropped.append({"what": "other lines", "why": "lines of neither the headers nor the data (the program's own "
                        "output)", "count": other})
    sep = data[0][2]
    return _run(path, "timeline", sep, times, _unique(cols), value, running, pct, status, lines_a, None, dropped)
