"""Stats for simulators: a gem5-style hierarchy of typed statistics, dumped periodically as JSON lines.

This is the instrumentation side of mpx's ground truth. A simulator (the G5 simulator of
``seeds/g5-stats-framework-design.md``, the RISC-V simulator whose ``PerfCount`` counters are described in
``seeds/tma-profiling.md``, a toy model) declares its statistics in `StatGroup` s, increments them while it
runs, and a `PeriodicDumper` writes one JSON line per interval (dump, then reset) — the ``mpx-stats``
format that `mpx.readers.jsonl` turns into a `Trace`.

Model (after gem5's ``Stats::Group`` / ``ADD_STAT`` and the seed design):

- `Scalar`: one number; ``inc(delta)``, ``set(v)``, ``set_max(v)``.
- `Vector`: numbers by label (``dict[str, number]``); ``inc(label, delta)``.
- `Distribution`: samples of a value: count, sum, min, max, mean and bucket counts for
  ``edges = [e0, e1, ..., en]`` — bucket i is ``[e_i, e_{i+1})``, values ``< e0`` are underflows, values
  ``>= en`` overflows. (The seed's example ``bucket_edges=[1024, 4096, 65536, 262144]`` with four buckets
  treats the first bucket as open below; write ``edges=[0, 1024, 4096, 65536, 262144]`` for the same
  buckets with explicit bounds.)
- `Formula`: a zero-argument callable over other stats, evaluated at every dump (gem5 recomputes
  formulas at each dump, so after a reset they reflect the new interval). ``ZeroDivisionError`` gives NaN,
  as gem5 prints ``nan`` for 0/0.
- `StatGroup`: named container of stats and child groups; flattened names are dotted paths
  ``root.child.stat`` (a root named ``""`` adds no prefix, like gem5's unnamed root). Names are
  ``[A-Za-z0-9_][A-Za-z0-9_-]*``; a name used twice in one group (stat or child) is an error.
- ``dump()`` returns ``{dotted name: value}`` without changing anything; ``reset()`` zeroes every counter
  of the group and its descendants (scalars and vector bins to 0 — vector labels are kept —, distributions
  emptied); formulas hold no state and are recomputed at the next dump (gem5 ``Stats::reset`` semantics).

**Additive or not.** Ground truth holds only additive counters (per-interval increments that add up over
intervals). Scalars, vectors and formulas carry an ``additive`` flag: counters (default for scalars and
vectors) are events; gauges and peaks (``set``/``set_max`` of a queue depth) and ratio formulas (default for
formulas) are not and go to the Trace's ``aux`` side table. A formula that is a sum or difference of
counters (``slots_bad_speculation = slots_issued - commit_num`` in ``PerfCount``) may be declared
``additive=True`` and is then an event.

JSON-lines schema (``mpx-stats``, version 1)
--------------------------------------------

UTF-8 text, one JSON value per line (RFC 8259: no ``NaN``/``Infinity`` tokens), optionally compressed
(``.gz``/``.xz``/``.bz2``, detected by magic bytes). Blank lines are ignored.

Line 1, the header object::

    {"format": "mpx-stats", "version": 1, "time_unit": "cycles", "period": 1000, "meta": {...},
     "stats": [{"name": "cpu.insts", "type": "scalar", "desc": "...", "unit": "Count", "additive": true},
               {"name": "cpu.by_op", "type": "vector", "desc": "...", "unit": null, "additive": true,
                "labels": ["ALU", "LSU"]},
               {"name": "cpu.lat", "type": "distribution", "desc": "...", "unit": "Cycle",
                "edges": [0, 10, 100]},
               {"name": "cpu.ipc", "type": "formula", "desc": "...", "unit": null, "additive": false}]}

- ``format``: the string ``"mpx-stats"``, written as the first key so that format detection finds it in
  the first bytes; ``version``: integer, this is version 1 (a reader refuses newer versions).
- ``time_unit``: the unit of the interval boundaries, one of `mpx.trace.TIME_UNITS`.
- ``period`` (optional): nominal dump period on that axis, or ``null`` (informational; the records'
  edges rule).
- ``meta`` (optional): free JSON object copied into ``Trace.meta`` (conventional keys ``simulator``,
  ``workload``, ``config``; ``dropped`` must be a list).
- ``stats``: the declarations, in dump order; ``name`` (flattened, unique), ``type`` (``scalar``,
  ``vector``, ``distribution``, ``formula``), ``desc`` (string), ``unit`` (string or null); ``additive``
  (bool) for scalars, vectors and formulas; ``labels`` (list of strings known when the header was written;
  more may appear later) for vectors; ``edges`` (>= 2 strictly increasing finite numbers) for
  distributions. ``desc`` (default ``""``), ``unit`` (default null) and ``additive`` (default true,
  false for formulas) may be omitted.
- No other keys; unknown keys in the header, a declaration or a record are errors (so a typo cannot
  silently drop data).

Lines 2.., one object per interval, in time order::

    {"start": 0, "end": 1000, "stats": {"cpu.insts": 812, "cpu.by_op": {"ALU": 700, "LSU": 112},
     "cpu.lat": {"count": 3, "sum": 57, "mean": 19.0, "min": 4, "max": 41, "underflows": 0,
                 "overflows": 0, "buckets": [2, 1]},
     "cpu.ipc": 0.812}}

- ``start``/``end``: the interval ``[start, end)`` on the time axis; ``end > start`` and each ``start``
  equals the previous ``end`` (contiguous).
- ``stats``: every declared stat, by name, with its value over the interval (stats are reset after each
  record, so values are per-interval):

  - additive scalar or formula: a finite number >= 0;
  - vector: an object label → number (>= 0 and finite when additive); a label absent from a record is 0
    in that interval (NaN if not additive);
  - distribution: ``count``, ``underflows``, ``overflows`` and ``buckets`` (``len(edges) - 1``
    integers) are non-negative integers with ``count == underflows + sum(buckets) + overflows``;
    ``sum``, ``mean``, ``min``, ``max`` are non-additive values;
  - non-additive values (gauges, ratio formulas, a distribution's ``sum``/``mean``/``min``/``max``): a
    number, or one of the strings ``"nan"``, ``"inf"``, ``"-inf"`` (an empty distribution has ``"nan"``
    for ``mean``, ``min`` and ``max``).

Mapping to a `Trace` (`mpx.readers.jsonl`): an additive scalar/formula ``x`` is event ``x``; vector bins are
events ``x::label``; a distribution gives events ``x::samples``, ``x::underflows``, ``x::<lo>-<hi>`` per bucket
(edges printed as integers when integral) and ``x::overflows``, and aux values ``x::mean``,
``x::min_value``, ``x::max_value`` (gem5's names); non-additive scalars, bins and formulas are aux values
under the same names. A distribution's ``sum`` is kept in the file only (it may be negative, so it is no
counter; ``mean × samples`` recovers it).
"""

from __future__ import annotations

import bisect
import gzip
import json
import lzma
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Union

from mpx.errors import MpxError

FORMAT_NAME = "mpx-stats"
FORMAT_VERSION = 1
"""Version of the JSON-lines schema written here; `mpx.readers.jsonl` reads every version <= this."""

_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*\Z")

Number = Union[int, float]


class StatsError(MpxError, ValueError):
    """A stat is declared or used wrongly (bad or duplicate name, bad bucket edges, a counter that is
    negative or not finite at dump time, a stat declared after the dump header was written)."""


def _check_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise StatsError(f"{what} name {name!r} is not valid: use letters, digits, '_' and '-' (no dots)")
    return name


def check_label(label: object) -> str:
    """A valid vector label: a non-empty string without ``::``, control characters or surrounding
    whitespace (it becomes part of the event name ``stat::label``)."""
    if (
        not isinstance(label, str)
        or not label
        or "::" in label
        or label != label.strip()
        or any(ord(c) < 32 or ord(c) == 127 for c in label)
    ):
        raise StatsError(f"vector label {label!r} is not valid: a non-empty string without '::', "
                         "control characters or surrounding whitespace")
    return label


def format_edge(x: float) -> str:
    """A bucket edge as printed in event names: integral values without decimals (gem5 prints
    ``::0-3``), others by ``repr`` (round-trips exactly)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def bucket_names(edges: Iterable[float]) -> list[str]:
    """The ``<lo>-<hi>`` label of each bucket ``[lo, hi)`` of ``edges``."""
    e = [format_edge(x) for x in edges]
    return [f"{lo}-{hi}" for lo, hi in zip(e[:-1], e[1:])]


# -- the four stat types ---------------------------------------------------------------------------


class Stat:
    """Common part of every stat: short ``name``, description, optional unit, owning group."""

    __slots__ = ("name", "desc", "unit", "_group")
    kind = "stat"

    def __init__(self, name: str, desc: str = "", unit: str | None = None) -> None:
        self.name = _check_name(name, "stat")
        if not isinstance(desc, str):
            raise StatsError(f"description of {name!r} must be a string")
        if unit is not None and not isinstance(unit, str):
            raise StatsError(f"unit of {name!r} must be a string or None")
        self.desc = desc
        self.unit = unit
        self._group: StatGroup | None = None

    @property
    def full_name(self) -> str:
        """Flattened dotted name (``parent.child.stat``)."""
        return self.name if self._group is None else _join(self._group.path, self.name)

    def declaration(self) -> dict[str, Any]:
        """The stat's entry in the dump header (see module docstring)."""
        return {"name": self.full_name, "type": self.kind, "desc": self.desc, "unit": self.unit}

    def reset(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.full_name!r}, {self.dump()!r})"

    def dump(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError


class Scalar(Stat):
    """One number: a counter (``additive=True``, the default) or a gauge/peak (``additive=False``)."""

    __slots__ = ("value", "additive")
    kind = "scalar"

    def __init__(self, name: str, desc: str = "", unit: str | None = None, additive: bool = True) -> None:
        super().__init__(name, desc, unit)
        self.additive = bool(additive)
        self.value: Number = 0

    def inc(self, delta: Number = 1) -> None:
        """Add ``delta`` (1 by default)."""
        self.value += delta

    def set(self, value: Number) -> None:
        """Overwrite the value (a gauge, or a counter copied from elsewhere)."""
        self.value = value

    def set_max(self, value: Number) -> None:
        """Keep the largest value seen since the last reset (a peak)."""
        if value > self.value:
            self.value = value

    def reset(self) -> None:
        self.value = 0

    def dump(self) -> Number:
        return self.value

    def declaration(self) -> dict[str, Any]:
        return {**super().declaration(), "additive": self.additive}


class Vector(Stat):
    """Numbers by label (a ``dict[str, number]``); ``labels`` declares bins known in advance."""

    __slots__ = ("bins", "additive")
    kind = "vector"

    def __init__(
        self,
        name: str,
        desc: str = "",
        unit: str | None = None,
        labels: Iterable[str] = (),
        additive: bool = True,
    ) -> None:
        super().__init__(name, desc, unit)
        self.additive = bool(additive)
        self.bins: dict[str, Number] = {}
        for label in labels:
            if label in self.bins:
                raise StatsError(f"vector {name!r}: label {label!r} declared twice")
            self.bins[check_label(label)] = 0

    def inc(self, label: str, delta: Number = 1) -> None:
        """Add ``delta`` to bin ``label`` (created at 0 when new)."""
        bins = self.bins
        if label in bins:
            bins[label] += delta
        else:
            bins[check_label(label)] = delta

    def set(self, label: str, value: Number) -> None:
        """Overwrite bin ``label``."""
        if label not in self.bins:
            check_label(label)
        self.bins[label] = value

    def __getitem__(self, label: str) -> Number:
        return self.bins.get(label, 0)

    @property
    def total(self) -> Number:
        """Sum over all bins (gem5's ``::total``)."""
        return sum(self.bins.values())

    def reset(self) -> None:
        """Zero every bin; labels are kept (gem5 vectors keep their subnames)."""
        for label in self.bins:
            self.bins[label] = 0

    def dump(self) -> dict[str, Number]:
        return dict(self.bins)

    def declaration(self) -> dict[str, Any]:
        return {**super().declaration(), "additive": self.additive, "labels": list(self.bins)}


class Distribution(Stat):
    """Samples of a value: count, sum, min, max, mean and counts per bucket ``[e_i, e_{i+1})``, plus
    underflows (``< e0``) and overflows (``>= en``)."""

    __slots__ = ("edges", "count", "sum", "min", "max", "underflows", "overflows", "buckets")
    kind = "distribution"

    def __init__(self, name: str, desc: str = "", edges: Iterable[float] = (), unit: str | None = None) -> None:
        super().__init__(name, desc, unit)
        try:
            e = tuple(float(x) for x in edges)
        except (TypeError, ValueError):
            raise StatsError(f"distribution {name!r}: bucket edges must be numbers") from None
        if len(e) < 2 or not all(math.isfinite(x) for x in e) or any(b <= a for a, b in zip(e, e[1:])):
            raise StatsError(
                f"distribution {name!r}: bucket edges must be >= 2 finite, strictly increasing numbers, got {e}"
            )
        self.edges = e
        self.reset()

    def sample(self, value: Number, n: int = 1) -> None:
        """Record ``n`` samples of ``value``."""
        if value != value or value in (math.inf, -math.inf) or n < 1:
            raise StatsError(f"distribution {self.full_name!r}: cannot sample {value!r} x {n!r}")
        self.count += n
        self.sum += value * n
        if value < self.min:
            self.min = value
        if value > self.max:
            self.max = value
        i = bisect.bisect_right(self.edges, value) - 1
        if i < 0:
            self.underflows += n
        elif i >= len(self.buckets):
            self.overflows += n
        else:
            self.buckets[i] += n

    @property
    def mean(self) -> float:
        """Mean of the samples since the last reset (NaN when there are none)."""
        return self.sum / self.count if self.count else math.nan

    def reset(self) -> None:
        self.count = 0
        self.sum: Number = 0
        self.min: Number = math.inf
        self.max: Number = -math.inf
        self.underflows = 0
        self.overflows = 0
        self.buckets = [0] * (len(self.edges) - 1)

    def dump(self) -> dict[str, Any]:
        """``count, sum, mean, min, max, underflows, overflows, buckets`` (min/max/mean NaN when empty)."""
        empty = self.count == 0
        return {
            "count": self.count,
            "sum": self.sum,
            "mean": self.mean,
            "min": math.nan if empty else self.min,
            "max": math.nan if empty else self.max,
            "underflows": self.underflows,
            "overflows": self.overflows,
            "buckets": list(self.buckets),
        }

    def declaration(self) -> dict[str, Any]:
        return {**super().declaration(), "edges": [_json_number(x) for x in self.edges]}


class Formula(Stat):
    """A value computed from other stats by ``fn()`` at every dump (never stored, never reset)."""

    __slots__ = ("fn", "additive")
    kind = "formula"

    def __init__(
        self, name: str, desc: str, fn: Callable[[], Number], unit: str | None = None, additive: bool = False
    ) -> None:
        super().__init__(name, desc, unit)
        if not callable(fn):
            raise StatsError(f"formula {name!r}: fn must be a callable taking no arguments")
        self.fn = fn
        self.additive = bool(additive)

    @property
    def value(self) -> float:
        """``fn()`` now; NaN when it divides by zero."""
        try:
            return float(self.fn())
        except ZeroDivisionError:
            return math.nan

    def reset(self) -> None:
        """Nothing to reset: a formula is recomputed from its operands at each dump."""

    def dump(self) -> float:
        return self.value

    def declaration(self) -> dict[str, Any]:
        return {**super().declaration(), "additive": self.additive}


AnyStat = Union[Scalar, Vector, Distribution, Formula]

# Names used by the seed design (``ScalarStat`` ...), for code written against it.
ScalarStat, VectorStat, DistributionStat, FormulaStat = Scalar, Vector, Distribution, Formula


# -- groups -------------------------------------------------------------------------------------------


_structure_version = 0
"""Bumped whenever any group gains a stat or a child, so a dumper re-walks the tree only after a change."""


def _bump() -> None:
    global _structure_version
    _structure_version += 1


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


class StatGroup:
    """A named node of the stats hierarchy, holding stats and child groups (one per simulator module)."""

    def __init__(self, name: str, parent: StatGroup | None = None, desc: str = "") -> None:
        if name != "" or parent is not None:
            _check_name(name, "group")
        self.name = name
        self.desc = desc
        self.parent: StatGroup | None = None
        self._stats: dict[str, AnyStat] = {}
        self._children: dict[str, StatGroup] = {}
        if parent is not None:
            parent.add_child(self)

    # -- structure ---------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """Dotted name of this group from the root (``""`` for an unnamed root)."""
        return self.name if self.parent is None else _join(self.parent.path, self.name)

    @property
    def stats(self) -> dict[str, AnyStat]:
        """This group's own stats by short name (a copy)."""
        return dict(self._stats)

    @property
    def children(self) -> dict[str, StatGroup]:
        """Child groups by name (a copy)."""
        return dict(self._children)

    def _claim(self, name: str, what: str) -> None:
        if name in self._stats or name in self._children:
            raise StatsError(f"duplicate name {_join(self.path, name)!r}: this group already has a "
                             f"{'stat' if name in self._stats else 'child group'} of that name ({what})")

    def add_child(self, child: StatGroup) -> StatGroup:
        """Attach an existing parentless group as a child; returns it."""
        if child.parent is not None:
            raise StatsError(f"group {child.path!r} already has a parent")
        if child is self or child._is_ancestor_of(self):
            raise StatsError(f"group {child.name!r} cannot be its own descendant")
        _check_name(child.name, "group")
        self._claim(child.name, "group")
        child.parent = self
        self._children[child.name] = child
        _bump()
        return child

    def _is_ancestor_of(self, other: StatGroup) -> bool:
        node = other.parent
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def group(self, name: str, desc: str = "") -> StatGroup:
        """Create and attach a child group."""
        return StatGroup(name, parent=self, desc=desc)

    def add(self, stat: AnyStat) -> AnyStat:
        """Register an existing stat object in this group; returns it."""
        if not isinstance(stat, Stat):
            raise StatsError(f"not a stat: {stat!r}")
        if stat._group is not None:
            raise StatsError(f"stat {stat.full_name!r} already belongs to a group")
        self._claim(stat.name, stat.kind)
        stat._group = self
        self._stats[stat.name] = stat
        _bump()
        return stat

    # -- factories (the seed's ``group.scalar(name, desc)`` style) ---------------------------------

    def scalar(self, name: str, desc: str = "", *, unit: str | None = None, additive: bool = True) -> Scalar:
        """Create and register a `Scalar`."""
        return self.add(Scalar(name, desc, unit=unit, additive=additive))  # type: ignore[return-value]

    def vector(
        self, name: str, desc: str = "", *, unit: str | None = None, labels: Iterable[str] = (),
        additive: bool = True,
    ) -> Vector:
        """Create and register a `Vector`."""
        return self.add(Vector(name, desc, unit=unit, labels=labels, additive=additive))  # type: ignore[return-value]

    def distribution(
        self, name: str, desc: str = "", edges: Iterable[float] = (), *, unit: str | None = None
    ) -> Distribution:
        """Create and register a `Distribution` with bucket ``edges``."""
        return self.add(Distribution(name, desc, edges=edges, unit=unit))  # type: ignore[return-value]

    def formula(
        self, name: str, desc: str, fn: Callable[[], Number], *, unit: str | None = None, additive: bool = False
    ) -> Formula:
        """Create and register a `Formula` computing ``fn()`` at each dump."""
        return self.add(Formula(name, desc, fn, unit=unit, additive=additive))  # type: ignore[return-value]

    # -- traversal, dump, reset --------------------------------------------------------------------

    def walk(self) -> Iterator[tuple[str, AnyStat]]:
        """(flattened name, stat) of every stat below this group: own stats in declaration order, then
        each child group's, depth first."""
        for stat in self._stats.values():
            yield stat.full_name, stat
        for child in self._children.values():
            yield from child.walk()

    def __getitem__(self, path: str) -> AnyStat:
        """A stat by dotted path relative to this group (``group["core0.tiu.cmd_count"]``)."""
        head, _, rest = path.partition(".")
        if rest:
            if head not in self._children:
                raise KeyError(f"no child group {head!r} in {self.path or '<root>'!r}")
            return self._children[head][rest]
        if head not in self._stats:
            raise KeyError(f"no stat {head!r} in {self.path or '<root>'!r}")
        return self._stats[head]

    def dump(self) -> dict[str, Any]:
        """``{flattened name: value}`` of every stat below this group (formulas evaluated now);
        changes nothing."""
        return {name: stat.dump() for name, stat in self.walk()}

    def reset(self) -> None:
        """Zero every counter of this group and of all descendants (formulas follow at the next dump)."""
        for stat in self._stats.values():
            stat.reset()
        for child in self._children.values():
            child.reset()

    def __repr__(self) -> str:
        return f"StatGroup({self.path!r}: {len(self._stats)} stats, {len(self._children)} children)"


# -- the periodic dumper -------------------------------------------------------------------------------


def _json_number(x: Number) -> Number:
    """An int stays an int; an integral float inside the exact range is written as an int."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    x = float(x)
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def _encode_gauge(x: Number) -> Number | str:
    """A non-additive value: a number, or ``"nan"``/``"inf"``/``"-inf"``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    x = float(x)
    if not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return _json_number(x)


def _counter(x: Any, where: str) -> Number:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        try:
            x = float(x)  # numpy scalars and the like
        except (TypeError, ValueError):
            raise StatsError(f"{where}: value {x!r} is not a number") from None
    if isinstance(x, float) and not math.isfinite(x) or x < 0:
        raise StatsError(f"{where}: counter value {x!r} is negative or not finite; counters must be finite and >= 0")
    return _json_number(x)


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
            return _json_number(v)
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
    that happened before ``now`` has been counted; ``close(now)`` writes a last partial interval.
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
        from mpx.trace import TIME_UNITS

        if time_unit not in TIME_UNITS:
            raise StatsError(f"unknown time unit {time_unit!r}; expected one of {', '.join(TIME_UNITS)}")
        if period is not None and not (isinstance(period, (int, float)) and math.isfinite(period) and period > 0):
            raise StatsError(f"period must be a positive finite number, got {period!r}")
        if not (isinstance(start, (int, float)) and math.isfinite(start)):
            raise StatsError(f"start must be a finite number, got {start!r}")
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
        self._names: list[str] | None = None
        self._stats: list[tuple[str, AnyStat]] = []
        self._version = -1
        if isinstance(out, (str, os.PathLike)):
            self._fh: IO[str] = _open_output(out)
            self._owns = True
        else:
            self._fh = out
            self._owns = False

    def header(self) -> dict[str, Any]:
        """The header object for the stats declared now."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "time_unit": self.time_unit,
            "period": None if self.period is None else _json_number(self.period),
            "meta": self.meta,
            "stats": [stat.declaration() for _, stat in self.root.walk()],
        }

    def _write(self, obj: dict[str, Any]) -> None:
        self._fh.write(json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False) + "\n")

    def dump(self, now: float) -> None:
        """Write the interval ``[last, now)`` and reset the stats."""
        if not (isinstance(now, (int, float)) and math.isfinite(now)) or now <= self.last:
            raise StatsError(f"dump at {now!r}: the interval must end after it starts ({self.last!r})")
        if self._version != _structure_version:
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
            self._names, self._stats, self._version = names, stats, _structure_version
        stats = self._stats
        record = {
            "start": _json_number(self.last),
            "end": _json_number(now),
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
        if now < self._next:
            return False
        self.dump(now)
        k = math.floor((now - self._start) / self.period) + 1  # type: ignore[operator]
        self._next = self._start + k * self.period  # type: ignore[operator]
        return True

    def close(self, now: float | None = None) -> None:
        """Write the last (partial) interval ``[last, now)`` when ``now > last``, then close the output
        if this dumper opened it."""
        if now is not None and now > self.last:
            self.dump(now)
        if self._owns:
            self._fh.close()
        else:
            self._fh.flush()

    def __enter__(self) -> PeriodicDumper:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._owns and not self._fh.closed:
            self._fh.close()

