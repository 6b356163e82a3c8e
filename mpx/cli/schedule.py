"""``mpx schedule``: every scheduler's figures (groups, utilization, sampling and co-scheduling ratios) on
one metric catalog and one PMU.

Also home of `catalog_problem`, the adapter from a metric `~mpx.metrics.Catalog` to a
`~mpx.problem.Problem` that the command (and experiment scripts) use:

- **groups**: a catalog's predefined groups become the problem's groups — LIKWID event sets
  (``eventset``), hperf event groups (``event_group``, with hperf's pinned events as pinned groups);
  otherwise the metrics are grouped as ``perf stat -M`` does (`~mpx.problem.perf_metric_groups`).
  ``problem.meta['groups_from']`` says which (``"eventset"``, ``"event_group"``, ``"perf stat -M"``).
- **metric order**: an Arm telemetry specification's metrics follow its top-down methodology (stage-1
  groups, then stage-2 groups, metric names sorted inside a group: the order the Arm Top-down Tool builds
  its metric list in); other catalogs keep their own order.
- **events outside the core counters** are made free (counted in every quantum, never competing for a
  programmable counter), each with its reason in ``problem.meta['free_events']``: catalog events of
  another PMU class (LIKWID ``PWR``/``TMP``/``MPERF``/box counters, hperf's *other* events, perf
  ``Unit`` events, Ice Lake's ``TMA`` metric registers), fixed-counter events the PMU model does not
  bind (LIKWID names its fixed events ``INSTR_RETIRED_ANY``, the presets bind perf's
  ``INST_RETIRED.ANY``), and perf-style ``unit/event/`` names whose unit the PMU does not describe
  (``cstate_core/c3-residency/``, ``msr/tsc/``).
- **uncore instances**: an event the PMU cannot place but whose catalog unit (``EventInfo.unit`` or the
  ``Unit`` of the perf metrics using it) names PMU units is renamed ``instance/event/`` on the first
  instance (``hif_rd`` → ``ali_drw_21000/hif_rd/``); perf would open it on every instance and sum, and
  every instance is scheduled alike. Renames are in ``problem.meta['renamed']``.
- **relations** (exact identities among events) go to ``problem.meta['relations']`` as event lists, for
  schedulers that use the relation graph (`~mpx.schedulers.bayesperf`).

Online schedulers need observations. ``mpx schedule`` runs them on a synthetic trace (`mpx.synthetic`,
one Poisson counter per event with per-event rates, bursts and phases drawn from ``--seed``; the row
says so) unless ``--trace`` gives a real one that has the problem's events.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run", "catalog_problem", "load_catalog_arg", "pmu_arg", "score_schedulers"]

#: catalog event kinds that live outside the core PMU's programmable counters
_OTHER_PMU_KINDS = {"energy", "thermal", "msr", "topdown", "uncore", "other", "software"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schedule",
        help="compare multiplexing schedulers on a metric catalog and a PMU",
        description="Score every registered scheduler (or the chosen ones) on one metric catalog and one "
        "PMU: groups (distinct configurations, i.e. sets of events counted together, over the quanta scored), "
        "PMC utilization, mean and minimum sampling ratio of the multiplexed events, mean metric co-scheduling "
        "ratio (mpx.schedule_scores), events never counted. Schedulers that cannot handle the catalog are "
        "listed with the reason. Online schedulers run on a synthetic trace unless --trace is given.",
    )
    p.add_argument("--pmu", required=True, help="PMU preset (mpx.pmu.presets(), e.g. skylake, neoverse-n1, "
                   "generic-4) or a PMU TOML file")
    p.add_argument("--metrics", required=True, help="metric catalog: a file or folder in any supported format, "
                   "or a built-in catalog name")
    p.add_argument("--scheduler", action="append", metavar="NAME",
                   help="scheduler to run (repeatable; default: every registered scheduler)")
    p.add_argument("--counters", type=int, metavar="N",
                   help="generic counters of the core unit (fewer: the lowest-numbered are kept and counter "
                   "masks cut to them; more: unrestricted counters are added); also overrides the catalog's own "
                   "counter budget (hperf available_GP)")
    p.add_argument("--quanta", type=int, metavar="Q",
                   help="quanta to score (default: one period of a static schedule's cycle; 1000 for online "
                   "schedulers)")
    p.add_argument("--trace", metavar="PATH", help="real trace for online schedulers (default: synthetic)")
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic trace (default 0)")
    p.add_argument("--json", action="store_true", help="print a JSON list of objects instead of a table")


# -- catalog → problem ------------------------------------------------------------------------------


def load_catalog_arg(text: str) -> Any:
    """A catalog from a path (file or folder, any supported format) or a built-in catalog name."""
    import os

    from mpx.errors import ConfigError
    from mpx.metrics import builtin, builtin_names, load_catalog

    if os.path.exists(text):
        return load_catalog(text)
    if text in builtin_names():
        return builtin(text)
    raise ConfigError(f"--metrics {text!r} is neither an existing file or folder nor a built-in catalog "
                      f"({', '.join(builtin_names())})")


def pmu_arg(text: str, counters: int | None = None) -> Any:
    """A PMU preset name or TOML file, with ``counters`` generic counters on its core unit (the default
    unit, or the only one): fewer keeps the lowest-numbered counters and cuts the masks to them (an event
    left with no counter is an error), more adds counters no mask names."""
    import os

    from mpx.errors import ConfigError
    from mpx.pmu import PMU, preset

    pmu = PMU.from_file(text) if os.path.isfile(text) else preset(text)
    if counters is None:
        return pmu
    if isinstance(counters, bool) or not isinstance(counters, int) or counters < 1:
        raise ConfigError(f"--counters must be a positive integer, got {counters!r}")
    core = pmu.default_unit or (pmu.units[0].name if len(pmu.units) == 1 else None)
    if core is None:
        raise ConfigError(f"--counters: PMU {pmu.name!r} has several units and no default unit to resize")
    unit = next(u for u in pmu.units if u.name == core)
    names = [c.name for c in unit.generic]
    if counters == len(names):
        return pmu
    data = pmu.to_dict()
    if counters < len(names):
        names = names[:counters]
        masks = {}
        for ev, ctrs in data["units"][core]["masks"].items():
            kept = [c for c in ctrs if c in names]
            if not kept:
                raise ConfigError(f"--counters {counters}: event {ev!r} may only use {ctrs} on PMU {pmu.name!r}, "
                                  "which a unit with that many counters lacks")
            masks[ev] = kept
        data["units"][core]["masks"] = masks
        data["reserved"] = [r for r in data.get("reserved", []) if not (r.startswith(core + "/") and
                            r.split("/", 1)[1] not in names + list(data["units"][core]["fixed"]))]
    else:
        k = len(names)
        while len(names) < counters:
            if f"gp{k}" not in names:
                names.append(f"gp{k}")
            k += 1
    data["units"][core]["generic"] = names
    data["name"] = f"{pmu.name}-{counters}gp"
    return PMU.from_dict(data, source=f"<{pmu.name} with {counters} generic counters>")


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


def catalog_problem(catalog: Any, pmu: Any, *, groups: str = "auto", metrics: Any = None) -> Any:
    """A `~mpx.problem.Problem` measuring a catalog's metrics on ``pmu`` (see the module docstring).

    ``groups``: ``"auto"`` (``eventset`` if the catalog has LIKWID event sets, else ``event_group`` if it
    has hperf event groups, else ``"metrics"``), or one of those explicitly. ``metrics``: names of the
    metrics to measure (default all; with LIKWID/hperf groups, the metrics whose events the groups hold).
    """
    from mpx.errors import ConfigError
    from mpx.pmu import UncountableEventError
    from mpx.problem import SOFTWARE_EVENTS, EventGroup, MetricEdge, Problem, perf_metric_groups

    if isinstance(pmu, str):
        from mpx.pmu import preset

        pmu = preset(pmu)
    kinds = {g.kind for g in catalog.groups.values()}
    if groups == "auto":
        groups = "eventset" if "eventset" in kinds else "event_group" if "event_group" in kinds else "metrics"
    if groups not in ("eventset", "event_group", "metrics"):
        raise ConfigError(f"catalog_problem: groups must be 'auto', 'eventset', 'event_group' or 'metrics', got {groups!r}")
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
    relations = [sorted(ren(e) for e in r.events) for r in catalog.relations if {ren(e) for e in r.events} <= evset]
    meta = {
        "catalog": catalog.name,
        "groups_from": "perf stat -M" if groups == "metrics" else groups,
        "free_events": {ren(e): why for e, why in free.items()},
        "renamed": rename,
        "relations": relations,
        "platform": {k: v for k, v in catalog.platform.items() if isinstance(v, (int, float, str))},
    }
    return Problem(events, pmu, groups=tuple(pgroups), metrics=tuple(edges),
                   software=frozenset(SOFTWARE_EVENTS) | {ren(e) for e in free}, meta=meta)


# -- scoring ----------------------------------------------------------------------------------------


def _synthetic_trace(problem: Any, quanta: int, seed: int) -> Any:
    """A synthetic trace with one counter per problem event: log-uniform rates, a few bursty events and
    two phases, so that events differ in how much they vary (what online schedulers react to)."""
    import numpy as np

    from mpx import synthetic as S

    rng = np.random.default_rng(seed)
    names = list(problem.events)
    rates = np.exp(rng.uniform(np.log(10.0), np.log(1e5), len(names)))
    disp = np.where(rng.random(len(names)) < 0.3, rng.uniform(0.05, 1.0, len(names)), 0.0)
    nodes = tuple(S.Event(n, float(r), dispersion=float(d)) for n, r, d in zip(names, rates, disp))
    bursty = tuple(n for n in names if rng.random() < 0.2)
    bursts = (S.Burst("b0", bursty, onset=0.02, duration=10.0, amplitude=5.0),) if bursty else ()
    scaled = {n: float(rng.uniform(0.3, 3.0)) for n in names if rng.random() < 0.5}
    phases = (S.Phase(max(quanta // 4, 1)), S.Phase(max(quanta // 4, 1), scale=scaled))
    spec = S.SynthSpec("mpx-schedule", nodes, phases=phases, bursts=bursts, intervals=quanta,
                       description="synthetic trace for online schedulers in mpx schedule")
    return S.generate(spec, seed=seed)


def score_schedulers(problem: Any, names: list[str], *, quanta: int | None = None, trace: Any = None,
                     seed: int = 0, params: dict[str, dict] | None = None) -> list[dict[str, Any]]:
    """One result row per scheduler name: figures of `mpx.schedule_scores`, or ``skipped`` with the
    reason. Static schedules are scored over ``quanta`` quanta (one period of the cycle when None);
    online ones over a run of ``quanta`` (default 1000) quanta of ``trace`` (synthetic when None)."""
    from mpx import schedulers
    from mpx.errors import ConfigError
    from mpx.multiplex import multiplex
    from mpx.schedule_scores import schedule_scores
    from mpx.schedulers.base import OnlineScheduler

    rows: list[dict[str, Any]] = []
    params = params or {}
    for name in names:
        row: dict[str, Any] = {"scheduler": name, "kind": None, "groups": None, "event_groups": None,
                               "utilization": None, "mean_sampling_ratio": None, "min_sampling_ratio": None,
                               "mean_coschedule_ratio": None, "n_quanta": None, "errors": {}, "notes": [],
                               "params": {}, "trace": None, "skipped": None}
        try:
            sched = schedulers.get(name, **params.get(name, {}))
            row["kind"] = sched.kind
            row["params"] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                             for k, v in sched.get_params().items()}
            why = _not_applicable(name, problem)
            if why:
                row["skipped"] = why
                rows.append(row)
                continue
            if isinstance(sched, OnlineScheduler):
                n_q = quanta or 1000
                run_trace = trace if trace is not None else _synthetic_trace(problem, n_q, seed)
                span = float(run_trace.edges[-1] - run_trace.edges[0])
                step = span / min(n_q, run_trace.n_intervals)
                obs = multiplex(run_trace, problem, sched, quantum=step, read_every=1, seed=seed)
                sc = schedule_scores(obs)
                row["trace"] = ("synthetic (mpx.synthetic, seed %d, %d quanta)" % (seed, obs.n_quanta)
                                if trace is None else str(run_trace.meta.get("source") or "given trace"))
                row["errors"] = dict(obs.errors)
                row["event_groups"] = len(obs.groups)
            else:
                s = sched.schedule(problem)
                sc = schedule_scores(s, problem, n_quanta=quanta)
                row["errors"] = dict(s.errors)
                row["notes"] = list(s.notes)
                row["event_groups"] = len(s.groups)
        except ConfigError as exc:
            row["skipped"] = str(exc)
            rows.append(row)
            continue
        summary = sc.summary()
        row.update(groups=sc.n_configs, utilization=summary["utilization"],
                   mean_sampling_ratio=summary["mean_sampling_ratio"],
                   min_sampling_ratio=summary["min_sampling_ratio"],
                   mean_coschedule_ratio=summary["mean_coschedule_ratio"], n_quanta=sc.n_quanta)
        rows.append(row)
    return rows


def _not_applicable(name: str, problem: Any) -> str | None:
    if name == "likwid" and problem.meta.get("groups_from") != "eventset":
        return ("needs predefined LIKWID event sets (eventset groups); this catalog's groups come from "
                f"{problem.meta.get('groups_from') or 'the user'}")
    return None


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if v != v else f"{v:.3f}"
    return str(v)


def run(args: argparse.Namespace) -> int:
    import json

    from mpx import schedulers
    from mpx.errors import ConfigError

    if args.quanta is not None and args.quanta < 1:
        raise ConfigError(f"--quanta must be >= 1, got {args.quanta}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    catalog = load_catalog_arg(args.metrics)
    pmu = pmu_arg(args.pmu, args.counters)
    problem = catalog_problem(catalog, pmu)
    names = args.scheduler or schedulers.available()
    unknown = [n for n in names if n not in schedulers.available()]
    if unknown:
        raise ConfigError(f"unknown scheduler(s) {unknown}; available: {', '.join(schedulers.available())}")
    params: dict[str, dict] = {}
    gp = catalog.platform.get("available_GP")
    if args.counters is None and isinstance(gp, int) and not isinstance(gp, bool):
        params["hperf"] = {"available_gp": gp}
    trace = None
    if args.trace:
        from mpx.readers import read_trace

        trace = read_trace(args.trace)
    rows = score_schedulers(problem, names, quanta=args.quanta, trace=trace, seed=args.seed, params=params)
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return 0
    free = problem.meta.get("free_events", {})
    print(f"catalog {catalog.name}: {len(problem.metrics)} metrics, {problem.n_events} events "
          f"({len(problem.free)} free, {len(free)} of them outside the core counters), "
          f"{len(problem.groups)} groups ({problem.meta.get('groups_from')}); PMU {pmu.name}: "
          f"{problem.n_counters()} programmable counters")
    head = ("scheduler", "kind", "groups", "util", "mean_sr", "min_sr", "mean_cosched", "errors")
    table = [head]
    skipped = []
    for r in rows:
        if r["skipped"]:
            skipped.append(r)
            continue
        table.append((r["scheduler"], r["kind"], _fmt(r["groups"]), _fmt(r["utilization"]),
                      _fmt(r["mean_sampling_ratio"]), _fmt(r["min_sampling_ratio"]),
                      _fmt(r["mean_coschedule_ratio"]), str(len(r["errors"]))))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
    for r in rows:
        if r["trace"]:
            print(f"note: {r['scheduler']} ran on {r['trace']}")
        if r["params"].get("available_gp") is not None and r["scheduler"] == "hperf":
            print(f"note: hperf uses the catalog's available_GP = {r['params']['available_gp']}")
    for r in skipped:
        print(f"skipped {r['scheduler']}: {r['skipped']}")
    return 0
