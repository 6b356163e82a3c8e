"""``mpx evaluate``: one multiplexing replay of a ground-truth trace, every named scaler scored.

The command parses, runs the library and prints; the work and the choices are the library's
(`mpx.scoring.replay`, shared with the experiments' ``scaling`` cells):

- the trace is a file any reader reads or a shipped dataset name (`mpx.datasets.specs.resolve_trace`);
- the problem is ``--events`` on the PMU ``--pmu`` (required: no silent hardware default), resized to
  ``--counters`` generic counters (`mpx.pmu.PMU.with_generic_counters`); without ``--events``, the
  trace's events, or for a gem5 trace the ``gem5`` catalog's (`mpx.scoring.replay.default_events`: its ~1,500
  stats are simulator internals, and scalers that model every pair of events do not fit in memory);
- a scaler that would need more memory than the machine has is not run (``not scored`` with the
  reason; ``--ignore-memory`` runs it anyway);
- one replay `mpx.multiplex.multiplex` with ``--scheduler`` (default ``perf``: perf's round robin);
- each scaler estimates from that one Observation, `mpx.scoring.score.score` compares with the truth
  (`mpx.scoring.replay.score_scalers`), with the metrics of ``--metrics`` (default: the built-in catalog with the
  most metrics computable from the events, `mpx.scoring.replay.default_catalog`, e.g. ``callgrind`` for the
  shipped datasets; ``none`` for no metric errors).

Defaults that are not hardware parameters, stated in the help and printed with the result: the quantum
is one median trace interval (each quantum holds about one recorded interval, so nothing is apportioned
inside an interval more than the recording already does), a read every 10 quanta (the quickstart's
shorter read window; an experiment config must give ``read_every``). Scalers whose tags say they take relations (BayesPerf, fusion) get ``--relations``
(default: none, as under ``mpx run``: `mpx.scoring.replay.scaler_spec`, docs/scoring.md "Relations").
Learned scalers are fitted on ``--train`` (trace files or dataset names); for a shipped dataset the
default is every *other* shipped dataset (leave-one-workload-out, `mpx.scoring.replay.training_traces`), never
the scored workload itself. The quantum spec is read by `mpx.multiplex.resolve_quantum`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]

DEFAULT_READ_EVERY = 10


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="replay multiplexing on a ground-truth trace and score every scaler",
        description="One multiplexing replay of a ground-truth trace (a file or a shipped dataset name), every "
        "named scaler scored against the truth (mpx.scoring.score; docs/scoring.md): wape_all (the headline measure: "
        "Σ|error| / Σ truth over every read window, a window without a value charged as 0) with its coverage, "
        "mdape_all (median relative error), window_mape (mean relative error per event and "
        "read window where the truth is above the floor), window_mape_ran (windows where the event ran), "
        "total_error (the tool's own whole-run total), metric_mape (metrics recomputed from the estimates), calibration of "
        "the reported std (share of truths in the 90% interval).",
    )
    p.add_argument("trace", metavar="TRACE_OR_DATASET", help="a trace file (any supported format) or the name of a "
                   "shipped dataset (mpx datasets list)")
    p.add_argument("--pmu", required=True, help="PMU preset (e.g. generic-4, skylake, neoverse-n1) or a PMU TOML "
                   "file; required: there is no default hardware")
    p.add_argument("--counters", type=int, metavar="N", help="generic counters of the core unit (resizes the PMU)")
    p.add_argument("--events", metavar="LIST", help="comma-separated events to multiplex, or 'all' (default: every "
                   "event of the trace; for a gem5 trace the gem5 catalog's events)")
    p.add_argument("--scheduler", default="perf", metavar="NAME", help="scheduler (default: perf, perf's round robin)")
    p.add_argument("--scaler", action="append", metavar="NAME", help="scaler to score (repeatable; default: every "
                   "installed scaler that loads, plugins included)")
    p.add_argument("--quantum", metavar="Q", help="multiplexing quantum: a number on the trace's time axis, or "
                   "'<x>ms' for traces on a time axis (s/ms/us/ns). Default: one median trace interval")
    p.add_argument("--read-every", type=int, default=DEFAULT_READ_EVERY, metavar="R",
                   help=f"quanta per read window, i.e. perf stat -I (default {DEFAULT_READ_EVERY})")
    p.add_argument("--metrics", metavar="CATALOG", help="metric catalog for metric_mape: a file or a built-in name; "
                   "'none' for none (default: the built-in catalog with the most metrics computable from the events)")
    p.add_argument("--relations", metavar="CATALOG", help="relations for scalers that use them (BayesPerf): a catalog "
                   "file or built-in name, 'metrics' (the --metrics catalog), 'gem5-totals' (gem5 vector identities "
                   "::total = sum of parts), or 'none' (default: none, as mpx run; docs/scoring.md)")
    p.add_argument("--train", metavar="LIST", help="comma-separated trace files or dataset names on which learned "
                   "scalers are fitted (default for a shipped dataset: every other shipped dataset; a trace file "
                   "needs it). The scored workload is refused")
    p.add_argument("--seed", type=int, default=0, help="seed of the replay (schedulers/noise that draw; default 0)")
    p.add_argument("--ignore-memory", action="store_true", help="run every scaler even when it would need more "
                   "memory than the machine has (default: such a scaler is not scored, with the reason)")
    p.add_argument("--wide", action="store_true", help="every column and whole lines, however wide (default: fit "
                   "120 columns)")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per scaler")


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{100 * v:.2f}%"
    return str(v)


def _metrics_catalog(text: str | None, events: tuple[str, ...]) -> tuple[Any, str]:
    from mpx.cli.common import load_catalog_arg
    from mpx.scoring.replay import default_catalog

    if text is not None and text.lower() == "none":
        return None, "none"
    if text is not None:
        cat = load_catalog_arg(text)
        return cat, cat.name
    best, n_best = default_catalog(events)
    if best is None:
        return None, "none (no built-in catalog has a metric over these events)"
    return best, f"{best.name} (default: {n_best} metrics computable from the events)"


def _relations(text: str | None, catalog: Any, trace: Any, events: tuple[str, ...]) -> tuple[Any, str]:
    if text is None or text.lower() == "none":
        return None, "none" + (" (default)" if text is None else "")
    if text.lower() == "metrics":
        return catalog, (catalog.name if catalog is not None else "none")
    if text == "gem5-totals":
        from mpx.metrics import vector_total_relations

        # gem5's ``prefix::total == sum of the parts`` over *all* the parts in the trace: parts --events
        # leaves out are latent variables (``total == the selected parts`` is false when one left out counts)
        return vector_total_relations(trace.events, within=events), "gem5-totals (::total = sum of its parts)"
    from mpx.cli.common import load_catalog_arg

    relations = load_catalog_arg(text, "--relations")
    return relations, relations.name


def run(args: argparse.Namespace) -> int:
    from mpx import scalers, schedulers
    from mpx.cli.common import pmu_arg
    from mpx.errors import ConfigError
    from mpx.multiplex import multiplex, resolve_quantum
    from mpx.problem import Problem
    from mpx.datasets.specs import resolve_trace
    from mpx.scoring.replay import learned_scalers, training_traces

    if isinstance(args.read_every, bool) or args.read_every < 1:
        raise ConfigError(f"--read-every must be a whole number of quanta >= 1, got {args.read_every}")
    names = args.scaler or scalers.REGISTRY.select("all")  # every installed scaler that loads
    unknown = [n for n in names if n not in scalers.available()]
    if unknown:
        raise ConfigError(f"unknown scaler(s) {unknown}; available: {', '.join(scalers.available())}")
    if args.scheduler not in schedulers.available():
        raise ConfigError(f"unknown scheduler {args.scheduler!r}; available: {', '.join(schedulers.available())}")
    trace = resolve_trace(args.trace)
    pmu = pmu_arg(args.pmu, args.counters)
    events, ev_text = _events(args.events, trace, pmu)
    quantum, q_text = resolve_quantum(args.quantum, trace)
    catalog, cat_text = _metrics_catalog(args.metrics, events)
    relations, rel_text = _relations(args.relations, catalog, trace, events)
    problem = Problem(events, pmu)
    learned = learned_scalers(names)
    train, train_text = (training_traces(args.train, args.trace, trace.meta.get("workload")) if learned
                         else ([], "none (no learned scaler)"))
    obs = multiplex(trace, problem, args.scheduler, quantum=quantum, read_every=args.read_every, seed=args.seed)
    rows = _scored_rows(names, obs, trace, catalog, relations, rel_text, train, not args.ignore_memory)
    setup = {"trace": args.trace, "workload": obs.meta.get("workload"), "events": len(events),
             "events_chosen": ev_text, "pmu": pmu.name,
             "counters": problem.n_counters(), "scheduler": args.scheduler, "quantum": quantum,
             "time_unit": trace.time_unit, "read_every": args.read_every, "read_windows": obs.reads.n_reads,
             "metrics": cat_text, "relations": rel_text, "train": train_text if learned else None,
             "never_counted": sorted(obs.errors)}
    if args.json:
        import json

        print(json.dumps([dict(r, setup=setup) for r in rows], indent=1, default=str))
        return 0
    say = _say(args.wide)
    say(f"{args.trace}: {len(events)} events, {obs.reads.n_reads} read windows; PMU {pmu.name} "
        f"({problem.n_counters()} programmable counters), scheduler {args.scheduler}")
    say(f"quantum {q_text}; read every {args.read_every} quanta"
        + (" (default)" if args.read_every == DEFAULT_READ_EVERY else ""))
    say(f"metrics: {cat_text}; relations for BayesPerf: {rel_text}")
    say(f"events: {ev_text}")
    if learned:
        say(f"learned scalers {', '.join(learned)} trained on: {train_text}")
    if obs.errors:
        say(f"never counted: {', '.join(sorted(obs.errors))}")
    _print_table(rows, args.wide, say)
    for line in verdict_lines(rows, cat_text):
        say(line)
    for line in never_warnings(rows):
        say(line)
    for r in rows:
        if "error" in r:
            say(f"not scored {r['scaler']}: {r['error']}")
    return 0


def _events(text: str | None, trace: Any, pmu: Any) -> tuple[tuple[str, ...], str]:
    """The events ``--events`` names (``all``: every event of the trace) and how they were chosen; without
    it the default (`mpx.scoring.replay.default_events`)."""
    from mpx.errors import ConfigError
    from mpx.scoring.replay import default_events

    if text and text.strip().lower() == "all":
        return tuple(trace.events), "every event of the trace (--events all)"
    if not text:
        return default_events(trace, pmu)
    events = tuple(e.strip() for e in text.split(",") if e.strip())
    missing = [e for e in events if e not in trace.events]
    if missing:
        near = _near(missing[0], trace.events)
        raise ConfigError(f"--events: {missing[:10]} not in the trace ({len(trace.events)} events"
                          + (f"; did you mean {near}?)" if near else ")"))
    return events, "--events"


def _scored_rows(names: list[str], obs: Any, trace: Any, catalog: Any, relations: Any, rel_text: str,
                 train: list[Any], memory_check: bool) -> list[dict[str, Any]]:
    """One row per scaler: its scores on the replay (`mpx.scoring.replay.score_scalers`), or the reason it
    was not scored (``error``)."""
    from mpx import scalers
    from mpx.scoring.measures import HEADLINE_COLUMN
    from mpx.scoring.replay import scaler_spec, score_scalers
    from mpx.scoring.verdicts import SUMMARY_KEYS as VERDICT_KEYS

    specs = [scaler_spec(n, relations=relations) for n in names]
    takes_relations = {n: "relations" in p for n, p in specs}
    rows = []
    for name, res in zip(names, score_scalers(obs, trace, specs, catalog, train=train,
                                              no_train="give --train (other workloads' traces)",
                                              memory_check=memory_check)):
        row: dict[str, Any] = {"scaler": name, "causal": None, "view": scalers.REGISTRY.tags(name).view,
                               "window_mape": None, "total_error": None, "metric_mape": None}
        if res.scaler is not None:
            row["causal"] = res.scaler.tags().causal
        if res.status != "done":
            row["error"] = str(res.error).splitlines()[0]
            rows.append(row)
            continue
        row["cpu_s"] = round(res.cpu_seconds, 4)
        row["causal"] = bool(res.estimate.causal)
        sm = res.scores.summary
        row.update({k: sm.get(k) for k in (HEADLINE_COLUMN, "coverage_all", "mdape_all", "lnq_all", "window_mape",
                                           "window_mape_ran", "total_error", "total_error_windows", "metric_mape",
                                           "calibration_50", "calibration_90", "flagged_share", "fallback_share",
                                           "n_events", "n_events_never_estimated")})
        row.update({k: sm.get(k) for k in VERDICT_KEYS})
        if takes_relations[name]:
            row["relations"] = rel_text
        rows.append(row)
    return rows


def _say(wide: bool) -> Any:
    """Print a line as it is (``--wide``) or wrapped to `WIDTH` columns."""
    import textwrap

    if wide:
        return print
    return lambda text: print("\n".join(textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False)))


def _print_table(rows: list[dict[str, Any]], wide: bool, say: Any) -> None:
    """The scored scalers' table, the legacy means left out first when it is wider than `WIDTH`."""
    from mpx.scoring.measures import HEADLINE_COLUMN

    cols = [("scaler", "scaler"), ("causal", "causal"), (HEADLINE_COLUMN, HEADLINE_COLUMN),
            ("coverage", "coverage_all"), ("never_est", None), ("mdape_all", "mdape_all"), ("window_mape", "window_mape"),
            ("mape_ran", "window_mape_ran"), ("total_error", "total_error"), ("metric_mape", "metric_mape"),
            ("calib_90", "calibration_90"), ("cpu_s", "cpu_s")]
    done = [r for r in rows if "error" not in r]
    legacy = ("window_mape", "mape_ran", "total_error", "metric_mape")

    def cell(r: dict[str, Any], name: str, key: str | None) -> str:
        if name == "never_est":
            return _fmt(never_share(r))
        if name == "cpu_s":
            return f"{r['cpu_s']:.3f}"
        if name in legacy and (never_share(r) or 0.0) > 0.5:
            return "n/m"  # over the few events it estimated: not a measure of the run (warning below)
        return r[key] if name == "scaler" else _fmt(r[key])

    table = [tuple(n for n, _ in cols)] + [tuple(cell(r, n, k) for n, k in cols) for r in done]
    dropped: list[str] = []
    while not wide and _width(table) > WIDTH and len(dropped) < 2:  # the legacy means go first
        i = table[0].index(("window_mape", "mape_ran")[len(dropped)])
        dropped.append(table[0][i])
        table = [t[:i] + t[i + 1:] for t in table]
    widths = [max(len(t[i]) for t in table) for i in range(len(table[0]))]
    for t in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
    if dropped:
        say(f"({', '.join(dropped)} left out to fit {WIDTH} columns: --wide or --json for every column)")
    if any(cell(r, "metric_mape", "metric_mape") == "n/m" for r in done):
        say("n/m: not meaningful, the scaler never estimated most events (the mean is over the few it did)")
    for r in done:
        if r.get("fallback_share") is not None:
            say(f"{r['scaler']}: coverage guard, {100 * r['fallback_share']:.1f}% of event-windows from its named "
                "fallback baseline (events outside what its training saw; mpx.scalers.fusion)")


def verdict_lines(rows: list[dict[str, Any]], catalog: str) -> list[str]:
    """The top-down verdict table (`mpx.scoring.verdicts`), when the catalog declares a hierarchy."""
    done = [r for r in rows if "error" not in r and r.get("verdict_l1_agreement") is not None]
    if not done:
        return []
    head = ("scaler", "L1", "L2", "serious", "none", "outside", "run L1", "run L2", "contested", "L1 cont.",
            "const L1", "const cont.")
    keys = ("verdict_l1_agreement", "verdict_l2_agreement", "verdict_l1_serious", "verdict_no_verdict",
            "verdict_out_of_range", "verdict_run_l1", "verdict_run_l2", "verdict_contested_share",
            "verdict_l1_contested", "verdict_const_l1", "verdict_const_l1_contested")
    table = [head] + [(r["scaler"], *(_fmt(r[k]) for k in keys)) for r in done]
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    import textwrap

    out = textwrap.wrap(f"top-down verdicts ({catalog.split(' ')[0]}): the level-1 (L1) and level-2 (L2) bottleneck "
                        f"read from the estimate vs the truth, share of read windows right; serious = the named node's "
                        f"true share > 10 points below the bottleneck's; none = no verdict; outside = node values "
                        f"outside [0, 1]; run = the whole-run verdict right (100%) or not (0%); contested = windows "
                        f"whose true top two are < 5 points apart or whose true bottleneck changed (L1 cont.: L1 right "
                        f"on them); const = the row's whole-run verdict named in every window (perf + linear's: the "
                        f"null baseline)", width=118)
    out += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip()
            for t in table]
    return out


#: terminal width the printed table and lines fit (``--wide``: no limit)
WIDTH = 120


def _width(table: list[tuple[str, ...]]) -> int:
    """Printed width of ``table`` (columns two spaces apart)."""
    return sum(max(len(t[i]) for t in table) for i in range(len(table[0]))) + 2 * (len(table[0]) - 1)


def _near(name: str, choices: Any) -> str:
    """Up to three names of ``choices`` close to ``name``, comma-separated ('' when none is)."""
    import difflib

    return ", ".join(difflib.get_close_matches(name, list(choices), n=3, cutoff=0.6))


def never_share(row: dict[str, Any]) -> float | None:
    """The share of the events a scored scaler never estimated (no value in any window)."""
    n, never = row.get("n_events"), row.get("n_events_never_estimated")
    return never / n if n and never is not None else None


def never_warnings(rows: list[dict[str, Any]]) -> list[str]:
    """One warning per share of never-estimated events: the legacy columns (window_mape, mape_ran,
    total_error, metric_mape) leave those events out, so they can read 0.00% while almost nothing was
    estimated (861 of 865 events on muneeb_single.txt)."""
    from mpx.scoring.measures import HEADLINE_COLUMN

    groups: dict[tuple[int, int], list[str]] = {}
    for r in rows:
        if "error" not in r and r.get("n_events_never_estimated") and r.get("n_events"):
            groups.setdefault((r["n_events_never_estimated"], r["n_events"]), []).append(r["scaler"])
    return [f"warning: {never} of {n} events ({100 * never / n:.1f}%) never estimated by {', '.join(names)}: "
            f"window_mape, mape_ran, total_error and metric_mape leave them out; {HEADLINE_COLUMN} and coverage "
            "charge them" for (never, n), names in groups.items()]
