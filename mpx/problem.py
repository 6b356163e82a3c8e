"""What is measured on which hardware: the `Problem`.

A Problem is everything a scheduler may know before the run: the events (in the order the user listed
them), the PMU, the metrics (each metric's event set is a hyperedge), the user's event groups,
per-event weights and the known relations among events (event sets tied by an identity or inequality,
e.g. from a catalog's formulas). It never holds a Trace: schedulers get a Problem and, when online, what
was observed so far (see `mpx.multiplex`), never the truth.

Four ways to build one:

- ``Problem(events, pmu, groups=..., metrics=..., weights=..., relations=...)``; events not in any group
  become single-event groups appended in event order (perf: every ``-e`` event not in braces is its own
  group).
- `Problem.from_perf_events` parses perf's event-list syntax, ``"{a,b}:W,c,{d,e}:D"``
  (`parse_event_list`).
- `Problem.from_metrics` groups metrics the way ``perf stat -M`` does (`perf_metric_groups`).
- `Problem.from_catalog` measures a metric `~mpx.metrics.Catalog` on a PMU: the catalog's own groups
  (LIKWID event sets, hperf event groups) or perf's, events outside the core counters made free with
  the reason, uncore events placed on an instance, the catalog's relations kept.

Hardware model (mpx's, shared by every scheduler; see `Problem.free`):

- Events bound to a fixed counter of the PMU and software events never compete for a programmable
  counter: mpx counts them in every quantum. Perf behaves so for the fixed counters when the fixed events
  are pinned (``:D``) or scheduled before the first group that fails; an unpinned ``instructions`` listed
  after a failing group would, in the kernel, wait its turn (``merge_sched_in`` stops every later hardware
  group). mpx takes the always-counted model because fixed counters are never over-committed.
- An event may belong to several groups (``perf stat -M`` opens a shared event once per metric group).
  Each copy takes its own counter when its group is on (`Problem.fits` counts an event listed twice
  twice), but mpx keeps one column per event: it runs whenever any of its groups runs, i.e. the counts
  of perf's per-group copies are pooled.
- Events the PMU can never count (unknown unit, every allowed counter missing) are not an error here:
  schedulers put them in error state (perf stat prints ``<not supported>``), see
  `mpx.schedulers.base.open_groups`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.pmu import UncountableEventError, place_greedy, place_matching, resolve_pmu

__all__ = [
    "EventGroup",
    "MetricEdge",
    "Problem",
    "parse_event_list",
    "perf_metric_groups",
    "PERF_MODIFIERS",
    "SOFTWARE_EVENTS",
    "TOOL_EVENTS",
]

#: perf's event modifiers (``perf list`` man page, EVENT MODIFIERS; ``tools/perf/util/parse-events.l``)
PERF_MODIFIERS = "ukhIGHpPSDWebR"
_COUNTING_MODIFIERS = set(PERF_MODIFIERS) - set("DWe")

#: perf's software events (``tools/perf/util/parse-events.c``, ``event_symbols_sw``): kernel counters
#: that need no PMU counter, so a group made only of them always fits (``group_can_go_on``).
SOFTWARE_EVENTS = frozenset(
    {
        "cpu-clock", "task-clock", "page-faults", "faults", "context-switches", "cs", "cpu-migrations",
        "migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
        "bpf-output", "cgroup-switches",
    }
)

#: perf's tool events (``tools/perf/util/tool_pmu.c``): measured by perf itself from wall-clock and
#: rusage, not by the PMU. ``perf stat -M`` keeps them outside every group and does not count them when
#: sorting metrics by size (``metric_list_cmp``).
TOOL_EVENTS = frozenset({"duration_time", "user_time", "system_time"})


# -- groups and metrics -----------------------------------------------------------------------------


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
        object.__setattr__(self, "events", tuple(dict.fromkeys(_event_tuple(self.events))))


def _as_metric_edges(metrics: Any) -> tuple[MetricEdge, ...]:
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
            out.append(MetricEdge(str(m.name), _event_tuple(m.events), str(constraint) if constraint else None))
        elif isinstance(m, tuple) and len(m) in (2, 3) and isinstance(m[0], str):
            out.append(MetricEdge(m[0], _event_tuple(m[1]), m[2] if len(m) == 3 else None))
        else:
            raise ConfigError(f"cannot read a metric from {m!r}: need .name and .events, or (name, events)")
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"metric names repeat: {sorted({n for n in names if names.count(n) > 1})}")
    return tuple(out)


def _as_relations(relations: Any, known: set[str]) -> tuple[tuple[str, ...], ...]:
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
        events = tuple(dict.fromkeys(_event_tuple(events)))
        if not events or not all(isinstance(e, str) and e for e in events):
            raise ConfigError(f"a relation must name at least one event, as non-empty strings: {r!r}")
        missing = [e for e in events if e not in known]
        if missing:
            raise ConfigError(f"a relation names events that are not in the problem: {missing}")
        out.append(events)
    return tuple(out)


def _event_tuple(events: Any) -> tuple[str, ...]:
    if isinstance(events, str):
        return (events,)
    if isinstance(events, (set, frozenset)):
        return tuple(sorted(events))
    return tuple(events)


# -- perf's event-list syntax -----------------------------------------------------------------------


def _split_modifiers(text: str, source: str, col: int) -> tuple[str, str]:
    """``cycles:u`` → (``cycles``, ``u``); ``cpu/event=0x3c/u`` → (``cpu/event=0x3c/``, ``u``).

    A colon suffix made only of modifier letters is a modifier list; anything else stays in the name
    (tracepoints such as ``sched:sched_switch``).
    """
    if "/" in text:
        cut = text.rindex("/") + 1
        name, mods = text[:cut], text[cut:]
        if mods.startswith(":"):
            mods = mods[1:]
    elif ":" in text:
        head, tail = text.rsplit(":", 1)
        if tail == "":
            raise FormatError(source, None, f"column {col}: empty modifier list after ':' in {text!r}")
        if all(c in PERF_MODIFIERS for c in tail):
            name, mods = head, tail
        else:
            name, mods = text, ""
    else:
        name, mods = text, ""
    bad = sorted({c for c in mods if c not in PERF_MODIFIERS})
    if bad:
        raise FormatError(
            source, None, f"column {col}: unknown modifier(s) {''.join(bad)!r} in {text!r} "
            f"(perf modifiers: {PERF_MODIFIERS})"
        )
    if not name or name.strip() != name or re.search(r"\s", name):
        raise FormatError(source, None, f"column {col}: bad event name {name!r}")
    return name, mods


def _scan_item(spec: str, pos: int, source: str, in_group: bool) -> tuple[str, int]:
    """Read one event term starting at ``pos`` up to the next top-level ``,`` (or ``}`` in a group);
    commas inside ``pmu/.../`` terms do not split."""
    start = pos
    in_slash = False
    while pos < len(spec):
        c = spec[pos]
        if c == "/":
            in_slash = not in_slash
        elif not in_slash:
            if c == "," or (c == "}" and in_group):
                break
            if c == "{":
                raise FormatError(source, None, f"column {pos + 1}: '{{' inside an event name or nested group")
            if c == "}":
                raise FormatError(source, None, f"column {pos + 1}: '}}' without a matching '{{'")
        pos += 1
    if in_slash:
        raise FormatError(source, None, f"column {start + 1}: unterminated 'pmu/.../' term {spec[start:pos]!r}")
    return spec[start:pos].strip(), pos


def parse_event_list(
    spec: str, source: str = "<event list>"
) -> tuple[tuple[EventGroup, ...], tuple[dict[str, str], ...]]:
    """Parse perf's ``-e`` event list (``"{a,b}:W,c,{d,e}:D"``) into groups.

    Group modifiers follow the closing brace; inside a group the leader's ``D``/``e``/``W`` apply to the
    group (the kernel schedules a group by its leader's ``attr.pinned``/``attr.exclusive``), on other
    members they are ignored. Counting-mode modifiers (``u k h I G H p P S b R``) change *what* perf
    counts, which a ground-truth trace already fixes: they are not modelled and are returned as notes
    (``{"event", "modifiers", "why"}``) so nothing is dropped silently. Returns ``(groups, notes)``;
    a malformed list raises `FormatError` with the column.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise FormatError(source, None, "empty event list")
    groups: list[EventGroup] = []
    notes: list[dict[str, str]] = []
    pos, n = 0, len(spec)

    def note(event: str, mods: str, why: str) -> None:
        if mods:
            notes.append({"event": event, "modifiers": mods, "why": why})

    while True:
        while pos < n and spec[pos].isspace():
            pos += 1
        if pos >= n:
            raise FormatError(source, None, f"column {pos + 1}: missing event after ','")
        if spec[pos] == "{":
            gstart = pos
            pos += 1
            members: list[tuple[str, str]] = []
            while True:
                text, end = _scan_item(spec, pos, source, in_group=True)
                if not text:
                    raise FormatError(source, None, f"column {pos + 1}: empty event in group")
                members.append(_split_modifiers(text, source, pos + 1))
                pos = end
                if pos >= n:
                    raise FormatError(source, None, f"column {gstart + 1}: group '{{' is never closed")
                if spec[pos] == "}":
                    pos += 1
                    break
                pos += 1  # ','
            gmods = ""
            if pos < n and spec[pos] == ":":
                m = re.match(r":([A-Za-z]*)", spec[pos:])
                gmods = m.group(1)
                if not gmods:
                    raise FormatError(source, None, f"column {pos + 1}: empty group modifier list")
                bad = sorted({c for c in gmods if c not in PERF_MODIFIERS})
                if bad:
                    raise FormatError(
                        source, None, f"column {pos + 1}: unknown group modifier(s) {''.join(bad)!r} "
                        f"(perf modifiers: {PERF_MODIFIERS})"
                    )
                pos += 1 + len(gmods)
            names = [m[0] for m in members]
            if len(set(names)) != len(names):
                raise FormatError(
                    source, None, f"column {gstart + 1}: group lists an event twice "
                    f"({sorted({x for x in names if names.count(x) > 1})}); mpx has one column per event"
                )
            lead_mods = members[0][1]
            flags = gmods + lead_mods
            for i, (name, mods) in enumerate(members):
                kept = "".join(c for c in mods if c in _COUNTING_MODIFIERS)
                note(name, kept, "counting-mode modifier, not modelled on ground truth")
                if i > 0:
                    note(name, "".join(c for c in mods if c in "DWe"), "D/W/e on a group member (not leader)")
            note("{" + ",".join(names) + "}", "".join(c for c in gmods if c in _COUNTING_MODIFIERS),
                 "counting-mode modifier, not modelled on ground truth")
            groups.append(EventGroup(tuple(names), pinned="D" in flags, exclusive="e" in flags, weak="W" in flags))
        else:
            text, end = _scan_item(spec, pos, source, in_group=False)
            if not text:
                raise FormatError(source, None, f"column {pos + 1}: empty event")
            name, mods = _split_modifiers(text, source, pos + 1)
            note(name, "".join(c for c in mods if c in _COUNTING_MODIFIERS),
                 "counting-mode modifier, not modelled on ground truth")
            note(name, "W" if "W" in mods else "", "W on a single event has no effect")
            groups.append(EventGroup((name,), pinned="D" in mods, exclusive="e" in mods))
            pos = end
        while pos < n and spec[pos].isspace():
            pos += 1
        if pos >= n:
            break
        if spec[pos] != ",":
            raise FormatError(source, None, f"column {pos + 1}: expected ',' or end, found {spec[pos]!r}")
        pos += 1
    return tuple(groups), tuple(notes)


# -- perf stat -M -----------------------------------------------------------------------------------


def _groups_events(metric: MetricEdge, *, metric_no_group: bool, nmi_watchdog: bool, smt_on: bool) -> bool:
    """``metric__group_events`` of ``tools/perf/util/metricgroup.c``."""
    if metric_no_group:
        return False
    c = (metric.constraint or "").upper()
    if c == "NO_GROUP_EVENTS":
        return False
    if c == "NO_GROUP_EVENTS_NMI":
        return not nmi_watchdog
    if c == "NO_GROUP_EVENTS_SMT":
        return not smt_on
    if c.startswith("NO_GROUP_EVENTS"):
        raise ConfigError(f"metric {metric.name!r}: unknown MetricConstraint {metric.constraint!r}")
    return True


def perf_metric_groups(
    metrics: Any,
    *,
    metric_no_merge: bool = False,
    metric_no_group: bool = False,
    nmi_watchdog: bool = False,
    smt_on: bool = False,
) -> tuple[EventGroup, ...]:
    """The event groups ``perf stat -M m1,m2,...`` opens (``parse_groups`` in
    ``tools/perf/util/metricgroup.c``, Linux 6.x).

    - Metrics are sorted by number of events, largest first (``metric_list_cmp``; tool events such as
      ``duration_time`` are not counted). perf builds the list by head insertion (``list_add``) and
      ``list_sort`` is stable, so metrics of equal size end up in *reverse* command-line order.
    - A metric whose events may be grouped becomes one weak group ``{...}:W``, unless (without
      ``metric_no_merge``) its events are a subset of an earlier metric that made its own group: then it
      reuses that group.
    - Metrics that must not be grouped (``--metric-no-group``, or ``MetricConstraint`` NO_GROUP_EVENTS;
      ``_NMI`` when the NMI watchdog is on; ``_SMT`` when SMT is on) put their events ungrouped: all such
      events merged into one list placed first (without ``metric_no_merge``), else one list per metric.
    - Tool events are left out: perf reads them from the clock, mpx from the time axis.

    Event order inside a group follows the metric's event order (perf's follows a hash map). Fixed-counter
    events stay in the groups here; `Problem` counts them in every quantum anyway.
    """
    edges = _as_metric_edges(metrics)
    # perf: list_add (head insertion) then a stable sort by decreasing size
    ordered = sorted(reversed(edges), key=lambda m: -len([e for e in m.events if e not in TOOL_EVENTS]))
    ids = {m.name: [e for e in m.events if e not in TOOL_EVENTS] for m in ordered}
    grouped = {
        m.name: _groups_events(m, metric_no_group=metric_no_group, nmi_watchdog=nmi_watchdog, smt_on=smt_on)
        for m in ordered
    }
    out: list[EventGroup] = []
    if not metric_no_merge:
        combined = dict.fromkeys(e for m in ordered if not grouped[m.name] for e in ids[m.name])
        out.extend(EventGroup((e,), name="(ungrouped metric events)") for e in combined)
    own: list[str] = []  # metrics that opened their own events, in list order
    for m in ordered:
        if not ids[m.name]:
            continue
        if not grouped[m.name] and not metric_no_merge:
            continue
        if not metric_no_merge:
            mine = set(ids[m.name])
            if any(mine <= set(ids[n]) for n in own):
                continue
        own.append(m.name)
        if grouped[m.name]:
            out.append(EventGroup(tuple(ids[m.name]), weak=True, name=m.name))
        else:
            out.extend(EventGroup((e,), name=m.name) for e in ids[m.name])
    return tuple(out)


# -- the PMU adapter --------------------------------------------------------------------------------


def _resolve_pmu(pmu: Any) -> Any:
    return resolve_pmu(pmu) if isinstance(pmu, str) else pmu


# -- the Problem ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Problem:
    """Events, PMU, metrics, groups, weights and relations of one measurement (never the truth).

    ``relations``: event tuples known to be tied (a linear identity or inequality among their counts),
    for schedulers that use the relation graph (`mpx.schedulers.bayesperf`); given as lists of event
    names or objects with ``.events`` (`mpx.metrics.Relation`), every event in the problem.
    ``meta``: free-form provenance (how the problem was built, e.g. ``Problem.from_catalog``'s notes).
    ``pmu``: a `mpx.pmu.PMU` or a preset name; None when nobody declared the hardware (a real run read
    back: its events are known, their counters are not) — then every hardware question (``fits``,
    ``free``, ``units``, ...) raises `ConfigError` instead of guessing.
    """

    events: tuple[str, ...]
    pmu: Any
    groups: tuple[EventGroup, ...] = ()
    metrics: tuple[MetricEdge, ...] = ()
    weights: Any = None
    software: frozenset[str] = SOFTWARE_EVENTS
    meta: dict = field(default_factory=dict)
    relations: tuple[tuple[str, ...], ...] = ()
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        events = tuple(self.events) if not isinstance(self.events, str) else (self.events,)
        groups = self.groups
        if isinstance(groups, str):
            groups, notes = parse_event_list(groups)
            if notes:
                set_("meta", {**self.meta, "ignored_modifiers": list(notes)})
        groups = tuple(g if isinstance(g, EventGroup) else EventGroup(tuple(g)) for g in groups)
        if not events:
            events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        if not events:
            raise ConfigError("a Problem needs at least one event")
        for e in events:
            if not isinstance(e, str) or not e:
                raise ConfigError(f"event names must be non-empty strings, got {e!r}")
        if len(set(events)) != len(events):
            raise ConfigError(f"events repeat: {sorted({e for e in events if events.count(e) > 1})}")
        known = set(events)
        for g in groups:
            missing = [e for e in g.events if e not in known]
            if missing:
                raise ConfigError(f"group {g.to_perf()} names events that are not in the problem: {missing}")
        covered = {e for g in groups for e in g.events}
        groups = groups + tuple(EventGroup((e,)) for e in events if e not in covered)
        metrics = _as_metric_edges(self.metrics)
        for m in metrics:
            missing = [e for e in m.events if e not in known]
            if missing:
                raise ConfigError(f"metric {m.name!r} needs events that are not in the problem: {missing}")
        relations = _as_relations(self.relations, known)
        w = self.weights
        if w is None:
            w = np.ones(len(events))
        elif isinstance(w, Mapping):
            unknown = [k for k in w if k not in known]
            if unknown:
                raise ConfigError(f"weights given for unknown events: {unknown}")
            w = np.array([float(w.get(e, 1.0)) for e in events])
        else:
            w = np.array(w, dtype=float, copy=True)
        if w.shape != (len(events),) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ConfigError(f"weights must be {len(events)} finite non-negative numbers, got {w!r}")
        w.setflags(write=False)
        set_("events", events)
        set_("pmu", _resolve_pmu(self.pmu))
        set_("groups", groups)
        set_("metrics", metrics)
        set_("weights", w)
        set_("software", frozenset(self.software))
        set_("meta", dict(self.meta))
        set_("relations", relations)
        set_("_cache", {})
        if self.pmu is not None:
            self._hw()  # check now that the PMU knows every event: a bad problem fails at construction

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def from_perf_events(cls, spec: str, pmu: Any, *, metrics: Any = None, weights: Any = None,
                         software: Iterable[str] = SOFTWARE_EVENTS) -> Problem:
        """A Problem from perf's ``-e`` syntax, e.g. ``"{a,b}:W,c,{d,e}:D"`` (see `parse_event_list`)."""
        groups, notes = parse_event_list(spec)
        meta: dict[str, Any] = {"built_from": f"perf -e {spec}"}
        if notes:
            meta["ignored_modifiers"] = list(notes)
        events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        return cls(events, pmu, groups=groups, metrics=metrics, weights=weights, software=frozenset(software),
                   meta=meta)

    @classmethod
    def from_metrics(cls, metrics: Any, pmu: Any, *, metric_no_merge: bool = False,
                     metric_no_group: bool = False, nmi_watchdog: bool | None = None, smt_on: bool = False,
                     weights: Any = None, software: Iterable[str] = SOFTWARE_EVENTS) -> Problem:
        """A Problem grouped like ``perf stat -M`` (see `perf_metric_groups`).

        ``nmi_watchdog`` decides ``NO_GROUP_EVENTS_NMI``; when None it is True iff the PMU has reserved
        counters (mpx.pmu models the watchdog as a reserved counter, ``PMU.with_nmi_watchdog``). Tool events (``duration_time``...) are left out of the
        problem and noted in ``meta['dropped']``.
        """
        edges = _as_metric_edges(metrics)
        pmu = _resolve_pmu(pmu)
        if nmi_watchdog is None:
            nmi_watchdog = bool(_pmu_nmi_watchdog(pmu))
        groups = perf_metric_groups(edges, metric_no_merge=metric_no_merge, metric_no_group=metric_no_group,
                                    nmi_watchdog=nmi_watchdog, smt_on=smt_on)
        events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        tools = sorted({e for m in edges for e in m.events if e in TOOL_EVENTS})
        kept = tuple(MetricEdge(m.name, tuple(e for e in m.events if e not in TOOL_EVENTS), m.constraint)
                     for m in edges)
        meta: dict[str, Any] = {
            "built_from": "perf stat -M " + ",".join(m.name for m in edges),
            "metric_no_merge": metric_no_merge, "metric_no_group": metric_no_group,
            "nmi_watchdog": nmi_watchdog, "smt_on": smt_on,
        }
        if tools:
            meta["dropped"] = [{"what": f"tool events {tools}", "why": "perf measures them from the clock, "
                                "not the PMU; mpx has the time axis"}]
        return cls(events, pmu, groups=groups, metrics=kept, weights=weights, software=frozenset(software),
                   meta=meta)

    @classmethod
    def from_catalog(cls, catalog: Any, pmu: Any, *, groups: str = "auto", metrics: Any = None) -> Problem:
        """A Problem measuring the metrics of a `mpx.metrics.Catalog` on ``pmu`` (a `mpx.pmu.PMU` or a
        preset name).

        - **groups**: ``"auto"`` takes the catalog's predefined groups — LIKWID event sets
          (``"eventset"``), else hperf event groups (``"event_group"``, hperf's pinned events as pinned
          groups) — and otherwise groups the metrics as ``perf stat -M`` does (``"metrics"``,
          `perf_metric_groups`, NMI watchdog on iff the PMU has reserved counters); each can also be
          asked for. ``meta['groups_from']`` says which (``"eventset"``, ``"event_group"``,
          ``"perf stat -M"``).
        - **metrics**: names of the metrics to measure (default all; with LIKWID/hperf groups, the
          metrics whose events the groups hold). An Arm telemetry specification's metrics follow its
          top-down methodology (stage-1 groups, then stage-2 groups, names sorted inside a group: the
          order the Arm Top-down Tool builds its metric list in); other catalogs keep their own order.
        - **events outside the core counters** are made free (``software``: counted in every quantum,
          never competing for a programmable counter), each with its reason in ``meta['free_events']``:
          catalog events of another PMU class (LIKWID ``PWR``/``TMP``/``MPERF``/box counters, hperf's
          *other* events, perf ``Unit`` events, Ice Lake's ``TMA`` metric registers), fixed-counter
          events the PMU model does not bind (LIKWID names its fixed events ``INSTR_RETIRED_ANY``, the
          presets bind perf's ``INST_RETIRED.ANY``), and perf-style ``unit/event/`` names whose unit the
          PMU does not describe (``cstate_core/c3-residency/``, ``msr/tsc/``).
        - **uncore instances**: an event the PMU cannot place but whose catalog unit
          (``EventInfo.unit`` or the ``Unit`` of the perf metrics using it) names PMU units is renamed
          ``instance/event/`` on the first instance (``hif_rd`` → ``ali_drw_21000/hif_rd/``); perf
          would open it on every instance and sum, and every instance is scheduled alike. Renames are
          in ``meta['renamed']``.
        - **relations**: the catalog's relations (exact identities and inequalities among events) whose
          events are all in the problem go to `Problem.relations`, as sorted event tuples.

        ``meta`` also holds ``catalog`` (its name) and ``platform`` (the catalog's scalar platform
        entries, e.g. hperf's ``available_GP``).
        """
        return _from_catalog(cls, catalog, pmu, groups=groups, metrics=metrics)

    # -- lookup ---------------------------------------------------------------------------------

    @property
    def n_events(self) -> int:
        return len(self.events)

    def index(self, event: str) -> int:
        """Column of ``event``."""
        idx = self._cache.get("index")
        if idx is None:
            idx = self._cache["index"] = {e: i for i, e in enumerate(self.events)}
        try:
            return idx[event]
        except KeyError:
            raise KeyError(f"no event {event!r} in the problem") from None

    def mask(self, events: Iterable[str]) -> np.ndarray:
        """Boolean row ``[E]`` with ``events`` set."""
        row = np.zeros(self.n_events, dtype=bool)
        for e in events:
            row[self.index(e)] = True
        return row

    def metric_masks(self) -> np.ndarray:
        """``[M, E]`` boolean incidence of metrics (rows) on events."""
        out = np.zeros((len(self.metrics), self.n_events), dtype=bool)
        for i, m in enumerate(self.metrics):
            out[i] = self.mask(m.events)
        return out

    # -- hardware (everything schedulers need to know about the PMU goes through here) -----------

    def _hw(self) -> _Hardware:
        hw = self._cache.get("hw")
        if hw is None:
            if self.pmu is None:
                raise ConfigError("the problem declares no PMU: counter placement needs one (a mpx.pmu.PMU or a "
                                  "preset name such as 'skylake')")
            hw = self._cache["hw"] = _Hardware(self)
        return hw

    @property
    def fixed(self) -> frozenset[str]:
        """Events bound to a (not reserved) fixed counter of the PMU."""
        return self._hw().fixed

    @property
    def free(self) -> frozenset[str]:
        """Events that never compete for a programmable counter (fixed-counter and software events):
        counted in every quantum."""
        return self._hw().free

    @property
    def free_mask(self) -> np.ndarray:
        return self._hw().free_mask

    def unit(self, event: str) -> str:
        """The PMU unit (``cpu``, an uncore PMU name...) whose counters count ``event``."""
        return self._hw().unit(event)

    @property
    def uncountable(self) -> dict[str, str]:
        """Events the PMU can never count (even with no counter reserved), with the reason."""
        return dict(self._hw().why_not)

    @property
    def unplaceable(self) -> dict[str, str]:
        """Programmable events a scheduler can never place, with the reason: the PMU cannot count them, or
        they fit no counter that is not reserved (e.g. the NMI watchdog holds the only one they allow)."""
        out: dict[str, str] = {}
        why = self._hw().why_not
        for e in self.events:
            if e in self.free:
                continue
            if not self.countable(e):
                out[e] = why.get(e, "the PMU can never count it")
            elif not self.fits([e]):
                out[e] = "fits no usable counter (its counters are reserved)"
        return out

    def countable(self, event: str) -> bool:
        """Whether ``event`` can be placed on some counter of its unit (ignoring counters reserved by
        others, like perf's open-time check) or is free."""
        return self._hw().countable(event)

    def fits(self, events: Iterable[str], *, method: str = "matching", reserved: bool = True) -> bool:
        """Whether ``events`` can be counted together in one quantum. Free events are ignored.

        ``method``: ``"matching"`` (bipartite matching: exact) or ``"perf"`` (the x86 kernel's
        weight-ordered greedy ``perf_assign_events``, which can fail where a matching exists; ties are
        broken by the order of ``events``, which should then be the kernel's: groups in scheduling
        order, members in group order).
        ``reserved=False`` ignores counters held by others (NMI watchdog), as x86's open-time
        ``validate_group`` does with its fake cpuc. An event listed twice needs two counters (perf opens
        an event shared by two groups once per group).
        """
        if method not in ("matching", "perf"):
            raise ConfigError(f"fits: method must be 'matching' or 'perf', got {method!r}")
        events = tuple(events)
        key = events if method == "perf" else tuple(sorted(events))
        return self._hw().fits(key, method, reserved)

    def n_counters(self, unit: str | None = None) -> int:
        """Usable (not reserved) programmable counters of ``unit`` (all units of the problem's events
        when None)."""
        return self._hw().n_counters(unit)

    def units(self) -> tuple[str, ...]:
        """Units of the problem's non-free events, in first-appearance order."""
        return self._hw().units

    # -- display --------------------------------------------------------------------------------

    def to_perf(self) -> str:
        """The groups in perf's ``-e`` syntax."""
        return ",".join(g.to_perf() for g in self.groups)

    def __repr__(self) -> str:
        name = None if self.pmu is None else getattr(self.pmu, "name", type(self.pmu).__name__)
        return (f"Problem({self.n_events} events, {len(self.groups)} groups, {len(self.metrics)} metrics, "
                f"pmu={name!r})")

    def replace(self, **changes: Any) -> Problem:
        """A copy with some fields changed (``dataclasses.replace``)."""
        changes.setdefault("_cache", {})
        return dataclasses.replace(self, **changes)


# -- from a metric catalog --------------------------------------------------------------------------

#: catalog event kinds that live outside the core PMU's programmable counters
_OTHER_PMU_KINDS = frozenset({"energy", "thermal", "msr", "topdown", "uncore", "other", "software"})


def _arm_metric_order(catalog: Any) -> list[str] | None:
    """The Arm Top-down Tool's metric order: methodology stage groups in order, names sorted inside a
    group (``cpu_telemetry_database.Group`` sorts its metrics by name), first appearance kept."""
    meth = catalog.meta.get("methodologies")
    if not isinstance(meth, dict):
        return None
    stages = (meth.get("topdown_methodology") or {}).get("metric_grouping")
    if not isinstance(stages, dict):
        return None
    order: list[str] = []
    for stage in ("stage_1", "stage_2"):
        for gname in stages.get(stage, []):
            g = catalog.groups.get(gname)
            if g is not None:
                order.extend(sorted(g.metrics))
    order = [m for m in dict.fromkeys(order) if m in catalog.metrics]
    return order + [m for m in catalog.metrics if m not in set(order)]


def _from_catalog(cls: type[Problem], catalog: Any, pmu: Any, *, groups: str, metrics: Any) -> Problem:
    """`Problem.from_catalog`."""
    pmu = _resolve_pmu(pmu)
    kinds = {g.kind for g in catalog.groups.values()}
    if groups == "auto":
        groups = "eventset" if "eventset" in kinds else "event_group" if "event_group" in kinds else "metrics"
    if groups not in ("eventset", "event_group", "metrics"):
        raise ConfigError(f"Problem.from_catalog: groups must be 'auto', 'eventset', 'event_group' or 'metrics', "
                          f"got {groups!r}")
    if groups != "metrics" and groups not in kinds:
        raise ConfigError(f"catalog {catalog.name!r} has no {groups} groups")
    order = _arm_metric_order(catalog) or list(catalog.metrics)
    if metrics is not None:
        wanted = [metrics] if isinstance(metrics, str) else list(metrics)
        for m in wanted:
            catalog.metric(m)
        order = [m for m in order if m in set(wanted)]

    # units of the PMU (instances share the prefix of their table name)
    unit_names = [u.name for u in pmu.units]

    def unit_hint(event: str) -> str | None:
        info = catalog.events.get(event)
        if info is not None and info.unit:
            return info.unit
        hints = {m.extra.get("Unit") for m in catalog.metrics.values() if event in m.events}
        hints.discard(None)
        return hints.pop() if len(hints) == 1 else None

    def placeable(event: str) -> bool:
        try:
            pmu.unit_of(event)
            return True
        except UncountableEventError:
            return False

    pgroups: list[EventGroup] = []
    edges: list[MetricEdge] = []
    raw_events: list[str] = []
    if groups == "eventset":
        sets = [g for g in catalog.groups.values() if g.kind == "eventset"]
        pgroups = [EventGroup(tuple(dict.fromkeys(g.events)), name=g.name) for g in sets]
        raw_events = [e for g in pgroups for e in g.events]
    elif groups == "event_group":
        hgroups = [g for g in catalog.groups.values() if g.kind == "event_group"]
        pinned = [e for e, i in catalog.events.items() if i.kind == "pinned"]
        pgroups = [EventGroup((e,), pinned=True, name="pinned") for e in pinned]
        pgroups += [EventGroup(tuple(dict.fromkeys(g.events)), name=g.name) for g in hgroups]
        raw_events = [e for g in pgroups for e in g.events] + list(catalog.events)
    chosen = [catalog.metrics[m] for m in order]
    if groups != "metrics":
        have = set(raw_events)
        chosen = [m for m in chosen if m.events <= have]
    for m in chosen:
        edges.append(MetricEdge(m.name, tuple(sorted(m.events)), m.constraint))
    if groups == "metrics":
        pgroups = list(perf_metric_groups(edges, nmi_watchdog=bool(pmu.reserved)))
        raw_events = [e for g in pgroups for e in g.events]
    raw_events = list(dict.fromkeys(raw_events + [e for m in edges for e in m.events]))
    if not raw_events:
        raise ConfigError(f"catalog {catalog.name!r} has no events to schedule (no metric or group names one)")

    # renames (uncore instances) and free events
    rename: dict[str, str] = {}
    free: dict[str, str] = {}
    for e in raw_events:
        info = catalog.events.get(e)
        kind = info.kind if info is not None else None
        hint = unit_hint(e)
        if "/" in e and e.split("/", 1)[0] not in unit_names:
            free[e] = f"on PMU unit {e.split('/', 1)[0]!r}, which PMU {pmu.name!r} does not describe"
            continue
        if not placeable(e) and hint:
            inst = [u for u in unit_names if u == hint or u.startswith(hint + "_")]
            if inst:
                rename[e] = f"{inst[0]}/{e}/"
                continue
        if kind in _OTHER_PMU_KINDS and e not in SOFTWARE_EVENTS:
            if hint and hint in unit_names:
                continue
            free[e] = f"catalog kind {kind!r}: outside the core PMU's programmable counters"
        elif kind == "fixed" and placeable(e) and pmu.fixed_counter(e) is None:
            if info is not None and info.unit:
                free[e] = f"fixed counter of PMU unit {info.unit!r}, outside the core PMU"
            else:
                free[e] = f"on a fixed counter by the catalog, which PMU {pmu.name!r} does not bind it to"
    ren = lambda e: rename.get(e, e)  # noqa: E731
    events = tuple(dict.fromkeys(ren(e) for e in raw_events))
    pgroups = [EventGroup(tuple(dict.fromkeys(ren(e) for e in g.events)), pinned=g.pinned, exclusive=g.exclusive,
                          weak=g.weak, name=g.name) for g in pgroups]
    edges = [MetricEdge(m.name, tuple(ren(e) for e in m.events), m.constraint) for m in edges]
    evset = set(events)
    relations = [tuple(sorted(ren(e) for e in r.events)) for r in catalog.relations
                 if {ren(e) for e in r.events} <= evset]
    meta = {
        "catalog": catalog.name,
        "groups_from": "perf stat -M" if groups == "metrics" else groups,
        "free_events": {ren(e): why for e, why in free.items()},
        "renamed": rename,
        "platform": {k: v for k, v in catalog.platform.items() if isinstance(v, (int, float, str))},
    }
    return cls(events, pmu, groups=tuple(pgroups), metrics=tuple(edges),
               software=frozenset(SOFTWARE_EVENTS) | {ren(e) for e in free}, meta=meta, relations=tuple(relations))


def _pmu_nmi_watchdog(pmu: Any) -> bool:
    """mpx.pmu models the NMI watchdog as a reserved counter (`mpx.pmu.PMU.with_nmi_watchdog`)."""
    return bool(getattr(pmu, "reserved", ()))


class _Hardware:
    """Adapter from `Problem` to `mpx.pmu.PMU`: which events are free, their units, feasibility.

    Categories: *software* events (free), events bound to an unreserved fixed counter (free), events
    that need a programmable counter, and events the PMU can never count even with no counter reserved
    (perf stat: ``<not supported>``).

    Fixed-counter fallback (not in `mpx.pmu`, added here): when a second event of the problem is bound
    to a fixed counter an earlier one already holds (Skylake's ``CPU_CLK_UNHALTED.THREAD`` and
    ``.THREAD_ANY`` both on fixed counter 1, as in the TMA metrics), it takes any programmable counter
    of its unit, as the kernels do (x86 ``intel_pmu_init`` widens fixed-event constraints to the
    generic counters; arm64 ``armv8pmu_get_event_idx`` moves cycles to a generic counter). Exception
    not modelled: Intel does not widen REF_CYCLES (fixed 2) and SLOTS (fixed 3).
    """

    def __init__(self, problem: Problem) -> None:
        self._uncountable_exc = UncountableEventError
        pmu = problem.pmu
        for attr in ("fits", "unit_of", "fixed_counter", "countable", "available", "reserved"):
            if not hasattr(pmu, attr):
                raise ConfigError(f"{pmu!r} is not a mpx.pmu.PMU (it lacks {attr!r})")
        self.pmu = pmu
        self.open_pmu = pmu.with_reserved(replace=True) if pmu.reserved else pmu
        self.unit_of: dict[str, str] = {}
        self.why_not: dict[str, str] = {}  # events that can never be counted, with the reason
        self.fallback: dict[str, str] = {}  # fixed events whose counter is taken: any generic counter of the unit
        fixed: dict[str, str] = {}
        holder: dict[Any, str] = {}
        software = set(problem.software)
        for e in problem.events:
            if e in software:
                self.unit_of[e] = "software"
                continue
            try:
                self.unit_of[e] = self.open_pmu.unit_of(e)
                ctr = self.open_pmu.fixed_counter(e)
            except UncountableEventError as exc:
                self.why_not[e] = str(exc)
                continue
            if ctr is not None and ctr not in pmu.reserved:
                if ctr in holder:
                    self.fallback[e] = self.unit_of[e]
                    if not self.open_pmu.available(self.unit_of[e], "generic"):
                        self.why_not[e] = (f"its fixed counter {ctr} already counts {holder[ctr]!r} and unit "
                                           f"{self.unit_of[e]!r} has no programmable counter")
                else:
                    holder[ctr] = e
                    fixed[e] = str(ctr)
        self.fixed = frozenset(fixed)
        self.free = frozenset(fixed) | (software & set(problem.events))
        self.free_mask = problem.mask(self.free)
        self.free_mask.setflags(write=False)
        self.units = tuple(dict.fromkeys(
            self.unit_of[e] for e in problem.events
            if e in self.unit_of and e not in self.free and e not in self.why_not
        ))
        self._fits: dict[Any, bool] = {}

    def unit(self, event: str) -> str:
        try:
            return self.unit_of[event]
        except KeyError:
            raise ConfigError(f"event {event!r}: {self.why_not.get(event, 'not in the problem')}") from None

    def countable(self, event: str) -> bool:
        return event in self.free or (event in self.unit_of and event not in self.why_not)

    def fits(self, events: tuple[str, ...], method: str, reserved: bool) -> bool:
        key = (events, method, reserved)
        hit = self._fits.get(key)
        if hit is None:
            busy = [e for e in events if e not in self.free]
            if any(e in self.why_not for e in busy):
                hit = False
            else:
                pmu = self.pmu if reserved else self.open_pmu
                try:
                    if len(set(busy)) == len(busy) and not any(e in self.fallback for e in busy):
                        hit = pmu.fits(busy, method=method)
                    else:
                        hit = self._fits_instances(pmu, busy, method)
                except self._uncountable_exc:
                    hit = False
            if len(self._fits) > 1 << 16:
                self._fits.clear()
            self._fits[key] = hit
        return hit

    def _allowed(self, pmu: Any, event: str) -> tuple:
        if event in self.fallback:
            return pmu.available(self.fallback[event], "generic")
        return pmu.allowed(event)

    def _fits_instances(self, pmu: Any, busy: list[str], method: str) -> bool:
        """Feasibility when an event appears more than once (one counter per instance) or falls back
        from its fixed counter. `mpx.pmu.PMU` assigns sets of distinct events on their own masks, so
        this is done here with its public ``allowed``/``available`` and the placement rules of
        `mpx.pmu.placement`: perf's greedy (weight = size of the event's mask with no counter reserved,
        ties in list order) or the exact bipartite matching."""
        allowed = [self._allowed(pmu, e) for e in busy]
        if any(not a for a in allowed):
            return False
        if method == "perf":
            return place_greedy(allowed, [len(self._allowed(self.open_pmu, e)) for e in busy]) is not None
        return place_matching(allowed) is not None

    def n_counters(self, unit: str | None) -> int:
        units = self.units if unit is None else (unit,)
        return sum(len(self.pmu.available(u, "generic")) for u in units)
