"""What a catalog knows about events: `EventInfo` (perf ``Counter`` masks, unit, kind) and `Group`
(LIKWID event sets, hperf event groups, metric groups)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mpx.pmu import CounterField, parse_counter_field

__all__ = ["GROUP_KINDS", "EventInfo", "Group", "check_counter_spec"]

GROUP_KINDS = ("eventset", "event_group", "metric_group", "function")
"""`Group.kind`: ``eventset`` (LIKWID group: events measured together on named counters),
``event_group`` (hperf: events that should be co-scheduled), ``metric_group`` (perf ``MetricGroup``,
Arm ``groups.metrics``: a set of metrics; events = union of theirs), ``function`` (Arm
``groups.function``: events sorted by function, informational). The events of a metric group that
lists metrics are derived from them (and re-pruned whenever the literals change)."""


# -- per-event information and groups ---------------------------------------------------------------

def check_counter_spec(text: str | None) -> str | None:
    """Raise ValueError unless ``text`` is a perf ``Counter`` value (``"0,1,2,3"``, ``"Fixed counter 1"``,
    ``"FIXED"``; `mpx.pmu.parse_counter_field`) or None."""
    if text is not None:
        parse_counter_field(text)
    return text


def _counter_field(text: str | None) -> CounterField:
    try:
        return parse_counter_field(text) if text is not None else CounterField()
    except ValueError:
        return CounterField()


@dataclass(frozen=True)
class EventInfo:
    """What a catalog knows about one event. ``counter`` and ``counter_ht_off`` are perf's raw strings
    (``"0,1,2,3"``, ``"Fixed counter 1"``, ``"FIXED"`` for an uncore fixed counter); `counters` and
    `fixed_counter` parse them. ``kind`` is one of ``general``, ``fixed``, ``uncore``, ``energy``,
    ``thermal``, ``msr``, ``topdown``, ``software``, ``pinned``, ``other`` or None (unknown)."""

    name: str
    counter: str | None = None
    counter_ht_off: str | None = None
    unit: str | None = None
    kind: str | None = None
    code: str | None = None
    description: str = ""
    source: str | None = field(default=None, compare=False)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @staticmethod
    def _parse(text: str | None) -> frozenset[int] | None:
        numbers = _counter_field(text).numbers
        return None if numbers is None else frozenset(numbers)

    @property
    def counters(self) -> frozenset[int] | None:
        """General-purpose counters the event may use (HT on), or None (unknown or fixed)."""
        return self._parse(self.counter)

    @property
    def counters_ht_off(self) -> frozenset[int] | None:
        """General-purpose counters with hyper-threading off (perf ``CounterHTOff``), or None."""
        return self._parse(self.counter_ht_off)

    @property
    def is_fixed(self) -> bool:
        f = _counter_field(self.counter)
        return f.fixed is not None or f.uncore_fixed

    @property
    def fixed_counter(self) -> int | None:
        """Index of the fixed counter (``"Fixed counter 1"`` → 1); None otherwise (also for ``"FIXED"``,
        whose index perf does not give)."""
        return _counter_field(self.counter).fixed

    def merged(self, other: EventInfo) -> tuple[EventInfo, str | None]:
        """Fill this record's missing fields from ``other``; returns (merged, conflict message or None)
        — on a conflict this record's value is kept."""
        changes: dict[str, Any] = {}
        conflict = None
        for f in ("counter", "counter_ht_off", "unit", "kind", "code"):
            mine, theirs = getattr(self, f), getattr(other, f)
            if mine is None and theirs is not None:
                changes[f] = theirs
            elif mine is not None and theirs is not None and mine != theirs and f in ("counter", "counter_ht_off", "unit"):
                conflict = (
                    f"{f} {theirs!r} of {self.name!r} from {other.source} conflicts with {mine!r} "
                    f"(record first seen in {self.source})"
                )
        if not self.description and other.description:
            changes["description"] = other.description
        extra = dict(other.extra)
        for k, v in self.extra.items():
            if isinstance(v, list) and isinstance(extra.get(k), list):
                extra[k] = list(dict.fromkeys(v + extra[k]))
            else:
                extra[k] = v
        changes["extra"] = extra
        return dataclasses.replace(self, **changes), conflict


@dataclass(frozen=True)
class Group:
    """A predefined group (see `GROUP_KINDS`). ``counters`` pairs events with the register a LIKWID
    group puts them on (``("INSTR_RETIRED_ANY", "FIXC0")``); ``requires`` lists LIKWID ``REQUIRE_*``
    conditions without the prefix (``("NOHT",)``: the group needs hyper-threading off, e.g. because it
    uses PMC4-7)."""

    name: str
    kind: str
    events: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    description: str = field(default="", repr=False)
    counters: tuple[tuple[str, str], ...] = ()
    requires: tuple[str, ...] = ()
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in GROUP_KINDS:
            raise ValueError(f"group {self.name!r}: kind must be one of {GROUP_KINDS}, got {self.kind!r}")
