"""``mpx bench``: measure the replay, every scaler, the grouping and the partitioners in one run (`mpx.bench`)."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="benchmark replay, scalers, grouping and partitioners (vs KaHyPar) in one run, machine described",
        description="Time, in one run: the replay (multiplex), each registered scaler's estimate() (read windows "
        "and event-windows per second), the event grouping, and mpx.partition against KaHyPar and Mt-KaHyPar "
        "when installed. Reports ratios measured in the same run and describes the machine (CPU, cores, load, "
        "Python and numpy versions). Input: a synthetic tma trace (default) or a shipped dataset, multiplexed "
        "with the perf scheduler on generic-COUNTERS.",
    )
    p.add_argument("--quick", action="store_true",
                   help="a few-second run: 2,000 intervals, one timed call each, a 200-event partitioning instance")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--dataset", help="a shipped dataset (mpx datasets) instead of the synthetic tma trace")
    p.add_argument("--intervals", type=int, help="synthetic trace intervals (default 50,000; --quick 2,000)")
    p.add_argument("--counters", type=int, default=4, help="generic counters of the generic-N PMU (default 4)")
    p.add_argument("--read-every", type=int, default=4, help="quanta per read window (default 4)")
    p.add_argument("--repeat", type=int, help="timed calls per measurement, best kept (default 3; --quick 1)")
    p.add_argument("--scalers", help="comma-separated scalers (default: every registered one)")
    p.add_argument("--events", type=int, dest="events_n",
                   help="events of the random partitioning instance (default 2,000; --quick 200)")
    p.add_argument("--cap", type=int, dest="events_cap", help="block cap of that instance (default 8; --quick 4)")
    p.add_argument("--hgr", help="also partition this hMetis file (e.g. ISPD98_ibm01.hgr) under eps = 0.03")
    p.add_argument("-k", type=int, default=8, dest="hgr_k", help="blocks for --hgr (default 8)")
    p.add_argument("--kahypar-ini", metavar="INI",
                   help="KaHyPar's .ini configuration (e.g. ../shared/data/hypergraphs/kahypar-configs/"
                   "km1_kKaHyPar_sea20.ini); without it KaHyPar is reported as skipped")
    p.add_argument("--no-external", action="store_true", help="do not run KaHyPar / Mt-KaHyPar")


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from mpx.bench import format_report, run_bench
    from mpx.errors import ConfigError

    if args.kahypar_ini is not None:
        from pathlib import Path

        if not Path(args.kahypar_ini).is_file():
            raise ConfigError(f"--kahypar-ini {args.kahypar_ini!r}: no such file")
    log = None if args.json else (lambda s: print(s, file=sys.stderr, flush=True))
    report = run_bench(quick=args.quick, dataset=args.dataset, intervals=args.intervals, counters=args.counters,
                       read_every=args.read_every, repeat=args.repeat, events_n=args.events_n,
                       events_cap=args.events_cap, hgr=args.hgr, hgr_k=args.hgr_k, kahypar_ini=args.kahypar_ini,
                       tools=() if args.no_external else ("kahypar", "mtkahypar"),
                       scalers_use=[s.strip() for s in args.scalers.split(",")] if args.scalers else None, log=log)
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        print(format_report(report))
    return 0
