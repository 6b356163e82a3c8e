"""``mpx partition``: partition an hMetis hypergraph (km1 objective) and print km1, cut, imbalance, seconds;
or, with ``--metrics`` and ``--pmu``, group a metric catalog's events by hypergraph partitioning
(`mpx.grouping.partitioned.group_events`) and print the groups."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "partition",
        help="partition an hMetis .hgr hypergraph into k blocks minimising km1 (KaHyPar-style multilevel), "
        "or group a catalog's events (--metrics, --pmu)",
        description="Partition a hypergraph in hMetis format (.hgr, optionally compressed) into k blocks "
        "minimising the connectivity metric km1 = sum of w(e)*(lambda(e)-1), with every block weighing at most "
        "(1+eps)*ceil(c(V)/k), or at most --cap. Prints km1, cut, imbalance and seconds. With --metrics CATALOG "
        "--pmu PRESET instead of FILE.hgr: events are vertices, metrics are nets, each group holds at most the "
        "usable programmable counters; prints the event groups (mpx.grouping.partitioned).",
    )
    p.add_argument("path", metavar="FILE.hgr", nargs="?", help="hypergraph in hMetis format")
    p.add_argument("-k", type=int, help="number of blocks (required for FILE.hgr; for --metrics: groups per "
                   "PMU unit, default: searched from ceil(events/counters) upward)")
    p.add_argument("-e", "--epsilon", type=float, default=0.03, help="allowed imbalance (default 0.03)")
    p.add_argument("--cap", type=int, help="maximum weight of every block instead of epsilon (e.g. counters per group)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--vcycles", type=int, help="V-cycles after the first multilevel cycle (default: the "
                   "partitioner's, 4)")
    p.add_argument("-o", "--output", help="write the block of every vertex, one per line (hMetis .part format)")
    p.add_argument("--metrics", metavar="CATALOG", help="group the events of this metric catalog (file, folder "
                   "or built-in name) instead of partitioning FILE.hgr")
    p.add_argument("--pmu", help="PMU preset or TOML file (with --metrics)")
    p.add_argument("--counters", type=int, metavar="N", help="with --metrics: programmable counters per group on "
                   "the core unit (default: the PMU's usable counters)")
    p.add_argument("--no-replicate", action="store_true", help="with --metrics: leave spare counters empty")
    p.add_argument("--json", action="store_true", help="print the result (and what each phase did) as JSON")


def run(args: argparse.Namespace) -> int:
    from mpx.errors import ConfigError

    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    if args.metrics is not None or args.pmu is not None:
        if args.path is not None:
            raise ConfigError("give either FILE.hgr or --metrics CATALOG --pmu PRESET, not both")
        if args.metrics is None or args.pmu is None:
            raise ConfigError("event grouping needs both --metrics CATALOG and --pmu PRESET")
        return _run_grouping(args)
    if args.path is None:
        raise ConfigError("give FILE.hgr (with -k) or --metrics CATALOG --pmu PRESET")
    if args.k is None:
        raise ConfigError("-k is required with FILE.hgr")
    return _run_hgr(args)


def _run_hgr(args: argparse.Namespace) -> int:
    import json

    from mpx.errors import ConfigError
    from mpx.partition import Context, partition, read_hmetis
    from mpx.util.progress import bar as progress_bar

    if args.k < 1:
        raise ConfigError(f"-k must be >= 1, got {args.k}")
    hg = read_hmetis(args.path)
    caps = None if args.cap is None else [args.cap] * args.k
    with progress_bar(desc=f"partitioning k={args.k}", unit=" phases") as shown:

        def phase(name: str) -> None:
            shown.set_postfix_str(name, refresh=False)
            shown.update(1)

        res = partition(hg, args.k, epsilon=args.epsilon, seed=args.seed, max_block_weights=caps,
                        context=Context() if args.vcycles is None else Context(vcycles=args.vcycles), on_phase=phase)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write("\n".join(map(str, res.blocks.tolist())) + ("\n" if hg.num_vertices else ""))
    if args.json:
        print(json.dumps({"file": str(args.path), "vertices": hg.num_vertices, "nets": hg.num_nets,
                          **res.to_dict()}, indent=1))
    else:
        print(f"{args.path}: {hg.num_vertices} vertices, {hg.num_nets} nets, k={args.k}")
        print(f"km1        {res.km1}")
        print(f"cut        {res.cut}")
        print(f"imbalance  {res.imbalance:.4f}  (heaviest block {int(res.block_weights.max())}, "
              f"cap {int(res.max_block_weights.max())})")
        print(f"seconds    {res.seconds:.3f}")
    return 0


def _run_grouping(args: argparse.Namespace) -> int:
    import json

    from mpx.cli.common import load_catalog_arg, pmu_arg
    from mpx.errors import ConfigError
    from mpx.grouping.partitioned import group_events
    from mpx.problem import Problem

    for flag, val in (("--cap", args.cap), ("-o/--output", args.output)):
        if val is not None:
            raise ConfigError(f"{flag} applies to FILE.hgr only; with --metrics use --counters")
    catalog = load_catalog_arg(args.metrics)
    pmu = pmu_arg(args.pmu)
    problem = Problem.from_catalog(catalog, pmu)
    g = group_events(problem, seed=args.seed, k=args.k, replicate_events=not args.no_replicate,
                     counters=args.counters)
    if args.json:
        print(json.dumps({"catalog": catalog.name, "pmu": pmu.name, "events": problem.n_events,
                          "free": sorted(problem.free), "metrics": len(problem.metrics), **g.to_dict()}, indent=1))
        return 0
    print(f"catalog {catalog.name} on PMU {pmu.name}: {problem.n_events} events ({len(problem.free)} free, "
          f"always counted), {len(problem.metrics)} metrics")
    for u in g.units:
        print(f"unit {u.unit}: {len(u.events)} events, {u.cap} counters per group, k = {u.k} "
              f"(tried {', '.join(str(t['k']) for t in u.tried)}), km1 = {u.km1}, {u.repaired} moved by "
              "counter-mask repair")
    for i, grp in enumerate(g.groups):
        base = {e for u in g.units for e in u.blocks[i % len(u.blocks)]}
        shown = [e if e in base or e in g.pinned else f"{e}*" for e in grp]
        print(f"G{i}: {', '.join(shown)}")
    if any(u.groups != u.blocks for u in g.units):
        print("(* = replica in a spare counter)")
    for e, why in g.errors.items():
        print(f"error: {e}: {why}")
    print(f"mean metric co-scheduling ratio {g.mean_coschedule_ratio:.3f}; {g.seconds:.3f} s")
    return 0
