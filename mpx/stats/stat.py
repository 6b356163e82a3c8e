"""Typed statistics (gem5's Scalar, Vector, Distribution, Formula), their names and bucket labels."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterable
from typing import Any, Union

from mpx.errors import MpxError

_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*\Z")

Number = Union[int, float]


class StatsError(MpxError, ValueError):
    """A stat is declared or used wrongly (bad or duplicate name, bad bucket edges, a counter that is
    negative or not finite at dump time, a stat declared after the dump header was written)."""


def check_name(name: object, what: str) -> str:
    """``name`` when it is a valid stat or group name (letters, digits, '_', '-'); StatsError otherwise."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise StatsError(f"{what} name {name!r} is not valid: use letters, digits, '_' and '-' (no dots)")
    return name


def json_number(x: Number) -> Number:
    """An int stays an int; an integral float inside the exact range is written as an int."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    x = float(x)
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def join_name(prefix: str, name: str) -> str:
    """The dotted full name of ``name`` under ``prefix``."""
    return f"{prefix}.{name}" if prefix else name


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
        self.name = check_name(name, "stat")
        if not isinstance(desc, str):
            raise StatsError(f"description of {name!r} must be a string")
        if unit is not None and not isinstance(unit, str):
            raise StatsError(f"unit of {name!r} must be a string or None")
        self.desc = desc
        self.unit = unit
        self._group: Any = None  # the StatGroup holding this stat (mpx.stats.group)

    @property
    def full_name(self) -> str:
        """Flattened dotted name (``parent.child.stat``)."""
        return self.name if self._group is None else join_name(self._group.path, self.name)

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
        return {**super().declaration(), "edges": [json_number(x) for x in self.edges]}


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
