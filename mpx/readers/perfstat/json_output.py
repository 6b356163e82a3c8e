"""``perf stat -I -j`` JSON lines (layout: the package docstring)."""

from __future__ import annotations

import math

from mpx import strict_json
from mpx.readers.perfstat.run import COUNTED, PerfStatRow
from mpx.readers.perfstat.rows import (
    INT,
    JSON_AGGR_KEYS,
    JSON_KNOWN,
    RowError,
    RowParser,
    check_pct,
    check_cpu_count,
    check_u64,
    parse_int,
    parse_number,
    parse_value,
)

__all__ = ["JsonParser"]

class _Raw(str):
    """A JSON number token as written (``json.loads``'s hook): read with perf's grammar where its key is known
    (`parse_number`, `parse_int`)."""


class JsonParser(RowParser):
    """Objects of ``perf stat -I -j`` output, one per line."""

    fmt = "json"

    def feed(self, lineno: int, raw: str) -> None:
        try:
            obj = strict_json.loads(raw, parse_float=_Raw, parse_int=_Raw)
        except (ValueError, RecursionError) as exc:
            hint = (" (perf stat --metric-only output is not supported: re-run without --metric-only)"
                    if "}{" in raw.replace(" ", "") else "")
            raise RowError(f"not a JSON object: {str(exc)[:80]}{hint}") from None
        if not isinstance(obj, dict):
            raise RowError(f"a JSON {type(obj).__name__}, expected an object")
        for k in obj:
            if k not in JSON_KNOWN:
                self.drop(f"JSON key {k!r}", "not a key of perf stat -j output that mpx reads")
        if "counter-value" not in obj and "event" not in obj and "interval" in obj and len(obj) >= 2 and not (
            {"metric-value", "metric-unit", "metricgroup"} & obj.keys()
        ):
            raise RowError("perf stat --metric-only output is not supported (it holds no counter values): "
                            "re-run without --metric-only")
        time = None
        if "interval" in obj:
            time = self._num(obj, "interval")
        aggr_id = None
        kinds = [k for k in JSON_AGGR_KEYS if k in obj]
        if len(kinds) > 1:
            raise RowError(f"several aggregation keys: {kinds}")
        if kinds:
            aggr_id = self._str(obj, kinds[0])
            if kinds[0] == "cpu" and INT.match(aggr_id):
                aggr_id = f"CPU{aggr_id}"  # as the CSV layout prints it
        if "event" not in obj and "counter-value" not in obj:
            if "metricgroup" in obj:
                self.metric_group()
                return
            if "metric-unit" in obj:
                unit = self._str(obj, "metric-unit")
                mv = self._metric_value(obj)
                if unit:
                    self.add_metric(time, aggr_id, mv, unit, lineno)
                else:
                    self.drop("empty metric rows", "a continuation row with no metric in it")
                return
            raise RowError(f"no 'event' and no 'counter-value' key (keys: {sorted(obj)[:8]})")
        self.set_aggregation(kinds[0] if kinds else "global")
        n_agg = None
        if "aggregate-number" in obj:
            n = obj["aggregate-number"]
            n = parse_int(n, "aggregate-number") if isinstance(n, _Raw) and not n.startswith("-") else n
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise RowError(f"aggregate-number {n!r} is not a non-negative integer")
            n_agg = check_cpu_count(n, "aggregate-number")
        for k in ("counter-value", "event", "event-runtime", "pcnt-running"):
            if k not in obj:
                raise RowError(f"no {k!r} key")
        cv = obj["counter-value"]
        if isinstance(cv, _Raw):  # perf writes it as a string; a number token is read by the same grammar
            if cv.startswith("-"):
                raise RowError(f"counter-value {cv[:40]!r} is negative: perf counts are unsigned")
            value, status = parse_number(cv, "counter-value"), COUNTED
        elif isinstance(cv, str):
            value, status = parse_value(cv.strip())
        elif isinstance(cv, (int, float)) and not isinstance(cv, bool):
            value, status = self._num(obj, "counter-value"), COUNTED
            if math.copysign(1.0, value) < 0:
                raise RowError(f"counter value {cv!r} is negative: perf counts are unsigned")
        else:
            raise RowError(f"counter-value {cv!r} is neither a number nor a string")
        event = self._str(obj, "event")
        if not event:
            raise RowError("empty event name")
        run = obj["event-runtime"]
        run = parse_int(run, "event-runtime") if isinstance(run, _Raw) and not run.startswith("-") else run
        if not isinstance(run, int) or isinstance(run, bool) or run < 0:
            raise RowError(f"event-runtime {run!r} is not a non-negative integer (ns)")
        check_u64(run, "event-runtime")
        pct = self._num(obj, "pcnt-running")
        check_pct(pct)
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
        if isinstance(v, _Raw):
            return parse_number(v, key)
        if isinstance(v, str):
            return parse_number(v.strip(), key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise RowError(f"{key} {v!r} is not a number")
        try:
            v = float(v)
        except OverflowError:  # an integer beyond float64
            raise RowError(f"{key} {str(v)[:40]}... is not finite") from None
        if not math.isfinite(v):
            raise RowError(f"{key} {v!r} is not finite")
        return v

    @staticmethod
    def _str(obj: dict, key: str) -> str:
        v = obj[key]
        if not isinstance(v, str) or isinstance(v, _Raw):
            raise RowError(f"{key} {v!s} is not a string")
        return v

    def _metric_value(self, obj: dict) -> float:
        if "metric-value" not in obj:
            return math.nan
        v = obj["metric-value"]
        if isinstance(v, str) and not isinstance(v, _Raw) and v.strip() in ("", "none"):
            return math.nan
        return self._num(obj, "metric-value")
