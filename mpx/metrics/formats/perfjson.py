"""Linux perf pmu-events JSON (``tools/perf/pmu-events/arch/<arch>/<cpu>/*.json``).

Five shapes are read:

- a list of metric objects (``MetricName``, ``MetricExpr``, ``MetricGroup`` ``;``-separated,
  ``ScaleUnit``, ``MetricThreshold``, ``MetricConstraint``, ``MetricgroupNoGroup``, ``BriefDescription``,
  ``PublicDescription``, ``Unit``, ``Compat``);
- a list of event objects (``EventName`` or arm64's ``ArchStdEvent``, with ``Counter``,
  ``CounterHTOff``, ``Unit``, ``EventCode``, ``UMask``, ...) — lists may mix both;
- a dict ``EventName → {Counter, CounterHTOff, EventCode, UMask}`` (a derived counter table);
- ``metricgroups.json``: a dict ``group name → description``;
- ``counter.json``: a list of ``{Unit, CountersNumFixed, CountersNumGeneric}`` (how many counters each
  PMU has), kept in ``Catalog.platform["counters"]``.

``Counter`` masks are kept as perf's strings in `EventInfo.counter` (parsed by `EventInfo.counters`);
an event with a ``Unit`` is an uncore event, ``Fixed counter N`` a fixed one.

One bad entry never refuses the file (perf skips a metric it cannot parse: ``__add_metric`` of
``tools/perf/util/metricgroup.c``); each is a `LoadProblem` on `Catalog.problems`. Repairs made as
``tools/perf/pmu-events/jevents.py`` makes them: an unescaped ``=`` inside an event term
(``msr@tsc\\,cpu=cpu_core@``) is re-escaped (``metric.py``: ``Event.__init__`` → ``_FixEscapes``);
a ``MetricConstraint`` value mpx does not know is kept (perf's ``metric__group_events`` groups by
default). An arm64 entry ``{"ArchStdEvent": "FRONTEND_BOUND", "MetricExpr": ...}`` with no
``MetricName`` overrides the *standard metric* ``frontend_bound`` (``arch/arm64/sbsa.json``): jevents
copies the standard entry's missing fields (``JsonEvent.__init__``, ``arch_std`` branch), so it is a
metric, not an event; a bare ``{"ArchStdEvent": "BACKEND_BOUND"}`` takes the standard metric as is.
perf's runtime parameter ``?`` in an event term (``hv_24x7@PM_PB_CYC\\,chip\\=?@``, powerpc) is replaced
by 0 (``normalize`` of ``tools/perf/util/expr.l`` writes the runtime value there; ``add_metric`` of
metricgroup.c makes one instance per ``arch_get_runtimeparam``, 1 by default), reported per metric.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics.catalog import CONSTRAINTS, Catalog, Metric
from mpx.metrics.eventinfo import EventInfo, Group, check_counter_spec
from mpx.metrics.formats.common import as_str, json_line, read_source, where
from mpx.metrics.problems import LoadProblem

NAME = "perfjson"

_EVENT_TABLE_KEYS = {"Counter", "CounterHTOff", "EventCode", "UMask"}
_ENTRY_KEYS = {"MetricName", "EventName", "ArchStdEvent", "MetricExpr", "CountersNumGeneric", "CountersNumFixed"}

ARM64_STANDARD_METRICS = {
    name: {"MetricExpr": expr, "MetricGroup": "Default;TopdownL1", "ScaleUnit": "100%",
           "BriefDescription": f"{title} L1 topdown metric"}
    for name, expr, title in (
        ("frontend_bound", "stall_slot_frontend / (#slots * cpu_cycles)", "Frontend bound"),
        ("bad_speculation", "(1 - op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))", "Bad speculation"),
        ("retiring", "(op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))", "Retiring"),
        ("backend_bound", "stall_slot_backend / (#slots * cpu_cycles)", "Backend Bound"),
    )
}
"""The arm64 standard metrics an ``ArchStdEvent`` entry may override (``tools/perf/pmu-events/arch/arm64/
sbsa.json``: the four Top-down level-1 metrics of Arm's Neoverse telemetry specification)."""

# an event term of a MetricExpr as jevents' metric.py ParsePerfJson finds it, and an unescaped '='
_JEVENTS_TERM = re.compile(r"[a-zA-Z][^-+/* \\(),]*(?:\\.[^-+/* \\(),]*)*")
_BARE_EQ = re.compile(r"(?<=[^\\<>=!])=(?!=)")


def sniff(path, text: str, obj: Any) -> bool:
    if isinstance(obj, list):
        if not obj:
            return str(path).endswith(".json")
        return all(isinstance(x, dict) for x in obj) and all(set(x) & _ENTRY_KEYS for x in obj)
    if isinstance(obj, dict) and obj:
        vals = list(obj.values())
        if all(isinstance(v, dict) for v in vals):
            return all(set(v) <= _EVENT_TABLE_KEYS | {"Unit"} and set(v) & _EVENT_TABLE_KEYS for v in vals)
        return all(isinstance(v, str) for v in vals) and os.path.basename(str(path)).lower().startswith("metricgroup")
    return False


def reescape(expr: str) -> str:
    """``expr`` with each unescaped ``=`` inside an event term escaped (``msr@tsc\\,cpu=cpu_core@`` →
    ``msr@tsc\\,cpu\\=cpu_core@``), as jevents.py's ``_FixEscapes`` rewrites every event name."""
    return _JEVENTS_TERM.sub(lambda m: _BARE_EQ.sub(r"\\=", m.group()), expr)


def load(path: str | os.PathLike) -> Catalog:
    """Read one perf pmu-events JSON file into a Catalog (bad entries: `Catalog.problems`)."""
    text, obj = read_source(path)
    if obj is None:
        raise FormatError(path, 1, "not JSON: perf pmu-events files are JSON lists")
    metrics: list[Metric] = []
    events: list[EventInfo] = []
    groups: dict[str, Group] = {}
    problems: list[LoadProblem] = []
    platform: dict[str, Any] = {}
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            try:
                if not isinstance(item, dict):
                    raise FormatError(path, None, f"entry {i} is not an object: {item!r:.80}")
                if "MetricName" in item:
                    metrics.append(_metric(path, text, item, i, problems))
                elif "ArchStdEvent" in item and "EventName" not in item and (
                        "MetricExpr" in item or str(item["ArchStdEvent"]).lower() in ARM64_STANDARD_METRICS):
                    metrics.append(_override(path, text, item, i, problems))
                elif "EventName" in item or "ArchStdEvent" in item:
                    events.append(_event(path, text, item, i))
                elif "CountersNumGeneric" in item or "CountersNumFixed" in item:
                    platform.setdefault("counters", {})[str(item.get("Unit", "core"))] = {
                        "fixed": _count(item.get("CountersNumFixed"), path, i), "generic": _count(item.get("CountersNumGeneric"), path, i)}
                else:
                    raise FormatError(path, None, f"entry {i} has neither MetricName nor EventName: {item!r:.120}")
            except FormatError as exc:
                name = item.get("MetricName") or item.get("EventName") or item.get("ArchStdEvent") if isinstance(item, dict) else None
                kind = "unparsable" if isinstance(exc, E.ExprSyntaxError) else (
                    "std-metric-missing" if "standard metric" in exc.message else "bad-entry")
                problems.append(LoadProblem(str(path), str(name or f"entry {i}"), kind, exc.message, "dropped", exc.line))
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
    metrics, renamed = per_pmu_names(metrics)
    metrics = unify_event_case(metrics, events, path, problems)
    for m in metrics:
        for g in m.groups:
            old = groups.get(g)
            groups[g] = Group(
                g, "metric_group", metrics=(old.metrics if old else ()) + (m.name,), source=str(path),
                description=old.description if old else "",
            )
    return Catalog(
        metrics, events=events, groups=groups.values(), name=os.path.basename(str(path)), platform=platform,
        meta={"sources": [str(path)], "format": NAME, "warnings": [
            f"{path}: metric {n!r} is defined for PMUs {', '.join(u)}: named 'name:pmu' (perf resolves it per PMU)"
            for n, u in renamed.items()]}, problems=problems,
    )


def unify_event_case(metrics: list[Metric], events: list[EventInfo], path: Any,
                     problems: list[LoadProblem]) -> list[Metric]:
    """One spelling per event: perf matches event names case-insensitively (``tools/perf/util/pmu.c``: the
    alias lookup compares with ``strcasecmp``), so ``cpu_cycles`` in arm64's standard metrics (``sbsa.json``)
    and ``CPU_CYCLES`` in a core's own file are one event, not two. The spelling of the file's event table
    wins, else the most used one in its metrics (the upper-case one on a tie). Metric references are left
    alone."""
    metric_names = {m.name.lower() for m in metrics}
    spellings: dict[str, dict[str, int]] = {}
    for m in metrics:
        for e in m.events:
            if e.lower() not in metric_names:
                spellings.setdefault(e.lower(), {}).setdefault(e, 0)
                spellings[e.lower()][e] += 1
    table = {ev.name.lower(): ev.name for ev in events}
    canon = {}
    for low, seen in spellings.items():
        if len(seen) > 1 or (low in table and table[low] not in seen):
            canon[low] = table.get(low) or max(seen, key=lambda n: (seen[n], n.isupper(), n))
    if not canon:
        return metrics
    out = []
    for m in metrics:
        wrong = {e for e in m.events if e.lower() in canon and canon[e.lower()] != e}
        if not wrong:
            out.append(m)
            continue
        ast = E.substitute(m.ast, lambda n: E.Name(canon[n.name.lower()]) if isinstance(n, E.Name) and n.name in wrong
                           else None)
        problems.append(LoadProblem(str(path), m.name, "case-unified", f"event(s) {sorted(wrong)} spelled as "
                                    f"{sorted(canon[w.lower()] for w in wrong)} elsewhere in the file: one event "
                                    "(perf matches event names case-insensitively)", "kept", None))
        out.append(Metric.from_ast(m.name, ast, description=m.description, groups=m.groups, scale_unit=m.scale_unit,
                                   constraint=m.constraint, threshold=m.threshold, source=m.source,
                                   extra={**m.extra, "MetricExpr_as_written": m.extra.get("MetricExpr_as_written",
                                                                                           m.expr)}))
    return out


def per_pmu_names(metrics: list[Metric]) -> tuple[list[Metric], dict[str, list[str]]]:
    """Hybrid files define one metric name per PMU (``Unit``: ``cpu_core``, ``cpu_atom``); perf keys metrics
    by (pmu, name) (``read_json_events`` of jevents.py) and resolves a reference within the referring
    metric's PMU. Such a name becomes ``name:unit``, and references inside that PMU's metrics follow."""
    units: dict[str, list[str]] = {}
    for m in metrics:
        units.setdefault(m.name, []).append(str(m.extra.get("Unit", "")))
    renamed = {n: u for n, u in units.items() if len(u) > 1 and len(set(u)) == len(u)}
    if not renamed:
        return metrics, {}
    out = []
    for m in metrics:
        unit = str(m.extra.get("Unit", ""))

        def qualify(node: E.Node, unit=unit) -> E.Node | None:
            return E.Name(f"{node.name}:{unit}") if isinstance(node, E.Name) and unit in renamed.get(node.name, ()) else None

        name = f"{m.name}:{unit}" if m.name in renamed else m.name
        if name != m.name or E.names(m.ast) & renamed.keys():
            m = Metric.from_ast(name, E.substitute(m.ast, qualify), **{
                f.name: getattr(m, f.name) for f in dataclasses.fields(m)
                if f.name not in ("name", "expr", "ast", "events", "pseudo_events", "literals", "references")})
        out.append(m)
    return out, renamed


def _count(v: Any, path, index: int) -> int:
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        raise FormatError(path, None, f"entry {index}: counter count must be an integer, got {v!r}") from None


def _override(path, text: str, item: dict, index: int, problems: list[LoadProblem]) -> Metric:
    """An arm64 ``ArchStdEvent`` metric entry: the standard metric with this entry's fields on top."""
    std = as_str(item["ArchStdEvent"], path, None, f"entry {index}: ArchStdEvent")
    name = std.lower()
    base = ARM64_STANDARD_METRICS.get(name, {})
    if "MetricExpr" not in item and not base:
        raise FormatError(path, json_line(text, "ArchStdEvent", std), f"no standard metric {name!r} to take")
    merged = {**base, **{k: v for k, v in item.items() if k != "ArchStdEvent"}, "MetricName": name}
    return _metric(path, text, merged, index, problems, line=json_line(text, "ArchStdEvent", std))


def _metric(path, text: str, item: dict, index: int, problems: list[LoadProblem], line: int | None = None) -> Metric:
    name = item["MetricName"]
    if not isinstance(name, str) or not name:
        raise FormatError(path, None, f"entry {index}: MetricName must be a non-empty string, got {name!r}")
    line = line or json_line(text, "MetricName", name)
    expr = item.get("MetricExpr")
    if expr is None:
        raise FormatError(path, line, f"metric {name!r} has no MetricExpr")
    as_str(expr, path, line, f"metric {name!r}: MetricExpr")
    fixed = reescape(expr)
    if fixed != expr:
        problems.append(LoadProblem(str(path), name, "re-escaped", f"event term with a bare '=' re-escaped: {fixed}", "kept", line))
    if "?" in fixed:  # '?' only lexes inside a name: perf's normalize() puts the runtime value there
        fixed = fixed.replace("?", "0")
        problems.append(LoadProblem(str(path), name, "runtime-param", f"'?' read as runtime parameter 0: {fixed}", "kept", line))
    groups = tuple(g.strip() for g in as_str(item.get("MetricGroup", ""), path, line, "MetricGroup").split(";") if g.strip())
    constraint = as_str(item.get("MetricConstraint"), path, line, "MetricConstraint", optional=True)
    if constraint is not None and constraint not in CONSTRAINTS:
        problems.append(LoadProblem(str(path), name, "new-constraint", f"MetricConstraint {constraint!r} is not one of "
                                    f"{', '.join(CONSTRAINTS)}; its events are grouped (perf's default)", "kept", line))
    threshold = as_str(item.get("MetricThreshold"), path, line, "MetricThreshold", optional=True)
    if threshold is not None:
        E.parse(reescape(threshold), path=path, line=line, what=f"metric {name!r} MetricThreshold")
    desc = item.get("PublicDescription") or item.get("BriefDescription") or ""
    as_str(desc, path, line, "description")
    known = {"MetricName", "MetricExpr", "MetricGroup", "MetricConstraint", "MetricThreshold", "ScaleUnit",
             "PublicDescription", "BriefDescription"}
    extra = {k: v for k, v in item.items() if k not in known}
    if fixed != expr:
        extra["MetricExpr_as_written"] = expr
    return Metric.from_expr(
        name, fixed, path=path, line=line, description=desc, groups=groups,
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
