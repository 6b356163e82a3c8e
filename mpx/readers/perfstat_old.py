"""Reader of ``perf stat -I`` output: real measurements to re-estimate (no ground truth, so not a Trace).

Both machine-readable layouts of Linux perf are read (layouts checked against
``tools/perf/util/stat-display.c`` of perf 6.1 and of later kernels, and against real output of perf 6.1):

CSV (``perf stat -I MS -x SEP``), one row per counter and read interval::

    time SEP [aggr id SEP [n cpus SEP]] value SEP unit SEP event SEP [cgroup SEP] [variance% SEP]
         run SEP pct SEP metric value SEP metric unit

- ``time``: seconds since the start (``%lu.%09lu``); ``summary`` on ``--summary`` rows, nothing at all with
  ``--no-csv-summary`` (read as summary rows when they come after the intervals, have exactly one field
  fewer and name a known event).
- aggregation id: ``CPU3`` (``-A``), ``S0-D0-C1`` + CPU count (``--per-core``), ``S0-D0`` (``--per-die``),
  ``S0`` (``--per-socket``), ``N0`` (``--per-node``), ``S0-D0-L3-ID0`` (``--per-cache``), all with the number
  of aggregated CPUs; ``comm-pid`` (``--per-thread``) and ``S0-D0-C1`` alone (per-core metrics under ``-A``)
  without it.
- ``value``: the counter **as printed: already scaled** by perf (``raw * enabled / running``, truncated to an
  integer, then ``%.0f``; ``%.2f`` for events with a fractional scale such as ``task-clock`` in msec) unless
  perf ran with ``--no-scale``; or ``<not counted>`` (running time 0 in this interval, or enabled 0: percent
  ``0.00`` without CPU aggregation, ``100.00`` under ``-A``/``--per-*`` since perf 6.2, which zeroes a failed
  aggregate's times) or ``<not supported>``.
- ``run``: ``time_running`` of the interval in ns. ``pct``: ``100 * run / enabled`` computed by perf in
  **integer** arithmetic (``u64``), printed ``%.2f``, so it is always a whole number (``33.00``); exactly
  ``100.00`` iff run == enabled. Enabled time itself is not printed.
- ``variance`` (``-r N``): relative standard deviation over the runs, ``%.2f%%``.
- metric: the "shadow" metric perf derives (``insn per cycle``, ``CPUs utilized``, ``K/sec``...), both fields
  empty when there is none. Extra metrics of the same counter come on continuation rows whose counter fields
  are empty (``time;;;;;;0.52;stalled cycles per insn``; one separator fewer before perf 6.2); they are kept
  in `PerfStatRun.extra_metrics`, attached to the counter row printed before them (for perf 6.5+ default
  metric groups that is the group's first event); metric-group name rows are skipped (`PerfStatRun.dropped`).
- perf does not quote fields: with ``-x ,`` commas inside PMU event terms (``cpu/event=0x3c,umask=0x0/``)
  and inside metric units are re-joined (the first only when an unclosed ``pmu/`` term is split); prefer
  ``-x ';'``.

JSON (``perf stat -I MS -j``), one object per line with the keys ``interval``, the aggregation key (``cpu``,
``core``, ``cache``, ``die``, ``socket``, ``node``, ``thread``) and ``aggregate-number``, ``counter-value``
(a string), ``unit``, ``event``, ``cgroup``, ``variance``, ``event-runtime``, ``pcnt-running``,
``metric-value`` (a number in perf 6.1, a string later; both metric keys absent without a metric since
perf 6.12), ``metric-unit``. JSON CPU ids (``"cpu" : "3"``) become ``CPU3`` as in CSV. Summary objects have no
``interval``; metric continuation objects have no ``event``. Unknown keys are ignored and listed in
`PerfStatRun.dropped`.

Skipped: ``#`` comment lines (``# started on ...`` of ``-o``) and blank lines. Not read (a clear
`FormatError`): ``--metric-only`` output, the human-readable layout, ``perf stat`` without ``-I``.

Semantics (see ``../shared/reference/multiplexing-methods.md``): perf takes per-interval deltas of raw count,
enabled and running time and scales each interval. Here:

- **raw count** of a cell ≈ ``value * pct / 100``. Because perf truncates the percentage, the true
  ``value * run / enabled`` lies in ``[value * pct/100, value * (pct+1)/100)``: the estimate is a lower bound,
  off by up to ``1/pct`` relative (3% at 33%), exact at 100%. `PerfStatRun.raw_bounds` gives both ends (the
  raw count itself may exceed ``value * run / enabled`` by less than 1: perf truncates the scaled value).
  With aggregation (``--per-socket``...) perf sums per-CPU *scaled* values and per-CPU times, so the
  reconstruction is approximate there too.
- **enabled time** is not printed. `PerfStatRun.enabled_ns` approximates it by the interval length (times
  the aggregated CPU count where perf prints one) — right for system-wide counting, an over-estimate for
  per-task counting (``perf stat CMD``: an event is enabled only while the task is on a CPU).
  `PerfStatRun.enabled_ns_bounds` brackets it from run time and the truncated percentage instead.
- **intervals**: the ``-I`` timestamps are interval ends, in seconds since the start; the length of interval
  t is ``time[t] - time[t-1]`` (the first from 0). Timestamps must strictly increase between intervals (a
  file holding several runs, ``-r N -I`` or ``--append``, restarts them: an error; split such files).
- **missing cells**: a counter (event × aggregation id × cgroup) present in some intervals but not in
  others is an error by default (``missing="error"``): it usually means a truncated or spliced file. Real
  perf does omit rows on purpose in a few modes (system-wide ``--per-thread`` skips zero counts and
  threads come and go; uncore events on CPUs outside their PMU's cpumask); read those with
  ``missing="record"``: the cell is then marked absent in `PerfStatRun.present` (NaN everywhere).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from mpx.errors import FormatError
from mpx.readers._io import read_text
from mpx.trace import Trace

if TYPE_CHECKING:
    import pandas as pd

NAME = "perfstat"

NOT_COUNTED = "<not counted>"
NOT_SUPPORTED = "<not supported>"

#: status of a cell, as stored in `PerfStatRun.status`
COUNTED, STATUS_NOT_COUNTED, STATUS_NOT_SUPPORTED, MISSING = 0, 1, 2, 3

_A = re.ASCII
_TS = re.compile(r"\d+(\.\d+)?\Z", _A)
_INT = re.compile(r"\d+\Z", _A)
_PCT = re.compile(r"\d+(\.\d+)?\Z", _A)
_NUM = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z", _A)
_VAR = re.compile(r"[-+]?(\d+(\.\d*)?|nan|inf)%\Z", _A | re.IGNORECASE)
_CSV_START = re.compile(r"\s*(\d+\.\d+|summary)([^\w\s.<>+\-]|\t)", _A)

#: CSV aggregation ids: kind → (pattern, columns); ``core`` may also come with 1 column (see module doc)
_AGGR_CSV: tuple[tuple[str, re.Pattern, int], ...] = (
    ("cpu", re.compile(r"CPU\d+\Z", _A), 1),
    ("cache", re.compile(r"S\d+-D\d+-L\d+-ID\d+\Z", _A), 2),
    ("core", re.compile(r"S\d+-(D\d+-)?C\d+\Z", _A), 2),
    ("die", re.compile(r"S\d+-D\d+\Z", _A), 2),
    ("socket", re.compile(r"S\d+\Z", _A), 2),
    ("node", re.compile(r"N\d+\Z", _A), 2),
)
_THREAD = re.compile(r".+-\d+\Z", _A | re.DOTALL)
_JSON_AGGR_KEYS = ("cpu", "core", "cache", "die", "socket", "node", "thread")
_JSON_KNOWN = frozenset(
    _JSON_AGGR_KEYS
    + ("interval", "aggregate-number", "counter-value", "unit", "event", "cgroup", "variance",
       "event-runtime", "pcnt-running", "metric-value", "metric-unit", "metricgroup")
)


class _RowError(Exception):
    """A problem with one row; turned into a FormatError naming the file and line."""


# -- public structures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PerfStatRow:
    """One counter row of perf stat output, as printed (also used for ``--summary`` rows)."""

    line: int
    time: float | None  # interval end in s since start; None for a summary row
    aggr_id: str | None  # CPU3, S0-D0-C1, S0, N0, comm-pid... (None without aggregation columns)
    n_aggregated: int | None  # CPUs aggregated into the row (only where perf prints it)
    cgroup: str | None
    event: str
    unit: str
    value: float  # as printed (scaled unless --no-scale); NaN unless counted
    status: int  # COUNTED, STATUS_NOT_COUNTED or STATUS_NOT_SUPPORTED
    running_ns: int
    pct_running: float
    variance_pct: float | None  # with -r
    metrics: tuple[tuple[float, str], ...] = ()  # (value, unit), first one from the row itself

    @property
    def key(self) -> tuple[str | None, str | None, str]:
        return (self.aggr_id, self.cgroup, self.event)


@dataclass(frozen=True)
class PerfColumn:
    """What one column of the ``[T, E]`` arrays is: an event on one aggregation id and cgroup."""

    event: str
    aggr_id: str | None = None
    cgroup: str | None = None
    occurrence: int = 0  # 0, or 1, 2... when perf printed the same event several times per interval

    @property
    def label(self) -> str:
        """``event``, ``CPU3:event``, ``event@cgroup``, ``event#2`` (a unique, readable column name)."""
        s = self.event if self.aggr_id is None else f"{self.aggr_id}:{self.event}"
        if self.cgroup is not None:
            s = f"{s}@{self.cgroup}"
        if self.occurrence:
            s = f"{s}#{self.occurrence + 1}"
        return s


@dataclass(frozen=True)
class ExtraMetric:
    """A metric perf printed on a continuation row (after the first metric of a counter)."""

    line: int
    t: int  # interval index (-1 for the summary)
    column: int  # column index (-1 for the summary)
    value: float
    unit: str


@dataclass(frozen=True, eq=False)
class PerfStatReadView:
    """A run's read view (`PerfStatRun.read_view`): per column label ``events[E]``, interval ``edges[T+1]``
    and ``raw``/``enabled``/``running`` ``[T, E]`` on ``time_unit`` (always ``"ns"``: perf prints
    running times in ns), with ``notes`` on the choices made."""

    events: tuple[str, ...]
    edges: np.ndarray
    raw: np.ndarray
    enabled: np.ndarray
    running: np.ndarray
    time_unit: str = "ns"
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class PerfStatRun:
    """Everything one ``perf stat -I`` output holds, as ``[T, E]`` arrays (T intervals, E columns).

    Arrays are read-only. Cells not counted, not supported or missing hold NaN in ``value``; ``status``
    says which (``COUNTED``, ``STATUS_NOT_COUNTED``, ``STATUS_NOT_SUPPORTED``, ``MISSING``); ``running_ns``
    and ``pct_running`` are as printed (NaN only where missing).
    """

    source: str | None
    format: Literal["csv", "json"]
    separator: str | None  # CSV field separator (None for JSON)
    aggregation: str  # "global", "cpu", "core", "cache", "die", "socket", "node" or "thread"
    timestamps: np.ndarray  # [T] interval ends, s since start, strictly increasing
    columns: tuple[PerfColumn, ...]  # [E]
    units: tuple[str, ...]  # [E] the event unit perf printed ("" for plain counts)
    value: np.ndarray  # [T, E] float64, as printed (scaled unless --no-scale)
    running_ns: np.ndarray  # [T, E] float64, time_running of the interval
    pct_running: np.ndarray  # [T, E] float64, truncated integer percent
    status: np.ndarray  # [T, E] int8
    n_aggregated: np.ndarray  # [T, E] int64, -1 where perf prints no CPU count
    variance_pct: np.ndarray | None  # [T, E] float64 with -r, else None
    metric_value: np.ndarray  # [T, E] float64, NaN when none
    metric_unit: np.ndarray  # [T, E] object (str, "" when none)
    lines: np.ndarray  # [T, E] int64 source line of each cell (0 where missing)
    extra_metrics: tuple[ExtraMetric, ...] = ()
    summary: tuple[PerfStatRow, ...] = ()  # --summary rows
    scaled: bool = True  # False when read with scaled=False (perf ran with --no-scale)
    dropped: tuple[dict, ...] = ()  # what the reader skipped on purpose: {"what": ..., "why": ...}

    # -- shape and names ----------------------------------------------------------------------

    @property
    def n_intervals(self) -> int:
        return int(self.timestamps.shape[0])

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    @property
    def labels(self) -> tuple[str, ...]:
        """Unique column names (see `PerfColumn.label`)."""
        return tuple(c.label for c in self.columns)

    @property
    def events(self) -> tuple[str, ...]:
        """Distinct event names, in order of first appearance."""
        return tuple(dict.fromkeys(c.event for c in self.columns))

    def column(self, label: str) -> int:
        """Index of the column called ``label``."""
        try:
            return self.labels.index(label)
        except ValueError:
            raise KeyError(f"no column {label!r}; columns: {', '.join(self.labels[:10])}") from None

    # -- masks --------------------------------------------------------------------------------

    @property
    def present(self) -> np.ndarray:
        """[T, E] bool: perf printed a row for this cell."""
        return self.status != MISSING

    @property
    def counted(self) -> np.ndarray:
        """[T, E] bool: a number was printed (neither ``<not counted>``, ``<not supported>`` nor missing)."""
        return self.status == COUNTED

    @property
    def not_counted(self) -> np.ndarray:
        return self.status == STATUS_NOT_COUNTED

    @property
    def not_supported(self) -> np.ndarray:
        return self.status == STATUS_NOT_SUPPORTED

    # -- time ---------------------------------------------------------------------------------

    @property
    def interval_s(self) -> np.ndarray:
        """[T] length of each read interval in s (difference of timestamps, the first from 0)."""
        return np.diff(self.timestamps, prepend=0.0)

    def enabled_ns(self, cpus: int | None = None) -> np.ndarray:
        """[T, E] approximate ``time_enabled`` of each cell (perf does not print it): interval length.

        The length is multiplied by ``cpus`` when given, else by the CPU count perf printed for the row
        (``--per-core/-die/-socket/-node/-cache``), else by 1. Right for system-wide counting (``-a``); for
        the global row of ``-a`` without ``-A`` pass the number of CPUs. Per-task counting
        (``perf stat CMD``) enables an event only while the task runs, so the interval length over-states it
        there; see `enabled_ns_bounds`. NaN where the cell is missing.
        """
        mult = np.where(self.n_aggregated > 0, self.n_aggregated, 1).astype(np.float64)
        if cpus is not None:
            if int(cpus) < 1:
                raise ValueError(f"cpus must be >= 1, got {cpus!r}")
            mult = np.full_like(mult, float(cpus))
        out = self.interval_s[:, None] * 1e9 * mult
        out[~self.present] = np.nan
        return out

    def enabled_ns_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """[T, E] bracket ``(lo, hi]`` of ``time_enabled`` implied by run time and perf's truncated percent.

        pct = floor(100 run / enabled) gives ``100 run/(pct+1) < enabled <= 100 run/pct``; both are
        ``run`` when pct is 100 (run == enabled exactly). ``hi`` is inf where pct is 0; both NaN where
        run is 0 or the cell is missing.
        """
        run, pct = self.running_ns, self.pct_running
        with np.errstate(divide="ignore", invalid="ignore"):
            lo = np.where(pct >= 100, run, 100.0 * run / (pct + 1.0))
            hi = np.where(pct >= 100, run, np.where(pct > 0, 100.0 * run / pct, np.inf))
        bad = ~(run > 0)
        lo[bad] = np.nan
        hi[bad] = np.nan
        return lo, hi

    # -- counts -------------------------------------------------------------------------------

    @property
    def raw(self) -> np.ndarray:
        """[T, E] raw count estimate ``value * pct / 100`` (the value itself when read with scaled=False).

        A lower bound: perf's percent is truncated (see module doc and `raw_bounds`). NaN unless counted.
        """
        if not self.scaled:
            return self.value.copy()
        return self.value * self.pct_running / 100.0

    def raw_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """[T, E] ``(lo, hi)`` with ``lo <= value * run / enabled < hi`` (equal where pct is 100)."""
        if not self.scaled:
            return self.value.copy(), self.value.copy()
        pct = self.pct_running
        hi = self.value * np.minimum(pct + 1.0, 100.0) / 100.0
        return self.raw, hi

    # -- the read view a scaler sees ------------------------------------------------------------

    def read_view(self) -> PerfStatReadView:
        """The run as the read view a scaler sees (``mpx estimate``; to an Observation with
        `mpx.observation.Observation.from_read_view`), in ns:

        - ``running`` = perf's ``time_running`` of the interval;
        - ``enabled`` = the interval length (times the CPUs perf aggregated), which is ``time_enabled`` for
          system-wide counting; where that contradicts perf's printed (integer-truncated) running
          percentage (per-task counting: an event is enabled only while the task runs), the largest
          enabled time the percentage allows, ``100 * running / pct``, instead (said in ``notes``);
        - ``raw`` = ``value * running / enabled``, so that perf's own scaling ``raw * enabled / running``
          gives back exactly the value perf printed and ``linear`` reproduces perf;
        - ``<not counted>``: running 0 (nothing to scale); ``<not supported>`` and missing cells: enabled 0.
        """
        notes: list[str] = []
        edges = np.concatenate([[0.0], np.asarray(self.timestamps, dtype=np.float64) * 1e9])
        present = np.asarray(self.present, dtype=bool)
        counted = np.asarray(self.counted, dtype=bool)
        running = np.where(counted, np.nan_to_num(np.asarray(self.running_ns, dtype=np.float64)), 0.0)
        enabled = np.nan_to_num(self.enabled_ns(), nan=0.0)
        lo, hi = self.enabled_ns_bounds()
        with np.errstate(invalid="ignore"):
            bad = (counted & (running > 0) & np.isfinite(hi)
                   & ~((enabled > lo * (1 - 1e-12)) & (enabled <= hi * (1 + 1e-12))))
        if bad.any():
            enabled = np.where(bad, hi, enabled)
            notes.append(f"{int(bad.sum())} of {int(counted.sum())} counted cells: the interval length contradicts "
                         "perf's running percentage (per-task counting?); enabled = 100 * running / pct there")
        not_supported = np.asarray(self.not_supported, dtype=bool) | ~present
        enabled = np.where(not_supported, 0.0, enabled)
        running = np.minimum(running, np.where(enabled > 0, enabled, running))
        value = np.asarray(self.value, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            raw = np.where(counted & (enabled > 0), value * running / np.where(enabled > 0, enabled, 1.0), 0.0)
        raw = np.nan_to_num(raw)
        return PerfStatReadView(self.labels, edges, raw, enabled, running, "ns", tuple(notes))

    # -- tables -------------------------------------------------------------------------------

    def to_dataframe(self) -> pd.DataFrame:
        """Tidy pandas DataFrame: one row per printed cell (missing cells are left out).

        Columns: time, interval_s, column, event, aggr_id, n_aggregated, cgroup, unit, value, raw,
        running_ns, pct_running, enabled_ns (interval approximation), variance_pct, counted, not_counted,
        not_supported, metric_value, metric_unit, line.
        """
        import pandas as pd

        t_idx, e_idx = np.nonzero(self.present)
        n_agg = self.n_aggregated[t_idx, e_idx]
        var = (self.variance_pct[t_idx, e_idx] if self.variance_pct is not None
               else np.full(t_idx.shape, np.nan))
        return pd.DataFrame({
            "time": self.timestamps[t_idx],
            "interval_s": self.interval_s[t_idx],
            "column": pd.Categorical([self.columns[e].label for e in e_idx],
                                     categories=list(self.labels)),
            "event": [self.columns[e].event for e in e_idx],
            "aggr_id": [self.columns[e].aggr_id for e in e_idx],
            "n_aggregated": pd.Series(n_agg).where(n_agg >= 0).astype("Int64"),
            "cgroup": [self.columns[e].cgroup for e in e_idx],
            "unit": [self.units[e] for e in e_idx],
            "value": self.value[t_idx, e_idx],
            "raw": self.raw[t_idx, e_idx],
            "running_ns": self.running_ns[t_idx, e_idx],
            "pct_running": self.pct_running[t_idx, e_idx],
            "enabled_ns": self.enabled_ns()[t_idx, e_idx],
            "variance_pct": var,
            "counted": self.counted[t_idx, e_idx],
            "not_counted": self.not_counted[t_idx, e_idx],
            "not_supported": self.not_supported[t_idx, e_idx],
            "metric_value": self.metric_value[t_idx, e_idx],
            "metric_unit": self.metric_unit[t_idx, e_idx].astype(str),
            "line": self.lines[t_idx, e_idx],
        })

    def metrics_dataframe(self) -> pd.DataFrame:
        """Every metric perf printed (first and continuation ones) as a tidy DataFrame.

        Columns: time (NaN for summary rows), column (label, or the summary row's event), metric_value,
        metric_unit, line.
        """
        import pandas as pd

        rows = []
        t_idx, e_idx = np.nonzero(self.metric_unit != "")
        for t, e in zip(t_idx.tolist(), e_idx.tolist()):
            rows.append((float(self.timestamps[t]), self.columns[e].label, float(self.metric_value[t, e]),
                         str(self.metric_unit[t, e]), int(self.lines[t, e])))
        for m in self.extra_metrics:
            if m.t >= 0:
                rows.append((float(self.timestamps[m.t]), self.columns[m.column].label, m.value, m.unit,
                             m.line))
        for r in self.summary:
            rows.extend((math.nan, r.event, v, u, r.line) for v, u in r.metrics)
        rows.sort(key=lambda r: r[4])
        return pd.DataFrame(rows, columns=["time", "column", "metric_value", "metric_unit", "line"])

    def __repr__(self) -> str:
        return (f"PerfStatRun({self.source!r}: {self.n_columns} columns x {self.n_intervals} intervals, "
                f"{self.format}, aggregation={self.aggregation})")


# -- registry interface ---------------------------------------------------------------------------


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
        m = _CSV_START.match(raw)
        if not m:
            return False
        fields = [f.strip() for f in raw.rstrip("\r").split(m.group(2))]
        return any(_INT.match(a) and _PCT.match(b) for a, b in zip(fields[3:], fields[4:]))
    return False


def read(path: str | os.PathLike, **options: Any) -> Trace:
    """Refuses: perf stat output has no ground truth. Use `read_perf_stat`."""
    raise FormatError(
        path, None, "perf stat output is measured data without ground truth, not a Trace: "
        "use mpx.readers.perfstat.read_perf_stat"
    )


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
        raise ValueError(f"missing must be 'error' or 'record', got {missing!r}")
    text = read_text(path)
    lines = text.split("\n")
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
        parser: _Parser = _JsonParser(path, scaled)
    else:
        if s.startswith("time,") or s.startswith("time" + (sep or ",")):
            raise FormatError(path, lineno, "perf stat --metric-only output is not supported "
                              "(it holds no counter values): re-run without --metric-only")
        if sep is None:
            m = _CSV_START.match(raw)
            if not m:
                raise FormatError(
                    path, lineno, "not perf stat -I CSV or JSON output: expected a timestamp and a field "
                    f"separator at the start of {s[:60]!r} (human-readable output? run perf stat with "
                    "-x ';' or -j; plain perf stat without -I is not read either)")
            sep = m.group(2)
        elif sep == "" or sep.isspace() and sep != "\t":
            raise ValueError(f"sep must be a non-blank string (or tab), got {sep!r}")
        parser = _CsvParser(path, scaled, sep, cgroup)
    for i in range(lineno - 1, len(lines)):
        raw = lines[i].rstrip("\r")
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        try:
            parser.feed(i + 1, raw)
        except _RowError as exc:
            raise FormatError(path, i + 1, str(exc)) from None
    return parser.finish(missing)


# -- parsing internals ----------------------------------------------------------------------------


def _number(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise _RowError(f"{what} {text!r} is not a number") from None
    # float() also takes "nan", "inf", "1_000" and non-ASCII digits: perf prints none of them
    if not math.isfinite(v):
        raise _RowError(f"{what} {text!r} is not finite")
    if not _NUM.match(text):
        raise _RowError(f"{what} {text!r} is not a number")
    return v


def _value(text: str) -> tuple[float, int]:
    if text == NOT_COUNTED:
        return math.nan, STATUS_NOT_COUNTED
    if text == NOT_SUPPORTED:
        return math.nan, STATUS_NOT_SUPPORTED
    return _number(text, "counter value"), COUNTED


def _value_like(text: str) -> bool:
    return text in (NOT_COUNTED, NOT_SUPPORTED) or bool(_NUM.match(text))


def _check_pct(pct: float) -> None:
    if not 0.0 <= pct <= 100.0:
        raise _RowError(f"percent running {pct!r} is outside 0..100")


class _Parser:
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
        self.units: dict[tuple, tuple[str, int]] = {}  # column key → unit, line first seen

    def drop(self, what: str, why: str) -> None:
        entry = self.dropped.setdefault(what, {"what": what, "why": why, "count": 0})
        entry["count"] += 1

    def set_aggregation(self, kind: str) -> None:
        if self.aggregation is None:
            self.aggregation = kind
        elif kind != self.aggregation:
            raise _RowError(f"aggregation changes from {self.aggregation!r} to {kind!r} within the file")

    def add_row(self, row: PerfStatRow) -> None:
        if row.time is None:
            self.summary.append(row)
            self.last = (row, None)
            return
        if self.summary:
            raise _RowError("an interval row after the --summary rows")
        if not self.times or row.time > self.times[-1]:
            if row.time <= 0:
                raise _RowError(f"timestamp {row.time!r} s is not positive")
            self.times.append(row.time)
            self.first_line.append(row.line)
            self.cells.append({})
        elif row.time < self.times[-1]:
            raise _RowError(
                f"timestamp goes backwards ({row.time!r} s after {self.times[-1]!r} s); several runs "
                "(-r with -I, --append) in one file? split them")
        cell = self.cells[-1]
        occ = 0
        while (row.aggr_id, row.cgroup, row.event, occ) in cell:
            occ += 1
        key = (row.aggr_id, row.cgroup, row.event, occ)
        cell[key] = row
        seen = self.units.setdefault(key, (row.unit, row.line))
        if seen[0] != row.unit:
            raise _RowError(f"unit of {row.event!r} changes from {seen[0]!r} (line {seen[1]}) "
                            f"to {row.unit!r}")
        self.last = (row, key)

    def add_metric(self, time: float | None, aggr_id: str | None, value: float, unit: str, line: int) -> None:
        if self.last is None:
            raise _RowError("a metric continuation row before any counter row")
        row, key = self.last
        if row.time != time or row.aggr_id != aggr_id:
            raise _RowError(f"a metric continuation row that does not follow its counter row "
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


@dataclass
class _CsvLayout:
    kind: str  # aggregation kind
    id_cols: int  # 0, 1 or 2 columns between time and value
    cgroup: bool
    variance: bool
    metric: bool
    n_fields: int = 0  # field count of the first counter row
    events: set = field(default_factory=set)
    pattern: re.Pattern | None = None  # what the aggregation ids look like

    @property
    def run_index(self) -> int:
        """Where the run time is when no field holds the separator."""
        return 1 + self.id_cols + 3 + self.cgroup + self.variance


class _CsvParser(_Parser):
    fmt = "csv"

    def __init__(self, path, scaled: bool, sep: str, cgroup: bool | None) -> None:
        super().__init__(path, scaled)
        self.sep = sep
        self.cgroup_opt = cgroup
        self.layout: _CsvLayout | None = None

    # layout of the first counter row decides the whole file
    def _infer_layout(self, f: list[str]) -> _CsvLayout:
        if len(f) < 6:
            raise _RowError(f"{len(f)} fields; a perf stat -I CSV row has at least 6 "
                            f"(time, value, unit, event, run, percent) separated by {self.sep!r}")
        if f[1] == "" or (len(f) > 2 and f[2] == "" and any(p.match(f[1]) for _, p, _ in _AGGR_CSV)):
            raise _RowError("a metric continuation row (no counter value) before any counter row")
        if _value_like(f[1]):
            kind, id_cols = "global", 0
        else:
            kind, id_cols = None, 0
            for name, pat, cols in _AGGR_CSV:
                if pat.match(f[1]):
                    kind, id_cols = name, cols
                    if cols == 2 and not (_INT.match(f[2]) and len(f) > 3 and _value_like(f[3])):
                        if name == "core" and _value_like(f[2]):
                            id_cols = 1  # per-core id under -A (no CPU count)
                        else:
                            raise _RowError(f"aggregation id {f[1]!r} is not followed by a CPU count and "
                                            "a counter value")
                    break
            if kind is None:
                if _THREAD.match(f[1]) and _value_like(f[2]):
                    kind, id_cols = "thread", 1
                else:
                    raise _RowError(f"cannot read {f[1]!r} as a counter value, <not counted>, "
                                    "<not supported> or an aggregation id (CPU3, S0-D0-C1, S0, N0, comm-pid); "
                                    "perf stat without -I has no timestamps and is not read")
        i = 1 + id_cols
        p = self._find_run(f, i, None)
        mid = f[i + 2:p]
        variance = len(mid) >= 2 and bool(_VAR.match(mid[-1]))
        mid2 = mid[:-1] if variance else mid
        if self.cgroup_opt is None:
            cgroup = len(mid2) == 2 and not self._split_term(mid2[:1] + ["x"])
        else:
            cgroup = self.cgroup_opt
        pattern = next((pat for k, pat, _ in _AGGR_CSV if k == kind), _THREAD)
        return _CsvLayout(kind, id_cols, cgroup, variance, metric=len(f) > p + 2, n_fields=len(f),
                          pattern=pattern)

    def _find_run(self, f: list[str], i: int, metric: bool | None, guess: int | None = None) -> int:
        """Index of the run-time field: the first int field followed by a percent after unit and event."""
        if guess is not None and guess + 1 < len(f) and _INT.match(f[guess]) and _PCT.match(f[guess + 1]):
            rest = len(f) - guess - 2
            if (rest == 2 or (rest > 2 and self.sep == ",")) if metric else rest == 0:
                if not metric or f[guess + 2] == "" or _NUM.match(f[guess + 2]):
                    return guess
        for p in range(i + 3, len(f) - 1):
            if not (_INT.match(f[p]) and _PCT.match(f[p + 1])):
                continue
            rest = len(f) - p - 2
            ok_metric = rest >= 2 and (f[p + 2] == "" or _NUM.match(f[p + 2]))
            if metric is None and (rest == 0 or ok_metric):
                return p
            if metric is True and ok_metric:
                return p
            if metric is False and rest == 0:
                return p
        raise _RowError(self._count_msg(f, "no run-time and percent-running fields where expected"))

    def _count_msg(self, f: list[str], what: str) -> str:
        exp = f" (the first row has {self.layout.n_fields})" if self.layout else ""
        return f"{what}: wrong number of fields? {len(f)} fields{exp} separated by {self.sep!r}"

    def _split_term(self, pieces: list[str]) -> bool:
        """Is a multi-field event name a PMU term split at the separator (``cpu/event=0x3c,umask=0x1/``)?"""
        return pieces[0].count("/") % 2 == 1 and all(pieces)

    def _parse_counter(self, f: list[str], raw_f: list[str], time: float | None, lineno: int) -> PerfStatRow:
        lay = self.layout
        assert lay is not None
        aggr_id, n_agg = None, None
        if lay.id_cols:
            if len(f) < 2 + lay.id_cols:
                raise _RowError(self._count_msg(f, "row too short"))
            aggr_id = f[1]
            if not lay.pattern.match(aggr_id):
                raise _RowError(f"aggregation id {aggr_id!r} does not fit the file's {lay.kind!r} ids")
            if lay.id_cols == 2:
                if not _INT.match(f[2]):
                    raise _RowError(f"CPU count {f[2]!r} is not an integer")
                n_agg = int(f[2])
        i = 1 + lay.id_cols
        if len(f) < i + 5:
            raise _RowError(self._count_msg(f, "row too short"))
        value, status = _value(f[i])
        unit = f[i + 1]
        p = self._find_run(f, i, lay.metric, lay.run_index)
        mid = f[i + 2:p]
        variance = None
        if lay.variance:
            if len(mid) < 2 or not _VAR.match(mid[-1]):
                raise _RowError(self._count_msg(f, "no -r variance field (NN.NN%) before the run time"))
            text = mid.pop()[:-1]
            variance = math.nan if text.lower().lstrip("+-") in ("nan", "inf") else float(text)
        cgroup = None
        if lay.cgroup:
            if len(mid) < 2:
                raise _RowError(self._count_msg(f, "no cgroup field after the event"))
            cgroup = mid.pop()
        if not mid or not mid[0]:
            raise _RowError("empty event name")
        if len(mid) > 1 and not self._split_term(mid):
            raise _RowError(self._count_msg(f, "extra fields after the event name"))
        event = self.sep.join(raw_f[i + 2:i + 2 + len(mid)]).strip()
        run = int(f[p])
        pct = _number(f[p + 1], "percent running")
        _check_pct(pct)
        metrics: tuple[tuple[float, str], ...] = ()
        if lay.metric:
            mu = f[p + 3:]
            if len(mu) > 1 and self.sep != ",":
                raise _RowError(self._count_msg(f, "extra fields after the metric unit"))
            munit = self.sep.join(raw_f[p + 3:]).strip()
            mv = math.nan if f[p + 2] == "" else _number(f[p + 2], "metric value")
            if munit:
                metrics = ((mv, munit),)
            elif f[p + 2]:
                raise _RowError(f"metric value {f[p + 2]!r} without a metric unit")
        return PerfStatRow(lineno, time, aggr_id, n_agg, cgroup, event, unit, value, status, run, pct,
                           variance, metrics)

    def _continuation(self, f: list[str], time: float | None, lineno: int) -> bool:
        """Handle a row without value and event (extra metric or metric-group header); False if it is not one."""
        lay = self.layout
        assert lay is not None
        i = 1 + lay.id_cols
        if len(f) <= i or f[i] != "":
            return False
        aggr_id = f[1] if lay.id_cols else None
        if lay.id_cols == 2 and not _INT.match(f[2]):
            return False
        body = f[i:]
        nonempty = [(j, x) for j, x in enumerate(body) if x]
        if not nonempty:
            self.drop("empty metric rows", "a continuation row with no metric in it")
            return True
        if len(nonempty) == 1 and nonempty[0][0] == len(body) - 1 and not _NUM.match(nonempty[0][1]):
            self.drop("metric group headers", "metric group names on their own rows carry no values")
            return True
        if len(body) >= 2 and body[-1] and (body[-2] == "" or _NUM.match(body[-2])):
            # run/percent/variance fields may precede the metric (perf >= 6.5 default metric groups)
            for x in body[:-2]:
                if x and not (_NUM.match(x) or _VAR.match(x)):
                    return False
            mv = math.nan if body[-2] == "" else _number(body[-2], "metric value")
            self.add_metric(time, aggr_id, mv, body[-1], lineno)
            return True
        return False

    def feed(self, lineno: int, raw: str) -> None:
        raw_f = raw.split(self.sep)
        f = [x.strip() for x in raw_f]
        head = f[0]
        if head == "summary":
            time = None
        elif _TS.match(head):
            time = _number(head, "timestamp")
        else:
            # --summary --no-csv-summary rows carry no time at all
            if self.layout is not None and self.summary and self._continuation(["summary"] + f, None, lineno):
                return
            row = self._no_csv_summary(f, raw_f, lineno) if self.layout is not None else None
            if row is None:
                raise _RowError(f"{head[:40]!r} is not a timestamp (seconds since start) or 'summary'")
            self.add_row(row)
            return
        if self.layout is None:
            self.layout = self._infer_layout(f)
            self.set_aggregation(self.layout.kind)
        if self._continuation(f, time, lineno):
            return
        try:
            row = self._parse_counter(f, raw_f, time, lineno)
        except _RowError:
            row = self._no_csv_summary(f, raw_f, lineno)
            if row is None:
                raise
        self.add_row(row)
        if row.time is not None:
            self.layout.events.add(row.event)

    def _no_csv_summary(self, f: list[str], raw_f: list[str], lineno: int) -> PerfStatRow | None:
        """A ``--summary --no-csv-summary`` row: one field fewer (no time), a known event, after the intervals."""
        lay = self.layout
        if not self.times or len(f) != lay.n_fields - 1:
            return None
        try:
            row = self._parse_counter(["summary"] + f, ["summary"] + raw_f, None, lineno)
        except _RowError:
            return None
        return row if row.event in lay.events else None


class _JsonParser(_Parser):
    fmt = "json"

    def feed(self, lineno: int, raw: str) -> None:
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            hint = (" (perf stat --metric-only output is not supported: re-run without --metric-only)"
                    if "}{" in raw.replace(" ", "") else "")
            raise _RowError(f"not a JSON object: {str(exc)[:80]}{hint}") from None
        if not isinstance(obj, dict):
            raise _RowError(f"a JSON {type(obj).__name__}, expected an object")
        for k in obj:
            if k not in _JSON_KNOWN:
                self.drop(f"JSON key {k!r}", "not a key of perf stat -j output that mpx reads")
        if "counter-value" not in obj and "event" not in obj and "interval" in obj and len(obj) >= 2 and not (
            {"metric-value", "metric-unit", "metricgroup"} & obj.keys()
        ):
            raise _RowError("perf stat --metric-only output is not supported (it holds no counter values): "
                            "re-run without --metric-only")
        time = None
        if "interval" in obj:
            time = self._num(obj, "interval")
        aggr_id = None
        kinds = [k for k in _JSON_AGGR_KEYS if k in obj]
        if len(kinds) > 1:
            raise _RowError(f"several aggregation keys: {kinds}")
        if kinds:
            aggr_id = self._str(obj, kinds[0])
            if kinds[0] == "cpu" and _INT.match(aggr_id):
                aggr_id = f"CPU{aggr_id}"  # as the CSV layout prints it
        if "event" not in obj and "counter-value" not in obj:
            if "metricgroup" in obj:
                self.drop("metric group headers", "metric group names on their own rows carry no values")
                return
            if "metric-unit" in obj:
                unit = self._str(obj, "metric-unit")
                mv = self._metric_value(obj)
                if unit:
                    self.add_metric(time, aggr_id, mv, unit, lineno)
                else:
                    self.drop("empty metric rows", "a continuation row with no metric in it")
                return
            raise _RowError(f"no 'event' and no 'counter-value' key (keys: {sorted(obj)[:8]})")
        self.set_aggregation(kinds[0] if kinds else "global")
        n_agg = None
        if "aggregate-number" in obj:
            n = obj["aggregate-number"]
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise _RowError(f"aggregate-number {n!r} is not a non-negative integer")
            n_agg = n
        for k in ("counter-value", "event", "event-runtime", "pcnt-running"):
            if k not in obj:
                raise _RowError(f"no {k!r} key")
        cv = obj["counter-value"]
        if isinstance(cv, str):
            value, status = _value(cv.strip())
        elif isinstance(cv, (int, float)) and not isinstance(cv, bool):
            value, status = self._num(obj, "counter-value"), COUNTED
        else:
            raise _RowError(f"counter-value {cv!r} is neither a number nor a string")
        event = self._str(obj, "event")
        if not event:
            raise _RowError("empty event name")
        run = obj["event-runtime"]
        if not isinstance(run, int) or isinstance(run, bool) or run < 0:
            raise _RowError(f"event-runtime {run!r} is not a non-negative integer (ns)")
        pct = self._num(obj, "pcnt-running")
        _check_pct(pct)
        variance = self._num(obj, "variance") if "variance" in obj else None
        unit = self._str(obj, "unit") if "unit" in obj else ""
        cgroup = self._str(obj, "cgroup") if "cgroup" in obj else None
        metrics: tuple[tuple[float, str], ...] = ()
        if "metric-unit" in obj or "metric-value" in obj:
            munit = self._str(obj, "metric-unit") if "metric-unit" in obj else ""
            mv = self._metric_value(obj)
            if munit:
                metrics = ((mv, munit),)
        self.add_row(PerfStatRow(lineno, time, aggr_id, n_agg, cgroup, event, unit, value, status, run, pct,
                                 variance, metrics))

    @staticmethod
    def _num(obj: dict, key: str) -> float:
        v = obj[key]
        if isinstance(v, str):
            return _number(v.strip(), key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _RowError(f"{key} {v!r} is not a number")
        v = float(v)
        if not math.isfinite(v):
            raise _RowError(f"{key} {v!r} is not finite")
        return v

    @staticmethod
    def _str(obj: dict, key: str) -> str:
        v = obj[key]
        if not isinstance(v, str):
            raise _RowError(f"{key} {v!r} is not a string")
        return v

    def _metric_value(self, obj: dict) -> float:
        if "metric-value" not in obj:
            return math.nan
        v = obj["metric-value"]
        if isinstance(v, str) and v.strip() in ("", "none"):
            return math.nan
        return self._num(obj, "metric-value")
