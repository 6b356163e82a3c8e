"""``perf stat -I -x SEP`` CSV rows (layout: the package docstring)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from mpx.readers.perfstat.run import PerfStatRow
from mpx.readers.perfstat.rows import (
    AGGR_CSV,
    check_cpu_count,
    INT,
    NUM,
    PCT,
    THREAD,
    TS,
    VAR,
    RowError,
    RowParser,
    check_pct,
    parse_int,
    parse_number,
    parse_value,
    value_like,
)

__all__ = ["CsvLayout", "CsvParser"]


@dataclass
class CsvLayout:
    """The column layout of the CSV rows, inferred from the first counter row."""

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


class CsvParser(RowParser):
    """Rows of ``perf stat -I -x SEP`` output."""

    fmt = "csv"

    def __init__(self, path, scaled: bool, sep: str, cgroup: bool | None) -> None:
        super().__init__(path, scaled)
        self.sep = sep
        self.cgroup_opt = cgroup
        self.layout: CsvLayout | None = None

    # layout of the first counter row decides the whole file
    def _infer_layout(self, f: list[str]) -> CsvLayout:
        if len(f) < 6:
            raise RowError(f"{len(f)} fields; a perf stat -I CSV row has at least 6 "
                            f"(time, value, unit, event, run, percent) separated by {self.sep!r}")
        if f[1] == "" or (len(f) > 2 and f[2] == "" and any(p.match(f[1]) for _, p, _ in AGGR_CSV)):
            raise RowError("a metric continuation row (no counter value) before any counter row")
        if value_like(f[1]):
            kind, id_cols = "global", 0
        else:
            kind, id_cols = None, 0
            for name, pat, cols in AGGR_CSV:
                if pat.match(f[1]):
                    kind, id_cols = name, cols
                    if cols == 2 and not (INT.match(f[2]) and len(f) > 3 and value_like(f[3])):
                        if name == "core" and value_like(f[2]):
                            id_cols = 1  # per-core id under -A (no CPU count)
                        else:
                            raise RowError(f"aggregation id {f[1]!r} is not followed by a CPU count and "
                                            "a counter value")
                    break
            if kind is None:
                if THREAD.match(f[1]) and value_like(f[2]):
                    kind, id_cols = "thread", 1
                else:
                    raise RowError(f"cannot read {f[1]!r} as a counter value, <not counted>, "
                                    "<not supported> or an aggregation id (CPU3, S0-D0-C1, S0, N0, comm-pid); "
                                    "perf stat without -I has no timestamps and is not read")
        i = 1 + id_cols
        p = self._find_run(f, i, None)
        mid = f[i + 2:p]
        variance = len(mid) >= 2 and bool(VAR.match(mid[-1]))
        mid2 = mid[:-1] if variance else mid
        if self.cgroup_opt is None:
            cgroup = len(mid2) == 2 and not self._split_term(mid2[:1] + ["x"])
            if cgroup and mid2[-1].endswith("%"):
                raise RowError(f"field {mid2[-1][:40]!r} after the event ends in '%' but is no -r variance as perf "
                               "prints it (NN.NN%); not read as a cgroup name")
        else:
            cgroup = self.cgroup_opt
        pattern = next((pat for k, pat, _ in AGGR_CSV if k == kind), THREAD)
        return CsvLayout(kind, id_cols, cgroup, variance, metric=len(f) > p + 2, n_fields=len(f),
                          pattern=pattern)

    def _find_run(self, f: list[str], i: int, metric: bool | None, guess: int | None = None) -> int:
        """Index of the run-time field: the first int field followed by a percent after unit and event."""
        if guess is not None and guess + 1 < len(f) and INT.match(f[guess]) and PCT.match(f[guess + 1]):
            rest = len(f) - guess - 2
            if (rest == 2 or (rest > 2 and self.sep == ",")) if metric else rest == 0:
                if not metric or f[guess + 2] == "" or NUM.match(f[guess + 2]):
                    return guess
        for p in range(i + 3, len(f) - 1):
            if not (INT.match(f[p]) and PCT.match(f[p + 1])):
                continue
            rest = len(f) - p - 2
            ok_metric = rest >= 2 and (f[p + 2] == "" or NUM.match(f[p + 2]))
            if metric is None and (rest == 0 or ok_metric):
                return p
            if metric is True and ok_metric:
                return p
            if metric is False and rest == 0:
                return p
        raise RowError(self._count_msg(f, "no run-time and percent-running fields where expected"))

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
                raise RowError(self._count_msg(f, "row too short"))
            aggr_id = f[1]
            if not lay.pattern.match(aggr_id):
                raise RowError(f"aggregation id {aggr_id!r} does not fit the file's {lay.kind!r} ids")
            if lay.id_cols == 2:
                n_agg = check_cpu_count(parse_int(f[2], "CPU count"), "CPU count")
        i = 1 + lay.id_cols
        if len(f) < i + 5:
            raise RowError(self._count_msg(f, "row too short"))
        value, status = parse_value(f[i])
        unit = f[i + 1]
        p = self._find_run(f, i, lay.metric, lay.run_index)
        mid = f[i + 2:p]
        variance = None
        if lay.variance:
            if len(mid) < 2 or not VAR.match(mid[-1]):
                raise RowError(self._count_msg(f, "no -r variance field (NN.NN%) before the run time"))
            text = mid.pop()[:-1]
            variance = math.nan if text.lower().lstrip("+-") in ("nan", "inf") else float(text)
        cgroup = None
        if lay.cgroup:
            if len(mid) < 2:
                raise RowError(self._count_msg(f, "no cgroup field after the event"))
            cgroup = mid.pop()
        if not mid or not mid[0]:
            raise RowError("empty event name")
        if len(mid) > 1 and not self._split_term(mid):
            raise RowError(self._count_msg(f, "extra fields after the event name"))
        event = self.sep.join(raw_f[i + 2:i + 2 + len(mid)]).strip()
        run = parse_int(f[p], "run time")
        pct = parse_number(f[p + 1], "percent running")
        check_pct(pct)
        metrics: tuple[tuple[float, str], ...] = ()
        if lay.metric:
            mu = f[p + 3:]
            if len(mu) > 1 and self.sep != ",":
                raise RowError(self._count_msg(f, "extra fields after the metric unit"))
            if any(not x or NUM.match(x) for x in mu[1:]):  # "-x ,": a comma may be part of the unit
                raise RowError(f"the metric unit {self.sep.join(raw_f[p + 3:]).strip()[:60]!r} holds empty or "
                               "numeric fields: another row merged into this one (a lost newline?)")
            munit = self.sep.join(raw_f[p + 3:]).strip()
            mv = math.nan if f[p + 2] == "" else parse_number(f[p + 2], "metric value")
            if munit:
                metrics = ((mv, munit),)
            elif f[p + 2]:
                raise RowError(f"metric value {f[p + 2]!r} without a metric unit")
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
        if lay.id_cols == 2 and not INT.match(f[2]):
            return False
        body = f[i:]
        nonempty = [(j, x) for j, x in enumerate(body) if x]
        if not nonempty:
            self.drop("empty metric rows", "a continuation row with no metric in it")
            return True
        if len(nonempty) == 1 and nonempty[0][0] == len(body) - 1 and not NUM.match(nonempty[0][1]):
            self.metric_group()
            return True
        if len(body) >= 2 and body[-1] and (body[-2] == "" or NUM.match(body[-2])):
            # run/percent/variance fields may precede the metric (perf >= 6.5 default metric groups)
            for x in body[:-2]:
                if x and not (NUM.match(x) or VAR.match(x)):
                    return False
            mv = math.nan if body[-2] == "" else parse_number(body[-2], "metric value")
            self.add_metric(time, aggr_id, mv, body[-1], lineno)
            return True
        return False

    def feed(self, lineno: int, raw: str) -> None:
        raw_f = raw.split(self.sep)
        f = [x.strip() for x in raw_f]
        head = f[0]
        if head == "summary":
            time = None
        elif TS.match(head):
            time = parse_number(head, "timestamp")
        else:
            # --summary --no-csv-summary rows carry no time at all
            if self.layout is not None and self.summary and self._continuation(["summary"] + f, None, lineno):
                return
            row = self._no_csv_summary(f, raw_f, lineno) if self.layout is not None else None
            if row is None:
                raise RowError(f"{head[:40]!r} is not a timestamp (seconds since start) or 'summary'")
            self.add_row(row)
            return
        if self.layout is None:
            self.layout = self._infer_layout(f)
            self.set_aggregation(self.layout.kind)
        if self._continuation(f, time, lineno):
            return
        try:
            row = self._parse_counter(f, raw_f, time, lineno)
        except RowError:
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
        except RowError:
            return None
        return row if row.event in lay.events else None
