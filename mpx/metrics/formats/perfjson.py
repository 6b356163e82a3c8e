"""Linux perf pmu-events JSON (``tools/perf/pmu-events/arch/<arch>/<cpu>/*.json``).

Four shapes are read:

- a list of metric objects (``MetricName``, ``MetricExpr``, ``MetricGroup`` ``;``-separated,
  ``ScaleUnit``, ``MetricThreshold``, ``MetricConstraint``, ``MetricgroupNoGroup``, ``BriefDescription``,
  ``PublicDescription``, ``Unit``, ``Compat``);
- a list of event objects (``EventName`` or arm64's ``ArchStdEvent``, with ``Counter``,
  ``CounterHTOff``, ``Unit``, ``EventCode``, ``UMask``, ...) — lists may mix both;
- a dict ``EventName → {Counter, CounterHTOff, EventCode, UMask}`` (a derived counter table);
- ``metricgroups.json``: a dict ``group name → description``.

``Counter`` masks are kept as perf's strings in `EventInfo.counter` (parsed by `EventInfo.counters`);
an event with a ``Unit`` is an uncore event, ``Fixed counter N`` a fixed one.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics.catalog import CONSTRAINTS, Catalog, Metric
from mpx.metrics.eventinfo import EventInfo, Group, check_counter_spec
from mpx.metrics.formats.common import as_str, json_line, read_source, where

NAME = "perfjson"

_EVENT_TABLE_KEYS = {"Counter", "CounterHTOff", "EventCode", "UMask"}


def sniff(path, text: str, obj: Any) -> bool:
    if isinstance(obj, list):
        if not obj:
            return str(path).endswith(".json")
        return all(isinstance(x, dict) and ("MetricName" in x or "EventName" in x or "ArchStdEvent" in x) for x in obj)
    if isinstance(obj, dict) and obj:
        vals = list(obj.values())
        if all(isinstance(v, dict) for v in vals):
            return all(set(v) <= _EVENT_TABLE_KEYS | {"Unit"} and set(v) & _EVENT_TABLE_KEYS for v in vals)
        return all(isinstance(v, str) for v in vals) and os.path.basename(str(path)).lower().startswith("metricgroup")
    return False


def load(path: str | os.PathLike) -> Catalog:
    """Read one perf pmu-events JSON file into a Catalog."""
    text, obj = read_source(path)
    if obj is None:
        raise FormatError(path, 1, "not JSON: perf pmu-events files are JSON lists")
    metrics: list[Metric] = []
    events: list[EventInfo] = []
    groups: dict[str, Group] = {}
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            if not isinstance(item, dict):
                raise FormatError(path, None, f"entry {i} is not an object: {item!r:.80}")
            if "MetricName" in item:
                metrics.append(_metric(path, text, item, i))
            elif "EventName" in item or "ArchStdEvent" in item:
                events.append(_event(path, text, item, i))
            else:
                raise FormatError(path, None, f"entry {i} has neither MetricName nor EventName: {item!r:.120}")
    elif isinstance(obj, dict) and sniff(path, text, obj):
        for key, val in obj.items():
            if isinstance(val, dict):
                info = dict(val)
                info["EventName"] = key
                ev = _event(path, text, info, None)
                if ev.kind == "general":  # a bare counter table has no Unit: core or uncore is unknown
                    ev = dataclasses.replace(ev, kind=None)
                events.append(ev)
            else:
                groups[key] = Group(key, "metric_group", description=val, source=str(path))
    else:
        raise FormatError(path, None, "not a perf pmu-events file (expected a list of metric/event objects)")
    for m in metrics:
        for g in m.groups:
            old = groups.get(g)
            groups[g] = Group(
                g, "metric_group", metrics=(old.metrics if old else ()) + (m.name,), source=str(path),
                description=old.description if old else "",
            )
    return Catalog(
        metrics, events=events, groups=groups.values(), name=os.path.basename(str(path)),
        meta={"sources": [str(path)], "format": NAME},
    )


def _metric(path, text: str, item: dict, index: int) -> Metric:
    name = item["MetricName"]
    if not isinstance(name, str) or not name:
        raise FormatError(path, None, f"entry {index}: MetricName must be a non-empty string, got {name!r}")
    line = json_line(text, "MetricName", name)
    expr = item.get("MetricExpr")
    if expr is None:
        raise FormatError(path, line, f"metric {name!r} has no MetricExpr")
    as_str(expr, path, line, f"metric {name!r}: MetricExpr")
    groups = tuple(g.strip() for g in as_str(item.get("MetricGroup", ""), path, line, "MetricGroup").split(";") if g.strip())
    constraint = as_str(item.get("MetricConstraint"), path, line, "MetricConstraint", optional=True)
    if constraint is not None and constraint not in CONSTRAINTS:
        raise FormatError(path, line, f"metric {name!r}: unknown MetricConstraint {constraint!r}; expected one of {CONSTRAINTS}")
    threshold = as_str(item.get("MetricThreshold"), path, line, "MetricThreshold", optional=True)
    if threshold is not None:
        E.parse(threshold, path=path, line=line, what=f"metric {name!r} MetricThreshold")
    desc = item.get("PublicDescription") or item.get("BriefDescription") or ""
    as_str(desc, path, line, "description")
    known = {"MetricName", "MetricExpr", "MetricGroup", "MetricConstraint", "MetricThreshold", "ScaleUnit",
             "PublicDescription", "BriefDescription"}
    extra = {k: v for k, v in item.items() if k not in known}
    return Metric.from_expr(
        name, expr, path=path, line=line, description=desc, groups=groups,
        scale_unit=as_str(item.get("ScaleUnit"), path, line, "ScaleUnit", optional=True),
        constraint=constraint, threshold=threshold, source=where(path, line), extra=extra,
    )


def _event(path, text: str, item: dict, index: int | None) -> EventInfo:
    name = item.get("EventName", item.get("ArchStdEvent"))
    if not isinstance(name, str) or not name:
        raise FormatError(path, None, f"entry {index}: event name must be a non-empty string, got {name!r}")
    line = json_line(text, "EventName", name) or json_line(text, "ArchStdEvent", name)
    counter, ht_off = item.get("Counter"), item.get("CounterHTOff")
    try:
        check_counter_spec(counter)
        check_counter_spec(ht_off)
    except ValueError as exc:
        raise FormatError(path, line, f"event {name!r}: {exc}") from None
    unit = as_str(item.get("Unit"), path, line, "Unit", optional=True)
    info = EventInfo(name=name, counter=counter, counter_ht_off=ht_off, unit=unit, source=where(path, line),
                     code=item.get("EventCode") if isinstance(item.get("EventCode"), str) else None,
                     description=str(item.get("BriefDescription") or item.get("PublicDescription") or ""),
                     extra={k: v for k, v in item.items() if k not in ("EventName", "BriefDescription", "PublicDescription")})
    kind = "uncore" if unit else ("fixed" if info.is_fixed else ("general" if info.counters is not None else None))
    return dataclasses.replace(info, kind=kind)
