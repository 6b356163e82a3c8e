"""``mpx trace``: inspect any ground-truth file, draw it, and convert it to the native format."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="inspect, draw or convert a ground-truth trace (any supported format)")
    tsub = p.add_subparsers(dest="trace_command", metavar="ACTION", required=True)
    info = tsub.add_parser("info", help="summarise a trace: size, time axis, largest totals of counted events (a "
                                        "gem5 stat in Tick, Byte, Joule... is not ranked); a run-set folder: its "
                                        "runs, what varied and how much they differ")
    info.add_argument("path", help="trace file, gem5 stats.txt[.xz], mpx JSONL dump, callgrind dumps, or a shipped "
                      "dataset's name")
    info.add_argument("--format", help="force a format instead of detecting it")
    _add_reader_options(info)
    info.add_argument("--events", action="store_true", help="list every event with its total")
    info.add_argument("--top", type=int, default=10, help="how many of the largest totals to show (default 10)")
    conv = tsub.add_parser("convert", help="read any supported format and save the native trace file")
    conv.add_argument("path")
    conv.add_argument("-o", "--output", required=True, help="output file (native .npz trace)")
    conv.add_argument("--format", help="force a format instead of detecting it")
    _add_reader_options(conv)
    _add_plot_parser(tsub)


def _add_plot_parser(tsub: Any) -> None:
    plot = tsub.add_parser("plot", help="draw a trace before multiplexing it: a timeline of events or metrics, a "
                                        "stacked breakdown of a vector stat, a heat map of per-unit stats")
    plot.add_argument("path", help="any trace file mpx reads, or a shipped dataset's name")
    plot.add_argument("-o", "--output", required=True, help="picture to write (.png or .pdf)")
    plot.add_argument("--events", help="comma list of events for a timeline (count per unit of time)")
    plot.add_argument("--metrics", help="comma list of catalog metrics for the timeline (needs --catalog)")
    plot.add_argument("--catalog", help="metric catalog (built-in name or file) for --metrics")
    plot.add_argument("--breakdown", metavar="PATTERN",
                      help="parts of a vector stat stacked as shares, e.g. 'system.cpu.commit.committedInstType_0::*'")
    plot.add_argument("--heatmap", metavar="PATTERN",
                      help="one row per unit of a stat family, e.g. 'system.mem_ctrl.dram.perBankRdBursts::*'")
    plot.add_argument("--bins", type=int, default=400, help="at most this many time bins (default 400)")
    plot.add_argument("--format", help="force a format instead of detecting it")
    _add_reader_options(plot)


def _plot(args: argparse.Namespace, trace: Any) -> int:
    from mpx.errors import ConfigError
    from mpx.figures import trace_view

    views = [v for v in ("events", "metrics", "breakdown", "heatmap") if getattr(args, v)]
    if not views:
        raise ConfigError("mpx trace plot: name what to draw: --events, --metrics, --breakdown or --heatmap")
    if args.breakdown and args.heatmap or (args.breakdown or args.heatmap) and (args.events or args.metrics):
        raise ConfigError("mpx trace plot: one view per picture: --events/--metrics, --breakdown or --heatmap")
    if args.bins < 2:
        raise ConfigError(f"--bins must be at least 2, got {args.bins}")
    if args.breakdown:
        fig = trace_view.breakdown(trace, args.breakdown, args.bins)
    elif args.heatmap:
        fig = trace_view.heatmap(trace, args.heatmap, args.bins)
    else:
        catalog = None
        if args.metrics:
            if not args.catalog:
                raise ConfigError("--metrics needs --catalog (a built-in name or a catalog file)")
            from mpx.cli.common import load_catalog_arg

            catalog = load_catalog_arg(args.catalog, "--catalog")
        split = lambda v: [x.strip() for x in (v or "").split(",") if x.strip()]  # noqa: E731
        fig = trace_view.timeline(trace, split(args.events), split(args.metrics), catalog, args.bins)
    fig.savefig(args.output, bbox_inches="tight")
    print(f"wrote {args.output}")
    return 0


def _check_picture(path: str) -> None:
    """``-o``: a file name whose extension matplotlib writes (.png, .pdf, .svg, ...)."""
    import os

    from matplotlib.backend_bases import FigureCanvasBase

    from mpx.errors import ConfigError

    ext = os.path.splitext(path)[1].lower().lstrip(".")
    kinds = FigureCanvasBase.get_supported_filetypes()
    if ext not in kinds:
        raise ConfigError(f"-o {path}: " + (f"'.{ext}' is not a picture format" if ext else "no file extension")
                          + f"; give one of {', '.join('.' + k for k in sorted(kinds))} (e.g. timeline.png)")


def _add_reader_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-O", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="reader option, VALUE parsed as JSON when it can be (e.g. -O 'mode=[\"delta\",\"cumulative\"]' "
        "for a gem5 file without tick stats); repeatable",
    )


def _reader_options(items: list[str]) -> dict:
    import json

    from mpx import strict_json
    from mpx.errors import ConfigError

    options = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"reader option {item!r} is not KEY=VALUE")
        try:
            options[key] = strict_json.loads(value)
        except strict_json.RepeatedKey as exc:
            raise ConfigError(f"reader option {item!r}: {exc.msg}") from None
        except json.JSONDecodeError:
            options[key] = value
    return options


def _trace(args: argparse.Namespace) -> Any:
    """The trace at ``args.path``, or the shipped dataset of that name (as `mpx evaluate` takes it) when no such
    path exists, it names no folder and no reader is chosen (a missing path stays "no such file")."""
    import os

    from mpx.readers import read_trace

    bare = os.sep not in args.path and not os.path.exists(args.path)
    if bare and args.format is None and not args.option:
        from mpx.datasets.specs import resolve_trace

        return resolve_trace(args.path)
    return read_trace(args.path, format=args.format, **_reader_options(args.option))


def run(args: argparse.Namespace) -> int:
    from mpx.readers import read_trace
    from mpx.recording.runset import is_runset

    if args.trace_command == "info" and is_runset(args.path):
        return _runset_info(args.path)
    if args.trace_command == "plot":
        _check_picture(args.output)  # before reading a large trace
    trace = _trace(args)
    if args.trace_command == "plot":
        return _plot(args, trace)
    if args.trace_command == "convert":
        trace.save(args.output)
        print(f"wrote {args.output}: {trace!r}")
        return 0
    print(trace.summary())
    if args.events:
        shown = list(trace.totals().items())
        title = f"  {{'event':<{{width}}}}  total"
    else:
        ranked, left_out = trace.largest_totals()
        shown = ranked[: args.top]
        title = f"  largest totals ({len(shown)} of {len(ranked)}"
        if left_out:
            units = ", ".join(f"{n} {u}" for u, n in left_out.items())
            title += f" counted events; left out, not counts of events: {units}"
        title += "):"
    if shown:
        width = max(len(n) for n, _ in shown)
        print(title.format(width=width) if args.events else title)
        for name, value in shown:
            print(f"  {name:<{width}}  {value:,.0f}")
    return 0


def _runset_info(path: str) -> int:
    """A run set (``mpx record --runs``): its runs, what varied, and how much they differ per event."""
    from mpx.recording.runset import RunSet

    rs = RunSet.load(path)
    print(f"run set {rs.workload!r}: {len(rs)} runs of {len(rs.events)} events ({path})")
    for i, (t, v) in enumerate(zip(rs.traces, rs.varied)):
        what = ", ".join(f"{k}={val}" for k, val in v.items())
        print(f"  run {i}: {t.n_intervals} intervals, {t.edges[-1] - t.edges[0]:.4g} {t.time_unit}; {what}")
    v = rs.variation()
    print(f"  length CV across runs: {100 * v['length_cv']:.3f} %")
    print("  per event, CV across runs of the total / median per-phase CV (tenths of each run), %:")
    width = max(len(e) for e in v["events"])
    for e, tot, ph in zip(v["events"], v["total_cv"], v["phase_cv"]):
        print(f"  {e:<{width}}  {100 * tot:7.3f}  {100 * ph:7.3f}")
    return 0
