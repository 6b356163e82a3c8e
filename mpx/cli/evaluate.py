"""``mpx evaluate``: one multiplexing replay of a ground-truth trace, every named scaler scored.

The command parses, runs the library and prints; the work is the library's:

- the trace is a file any reader reads (`mpx.readers.read_trace`) or a shipped dataset name
  (`mpx.datasets.load`);
- the problem is the trace's events (or ``--events``) on the PMU ``--pmu`` (required: no silent hardware
  default), resized to ``--counters`` generic counters (`mpx.pmu.PMU.with_generic_counters`);
- one replay `mpx.multiplex.multiplex` with ``--scheduler`` (default ``perf``: perf's round robin);
- each scaler estimates from that one Observation, `mpx.evaluate.score` compares with the truth, with the
  metrics of ``--metrics`` (default: the built-in catalog with the most metrics computable from the
  events, e.g. ``callgrind`` for the shipped datasets; ``none`` for no metric errors).

Defaults that are not hardware parameters, stated in the help and printed with the result: the quantum
is one median trace interval (each quantum holds about one recorded interval, so nothing is apportioned
inside an interval more than the recording already does), a read every 10 quanta (the experiment
runner's default). Scalers with a ``relations`` hyper-parameter (BayesPerf) get ``--relations`` (default:
the metrics catalog: its relations and the identities its formulas imply are prior knowledge, not counts).
Learned scalers are fitted on ``--train`` (trace files or dataset names); for a shipped dataset the
default is every *other* shipped dataset (leave-one-workload-out), never the scored workload itself.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run", "load_truth", "parse_quantum"]

DEFAULT_READ_EVERY = 10


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="replay multiplexing on a ground-truth trace and score every scaler",
        description="One multiplexing replay of a ground-truth trace (a file or a shipped dataset name), every "
        "named scaler scored against the truth (mpx.evaluate): window_mape (mean relative error per event and "
        "read window where the truth is above the floor), window_mape_ran (windows where the event ran), "
        "total_error (whole-run totals), metric_mape (metrics recomputed from the estimates), calibration of "
        "the reported std (share of truths in the 90%% interval).",
    )
    p.add_argument("trace", metavar="TRACE_OR_DATASET", help="a trace file (any supported format) or the name of a "
                   "shipped dataset (mpx datasets list)")
    p.add_argument("--pmu", required=True, help="PMU preset (e.g. generic-4, skylake, neoverse-n1) or a PMU TOML "
                   "file; required: there is no default hardware")
    p.add_argument("--counters", type=int, metavar="N", help="generic counters of the core unit (resizes the PMU)")
    p.add_argument("--events", metavar="LIST", help="comma-separated events to multiplex (default: every event of "
                   "the trace)")
    p.add_argument("--scheduler", default="perf", metavar="NAME", help="scheduler (default: perf, perf's round robin)")
    p.add_argument("--scaler", action="append", metavar="NAME", help="scaler to score (repeatable; default: every "
                   "registered scaler)")
    p.add_argument("--quantum", metavar="Q", help="multiplexing quantum: a number on the trace's time axis, or "
                   "'<x>ms' for traces on a time axis (s/ms/us/ns). Default: one median trace interval")
    p.add_argument("--read-every", type=int, default=DEFAULT_READ_EVERY, metavar="R",
                   help=f"quanta per read window, i.e. perf stat -I (default {DEFAULT_READ_EVERY})")
    p.add_argument("--metrics", metavar="CATALOG", help="metric catalog for metric_mape: a file or a built-in name; "
                   "'none' for none (default: the built-in catalog with the most metrics computable from the events)")
    p.add_argument("--relations", metavar="CATALOG", help="relations for scalers that use them (BayesPerf): a catalog "
                   "file or built-in name, 'gem5-totals' (gem5 vector identities ::total = sum of parts), or 'none' (default: the metrics catalog)")
    p.add_argument("--train", metavar="LIST", help="comma-separated trace files or dataset names on which learned "
                   "scalers are fitted (default for a shipped dataset: every other shipped dataset; a trace file "
                   "needs it). The scored workload is refused")
    p.add_argument("--seed", type=int, default=0, help="seed of the replay (schedulers/noise that draw; default 0)")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per scaler")


def load_truth(text: str) -> Any:
    """A Trace from a path, or a shipped dataset by name."""
    import os

    from mpx import datasets
    from mpx.errors import ConfigError

    if os.path.exists(text):
        from mpx.readers import read_trace

        return read_trace(text)
    try:
        known = datasets.names()
    except FileNotFoundError:
        known = []
    if text in known:
        return datasets.load(text)
    raise ConfigError(f"{text!r} is neither an existing trace file nor a shipped dataset "
                      f"({', '.join(known) or 'no dataset manifest found'})")


def training_traces(text: str | None, scored: str, workload: Any) -> tuple[list[Any], str]:
    """The traces learned scalers are fitted on, and how they were chosen; never the scored workload."""
    from mpx import datasets
    from mpx.errors import ConfigError

    if text is None:
        if scored not in datasets.names():
            return [], "none (give --train for learned scalers)"
        names = [n for n in datasets.names() if n != scored]
        return [datasets.load(n) for n in names], f"{', '.join(names)} (default: the other shipped datasets)"
    items = [t.strip() for t in text.split(",") if t.strip()]
    traces = [load_truth(t) for t in items]
    same = [i for i, t in zip(items, traces) if i == scored or (workload and t.meta.get("workload") == workload)]
    if same:
        raise ConfigError(f"--train: {same} is the scored workload; learned scalers are trained on other workloads")
    return traces, ", ".join(items)


def parse_quantum(text: str | None, trace: Any) -> tuple[float, str]:
    """The quantum on the trace's time axis, and how it was chosen (for the output)."""
    import math

    import numpy as np

    from mpx.errors import ConfigError

    if text is None:
        q = float(np.median(np.diff(trace.edges)))
        return q, f"{q:,.6g} {trace.time_unit} (default: one median trace interval)"
    t = text.strip()
    if t.endswith("ms"):
        from mpx.multiplex import quantum_from_ms

        try:
            ms = float(t[:-2])
        except ValueError:
            raise ConfigError(f"--quantum {text!r}: expected a number or '<x>ms'") from None
        try:
            q = quantum_from_ms(ms, trace.time_unit)
        except ConfigError as exc:
            raise ConfigError(f"--quantum {text!r}: {exc}") from None
        return q, f"{q:,.6g} {trace.time_unit} ({ms:g} ms)"
    try:
        q = float(t)
    except ValueError:
        raise ConfigError(f"--quantum {text!r}: expected a number on the trace's time axis ({trace.time_unit}) "
                          "or '<x>ms'") from None
    if not (math.isfinite(q) and q > 0):
        raise ConfigError(f"--quantum must be > 0, got {text!r}")
    return q, f"{q:,.6g} {trace.time_unit}"


def _metrics_catalog(text: str | None, events: tuple[str, ...]) -> tuple[Any, str]:
    from mpx.cli.schedule import load_catalog_arg
    from mpx.metrics import builtin, builtin_names

    if text is not None and text.lower() == "none":
        return None, "none"
    if text is not None:
        cat = load_catalog_arg(text)
        return cat, cat.name
    have = set(events)
    best, n_best = None, 0
    for name in builtin_names():
        cat = builtin(name)
        n = sum(1 for m in cat.metrics.values() if set(m.events) <= have)
        if n > n_best:
            best, n_best = cat, n
    if best is None:
        return None, "none (no built-in catalog has a metric over these events)"
    return best, f"{best.name} (default: {n_best} metrics computable from the events)"


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{100 * v:.2f}%"
    return str(v)


def run(args: argparse.Namespace) -> int:
    import json
    import time

    from mpx import scalers, schedulers
    from mpx.cli.schedule import pmu_arg
    from mpx.errors import ConfigError, MpxError
    from mpx.evaluate import score
    from mpx.multiplex import multiplex
    from mpx.problem import Problem

    if isinstance(args.read_every, bool) or args.read_every < 1:
        raise ConfigError(f"--read-every must be a whole number of quanta >= 1, got {args.read_every}")
    names = args.scaler or scalers.available()
    unknown = [n for n in names if n not in scalers.available()]
    if unknown:
        raise ConfigError(f"unknown scaler(s) {unknown}; available: {', '.join(scalers.available())}")
    if args.scheduler not in schedulers.available():
        raise ConfigError(f"unknown scheduler {args.scheduler!r}; available: {', '.join(schedulers.available())}")
    trace = load_truth(args.trace)
    events = tuple(trace.events)
    if args.events:
        events = tuple(e.strip() for e in args.events.split(",") if e.strip())
        missing = [e for e in events if e not in trace.events]
        if missing:
            raise ConfigError(f"--events: {missing} not in the trace (it has {', '.join(trace.events)})")
    pmu = pmu_arg(args.pmu, args.counters)
    quantum, q_text = parse_quantum(args.quantum, trace)
    catalog, cat_text = _metrics_catalog(args.metrics, events)
    if args.relations is None:
        relations, rel_text = catalog, (catalog.name if catalog is not None else "none")
    elif args.relations.lower() == "none":
        relations, rel_text = None, "none"
    elif args.relations == "gem5-totals":
        from mpx.metrics import vector_total_relations

        # gem5's ``prefix::total == sum of the parts`` over *all* the parts in the trace: parts --events
        # leaves out are latent variables (``total == the selected parts`` is false when one left out counts)
        relations = vector_total_relations(trace.events, within=events)
        rel_text = "gem5-totals (::total = sum of its parts)"
    else:
        from mpx.cli.schedule import load_catalog_arg

        relations = load_catalog_arg(args.relations)
        rel_text = relations.name
    problem = Problem(events, pmu)
    learned = [n for n in names if getattr(scalers.get_class(n), "learned", False)]
    train, train_text = (training_traces(args.train, args.trace, trace.meta.get("workload")) if learned
                         else ([], "none (no learned scaler)"))
    obs = multiplex(trace, problem, args.scheduler, quantum=quantum, read_every=args.read_every, seed=args.seed)

    rows = []
    for name in names:
        cls = scalers.get_class(name)
        params = {"relations": relations} if "relations" in cls._param_names() and relations is not None else {}
        row: dict[str, Any] = {"scaler": name, "causal": None, "view": cls.view, "window_mape": None,
                               "total_error": None, "metric_mape": None}
        try:
            s = cls(**params)
            row["causal"] = bool(s.causal)
            if s.learned:
                if not train:
                    raise ConfigError(f"{name} is a learned scaler: give --train (other workloads' traces)")
                s.fit(train)
            t0 = time.process_time()
            est = s.estimate(obs)
            row["cpu_s"] = round(time.process_time() - t0, 4)
            sm = score(est, trace, catalog).summary
        except MpxError as exc:
            row["error"] = str(exc).splitlines()[0]
            rows.append(row)
            continue
        row["causal"] = bool(est.causal)
        row.update({k: sm.get(k) for k in ("window_mape", "window_mape_ran", "total_error", "metric_mape",
                                           "calibration_50", "calibration_90", "flagged_share",
                                           "n_events_never_estimated")})
        if params:
            row["relations"] = rel_text
        rows.append(row)

    setup = {"trace": args.trace, "workload": obs.meta.get("workload"), "events": len(events), "pmu": pmu.name,
             "counters": problem.n_counters(), "scheduler": args.scheduler, "quantum": quantum,
             "time_unit": trace.time_unit, "read_every": args.read_every, "read_windows": obs.reads.n_reads,
             "metrics": cat_text, "relations": rel_text, "train": train_text if learned else None,
             "never_counted": sorted(obs.errors)}
    if args.json:
        print(json.dumps([dict(r, setup=setup) for r in rows], indent=1, default=str))
        return 0
    print(f"{args.trace}: {len(events)} events, {obs.reads.n_reads} read windows; PMU {pmu.name} "
          f"({problem.n_counters()} programmable counters), scheduler {args.scheduler}")
    print(f"quantum {q_text}; read every {args.read_every} quanta"
          + (" (default)" if args.read_every == DEFAULT_READ_EVERY else ""))
    print(f"metrics: {cat_text}; relations for BayesPerf: {rel_text}")
    if learned:
        print(f"learned scalers {', '.join(learned)} trained on: {train_text}")
    if obs.errors:
        print(f"never counted: {', '.join(sorted(obs.errors))}")
    head = ("scaler", "causal", "window_mape", "mape_ran", "total_error", "metric_mape", "calib_90", "cpu_s")
    table = [head]
    failed = []
    for r in rows:
        if "error" in r:
            failed.append(r)
            continue
        table.append((r["scaler"], _fmt(r["causal"]), _fmt(r["window_mape"]), _fmt(r["window_mape_ran"]),
                      _fmt(r["total_error"]), _fmt(r["metric_mape"]), _fmt(r["calibration_90"]), f"{r['cpu_s']:.3f}"))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
    for r in failed:
        print(f"not scored {r['scaler']}: {r['error']}")
    return 0
