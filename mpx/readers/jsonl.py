"""Reader of ``mpx-stats`` JSON lines (written by `mpx.stats.PeriodicDumper`) → `Trace`.

The schema is defined in the docstring of `mpx.stats`. Mapping: additive scalars and formulas are events
under their flattened names; vector bins are events ``name::label`` (a bin first seen in a later interval
is 0 before it); a distribution gives the additive events ``name::samples``, ``name::underflows``,
``name::<lo>-<hi>`` and ``name::overflows`` and the aux values ``name::mean``, ``name::min_value``,
``name::max_value``; non-additive scalars, bins and formulas are aux values. Interval edges come from the
records' ``start``/``end``, which must be contiguous and increasing.

Every malformed input — missing header, wrong version, a garbage or truncated line, a missing or
undeclared stat, a negative or non-numeric counter, a gap or overlap between intervals — raises
`FormatError` naming the file and the line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from mpx import strict_json
from mpx.errors import FormatError, TraceError
from mpx.readers.numbers import NumberError, python_json_number
from mpx.readers.textio import is_decompress_error, open_binary, require_final_newline
from mpx.stats import FORMAT_NAME, FORMAT_VERSION, StatsError, bucket_names, check_label
from mpx.trace import TIME_UNITS, Trace
from mpx.trace_file import MAX_MEMBER_BYTES

NAME = "jsonl"

_GAUGE_STRINGS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_TYPES = ("scalar", "vector", "distribution", "formula")
_DIST_KEYS = ("count", "sum", "mean", "min", "max", "underflows", "overflows", "buckets")


def sniff(path: str | os.PathLike, head: str) -> bool:
    """An ``mpx-stats`` header: the first line is a JSON object naming ``"format": "mpx-stats"``."""
    first = head.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    return first.startswith("{") and '"format"' in first and f'"{FORMAT_NAME}"' in first


class _Bad(ValueError):
    """A problem in one line; turned into a FormatError with file and line by the caller."""


def _no_constant(name: str) -> Any:
    raise _Bad(f"non-standard JSON constant {name} (write non-finite values as \"nan\", \"inf\", \"-inf\")")


def _decode(text: str) -> Any:
    try:
        return strict_json.loads(text, parse_constant=_no_constant, parse_int=python_json_number,
                                 parse_float=python_json_number)
    except (_Bad, NumberError) as exc:
        raise _Bad(str(exc)) from None
    except strict_json.RepeatedKey as exc:
        raise _Bad(f"duplicate key {exc.key!r}") from None
    except RecursionError:
        raise _Bad("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        raise _Bad(f"not valid JSON: {exc}") from None


def _lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of the decompressed text, decoded line by line so that a UTF-8 error
    names its line; read and decompression errors become FormatError."""
    fh = open_binary(path)
    n = 0
    try:
        with fh:
            for raw in fh:
                n += 1
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError(path, n, f"not UTF-8 text (byte {raw[exc.start]:#04x})") from None
                yield n, line.lstrip("\ufeff") if n == 1 else line
    except Exception as exc:
        if not is_decompress_error(exc):
            raise
        raise FormatError(path, n + 1, f"cannot read or decompress: {exc}") from None


# -- value checks -----------------------------------------------------------------------------------


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Bad(f"{what}: expected a number, got {v!r:.60}")
    try:
        return float(v)
    except OverflowError:
        raise _Bad(f"{what}: number out of range") from None


def _counter(v: Any, what: str) -> float:
    x = _number(v, what)
    if not math.isfinite(x):
        raise _Bad(f"{what}: counter value {v!r:.60} is not finite")
    if x < 0:
        raise _Bad(f"{what}: negative counter increment {v!r}")
    return x


def _gauge(v: Any, what: str) -> float:
    if isinstance(v, str):
        if v in _GAUGE_STRINGS:
            return _GAUGE_STRINGS[v]
        raise _Bad(f"{what}: expected a number or \"nan\"/\"inf\"/\"-inf\", got {v!r:.60}")
    return _number(v, what)


def _count(v: Any, what: str) -> int:
    x = _counter(v, what)
    if not x.is_integer():
        raise _Bad(f"{what}: a sample count must be an integer, got {v!r}")
    return int(x)


def _object(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _Bad(f"{what} must be a JSON object, got {type(v).__name__}")
    return v


def _keys(d: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...], what: str) -> None:
    missing = [k for k in required if k not in d]
    if missing:
        raise _Bad(f"{what} lacks {', '.join(map(repr, missing))}")
    unknown = [k for k in d if k not in required and k not in optional]
    if unknown:
        raise _Bad(f"{what} has unknown key(s) {', '.join(repr(k) for k in unknown[:5])}")


# -- header -----------------------------------------------------------------------------------------


class _Decl:
    """One declared stat and the trace columns it feeds."""

    __slots__ = ("name", "type", "desc", "unit", "additive", "labels", "edges", "buckets")

    def __init__(self, d: dict[str, Any], i: int) -> None:
        what = f"stats[{i}]"
        d = _object(d, what)
        _keys(d, ("name", "type"), ("desc", "unit", "additive", "labels", "edges"), what)
        name = d["name"]
        if not isinstance(name, str) or not name or name != name.strip() or "::" in name or any(
            c.isspace() or ord(c) < 32 for c in name
        ):
            raise _Bad(f"{what}: invalid stat name {name!r:.60}")
        what = f"stat {name!r}"
        if d["type"] not in _TYPES:
            raise _Bad(f"{what}: unknown type {d['type']!r:.40}; expected one of {', '.join(_TYPES)}")
        self.name = name
        self.type = d["type"]
        self.desc = d.get("desc", "")
        self.unit = d.get("unit")
        if not isinstance(self.desc, str):
            raise _Bad(f"{what}: desc must be a string")
        if self.unit is not None and not isinstance(self.unit, str):
            raise _Bad(f"{what}: unit must be a string or null")
        additive = d.get("additive", self.type != "formula")
        if not isinstance(additive, bool):
            raise _Bad(f"{what}: additive must be true or false")
        if self.type == "distribution" and "additive" in d:
            raise _Bad(f"{what}: a distribution has no 'additive' flag (its counts are additive, its mean/min/max not)")
        self.additive = additive
        self.labels: list[str] = []
        if "labels" in d:
            if self.type != "vector":
                raise _Bad(f"{what}: only vectors have labels")
            labels = d["labels"]
            if not isinstance(labels, list):
                raise _Bad(f"{what}: labels must be a list")
            for label in labels:
                _label(label, what)
            if len(set(labels)) != len(labels):
                raise _Bad(f"{what}: duplicate labels")
            self.labels = list(labels)
        self.edges: list[float] = []
        self.buckets: list[str] = []
        if self.type == "distribution":
            edges = d.get("edges")
            if not isinstance(edges, list) or len(edges) < 2:
                raise _Bad(f"{what}: a distribution needs 'edges', a list of >= 2 numbers")
            e = [_number(x, f"{what} edges") for x in edges]
            if not all(math.isfinite(x) for x in e) or any(b <= a for a, b in zip(e, e[1:])):
                raise _Bad(f"{what}: edges must be finite and strictly increasing")
            self.edges = e
            self.buckets = [f"{name}::{b}" for b in bucket_names(e)]
        elif "edges" in d:
            raise _Bad(f"{what}: only distributions have edges")


def _label(label: Any, what: str) -> str:
    try:
        return check_label(label)
    except StatsError as exc:
        raise _Bad(f"{what}: {exc}") from None


def _header(obj: Any) -> tuple[dict[str, Any], list[_Decl]]:
    if not isinstance(obj, dict) or obj.get("format") != FORMAT_NAME:
        raise _Bad(f"missing header: the first line must be a JSON object with \"format\": \"{FORMAT_NAME}\"")
    _keys(obj, ("format", "version", "time_unit", "stats"), ("period", "meta"), "header")
    version = obj["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Bad(f"header: version must be an integer, got {version!r:.40}")
    if version > FORMAT_VERSION:
        raise _Bad(f"{FORMAT_NAME} version {version} is newer than this mpx reads ({FORMAT_VERSION}); upgrade mpx")
    if version < 1:
        raise _Bad(f"unsupported {FORMAT_NAME} version {version}")
    if obj["time_unit"] not in TIME_UNITS:
        raise _Bad(f"header: unknown time unit {obj['time_unit']!r:.40}; expected one of {', '.join(TIME_UNITS)}")
    period = obj.get("period")
    if period is not None:
        p = _number(period, "header period")
        if not (math.isfinite(p) and p > 0):
            raise _Bad(f"header: period must be a positive number or null, got {period!r}")
    meta = _object(obj.get("meta", {}), "header meta")
    if not isinstance(meta.get("dropped", []), list):
        raise _Bad("header meta: 'dropped' must be a list of {\"what\": ..., \"why\": ...} items")
    if not isinstance(obj["stats"], list):
        raise _Bad("header: 'stats' must be a list of declarations")
    decls = [_Decl(d, i) for i, d in enumerate(obj["stats"])]
    seen: set[str] = set()
    for d in decls:
        if d.name in seen:
            raise _Bad(f"header: stat {d.name!r} declared twice")
        seen.add(d.name)
    return obj, decls


# -- columns ----------------------------------------------------------------------------------------


class _Columns:
    """Trace columns in order of discovery (header first, vector bins as they appear)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def add(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.index)
        return i


class _Layout:
    """Where each declared stat goes; plain counters (additive scalars and formulas, the bulk of a dump)
    are checked and stored as one vector per record."""

    def __init__(self, decls: list[_Decl], events: _Columns, aux: _Columns) -> None:
        self.decls = decls
        self.names = {d.name for d in decls}
        plain = [d for d in decls if d.type in ("scalar", "formula") and d.additive]
        self.plain_names = [d.name for d in plain]
        self.plain_cols = np.array([events.index[d.name] for d in plain], dtype=np.intp)
        self.others = [d for d in decls if not (d.type in ("scalar", "formula") and d.additive)]
        self.events = events
        self.aux = aux


def read(path: str | os.PathLike) -> Trace:
    """Read an ``mpx-stats`` JSON-lines dump (plain or compressed) into a `Trace`."""
    events, aux = _Columns(), _Columns()
    header: dict[str, Any] | None = None
    layout: _Layout | None = None
    rows_p: list[np.ndarray] = []
    rows_e: list[list[tuple[int, float]]] = []
    rows_a: list[list[tuple[int, float]]] = []
    edges: list[float] = []
    header_line = 0
    for lineno, line in _lines(path):
        if not line.endswith("\n"):  # the last line: the dumper ends every record with a newline
            require_final_newline(path, line, lineno)
        text = line.strip()
        if not text:
            continue
        try:
            try:
                obj = _decode(text)
            except _Bad:
                raise
            if layout is None:
                header, decls = _header(obj)
                header_line = lineno
                for d in decls:
                    _declare(d, events, aux)
                layout = _Layout(decls, events, aux)
                continue
            start, end, plain, ev, ax = _record(obj, layout)
            if edges:
                prev = edges[-1]
                if start != prev:
                    kind = "gap" if start > prev else "overlap"
                    raise _Bad(f"{kind}: interval starts at {start!r} but the previous one ended at {prev!r}")
            else:
                edges.append(start)
            edges.append(end)
            rows_p.append(plain)
            rows_e.append(ev)
            rows_a.append(ax)
        except _Bad as exc:
            raise FormatError(path, lineno, str(exc)) from None
    if header is None or layout is None:
        raise FormatError(path, 1, f"empty file: no {FORMAT_NAME} header")
    if not rows_e:
        raise FormatError(path, header_line, "a header but no interval records")
    return _build(path, header, layout, rows_p, rows_e, rows_a, edges)


def _declare(d: _Decl, events: _Columns, aux: _Columns) -> None:
    if d.type == "distribution":
        for col in (f"{d.name}::samples", f"{d.name}::underflows", *d.buckets, f"{d.name}::overflows"):
            events.add(col)
        for col in (f"{d.name}::mean", f"{d.name}::min_value", f"{d.name}::max_value"):
            aux.add(col)
        return
    target = events if d.additive else aux
    if d.type == "vector":
        for label in d.labels:
            target.add(f"{d.name}::{label}")
    else:
        target.add(d.name)


_NUMBER_TYPES = {int, float}


def _plain_counters(stats: dict[str, Any], names: list[str]) -> np.ndarray:
    """The values of plain counters as float64, checked in bulk; the slow path finds the culprit."""
    vals = [stats[n] for n in names]
    if set(map(type, vals)) <= _NUMBER_TYPES:
        try:
            arr = np.array(vals, dtype=np.float64)
        except OverflowError:
            arr = None
        if arr is not None and np.isfinite(arr).all() and (arr >= 0).all():
            return arr
    return np.array([_counter(v, f"stat {n!r}") for n, v in zip(names, vals)], dtype=np.float64)


def _record(
    obj: Any, layout: _Layout
) -> tuple[float, float, np.ndarray, list[tuple[int, float]], list[tuple[int, float]]]:
    rec = _object(obj, "interval record")
    _keys(rec, ("start", "end", "stats"), (), "interval record")
    start = _number(rec["start"], "start")
    end = _number(rec["end"], "end")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise _Bad(f"interval bounds must be finite, got [{start!r}, {end!r})")
    if start < 0:  # every time axis counts from the run's start (ticks, cycles, instructions, seconds, ...)
        raise _Bad(f"interval starts before the run's start: start {start:g} < 0")
    if not end > start:
        raise _Bad(f"interval must end after it starts, got [{start!r}, {end!r})")
    stats = _object(rec["stats"], "'stats' of the record")
    if stats.keys() != layout.names:
        missing = [d.name for d in layout.decls if d.name not in stats]
        if missing:
            raise _Bad(f"stat(s) missing from the record: {', '.join(missing[:5])}"
                       + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
        extra = [k for k in stats if k not in layout.names]
        raise _Bad(f"undeclared stat(s) in the record: {', '.join(repr(k) for k in extra[:5])}")
    plain = _plain_counters(stats, layout.plain_names)
    events, aux = layout.events, layout.aux
    ev: list[tuple[int, float]] = []
    ax: list[tuple[int, float]] = []
    for d in layout.others:
        v = stats[d.name]
        what = f"stat {d.name!r}"
        if d.type == "distribution":
            _distribution(d, v, ev, ax, events, aux)
        elif d.type == "vector":
            target, out, conv = (events, ev, _counter) if d.additive else (aux, ax, _gauge)
            for label, x in _object(v, what).items():
                col = target.index.get(f"{d.name}::{label}")
                if col is None:
                    _label(label, what)
                    col = target.add(f"{d.name}::{label}")
                out.append((col, conv(x, f"{what} bin {label!r}")))
        else:
            ax.append((aux.index[d.name], _gauge(v, what)))
    return start, end, plain, ev, ax


def _distribution(
    d: _Decl, v: Any, ev: list[tuple[int, float]], ax: list[tuple[int, float]], events: _Columns, aux: _Columns
) -> None:
    what = f"distribution {d.name!r}"
    v = _object(v, what)
    _keys(v, _DIST_KEYS, (), what)
    count = _count(v["count"], f"{what} count")
    under = _count(v["underflows"], f"{what} underflows")
    over = _count(v["overflows"], f"{what} overflows")
    buckets = v["buckets"]
    if not isinstance(buckets, list) or len(buckets) != len(d.buckets):
        raise _Bad(f"{what}: 'buckets' must be a list of {len(d.buckets)} counts")
    b = [_count(x, f"{what} bucket {i}") for i, x in enumerate(buckets)]
    if under + over + sum(b) != count:
        raise _Bad(f"{what}: count {count} != underflows + buckets + overflows = {under + over + sum(b)}")
    _gauge(v["sum"], f"{what} sum")
    mean = _gauge(v["mean"], f"{what} mean")
    lo = _gauge(v["min"], f"{what} min")
    hi = _gauge(v["max"], f"{what} max")
    if count and lo > hi:
        raise _Bad(f"{what}: min {lo!r} > max {hi!r}")
    ev.append((events.index[f"{d.name}::samples"], float(count)))
    ev.append((events.index[f"{d.name}::underflows"], float(under)))
    for name, x in zip(d.buckets, b):
        ev.append((events.index[name], float(x)))
    ev.append((events.index[f"{d.name}::overflows"], float(over)))
    ax.append((aux.index[f"{d.name}::mean"], mean))
    ax.append((aux.index[f"{d.name}::min_value"], lo))
    ax.append((aux.index[f"{d.name}::max_value"], hi))


def _order(decls: list[_Decl], cols: _Columns) -> list[str]:
    """Columns grouped by stat in declaration order (bins of a vector in order of first appearance)."""
    by_stat: dict[str, list[str]] = {d.name: [] for d in decls}
    for col in cols.index:
        by_stat[col.split("::", 1)[0]].append(col)
    return [c for d in decls for c in by_stat[d.name]]


def _build(
    path: str | os.PathLike,
    header: dict[str, Any],
    layout: _Layout,
    rows_p: list[np.ndarray],
    rows_e: list[list[tuple[int, float]]],
    rows_a: list[list[tuple[int, float]]],
    edges: list[float],
) -> Trace:
    decls, events, aux = layout.decls, layout.events, layout.aux
    n_t = len(rows_e)
    ev_names = _order(decls, events)
    ax_names = _order(decls, aux)
    for what, width in (("events", len(ev_names)), ("aux values", len(ax_names))):
        if n_t * width * 8 > MAX_MEMBER_BYTES:  # bins that come and go make the table that wide
            raise FormatError(path, None, (
                f"{n_t:,} intervals × {width:,} {what} would take {n_t * width * 8 / 2**30:.1f} GiB, more than "
                f"a trace may hold ({MAX_MEMBER_BYTES / 2**30:g} GiB per array, the native format's limit)"))
    # each record's entries go straight to their final column: one table of each, no reordered copy
    ev_pos = np.empty(len(events.index), dtype=np.intp)
    ev_pos[[events.index[c] for c in ev_names]] = np.arange(len(ev_names))
    ax_pos = np.empty(len(aux.index), dtype=np.intp)
    ax_pos[[aux.index[c] for c in ax_names]] = np.arange(len(ax_names))
    counts = np.zeros((n_t, len(ev_names)))
    auxv = np.full((n_t, len(ax_names)), np.nan)
    if layout.plain_cols.size:
        plain_at = ev_pos[layout.plain_cols]
        for t, row in enumerate(rows_p):
            counts[t, plain_at] = row
    rows_p.clear()
    for t, (re_, ra) in enumerate(zip(rows_e, rows_a)):
        if re_:
            cols, vals = zip(*re_)
            counts[t, ev_pos[list(cols)]] = vals
        if ra:
            cols, vals = zip(*ra)
            auxv[t, ax_pos[list(cols)]] = vals
    counts.setflags(write=False)  # handed over to the Trace without a copy
    auxv.setflags(write=False)

    meta = dict(header.get("meta", {}))
    meta["source"] = os.fspath(path)
    meta["format"] = NAME
    meta.setdefault("time_axis", f"[start, end) of each {FORMAT_NAME} record, in {header['time_unit']}")
    if header.get("period") is not None:
        meta["dump_period"] = header["period"]
    units: dict[str, str] = {}
    for d in decls:
        if d.unit is None:
            continue
        if d.type == "distribution":
            for col in (f"{d.name}::mean", f"{d.name}::min_value", f"{d.name}::max_value"):
                units[col] = d.unit
        elif d.type == "vector":
            units.update({c: d.unit for c in (*ev_names, *ax_names) if c.startswith(f"{d.name}::")})
        else:
            units[d.name] = d.unit
    if units:
        meta["units"] = units
    descriptions = {d.name: d.desc for d in decls if d.desc}
    if descriptions:
        meta["descriptions"] = descriptions
    n_dist = sum(d.type == "distribution" for d in decls)
    if n_dist:
        meta["dropped"] = list(meta.get("dropped", [])) + [{
            "what": f"the 'sum' of {n_dist} distribution(s)",
            "why": "not a counter (may be negative); ::mean x ::samples recovers it",
        }]
    try:
        return Trace(ev_names, counts, edges, header["time_unit"], meta=meta, aux_names=ax_names, aux=auxv)
    except TraceError as exc:
        raise FormatError(path, None, f"invalid trace content: {exc}") from None
