"""The model of one ``perf stat -I`` run: `PerfStatRun` (``[T, E]`` arrays) and its rows and columns."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from mpx.readers.perfstat.view import PerfStatReadView, read_view

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COUNTED", "MISSING", "NOT_COUNTED", "NOT_SUPPORTED", "STATUS_NOT_COUNTED", "STATUS_NOT_SUPPORTED",
           "ExtraMetric", "PerfColumn", "PerfStatRow", "PerfStatRun"]

NOT_COUNTED = "<not counted>"
NOT_SUPPORTED = "<not supported>"

#: status of a cell, as stored in `PerfStatRun.status`
COUNTED, STATUS_NOT_COUNTED, STATUS_NOT_SUPPORTED, MISSING = 0, 1, 2, 3


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
class PerfStatRun:
    """Everything one ``perf stat -I`` output holds, as ``[T, E]`` arrays (T intervals, E columns).

    Arrays are read-only. Cells not counted, not supported or missing hold NaN in ``value``; ``status``
    says which (``COUNTED``, ``STATUS_NOT_COUNTED``, ``STATUS_NOT_SUPPORTED``, ``MISSING``); ``running_ns``
    and ``pct_running`` are as printed (NaN only where missing).
    """

    source: str | None
    format: Literal["csv", "json", "plain", "likwid-table", "likwid-csv", "likwid-timeline"]
    separator: str | None  # CSV field separator (None for JSON)
    aggregation: str  # "global", "cpu", "core", "cache", "die", "socket", "node" or "thread"
    timestamps: np.ndarray  # [T] interval ends, s since start, strictly increasing
    columns: tuple[PerfColumn, ...]  # [E]
    units: tuple[str, ...]  # [E] the event unit perf printed ("" for plain counts)
    value: np.ndarray  # [T, E] float64, as printed (scaled unless --no-scale)
    running_ns: np.ndarray  # [T, E] float64, time_running of the interval
    pct_running: np.ndarray  # [T, E] float64, as printed: whole since perf 6.2 (u64 arithmetic), %.2f before
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
    #: [T, E] time_enabled in ns where the tool prints it (likwid-perfctr: the runtimes of all its groups summed,
    #: `mpx.readers.likwid_perfctr`); None for perf, which prints none (see `enabled_ns`)
    enabled_printed: np.ndarray | None = None

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
        there; see `enabled_ns_bounds`. NaN where the cell is missing. A tool that prints it
        (`enabled_printed`) gets its own values back.
        """
        if self.enabled_printed is not None:
            out = np.array(self.enabled_printed, dtype=np.float64)
            out[~self.present] = np.nan
            return out
        mult = np.where(self.n_aggregated > 0, self.n_aggregated, 1).astype(np.float64)
        if cpus is not None:
            if int(cpus) < 1:
                raise ValueError(f"cpus must be >= 1, got {cpus!r}")
            mult = np.full_like(mult, float(cpus))
        out = self.interval_s[:, None] * 1e9 * mult
        out[~self.present] = np.nan
        return out

    def enabled_ns_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """[T, E] bracket ``(lo, hi]`` of ``time_enabled`` implied by run time and perf's printed percent.

        perf 6.2+ truncates (u64: pct = floor(100 run / enabled)), so ``100 run/(pct+1) < enabled <= 100 run/pct``.
        perf 6.1 and earlier print the float rounded to two decimals (``%.2f``: 68 distinct values in one real
        file), so the true share lies within 0.005 of the printed one: in a file with any fractional percentage
        every cell is bracketed by ``100 run/(pct ± 0.005)`` (its whole numbers, ``33.00``, are rounded too).
        Both are ``run`` when pct is 100 (run == enabled exactly). ``hi`` is inf where pct is 0 (or below 0.005
        when rounded); both NaN where run is 0 or the cell is missing.
        """
        run, pct = self.running_ns, self.pct_running
        if self.enabled_printed is not None:  # printed: exact
            both = np.where(run > 0, np.asarray(self.enabled_printed, dtype=np.float64), np.nan)
            return both, both.copy()
        inner = pct[np.isfinite(pct) & (pct > 0) & (pct < 100)]
        half = 0.005 if bool(np.any(inner != np.floor(inner))) else 0.0  # perf <= 6.1: rounded, not truncated
        with np.errstate(divide="ignore", invalid="ignore"):
            lo = np.where(pct >= 100, run, 100.0 * run / (pct + (half if half else 1.0)))
            hi = np.where(pct >= 100, run, np.where(pct > half, 100.0 * run / (pct - half), np.inf))
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
        """The run as the read view a scaler sees, in ns (`mpx.readers.perfstat.view.read_view`)."""
        return read_view(self)

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
