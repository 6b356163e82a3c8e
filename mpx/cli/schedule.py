"""``mpx schedule``: every scheduler's figures (groups, utilization, sampling and co-scheduling ratios) on
one metric catalog and one PMU.

The command only parses its arguments and prints; the work is the library's:

- the catalog becomes a problem with `mpx.problem.Problem.from_catalog` (its groups, free events and
  uncore renames are explained there); ``--counters`` resizes the PMU's core unit with
  `mpx.pmu.PMU.with_generic_counters`;
- the schedulers are run and scored by `mpx.scoring.schedules.score_schedulers`: online schedulers run on
  a synthetic trace (`mpx.scoring.schedules.synthetic_trace`, drawn from ``--seed``; the row says so)
  unless ``--trace`` gives a real one that has the problem's events.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["LEGEND", "add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schedule",
        help="compare multiplexing schedulers on a metric catalog and a PMU",
        description="Score every registered scheduler (or the chosen ones) on one metric catalog and one "
        "PMU: groups (distinct configurations, i.e. sets of events counted together, over the quanta scored), "
        "PMC utilization, mean and minimum sampling ratio of the multiplexed events, mean metric co-scheduling "
        "ratio (mpx.scoring.schedules), events never counted. Schedulers that cannot handle the catalog are "
        "listed with the reason. Online schedulers run on a synthetic trace unless --trace is given.",
    )
    p.add_argument("--pmu", required=True, help="PMU preset (mpx.pmu.presets(), e.g. skylake, neoverse-n1, "
                   "generic-4) or a PMU TOML file")
    p.add_argument("--metrics", help="metric catalog: a file or folder in any supported format, "
                   "or a built-in catalog name (or --events)")
    p.add_argument("--events", metavar="A,B,...", help="the events to schedule, comma-separated (instead of "
                   "--metrics)")
    p.add_argument("--check", action="store_true",
                   help="pre-flight: does the event set fit without multiplexing on this PMU, with SMT on and off "
                   "(where a NAME-htoff preset exists) and the NMI watchdog on and off; if not, the fewest groups "
                   "and the share of counter time each event gets under perf, the grouping tools and mpx's "
                   "grouping (mpx.problem.fit)")
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


# -- arguments --------------------------------------------------------------------------------------


# -- output -----------------------------------------------------------------------------------------


#: the table's columns, named as `mpx report`'s scheduler table names them, and what each is
LEGEND = ("utilization % = programmable counter-quanta in use; sampling % = quanta a multiplexed event is "
          "counted in (mean over the events; min: the least counted one); co-scheduled % = quanta in which all "
          "events of a metric are counted together (mean over the metrics); configurations = distinct sets of "
          "events counted together; never counted = events in error (mpx.scoring.schedules)")


def _fmt(v: Any, percent: bool = False) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "n/a" if v != v else f"{100 * v:.1f}" if percent else f"{v:.3f}"
    return str(v)


def run(args: argparse.Namespace) -> int:
    import json
    import textwrap

    from mpx import schedulers
    from mpx.cli.common import load_catalog_arg, pmu_arg
    from mpx.errors import ConfigError
    from mpx.problem import Problem
    from mpx.scoring.schedules import score_schedulers

    if args.quanta is not None and args.quanta < 1:
        raise ConfigError(f"--quanta must be >= 1, got {args.quanta}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    if (args.metrics is None) == (args.events is None):
        raise ConfigError("give the events to schedule: --metrics CATALOG or --events A,B,... (one of them)")
    pmu = pmu_arg(args.pmu, args.counters)
    if args.events is not None:
        events = tuple(dict.fromkeys(e.strip() for e in args.events.split(",") if e.strip()))
        if not events:
            raise ConfigError(f"--events names no event: {args.events!r}")
        catalog = None

        def make(p: Any) -> Problem:
            return Problem(events, p)
    else:
        catalog = load_catalog_arg(args.metrics)

        def make(p: Any) -> Problem:
            return Problem.from_catalog(catalog, p)
    problem = make(pmu)
    if args.check:
        return _check(args, make, pmu, problem)
    names = args.scheduler or schedulers.REGISTRY.select("all")
    unknown = [n for n in names if n not in schedulers.available()]
    if unknown:
        raise ConfigError(f"unknown scheduler(s) {unknown}; available: {', '.join(schedulers.available())}")
    trace = None
    if args.trace:
        from mpx.readers import read_trace

        trace = read_trace(args.trace)
    rows = score_schedulers(problem, names, quanta=args.quanta, trace=trace, seed=args.seed)
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return 0
    free = problem.meta.get("free_events", {})
    what = f"catalog {catalog.name}" if catalog is not None else "events"
    print(f"{what}: {len(problem.metrics)} metrics, {problem.n_events} events "
          f"({len(problem.free)} free, {len(free)} of them outside the core counters), "
          f"{len(problem.groups)} groups ({problem.meta.get('groups_from')}); PMU {pmu.name}: "
          f"{problem.n_counters()} programmable counters")
    head = ("scheduler", "kind", "configurations", "utilization %", "sampling %", "min sampling %",
            "co-scheduled %", "never counted")
    table = [head]
    skipped = []
    for r in rows:
        if r["skipped"]:
            skipped.append(r)
            continue
        table.append((r["scheduler"], r["kind"], _fmt(r["groups"]), _fmt(r["utilization"], True),
                      _fmt(r["mean_sampling_ratio"], True), _fmt(r["min_sampling_ratio"], True),
                      _fmt(r["mean_coschedule_ratio"], True), str(len(r["errors"]))))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
    print(textwrap.fill(LEGEND, width=110, subsequent_indent="  "))
    for r in rows:
        if r["trace"]:
            print(f"note: {r['scheduler']} ran on {r['trace']}")
        if r["params"].get("available_gp") is not None and r["scheduler"] == "hperf":
            print(f"note: hperf uses the catalog's available_GP = {r['params']['available_gp']}")
        tool = r.get("tool") or {}
        if "available_GP" in tool:
            print(f"note: hperf by its own definitions: utilization {_fmt(tool['utilization'], True)} % of "
                  f"available_GP = {tool['available_GP']} (mpx: {_fmt(r['utilization'], True)} % of the PMU), "
                  f"sampling ratio per metric {_fmt(tool['sampling_ratio'], True)} % (mpx's co-scheduled %)")
        if tool.get("group_count_spread"):
            print(f"note: {r['scheduler']}: {tool['groups']} groups, the tool's typical count; over the orders "
                  f"of its set: {tool['group_count_spread']} (count x orders)")
    for r in skipped:
        print(f"skipped {r['scheduler']}: {r['skipped']}")
    return 0


#: the schedulers whose shares `--check` prints: perf's rotation, the grouping tools, mpx's grouping
CHECK_SCHEDULERS = ("perf", "likwid", "hperf", "arm_topdown", "hypergraph")


def _check(args: argparse.Namespace, make: Any, pmu: Any, problem: Any) -> int:
    import json

    from mpx import schedulers
    from mpx.problem.fit import check_variants
    from mpx.scoring.schedules import score_schedulers

    import textwrap

    pairs = list(check_variants(make, pmu))
    checks = [c for c, _ in pairs]
    names = [n for n in (args.scheduler or CHECK_SCHEDULERS) if n in schedulers.available()]
    tight = next(((c, p) for c, p in pairs if not c.fits), None)  # the first variant that multiplexes
    rows = [] if tight is None else score_schedulers(tight[1], names, quanta=args.quanta, seed=args.seed)
    if args.json:
        print(json.dumps({"variants": [c.to_dict() for c in checks],
                          "shares": [{k: r[k] for k in ("scheduler", "skipped", "groups", "mean_sampling_ratio",
                                                          "min_sampling_ratio")} for r in rows]}, indent=1))
        return 0
    first = checks[0]
    print(f"{len(problem.events)} events on {pmu.name}: {len(first.fixed)} on fixed counters, "
          f"{len(first.programmable)} need a programmable counter"
          + (f", {len(first.uncountable)} can never be counted here ({', '.join(sorted(first.uncountable))})"
             if first.uncountable else ""))
    head = ("variant", "counters", "programmable events", "fits", "perf places all", "groups needed")
    table = [head]
    for c in checks:
        groups = "1" if c.fits else (str(c.exact_groups) if c.exact_groups else f"{c.min_groups}-{c.packed_groups}")
        table.append((c.variant, "+".join(str(v) for v in c.counters.values()) or "0", str(len(c.programmable)),
                      "yes" if c.fits else "no", "yes" if c.fits_perf else "no", groups))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
    print(textwrap.fill(
        "counters = usable programmable counters; the watchdog's pinned cycles event holds the cycle counter (the "
        "fixed one where the PMU has it), so a cycles event of yours then needs a programmable one; fits = an "
        "exact placement exists; perf places all = Linux x86's weight-ordered greedy (perf_assign_events) finds "
        "it; groups needed = the fewest groups (a range: a lower bound - a packing found)", width=110,
        subsequent_indent="  "))
    if tight is None:
        print("no multiplexing in any variant: every event is counted all the time")
        return 0
    print(f"\nshare of counter time per event on {tight[0].variant} (sampling ratio, mpx.scoring.schedules):")
    for r in rows:
        if r["skipped"]:
            print(textwrap.shorten(f"  {r['scheduler']:<12} not applicable: {r['skipped']}", width=118,
                                   placeholder=" ..."))
        else:
            print(f"  {r['scheduler']:<12} {r['groups']} configurations; mean {100 * r['mean_sampling_ratio']:.1f} %, "
                  f"least counted event {100 * r['min_sampling_ratio']:.1f} %")
    return 0
