"""Event groups (perf's ``{a,b}:W``) and metric hyperedges, and the readers of their loose forms."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mpx.errors import ConfigError

__all__ = ["EventGroup", "MetricEdge", "as_metric_edges", "as_relations", "event_tuple"]


@dataclass(frozen=True)
class EventGroup:
    """Events that must be counted together (perf: a group leader and its siblings).

    ``pinned`` (perf ``:D``): scheduled before every flexible group, never rotated; if it cannot be
    placed it goes to error state for the rest of the run. ``exclusive`` (``:e``): nothing else shares
    the PMU while it runs. ``weak`` (``:W``): if the group can never be opened, its events fall back to
    single-event groups (perf stat, ``evlist__reset_weak_group``). ``name``: where the group came from
    (e.g. the metric that made it), for display only.
    """

    events: tuple[str, ...]
    pinned: bool = False
    exclusive: bool = False
    weak: bool = False
    name: str | None = None

    def __post_init__(self) -> None:
        events = tuple(self.events) if not isinstance(self.events, str) else (self.events,)
        if not events:
            raise ConfigError("an event group needs at least one event")
        for e in events:
            if not isinstance(e, str) or not e:
                raise ConfigError(f"event names must be non-empty strings, got {e!r}")
        if len(set(events)) != len(events):
            dup = sorted({e for e in events if events.count(e) > 1})
            raise ConfigError(f"event group lists {dup} more than once")
        object.__setattr__(self, "events", events)

    def __len__(self) -> int:
        return len(self.events)

    def to_perf(self) -> str:
        """The group in perf's ``-e`` syntax, e.g. ``{a,b}:W`` (a single event without braces)."""
        mods = ("D" if self.pinned else "") + ("e" if self.exclusive else "") + ("W" if self.weak else "")
        if len(self.events) == 1:
            return self.events[0] + (f":{mods}" if mods else "")
        return "{" + ",".join(self.events) + "}" + (f":{mods}" if mods else "")


@dataclass(frozen=True)
class MetricEdge:
    """A metric as schedulers see it: a name and the events it needs (its hyperedge).

    ``constraint`` is perf's ``MetricConstraint`` (``NO_GROUP_EVENTS``, ``NO_GROUP_EVENTS_NMI``,
    ``NO_GROUP_EVENTS_SMT``) or None.
    """

    name: str
    events: tuple[str, ...]
    constraint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", tuple(dict.fromkeys(event_tuple(self.events))))


def as_metric_edges(metrics: Any) -> tuple[MetricEdge, ...]:
    """Accept MetricEdge, `mpx.metrics.Metric` objects (``.name``, ``.events``, ``.constraint``), a
    `mpx.metrics.Catalog` (its ``.metrics``), ``(name, events)`` pairs or a ``{name: events}`` mapping."""
    if metrics is None:
        return ()
    if hasattr(metrics, "metrics") and not isinstance(metrics, Mapping):
        metrics = metrics.metrics
    if isinstance(metrics, Mapping):
        metrics = [v if hasattr(v, "events") else (k, v) for k, v in metrics.items()]
    out = []
    for m in metrics:
        if isinstance(m, MetricEdge):
            out.append(m)
        elif hasattr(m, "name") and hasattr(m, "events"):
            constraint = getattr(m, "constraint", None)
            out.append(MetricEdge(str(m.name), event_tuple(m.events), str(constraint) if constraint else None))
        elif isinstance(m, tuple) and len(m) in (2, 3) and isinstance(m[0], str):
            out.append(MetricEdge(m[0], event_tuple(m[1]), m[2] if len(m) == 3 else None))
        else:
            raise ConfigError(f"cannot read a metric from {m!r}: need .name and .events, or (name, events)")
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"metric names repeat: {sorted({n for n in names if names.count(n) > 1})}")
    return tuple(out)


def as_relations(relations: Any, known: set[str]) -> tuple[tuple[str, ...], ...]:
    """Relations as event tuples: each one a list of event names or an object with ``.events`` (a
    `mpx.metrics.Relation`); every event must be in the problem."""
    if relations is None:
        return ()
    if isinstance(relations, str) or not isinstance(relations, Iterable):
        raise ConfigError(f"relations must be a list of event lists, got {relations!r}")
    out = []
    for r in relations:
        events = getattr(r, "events", r)
        if isinstance(events, str) or not isinstance(events, Iterable):
            raise ConfigError(f"relations must be a list of event lists, not {r!r}")
        events = tuple(dict.fromkeys(event_tuple(events)))
        if not events or not all(isinstance(e, str) and e for e in events):
            raise ConfigError(f"a relation must name at least one event, as non-empty strings: {r!r}")
        missing = [e for e in events if e not in known]
        if missing:
            raise ConfigError(f"a relation names events that are not in the problem: {missing}")
        out.append(events)
    return tuple(out)


def event_tuple(events: Any) -> tuple[str, ...]:
    if isinstance(events, str):
        return (events,)
    if isinstance(events, (set, frozenset)):
        return tuple(sorted(events))
    return tuple(events)
