"""The periodic dumper: one JSON line per interval (dump, then reset) in the ``mpx-stats`` format that
`mpx.readers.jsonl` reads."""

from __future__ import annotations

import gzip
import json
import lzma
import math
import os
import warnings
from typing import IO, Any

from mpx.errors import MpxWarning
from mpx.stats.group import StatGroup, structure_version
from mpx.stats.stat import AnyStat, Distribution, Number, Scalar, StatsError, Vector, json_number
from mpx.trace import TIME_UNITS

FORMAT_NAME = "mpx-stats"
FORMAT_VERSION = 1
"""Version of the JSON-lines schema written here; `mpx.readers.jsonl` reads every version <= this."""


def _encode_gauge(x: Number) -> Number | str:
    """A non-additive value: a number, or ``"nan"``/``"inf"``/``"-inf"``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    x = float(x)
    if not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return json_number(x)


def _counter(x: Any, where: str) -> Number:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        try:
            x = float(x)  # numpy scalars and the like
        except (TypeError, ValueError):
            raise StatsError(f"{where}: value {x!r} is not a number") from None
    if isinstance(x, float) and not math.isfinite(x) or x < 0:
        raise StatsError(f"{where}: counter value {x!r} is negative or not finite; counters must be finite and >= 0")
    return json_number(x)


def _gauge(x: Any, where: str) -> Number | str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        try:
            x = float(x)
        except (TypeError, ValueError):
            raise StatsError(f"{where}: value {x!r} is not a number") from None
    return _encode_gauge(x)


def encode_value(stat: AnyStat) -> Any:
    """The JSON value of ``stat`` in an interval record, validated (see module docstring)."""
    if type(stat) is Scalar and stat.additive:  # the common case, checked inline
        v = stat.value
        if type(v) is int and v >= 0:
            return v
        if type(v) is float and 0.0 <= v < math.inf:
            return json_number(v)
    where = f"stat {stat.full_name!r}"
    if isinstance(stat, Distribution):
        d = stat.dump()
        return {
            "count": d["count"],
            "sum": _gauge(d["sum"], where),
            "mean": _encode_gauge(d["mean"]),
            "min": _gauge(d["min"], where),
            "max": _gauge(d["max"], where),
            "underflows": d["underflows"],
            "overflows": d["overflows"],
            "buckets": d["buckets"],
        }
    conv = _counter if stat.additive else _gauge
    if isinstance(stat, Vector):
        return {label: conv(v, f"{where} bin {label!r}") for label, v in stat.bins.items()}
    return conv(stat.dump(), where)


def _open_output(path: str | os.PathLike) -> IO[str]:
    """Open ``path`` for writing text, compressed when it ends in ``.gz`` or ``.xz``."""
    p = os.fspath(path)
    if p.endswith(".gz"):
        return gzip.open(p, "wt", encoding="utf-8", newline="\n")
    if p.endswith(".xz"):
        return lzma.open(p, "wt", encoding="utf-8", newline="\n")
    return open(p, "w", encoding="utf-8", newline="\n")


class PeriodicDumper:
    """Writes the stats of ``root`` as ``mpx-stats`` JSON lines: a header, then per interval one record
    (dump, then reset) — gem5's ``periodicStatDump`` / ``m5 dumpresetstats`` behaviour.

    ``out`` is a path (``.gz``/``.xz`` compress) or an open text stream. ``time_unit`` names the axis of
    the interval boundaries (one of `mpx.trace.TIME_UNITS`), ``start`` is where the first interval
    begins, ``period`` the dump period used by `advance`, ``meta`` a JSON object copied into the header.
    The header is written at the first dump, so every stat must be declared by then.

    Call ``advance(now)`` (or ``dump(now)``) once simulated time has reached ``now`` and everything
    that happened before ``now`` has been counted; ``close(now)`` writes a last partial interval. Time
    going backwards is an error; a dumper that wrote or advanced and is garbage-collected without
    ``close()`` (or a ``with`` block) warns (`~mpx.errors.MpxWarning`): its last interval is lost.
    """

    def __init__(
        self,
        root: StatGroup,
        out: str | os.PathLike | IO[str],
        time_unit: str,
        *,
        period: float | None = None,
        start: float = 0,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if time_unit not in TIME_UNITS:
            raise StatsError(f"unknown time unit {time_unit!r}; expected one of {', '.join(TIME_UNITS)}")
        if period is not None and not (isinstance(period, (int, float)) and math.isfinite(period) and period > 0):
            raise StatsError(f"period must be a positive finite number, got {period!r}")
        if not (isinstance(start, (int, float)) and math.isfinite(start) and start >= 0):
            raise StatsError(f"start must be a finite number >= 0 (a position from the run's start), got {start!r}")
        meta = dict(meta or {})
        try:
            json.dumps(meta, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise StatsError(f"meta must be JSON-serialisable: {exc}") from None
        self.root = root
        self.time_unit = time_unit
        self.period = period
        self.meta = meta
        self.last = start
        self.n_records = 0
        self._next = None if period is None else start + period
        self._start = start
        self._latest = start
        self._names: list[str] | None = None
        self._stats: list[tuple[str, AnyStat]] = []
        self._version = -1
        if isinstance(out, (str, os.PathLike)):
            self._fh: IO[str] = _open_output(out)
            self._owns = True
        else:
            self._fh = out
            self._owns = False
        self._closed = False

    def header(self) -> dict[str, Any]:
        """The header object for the stats declared now."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "time_unit": self.time_unit,
            "period": None if self.period is None else json_number(self.period),
            "meta": self.meta,
            "stats": [stat.declaration() for _, stat in self.root.walk()],
        }

    def _write(self, obj: dict[str, Any]) -> None:
        self._fh.write(json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False) + "\n")

    def dump(self, now: float) -> None:
        """Write the interval ``[last, now)`` and reset the stats."""
        if not (isinstance(now, (int, float)) and math.isfinite(now)) or now <= self.last:
            raise StatsError(f"dump at {now!r}: the interval must end after it starts ({self.last!r})")
        if self._version != structure_version():
            stats = list(self.root.walk())
            names = [name for name, _ in stats]
            if self._names is None:
                self._write(self.header())
            elif names != self._names:
                new = sorted(set(names) - set(self._names))
                raise StatsError(
                    f"the set of stats changed after the header was written (new: {new[:5]}); "
                    "declare every stat before the first dump"
                )
            self._names, self._stats, self._version = names, stats, structure_version()
        stats = self._stats
        record = {
            "start": json_number(self.last),
            "end": json_number(now),
            "stats": {name: encode_value(stat) for name, stat in stats},
        }
        self._write(record)
        self._fh.flush()
        self.root.reset()
        self.last = now
        self.n_records += 1

    def advance(self, now: float) -> bool:
        """Dump if ``now`` has reached the next period boundary (boundaries ``start + k * period``); the
        interval ends at ``now``. Returns whether a record was written."""
        if self._next is None:
            raise StatsError("advance() needs a period; use dump(now) for explicit intervals")
        if not (isinstance(now, (int, float)) and math.isfinite(now)) or now < self._latest:
            raise StatsError(f"advance({now!r}): time went backwards (already advanced to {self._latest!r})")
        self._latest = now
        if now < self._next:
            return False
        self.dump(now)
        k = math.floor((now - self._start) / self.period) + 1  # type: ignore[operator]
        self._next = self._start + k * self.period  # type: ignore[operator]
        return True

    def close(self, now: float | None = None) -> None:
        """Write the last (partial) interval ``[last, now)`` when ``now > last``, then close the output
        if this dumper opened it."""
        self._closed = True
        if now is not None and now > self.last:
            self.dump(now)
        if self._owns:
            self._fh.close()
        else:
            self._fh.flush()

    def __enter__(self) -> PeriodicDumper:
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        if self._owns and not self._fh.closed:
            self._fh.close()

    def __del__(self) -> None:
        # a dumper dropped without close(): the interval after the last record is lost, say so
        if not getattr(self, "_closed", True) and (self.n_records or self._latest > self.last):
            warnings.warn(MpxWarning(f"PeriodicDumper dropped without close() after {self.n_records} record(s): "
                                     f"what was counted after {self.last!r} is not written; call close(now)"),
                          stacklevel=2)
