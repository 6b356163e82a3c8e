"""hperf per-architecture configurations (solecnugit/hperf ``arch/<arch>.py``, as JSON).

Keys (all optional): ``events`` (list of ``{id, perf_name, name[, type]}``), ``other_events`` (ids never
multiplexed: software and uncore events), ``pinned_events`` (ids on fixed counters), ``event_groups``
(lists of ids hperf co-schedules), ``metrics`` (``{metric, expression}`` with expressions over
``e<id>``) and ``available_GP`` (usable general-purpose counters).

Events are named by ``perf_name`` (what a perf-based trace calls them); hperf's id and display name
are kept in `EventInfo.extra`. ``kind`` is ``pinned`` for pinned events, ``software``/``other`` for
other events (``type`` SYSTEM/SOCKET kept in ``unit``), ``general`` otherwise. ``duration_time`` in
hperf is perf's raw tool-event value in **nanoseconds**; mpx's pseudo-event ``duration_time`` is in
seconds, so ``e<id>`` of ``duration_time`` becomes ``(duration_time * 1e9)`` and the formulas keep their
meaning. ``available_GP`` goes to `Catalog.platform`. Each event group is an ``event_group`` `Group`
(``event_group_0``, ...), in hperf's order.
"""

from __future__ import annotations

import os
import re
from typing import Any

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics.catalog import PSEUDO_EVENTS, Catalog, Metric
from mpx.metrics.eventinfo import EventInfo, Group
from mpx.metrics.formats.common import json_line, line_of, read_source

NAME = "hperf"

_EVENT_REF = re.compile(r"e([0-9]{1,18})\Z")  # e<id> in an hperf expression
_KEYS = ("events", "other_events", "pinned_events", "event_groups", "metrics", "available_GP")
_SOFTWARE = {"cpu-clock", "task-clock", "cs", "context-switches", "page-faults", "cpu-migrations", "minor-faults", "major-faults"}


def sniff(path, text: str, obj: Any) -> bool:
    return isinstance(obj, dict) and bool(obj) and set(obj) <= set(_KEYS) and (
        "available_GP" in obj or "event_groups" in obj or "pinned_events" in obj
    )


def _int(v: Any, path, line, what: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise FormatError(path, line, f"{what} must be an integer, got {v!r}")
    return v


def load(path: str | os.PathLike) -> Catalog:
    """Read one hperf configuration (JSON) into a Catalog."""
    text, obj = read_source(path)
    if not isinstance(obj, dict):
        raise FormatError(path, 1, "an hperf configuration is a JSON object")
    unknown = set(obj) - set(_KEYS)
    if unknown:
        raise FormatError(path, None, f"unknown hperf keys {sorted(unknown)}; expected some of {_KEYS}")
    for key in ("events", "other_events", "pinned_events", "event_groups", "metrics"):
        if not isinstance(obj.get(key, []), list):
            raise FormatError(path, line_of(text, f'"{key}"'), f"'{key}' must be a list")

    by_id: dict[int, tuple[str, dict]] = {}
    for i, ev in enumerate(obj.get("events", [])):
        pname = ev.get("perf_name") if isinstance(ev, dict) else None
        line = json_line(text, "perf_name", pname) if isinstance(pname, str) else None
        if not isinstance(ev, dict):
            raise FormatError(path, line, f"events[{i}] must be an object")
        eid = _int(ev.get("id"), path, line, f"events[{i}].id")
        pname = ev.get("perf_name")
        if not isinstance(pname, str) or not pname:
            raise FormatError(path, line, f"events[{i}].perf_name must be a non-empty string")
        if eid in by_id:
            raise FormatError(path, line, f"event id {eid} is used twice ({by_id[eid][0]!r} and {pname!r})")
        by_id[eid] = (pname, ev)

    def ids(key: str) -> list[int]:
        line = line_of(text, f'"{key}"')
        out = []
        for x in obj.get(key, []):
            x = _int(x, path, line, f"{key} entry")
            if x not in by_id:
                raise FormatError(path, line, f"{key} names event id {x}, which 'events' does not define")
            out.append(x)
        return out

    other, pinned = set(ids("other_events")), set(ids("pinned_events"))
    events = []
    for eid, (pname, ev) in by_id.items():
        if pname in PSEUDO_EVENTS:
            continue
        if eid in pinned:
            kind = "pinned"
        elif eid in other:
            kind = "software" if pname in _SOFTWARE else "other"
        else:
            kind = "general"
        events.append(
            EventInfo(
                pname, kind=kind, unit=ev.get("type") if isinstance(ev.get("type"), str) else None,
                description=str(ev.get("name", "")), source=f"{path}:{json_line(text, 'perf_name', pname)}",
                extra={"hperf_id": eid, "hperf_name": ev.get("name"), "never_multiplexed": eid in other or eid in pinned},
            )
        )

    groups = []
    gline = line_of(text, '"event_groups"')
    for gi, g in enumerate(obj.get("event_groups", [])):
        if not isinstance(g, list):
            raise FormatError(path, gline, f"event_groups[{gi}] must be a list of event ids")
        members = []
        for x in g:
            x = _int(x, path, gline, f"event_groups[{gi}] entry")
            if x not in by_id:
                raise FormatError(path, gline, f"event_groups[{gi}] names event id {x}, which 'events' does not define")
            members.append(by_id[x][0])
        groups.append(Group(f"event_group_{gi}", "event_group", events=tuple(members), source=f"{path}:{gline}"))

    def mapping(node: E.Node, line=None, what=None) -> E.Node | None:
        if not isinstance(node, E.Name):
            return None
        m = _EVENT_REF.match(node.name)  # ASCII digits only: "e²" is a name, not e2 (str.isdigit says yes)
        if not (m and int(m.group(1)) in by_id):
            raise FormatError(path, line, f"{what}: {node.name[:40]!r} is not e<id> of a defined event")
        pname = by_id[int(m.group(1))][0]
        if pname == "duration_time":
            return E.Binary("*", E.Name("duration_time"), E.Num(1e9))
        return E.Name(pname)

    metrics = []
    for mi, m in enumerate(obj.get("metrics", [])):
        if not isinstance(m, dict) or not isinstance(m.get("metric"), str) or not isinstance(m.get("expression"), str):
            raise FormatError(path, line_of(text, '"metrics"'), f"metrics[{mi}] must be {{'metric': name, 'expression': text}}")
        name = m["metric"]
        line = json_line(text, "metric", name)
        what = f"metric {name!r}"
        ast = E.parse(m["expression"], path=path, line=line, what=what)
        ast = E.substitute(ast, lambda n, line=line, what=what: mapping(n, line, what))
        metrics.append(Metric.from_ast(name, ast, source=f"{path}:{line}", extra={"hperf_expression": m["expression"]}))

    platform = {}
    if "available_GP" in obj:
        platform["available_GP"] = _int(obj["available_GP"], path, line_of(text, '"available_GP"'), "available_GP")
    return Catalog(
        metrics, events=events, groups=groups, name=os.path.basename(str(path)), platform=platform,
        meta={"sources": [str(path)], "format": NAME},
    )
