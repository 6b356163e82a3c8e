"""Reader of ``perf stat -I`` output: real measurements to re-estimate (no ground truth, so not a Trace).

Modules: `parse` (`read_perf_stat`, `sniff`), `forms` and `plain` (every other form: the human-readable
layout, ``-x``/``-j`` of a whole run), `run` (the `PerfStatRun` model), `view` (the run as a
scaler's read view, `PerfStatRun.read_view`, which `mpx.observation.Observation.from_read_view` turns
into an Observation).

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
- ``run``: ``time_running`` of the interval in ns. ``pct``: ``100 * run / enabled``, printed ``%.2f``;
  perf 6.2+ computes it in **integer** arithmetic (``u64``: a whole number, ``33.00``), perf 6.1 and earlier
  in floating point (``33.33``: fractions, which `PerfStatRun.raw_bounds` brackets too); ``100.00`` when
  run == enabled. Enabled time itself is not printed.
- ``variance`` (``-r N``): relative standard deviation over the runs, ``%.2f%%``.
- metric: the "shadow" metric perf derives (``insn per cycle``, ``CPUs utilized``, ``K/sec``...), both fields
  empty when there is none. Extra metrics of the same counter come on continuation rows whose counter fields
  are empty (``time;;;;;;0.52;stalled cycles per insn``; one separator fewer before perf 6.2); they are kept
  in `PerfStatRun.extra_metrics`, attached to the counter row printed before them. perf 6.5+ default metric
  groups print a group-name row and then the group's metrics *instead of* its events' rows (``printout``
  skips a ``default_metricgroup`` event's own row): those metrics belong to no printed counter and are
  dropped, counted in `PerfStatRun.dropped`, never attached to the counter above the group-name row.
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
`FormatError`): ``--metric-only`` output. The other forms — the human-readable layout (whole run or ``-I``),
``-x`` and ``-j`` without ``-I`` — are read by `mpx.readers.perfstat.forms` (a whole run is one interval).

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
- **what perf cannot print is an error** (the file was damaged): a negative counter value or an integer
  beyond ``u64`` (perf keeps counts and times as ``u64``, ``tools/perf/util/counts.h``), a file whose last
  byte is not a newline (**the truncation rule**: perf ends every line with one, so a file cut anywhere but
  just after a newline — inside a row, or inside the leading blanks of the next one — is refused; a cut just
  after a newline cannot be told from a shorter run), a second ``--summary`` row of one counter, empty or numeric fields
  inside a ``-x ,`` metric unit (another row merged into it by a lost newline).
"""

from __future__ import annotations

import os
from typing import Any

from mpx.errors import FormatError
from mpx.readers.perfstat.parse import read_perf_stat, sniff
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
from mpx.readers.perfstat.view import PerfStatReadView
from mpx.trace import Trace

__all__ = ["COUNTED", "MISSING", "NAME", "NOT_COUNTED", "NOT_SUPPORTED", "STATUS_NOT_COUNTED",
           "STATUS_NOT_SUPPORTED", "ExtraMetric", "PerfColumn", "PerfStatReadView", "PerfStatRow", "PerfStatRun",
           "read", "read_perf_stat", "sniff"]

NAME = "perfstat"


def read(path: str | os.PathLike, **options: Any) -> Trace:
    """Refuses: perf stat output has no ground truth. Use `read_perf_stat`."""
    raise FormatError(
        path, None, "perf stat output is measured data without ground truth, not a Trace: "
        "use mpx.readers.perfstat.read_perf_stat"
    )
