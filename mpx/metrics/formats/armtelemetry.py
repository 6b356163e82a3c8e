"""Arm telemetry specifications (Arm Top-down Tool, ``data/pmu/cpu/neoverse/*.json`` of
ARM-software/telemetry-solution).

Top level: ``product_configuration`` (``num_slots``, ``num_bus_slots``, part numbers ...), ``events``
(name → ``code``, ``title``, ``description``), ``metrics`` (name → ``formula``, ``events``,
``sample_events``, ``units``, ``title``, ``description``), ``groups`` (``function``: events by function,
named ``function:<name>`` here because the names clash with metric groups; ``metrics``: named sets of
metrics, the groups the Top-down Tool schedules) and ``methodologies``
(top-down stages and decision tree, kept verbatim in ``meta``).

Numeric ``product_configuration`` values become catalog literals (``#num_slots``); all of it is kept in
`Catalog.platform`. Each metric's declared ``events`` list must equal the events its formula names —
a disagreement is a FormatError, since schedulers rely on hyperedges being right.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from mpx.errors import FormatError
from mpx.metrics.catalog import Catalog, Metric
from mpx.metrics.eventinfo import EventInfo, Group
from mpx.metrics.formats.common import as_str, as_str_list, line_of, read_source

NAME = "armtelemetry"


def sniff(path, text: str, obj: Any) -> bool:
    return isinstance(obj, dict) and ("product_configuration" in obj or "methodologies" in obj) and "metrics" in obj


def _key_line(text: str, key: str, after: int = 0) -> int | None:
    return line_of(text, f'"{key}"', after)


def load(path: str | os.PathLike) -> Catalog:
    """Read one Arm telemetry specification JSON file into a Catalog."""
    text, obj = read_source(path)
    if not isinstance(obj, dict):
        raise FormatError(path, 1, "an Arm telemetry specification is a JSON object")
    for key in ("events", "metrics"):
        if not isinstance(obj.get(key), dict):
            raise FormatError(path, _key_line(text, key), f"'{key}' must be an object of name → definition")
    conf = obj.get("product_configuration", {})
    if not isinstance(conf, dict):
        raise FormatError(path, _key_line(text, "product_configuration"), "'product_configuration' must be an object")
    literals = {k: v for k, v in conf.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    metrics_at = text.find('"metrics"')

    events = []
    for name, ev in obj["events"].items():
        line = _key_line(text, name)
        if not isinstance(ev, dict):
            raise FormatError(path, line, f"event {name!r} must be an object")
        events.append(
            EventInfo(
                name, code=as_str(ev.get("code"), path, line, f"event {name!r} code", optional=True),
                description=str(ev.get("title") or ev.get("description") or ""), source=f"{path}:{line}",
                extra={k: v for k, v in ev.items() if k not in ("code", "title")},
            )
        )

    metric_names = set(obj["metrics"])
    metrics = []
    for name, m in obj["metrics"].items():
        line = line_of(text, f'"{name}"', max(metrics_at, 0))
        what = f"metric {name!r}"
        if not isinstance(m, dict):
            raise FormatError(path, line, f"{what} must be an object")
        formula = as_str(m.get("formula"), path, line, f"{what} formula")
        declared = as_str_list(m.get("events", []), path, line, f"{what} events")
        as_str_list(m.get("sample_events", []), path, line, f"{what} sample_events")
        metric = Metric.from_expr(
            name, formula, path=path, line=line,
            description=" — ".join(x for x in (m.get("title"), m.get("description")) if isinstance(x, str) and x),
            scale_unit=as_str(m.get("units"), path, line, f"{what} units", optional=True), source=f"{path}:{line}",
            extra={k: v for k, v in m.items() if k not in ("formula", "title", "description", "units")},
        )
        used = metric.events - metric_names
        if used != set(declared):
            raise FormatError(
                path, line, f"{what}: formula uses events {sorted(used)} but the metric declares {sorted(declared)}"
            )
        metrics.append(metric)

    groups = []
    gobj = obj.get("groups", {})
    if not isinstance(gobj, dict):
        raise FormatError(path, _key_line(text, "groups"), "'groups' must be an object")
    for kind_key, kind in (("metrics", "metric_group"), ("function", "function")):
        section = gobj.get(kind_key, {})
        if not isinstance(section, dict):
            raise FormatError(path, _key_line(text, kind_key), f"'groups.{kind_key}' must be an object")
        for gname, g in section.items():
            line = _key_line(text, gname, max(text.find('"groups"'), 0))
            if not isinstance(g, dict):
                raise FormatError(path, line, f"group {gname!r} must be an object")
            members = as_str_list(g.get(kind_key if kind_key == "metrics" else "events", []), path, line, f"group {gname!r} members")
            unknown = set(members) - (metric_names if kind == "metric_group" else set(obj["events"]))
            if unknown:
                what = "metrics" if kind == "metric_group" else "events"
                raise FormatError(path, line, f"group {gname!r} names unknown {what} {sorted(unknown)}")
            desc = " — ".join(x for x in (g.get("title"), g.get("description")) if isinstance(x, str) and x)
            if kind == "metric_group":
                groups.append(Group(gname, kind, metrics=tuple(members), description=desc, source=f"{path}:{line}"))
            else:
                # function groups share names with metric groups ("General"): prefix them
                groups.append(Group(f"function:{gname}", kind, events=tuple(members), description=desc, source=f"{path}:{line}"))
    metrics = [dataclasses.replace(m, groups=tuple(g.name for g in groups if m.name in g.metrics)) for m in metrics]
    meta = {"sources": [str(path)], "format": NAME}
    for key in ("methodologies", "document", "$schema"):
        if key in obj:
            meta[key] = obj[key]
    unknown = set(obj) - {"events", "metrics", "groups", "product_configuration", "methodologies", "document", "$schema"}
    if unknown:
        meta["dropped"] = [{"what": f"top-level key {k!r}", "why": "not part of the known telemetry schema"} for k in sorted(unknown)]
    return Catalog(
        metrics, events=events, literals=literals, groups=groups,
        name=str(conf.get("product_name") or os.path.basename(str(path))), platform=conf, meta=meta,
    )
