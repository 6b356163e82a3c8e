"""``mpx estimate``: re-estimate a real ``perf stat`` or ``likwid-perfctr`` run with any read-view scaler.

A real run has no ground truth: the output is each interval's estimate beside the tool's own value (perf's
scaled value; LIKWID's raw count of its group's share of the run).
The library does the work: `mpx.readers.perfstat.read_perf_stat` reads perf's output (every form) and
`mpx.readers.likwid_perfctr.read_likwid_perfctr` LIKWID's (table, ``-O`` CSV, ``-t`` timeline),
`~mpx.readers.perfstat.PerfStatRun.read_view` turns it into the read view a scaler sees (times in ns;
how running, enabled and raw are chosen is documented there), and
`mpx.observation.Observation.from_read_view` makes the Observation, on the PMU given with ``--pmu`` or,
without it, on no PMU at all (read-view scalers need none; nothing is made up).

Beside each value: its coverage (the share of the interval the counter ran), a 90 % interval, and for a
catalog with a top-down hierarchy (``--metrics``) the bottleneck per interval with its probability
(`mpx.scalers.trust`); a value the counter saw for the whole interval is shown as counted, whatever the scaler's
formula gives there.

Only scalers that work from the read view (``view == "read"``) can run here: perf stat -I prints one
value per interval, not the per-quantum samples that quantum-view scalers (BayesPerf's Student-t
measurement model, PAPI's software multiplexing) need.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "estimate",
        help="re-estimate a real perf stat -I run with a scaler, beside perf's values",
        description="Read a perf stat -I output (CSV from -x SEP, or JSON from -j), re-estimate every counter's "
        "count per interval with a scaler that works from the read view, and print the estimates beside perf's "
        "own scaled values (no ground truth: a comparison, not a score).",
    )
    p.add_argument("perfstat", metavar="PERF_STAT_OUTPUT", help="perf stat output file (-I CSV or JSON lines, the "
                   "plain layout, a whole run), or likwid-perfctr output (table, -O CSV, -t timeline)")
    p.add_argument("--scaler", required=True, metavar="NAME", help="a read-view scaler (e.g. linear, papi, dira, "
                   "tam, dcam, cam)")
    p.add_argument("--relations", metavar="CATALOG", help="relations for a scaler that takes them (a catalog file "
                   "or built-in name)")
    p.add_argument("--pmu", metavar="NAME|FILE", help="the PMU the run counted on (a preset name or TOML file); "
                   "default: none declared")
    p.add_argument("--events", metavar="LIST", help="comma-separated counters to print (default: all)")
    p.add_argument("--metrics", metavar="CATALOG", help="a catalog with a top-down hierarchy (e.g. tma, or Intel's "
                   "perf JSON): print the bottleneck per interval with its probability")
    p.add_argument("--level", type=float, default=0.90, help="the intervals' level (default 0.90)")
    p.add_argument("--plot", metavar="OUT.png", help="also plot perf's values and the estimates per counter")
    p.add_argument("--json", action="store_true", help="print JSON (one object per interval and counter)")


def _plot(path: str, times: Any, labels: list[str], perf: Any, est: Any, std: Any, scaler: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(labels)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.6 * rows), squeeze=False, sharex=True)
    for i, lab in enumerate(labels):
        ax = axes[i // cols][i % cols]
        ax.plot(times, perf[:, i], "o-", ms=2, lw=1, label="perf (scaled)")
        ax.plot(times, est[:, i], "-", lw=1, label=scaler)
        if std is not None:
            ax.fill_between(times, est[:, i] - std[:, i], est[:, i] + std[:, i], alpha=0.25, lw=0)
        ax.set_title(lab, fontsize=9)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    del np


def _split_events(text: str, labels: list[str]) -> list[str]:
    """``--events`` split at commas, keeping together the pieces of a counter whose name holds commas
    (uncore events such as ``uncore_imc/event=0x4,umask=0x3/``): the longest run of pieces naming a counter wins."""
    pieces = text.split(",")
    known = set(labels)
    out, i = [], 0
    while i < len(pieces):
        for j in range(len(pieces), i, -1):
            name = ",".join(pieces[i:j]).strip()
            if name in known:
                out.append(name)
                i = j
                break
        else:
            if pieces[i].strip():
                out.append(pieces[i].strip())
            i += 1
    return out


def _read_run(path: str) -> Any:
    """The run in ``path``: likwid-perfctr output (`mpx.readers.likwid_perfctr`) or perf stat output."""
    from mpx.readers import likwid_perfctr
    from mpx.readers.perfstat import read_perf_stat
    from mpx.readers.textio import read_text

    try:
        text = read_text(path)
    except Exception:  # noqa: BLE001 - the perf reader says what is wrong with the file
        text = ""
    if likwid_perfctr.form_of(text.split("\n")) is not None:
        return likwid_perfctr.read_likwid_perfctr(path)
    from mpx.errors import ConfigError, FormatError
    from mpx.readers import detect_format

    try:
        fmt = detect_format(path)
    except (FormatError, OSError):
        fmt = None
    if fmt in ("mpx", "jsonl", "gem5", "callgrind"):  # ground truth: what mpx evaluate scores scalers on
        raise ConfigError(f"{path} is a trace (ground truth, {fmt} format), not perf stat or likwid-perfctr output: "
                          f"score scalers on it with mpx evaluate {path} --pmu PRESET")
    return read_perf_stat(path)


def run(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from mpx import scalers
    from mpx.errors import ConfigError
    from mpx.observation import Observation

    if args.scaler not in scalers.available():
        raise ConfigError(f"unknown scaler {args.scaler!r}; available: {', '.join(scalers.available())}")
    tags = scalers.REGISTRY.tags(args.scaler)
    if tags.view != "read":
        readable = [n for n in scalers.REGISTRY.installed() if scalers.REGISTRY.tags(n).view == "read"]
        raise ConfigError(f"scaler {args.scaler!r} works on the quantum view (per-quantum samples), which perf stat -I "
                          f"does not print; read-view scalers: {', '.join(readable)}")
    params: dict[str, Any] = {}
    if args.relations is not None:
        if not tags.needs_relations:
            raise ConfigError(f"scaler {args.scaler!r} takes no relations (--relations is for scalers that do)")
        from mpx.cli.common import load_catalog_arg

        params["relations"] = load_catalog_arg(args.relations, "--relations")
    with open(args.perfstat, "rb") as fh:
        magic = fh.read(6)
    if magic[:4] == b"PK\x03\x04" or magic.startswith(b"\x93NUMPY"):
        raise ConfigError(f"{args.perfstat} is a trace (ground truth), not perf stat output: score scalers on it with "
                          f"mpx evaluate {args.perfstat} --pmu PRESET")
    run_ = _read_run(args.perfstat)
    tool = "likwid" if str(run_.format).startswith("likwid") else "perf"
    labels = list(run_.labels)
    view = run_.read_view()
    notes = list(view.notes)
    pmu = None
    if args.pmu is not None:
        from mpx.cli.common import pmu_arg

        pmu = pmu_arg(args.pmu)
    obs = Observation.from_read_view(view, pmu=pmu, meta={"workload": str(args.perfstat), "scheduler": None,
                                                          "source": "likwid-perfctr" if tool == "likwid"
                                                          else "perf stat -I"})
    est = scalers.get(args.scaler, **params).estimate(obs)
    if not 0 < args.level < 1:
        raise ConfigError(f"--level must be between 0 and 1, got {args.level}")
    from mpx.scalers.trust import trust_report

    catalog = None
    if args.metrics is not None:
        from mpx.cli.common import load_catalog_arg

        catalog = load_catalog_arg(args.metrics)
    rep = trust_report(run_, est, catalog=catalog, level=args.level)
    perf = rep.perf
    show = list(range(len(labels)))
    if args.events:
        want = _split_events(args.events, labels)
        unknown = [e for e in want if e not in labels]
        if unknown:
            more = f", ... ({len(labels) - 10} more)" if len(labels) > 10 else ""
            raise ConfigError(f"--events: {unknown[:5]} not in {args.perfstat} "
                              f"(counters: {', '.join(labels[:10])}{more})")
        show = [labels.index(e) for e in want]
    times = rep.times
    std = est.std
    if args.plot:
        _plot(args.plot, times, [labels[i] for i in show], perf[:, show], rep.estimate[:, show],
              None if std is None else std[:, show], args.scaler)
        notes.append(f"plot written to {args.plot}")
    if args.json:
        out = rep.to_json()
        keep = {labels[i] for i in show}
        out["rows"] = [r for r in out["rows"] if r["counter"] in keep]
        out.update({"scaler": args.scaler, "causal": est.causal, "time_unit": obs.time_unit,
                    "pmu": None if obs.problem.pmu is None else obs.problem.pmu.name})
        out["notes"] = notes + list(est.notes) + out["notes"]
        print(json.dumps(out, indent=1))
        return 0
    import textwrap

    print(textwrap.fill(f"{args.perfstat}: {times.size} intervals, {len(labels)} counters ({run_.format}); scaler "
                        f"{args.scaler} ({'causal' if est.causal else 'offline'}); {100 * args.level:.0f} % intervals "
                        f"from {rep.interval_from}", width=118, subsequent_indent="  ",
                        break_on_hyphens=False, break_long_words=False))

    for n in notes + list(est.notes) + rep.notes:
        print(textwrap.fill(f"note: {n}", width=118, subsequent_indent="  ", break_on_hyphens=False,
                            break_long_words=False))

    def num(v: float) -> str:
        if not np.isfinite(v):
            return "<not counted>"
        return f"{v:,.0f}" if abs(v) >= 100 or v == round(v) else f"{v:,.3f}"

    head = ("time", "counter", "cov%", tool, args.scaler, f"{100 * args.level:.0f} % interval")
    table = [head]
    for t in range(times.size):
        for i in show:
            cov = rep.coverage[t, i]
            interval = ("counted" if rep.counted[t, i] else
                        "-" if not (np.isfinite(rep.lo[t, i]) and np.isfinite(rep.hi[t, i]))
                        else f"{num(rep.lo[t, i])} .. {num(rep.hi[t, i])}")
            table.append((f"{times[t]:.3f}", labels[i], "-" if not np.isfinite(cov) else f"{100 * cov:.0f}",
                          num(perf[t, i]), num(rep.estimate[t, i]), interval))
    tot_p, tot_e = np.nansum(perf, axis=0), np.nansum(rep.estimate, axis=0)
    for i in show:
        if rep.rate is not None and rep.rate[i]:  # a sum of rates means nothing
            table.append(("total", labels[i], "", "-", "-", "a rate"))
            continue
        table.append(("total", labels[i], "", num(tot_p[i]), num(tot_e[i]), ""))
    widths = [max(len(r[c]) for r in table) for c in range(len(head))]
    for r in table:
        print("  ".join(c.ljust(w) if j in (0, 1) else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))).rstrip())
    if rep.verdicts is not None:
        print(f"\nbottleneck per interval (top-down level 1 of {catalog.name}; probability over the intervals above):")
        for t, v in enumerate(rep.verdicts):
            said = ", ".join(n if p is None else f"{n} {p:.2f}" for n, p in v[:3]) or \
                "none (a level-1 share is undefined)"
            perf_said = (rep.perf_verdicts or [None] * len(rep.verdicts))[t]
            print(f"  {times[t]:.3f}  {said}" + (f"   (perf's values: {perf_said})" if perf_said else ""))
    return 0
