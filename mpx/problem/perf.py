"""perf's grouping rules: the ``-e`` event-list syntax (`parse_event_list`), ``perf stat -M``'s metric
groups (`perf_metric_groups`), and perf's software and tool events."""

from __future__ import annotations

import re
from typing import Any

from mpx.errors import FormatError
from mpx.metrics.evaluation import PSEUDO_EVENTS
from mpx.problem.groups import EventGroup, MetricEdge, as_metric_edges

__all__ = ["PERF_MODIFIERS", "SOFTWARE_EVENTS", "TIME_EVENTS", "TOOL_EVENTS", "nmi_watchdog_on", "parse_event_list",
           "perf_metric_groups"]

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
#: sorting metrics by size (``metric_list_cmp``). They are the catalogs' pseudo-events.
TOOL_EVENTS = frozenset(PSEUDO_EVENTS)

#: events whose values are times, not integer counts: perf prints ``cpu-clock`` / ``task-clock`` in msec
#: and its tool events ``duration_time``, ``user_time``, ``system_time`` as times; a tool that scales them
#: keeps the fraction (``perf stat`` prints ``60.38 msec task-clock``)
TIME_EVENTS = frozenset({"cpu-clock", "task-clock", "duration_time", "user_time", "system_time"})


_COUNTING_WHY = ("counting-mode modifier: a distinct event (perf opens it separately); the ground truth must "
                 "name it so")


def _with_counting(name: str, mods: str) -> str:
    """``name`` with its counting-mode modifiers, in the order written (``cycles`` + ``u`` → ``cycles:u``;
    ``cpu/event=0x3c/`` + ``u`` → ``cpu/event=0x3c/u``); pinned/exclusive/weak flags are not part of it."""
    kept = "".join(dict.fromkeys(c for c in mods if c in _COUNTING_MODIFIERS))
    if not kept:
        return name
    return name + kept if name.endswith("/") else f"{name}:{kept}"


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
    counts: ``cycles`` and ``cycles:u`` are two events perf opens separately, each on its own counter, so
    they stay in the event name (``cycles:u``, as ``perf stat`` prints it; a group's modifiers go to every
    member); what they count is the ground truth's business, so they are also returned as notes
    (``{"event", "modifiers", "why"}``). Returns ``(groups, notes)``;
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
            names = [_with_counting(name, mods + gmods) for name, mods in members]
            if len(set(names)) != len(names):
                raise FormatError(
                    source, None, f"column {gstart + 1}: group lists an event twice "
                    f"({sorted({x for x in names if names.count(x) > 1})}); mpx has one column per event"
                )
            lead_mods = members[0][1]
            flags = gmods + lead_mods
            for i, (name, mods) in enumerate(members):
                kept = "".join(c for c in mods if c in _COUNTING_MODIFIERS)
                note(names[i], kept, _COUNTING_WHY)
                if i > 0:
                    note(name, "".join(c for c in mods if c in "DWe"), "D/W/e on a group member (not leader)")
            note("{" + ",".join(names) + "}", "".join(c for c in gmods if c in _COUNTING_MODIFIERS), _COUNTING_WHY)
            groups.append(EventGroup(tuple(names), pinned="D" in flags, exclusive="e" in flags, weak="W" in flags))
        else:
            text, end = _scan_item(spec, pos, source, in_group=False)
            if not text:
                raise FormatError(source, None, f"column {pos + 1}: empty event")
            name, mods = _split_modifiers(text, source, pos + 1)
            name = _with_counting(name, mods)
            note(name, "".join(c for c in mods if c in _COUNTING_MODIFIERS), _COUNTING_WHY)
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
    """``metric__group_events`` of ``tools/perf/util/metricgroup.c`` (``NO_NMI_WATCHDOG`` is the older name
    of ``NO_GROUP_EVENTS_NMI`` in jevents.py; ``NO_THRESHOLD_AND_NMI`` ungroups when the watchdog is on,
    since perf computes thresholds by default; any other value groups: the C ``default:`` case)."""
    if metric_no_group:
        return False
    c = (metric.constraint or "").upper()
    if c == "NO_GROUP_EVENTS":
        return False
    if c in ("NO_GROUP_EVENTS_NMI", "NO_NMI_WATCHDOG", "NO_THRESHOLD_AND_NMI"):
        return not nmi_watchdog
    if c == "NO_GROUP_EVENTS_SMT":
        return not smt_on
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
    edges = as_metric_edges(metrics)
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


def nmi_watchdog_on(pmu: Any) -> bool:
    """mpx.pmu models the NMI watchdog as a reserved counter (`mpx.pmu.PMU.with_nmi_watchdog`)."""
    return bool(getattr(pmu, "reserved", ()))
