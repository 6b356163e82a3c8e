"""`Problem.from_catalog`: a metric `~mpx.metrics.Catalog` measured on a PMU."""

from __future__ import annotations

from typing import Any

from mpx.errors import ConfigError
from mpx.pmu import UncountableEventError
from mpx.problem.groups import EventGroup, MetricEdge
from mpx.problem.hardware import pmu_of
from mpx.problem.perf import SOFTWARE_EVENTS, perf_metric_groups


__all__ = ["problem_from_catalog"]

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


def problem_from_catalog(catalog: Any, pmu: Any, *, groups: str, metrics: Any) -> dict[str, Any]:
    """The arguments of the `~mpx.problem.Problem` that `Problem.from_catalog` builds (see its docstring)."""
    pmu = pmu_of(pmu)
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
    return {"events": events, "pmu": pmu, "groups": tuple(pgroups), "metrics": tuple(edges),
            "software": frozenset(SOFTWARE_EVENTS) | {ren(e) for e in free}, "meta": meta,
            "relations": tuple(relations)}
