"""``mpx record``: run a program under valgrind's callgrind (default) or gem5 (``--simulator gem5``) and save
its interval dumps as a Trace."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "record",
        help="record ground truth from a real program with valgrind callgrind or gem5",
        description=(
            "Run PROGRAM under valgrind --tool=callgrind with cache and branch simulation, dumping all "
            "counters every N basic blocks, and save the per-interval counts as a native trace. ASLR is "
            "switched off and the environment fixed so that a recording is reproducible. With --simulator "
            "gem5: run PROGRAM in gem5's syscall-emulation mode on an out-of-order X86 core with classic "
            "caches and a DDR4 channel, dumping and resetting every stat each --period (every hardware "
            "parameter is stored in the trace's metadata)."
        ),
        epilog=("examples: mpx record -o gzip.npz --interval-bb 300000 -- gzip -9 -c data.txt\n"
                "          mpx record --runs 8 --seed-env PYTHONHASHSEED -o wc.runs -- python3 wc.py\n"
                "          mpx record --simulator gem5 --period 5us --max-dumps 1000 -o gz5.npz -- gzip -9 -c data.txt"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-o", "--output", required=True,
                   help="trace file to write (native format); with --runs, the run-set folder")
    p.add_argument("--runs", type=int, default=None, metavar="N",
                   help="callgrind: record N runs that differ as real runs do (ASLR on, --seed-env, --env-pad) "
                        "into one run set for trace alignment (mpx.recording.runs)")
    p.add_argument("--seed-env", action="append", default=[], metavar="VAR",
                   help="with --runs: set VAR to the run number (1, 2, ...), e.g. PYTHONHASHSEED (repeatable)")
    p.add_argument("--env-pad", type=int, default=64, metavar="BYTES",
                   help="with --runs: run i gets a variable of i*BYTES bytes (the stack moves; default 64; 0: off)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="with --runs: N recordings at a time")
    p.add_argument("--simulator", choices=("callgrind", "gem5"), default="callgrind",
                   help="callgrind (default: cache and branch simulation) or gem5 (a full out-of-order core)")
    p.add_argument("--gem5", metavar="PATH",
                   help="gem5 binary (default: $MPX_GEM5, else gem5.fast/gem5.opt/gem5 on PATH); "
                        "build one with datasets/gem5/build_gem5.sh")
    p.add_argument("--period", default=None, metavar="TIME",
                   help="gem5: dump and reset the stats every TIME of simulated time (5us, 500ns, 1ms or ticks; "
                        "default 5us)")
    p.add_argument("--max-dumps", type=int, default=None, metavar="N",
                   help="gem5: stop after N dumps (deterministic; default: run until the program exits)")
    p.add_argument("--hardware", metavar="JSON",
                   help="gem5: the machine as a JSON file (same keys as mpx.recording.gem5.HARDWARE; default: that)")
    p.add_argument("--fast-forward", type=int, default=None, metavar="INSTS",
                   help="gem5: run the first INSTS instructions on the atomic CPU (caches attached), then switch "
                        "to the out-of-order core (steady state instead of start-up; default: no fast-forward)")
    p.add_argument("--warmup", type=int, default=None, metavar="INSTS",
                   help="gem5, with --fast-forward: run INSTS more instructions on the out-of-order core before "
                        "the stats are reset and the dumps start (warms branch predictor, prefetchers, TLBs)")
    p.add_argument("--checkpoint-dir", metavar="DIR",
                   help="gem5, with --fast-forward: take the fast-forward from a gem5 checkpoint in DIR, writing it "
                        "first if absent; a killed recording rerun with the same DIR restarts after the "
                        "fast-forward, with the same dumps (caches are empty after a restore: the warm-up warms them)")
    p.add_argument("--keep-stats", metavar="FILE", help="gem5: also keep gem5's stats.txt (.xz to compress)")
    p.add_argument("--interval-bb", type=int, default=None, metavar="N",
                   help="dump every N basic blocks (valgrind --dump-every-bb; default 1000000; >= ~300000 sensible)")
    p.add_argument("--cache", metavar="SPEC",
                   help="cache geometry 'I1=SIZE,ASSOC,LINE D1=... LL=...' (e.g. 'I1=32k,8,64 D1=32k,8,64 "
                        "LL=8M,16,64'); without it a documented default is used and printed")
    p.add_argument("--extra-events", default="default", metavar="LIST",
                   help="comma list of bus (Ge), systime (sysCount), wb (ILdmr DLdmr DLdmw), cacheuse; "
                        "'default' = bus,systime,wb; 'none'")
    p.add_argument("--hwpref", action="store_true", help="simulate valgrind's best-case hardware prefetcher")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="add a variable to the program's clean environment (repeatable)")
    p.add_argument("--inherit-env", action="store_true",
                   help="pass the whole caller environment instead of a clean one (not reproducible)")
    p.add_argument("--cwd", help="working directory of the program (default: the current one)")
    p.add_argument("--stdin", help="file for the program's stdin, relative to --cwd (default /dev/null)")
    p.add_argument("--stdout", help="file for the program's stdout, relative to --cwd (default: discarded)")
    p.add_argument("--ok-status", default="0", metavar="CODES",
                   help="comma list of exit statuses that count as success (default 0)")
    p.add_argument("--allow-script", action="store_true",
                   help="profile a shell-script PROGRAM itself instead of refusing")
    p.add_argument("--workload", help="workload name stored in the trace (default: program name)")
    p.add_argument("--keep-dumps", metavar="DIR", help="also copy callgrind's raw dump files to DIR")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop the program (and write nothing) if it still runs after SECONDS (default: no limit)")
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")


def run(args: argparse.Namespace) -> int:
    from mpx.errors import ConfigError
    from mpx.recording.callgrind import DEFAULT_INTERVAL_BB, parse_cache, parse_extra_events, record

    argv = list(args.program)
    dashes = bool(argv) and argv[0] == "--"
    if dashes:
        argv = argv[1:]
    if not argv:
        raise ConfigError("no program given: mpx record -o OUT [options] -- PROGRAM ARGS")
    env = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--env {item!r}: expected KEY=VALUE")
        env[key] = value
    ok = _ok_status(args.ok_status)
    if args.simulator == "gem5":
        return _run_gem5(args, argv, env, ok)
    gem5_only = [o for o, v in (("--gem5", args.gem5), ("--period", args.period), ("--max-dumps", args.max_dumps),
                                ("--fast-forward", args.fast_forward), ("--warmup", args.warmup),
                                ("--hardware", args.hardware), ("--keep-stats", args.keep_stats),
                                ("--checkpoint-dir", args.checkpoint_dir)) if v is not None]
    if gem5_only:
        raise ConfigError(f"{', '.join(gem5_only)}: only with --simulator gem5")
    runs_only = [o for o, v in (("--seed-env", args.seed_env), ("--jobs", args.jobs != 1)) if v]
    if args.runs is None and runs_only:
        raise ConfigError(f"{', '.join(runs_only)}: only with --runs N")
    if args.runs is not None:
        from mpx.recording.runs import record_runs

        record_runs(argv, args.output, args.runs, seed_env=args.seed_env, env_pad=args.env_pad, jobs=args.jobs,
                    env=env, workload=args.workload, interval_bb=args.interval_bb or DEFAULT_INTERVAL_BB,
                    cache=parse_cache(args.cache) if args.cache else None,
                    extra_events=parse_extra_events(args.extra_events), hwpref=args.hwpref, cwd=args.cwd,
                    stdin=args.stdin, stdout=args.stdout, ok_status=ok, allow_script=args.allow_script,
                    timeout=args.timeout)
        return 0
    trace = record(
        argv,
        args.output,
        interval_bb=args.interval_bb or DEFAULT_INTERVAL_BB,
        cache=parse_cache(args.cache) if args.cache else None,
        extra_events=parse_extra_events(args.extra_events),
        hwpref=args.hwpref,
        env=env,
        inherit_env=args.inherit_env,
        cwd=args.cwd,
        stdin=args.stdin,
        stdout=args.stdout,
        ok_status=ok,
        allow_script=args.allow_script,
        workload=args.workload,
        keep_dumps=args.keep_dumps,
        timeout=args.timeout,
    )
    _say_if_short(trace, args.output, f"--interval-bb {args.interval_bb or DEFAULT_INTERVAL_BB:,} blocks", dashes)
    return 0


def _say_if_short(trace: Any, output: str, period: str, dashes: bool) -> None:
    """One line on stderr when the trace is no time series (fewer than 2 intervals): a program shorter
    than one dump period, or (without ``--``) mpx options taken as the program's arguments."""
    import sys

    n = getattr(trace, "n_intervals", None)
    if n is None or n >= 2:
        return
    hint = ("" if dashes else "; mpx options after PROGRAM are the program's arguments: "
            "write mpx record -o OUT [options] -- PROGRAM ARGS")
    print(f"warning: {output} holds {n} interval: the program ended within one dump period ({period}); "
          f"a shorter period gives a time series{hint}", file=sys.stderr)


def _ok_status(text: str) -> tuple[int, ...]:
    """``--ok-status``: the exit statuses that count as success."""
    from mpx.errors import ConfigError

    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(f"--ok-status {text!r}: expected a comma list of integers") from None


def _run_gem5(args: argparse.Namespace, argv: list[str], env: dict[str, str], ok: tuple[int, ...]) -> int:
    import json

    from mpx import strict_json
    from mpx.errors import ConfigError
    from mpx.recording.gem5 import PERIOD_PS, record_gem5

    callgrind_only = [o for o, v in (("--interval-bb", args.interval_bb), ("--cache", args.cache),
                                     ("--hwpref", args.hwpref or None), ("--inherit-env", args.inherit_env or None),
                                     ("--allow-script", args.allow_script or None),
                                     ("--keep-dumps", args.keep_dumps), ("--runs", args.runs)) if v is not None]
    if args.extra_events != "default":
        callgrind_only.append("--extra-events")
    if callgrind_only:
        raise ConfigError(f"{', '.join(callgrind_only)}: callgrind options, not used with --simulator gem5")
    hardware = None
    if args.hardware:
        try:
            with open(args.hardware) as fh:
                hardware = strict_json.loads(fh.read())
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"--hardware {args.hardware}: {exc}") from None
    trace = record_gem5(
        argv,
        args.output,
        gem5=args.gem5,
        period_ps=args.period or PERIOD_PS,
        max_dumps=args.max_dumps,
        fast_forward_insts=args.fast_forward or 0,
        warmup_insts=args.warmup or 0,
        checkpoint_dir=args.checkpoint_dir,
        hardware=hardware,
        env=env,
        cwd=args.cwd,
        stdin=args.stdin,
        stdout=args.stdout,
        workload=args.workload,
        keep_stats=args.keep_stats,
        timeout=args.timeout,
        ok_status=ok,
    )
    period = f"--period {args.period}" if args.period else f"--period {PERIOD_PS:,} ps"  # as the user wrote it
    _say_if_short(trace, args.output, period, args.program[:1] == ["--"])
    return 0
