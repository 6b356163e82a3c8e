"""Coverage of `mpx estimate`'s printed 90 % interval on gem5 ground truth replayed as ``perf stat -I`` files.

Each shipped gem5 trace is multiplexed the way perf does (perf's round robin, ``gem5-o3-g4``: 4 generic counters
plus fixed instructions and cycles, the ``gem5`` catalog's events, one quantum per dump, a read every 8 dumps),
written as the CSV ``perf stat -I -x ';'`` prints (the value scaled and truncated as perf does, running time in
ns, the running percentage in perf's integer arithmetic), read back with `read_perf_stat`, re-estimated with
each scaler as ``mpx estimate`` does, and its interval (`mpx.scalers.trust.trust_report`, the rule of
`mpx.scalers.trust.trusted_interval`) compared with the true count of the window. Printed per scaler: the
share of multiplexed windows (coverage below 100 %) whose true count lies in the interval, over all windows
and over the windows where the event's rate changes by more than 2x from the previous window; the share of
windows with an interval at all (Tintin's rule needs two measured windows); and the share with the rule
off (the scaler's band alone) for comparison. Bounded by counts, not time::

    python experiments/interval_coverage.py [--datasets gem5-phases,gem5-xz] [--scalers linear,dcam]

``--windows 8,12,all`` prints one table per number of measured windows `mpx.scalers.trust.recent_sigma` keeps
(``all``: every window so far, Tintin's own rule; default `mpx.scalers.trust.RECENT_WINDOWS`). ``--tune`` runs the
tuning sets `RECENT_WINDOWS` was chosen on instead of the reported ten (`TUNING_SETS`: the twelve 50 ms
``gem5-long`` programs and the nine callgrind programs, none of them in the reported table). A callgrind trace
has none of the ``gem5`` catalog's events: all 18 of its events are multiplexed on ``generic-4`` (4 generic
counters), and its time axis (instructions) is written as one nanosecond per instruction (coverage depends on
time only through the windows' proportions).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from mpx import datasets, scalers
from mpx.metrics import resolve_catalog
from mpx.multiplex import multiplex
from mpx.observation import Observation
from mpx.pmu import resolve_pmu
from mpx.problem import Problem
from mpx.readers.perfstat import read_perf_stat
from mpx.scalers.trust import RECENT_WINDOWS, recent_sigma, trust_report
from mpx.trace import SECONDS_PER_UNIT

DEFAULT_SETS = ("gem5-xz", "gem5-sqlite", "gem5-openssl", "gem5-stream", "gem5-awk", "gem5-sort", "gem5-compute",
                "gem5-chase", "gem5-branchy", "gem5-phases")
#: where `RECENT_WINDOWS` was chosen: none of `DEFAULT_SETS` (steady 50 ms gem5 runs past their start-up, and
#: whole callgrind runs from their first instruction)
TUNING_SETS = ("gem5-long-phases", "gem5-long-sqlite", "gem5-long-xz", "gem5-long-awk", "gem5-long-stream",
               "gem5-long-compute", "gem5-long-branchy", "gem5-long-openssl", "gem5-long-chase", "gem5-long-sort",
               "gem5-long-grep", "gem5-long-perl", "xz", "bzip2-d", "sort", "python", "cc1", "sqlite", "openssl",
               "kernels", "awk")


def perf_stat_csv(obs: Observation, to_s: float) -> str:
    """The observation's read view as ``perf stat -I -x ';'`` prints it (stat-display.c, perf 6.2+)."""
    r = obs.reads
    lines = []
    for t in range(r.n_reads):
        stamp = r.edges[t + 1] * to_s
        sec = int(stamp)
        ns = int(round((stamp - sec) * 1e9))
        for e, name in enumerate(obs.events):
            run = int(round(r.running[t, e] * to_s * 1e9))
            ena = int(round(r.enabled[t, e] * to_s * 1e9))
            if run == 0:
                lines.append(f"{sec}.{ns:09d};<not counted>;;{name};0;0.00;;")
                continue
            value = int(r.raw[t, e] * ena / run) if run != ena else int(r.raw[t, e])
            pct = 100 if run >= ena else (100 * run) // ena
            lines.append(f"{sec}.{ns:09d};{value};;{name};{run};{pct:.2f};;")
    return "\n".join(lines) + "\n"


def replay(name: str, scaler_names: list[str], pmu: object, catalog: object, read_every: int,
           windows: tuple[int | None, ...] = (None,)) -> dict:
    """{(window, scaler): {"all" | "change": (inside, band alone inside, with interval, windows, band alone below)}}
    for one trace; a window None is every window so far (Tintin's own rule)."""
    trace = datasets.load(name)
    problem = Problem.from_catalog(catalog, pmu)
    events = [e for e in problem.events if e in trace.events]
    if not events:  # a callgrind trace: all of its own events, on 4 generic counters
        events, pmu = list(trace.events), resolve_pmu("generic-4")
    problem = Problem(events, pmu)
    quantum = float(np.median(np.diff(trace.edges)))
    obs = multiplex(trace, problem, "perf", quantum=quantum, read_every=read_every)
    freq = trace.meta.get("sim_freq") or 1e12  # gem5 ticks: 1 ps unless the trace says otherwise
    to_s = SECONDS_PER_UNIT.get(trace.time_unit) or (1e-9 if trace.time_unit == "instructions" else 1.0 / float(freq))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.csv"
        path.write_text(perf_stat_csv(obs, to_s))
        run = read_perf_stat(path)
    truth = trace.rebin(events, obs.reads.edges)
    view = run.read_view()
    real = Observation.from_read_view(view, meta={"workload": name, "scheduler": None})
    rate = truth / np.maximum(np.diff(obs.reads.edges)[:, None], 1e-300)
    prev = np.vstack([rate[:1], rate[:-1]])
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.maximum(rate / prev, prev / rate) > 2.0
    change[0] = False
    mux = run.counted & (run.pct_running < 100)
    out = {}
    for s in scaler_names:
        est = scalers.get(s).estimate(real)
        for win in windows:
            k = view.raw.shape[0] if win is None else win  # as many windows as the run has: all of them
            rep = trust_report(run, est, window=k)
            z = 1.6448536269514722
            has = np.isfinite(rep.lo) & np.isfinite(rep.hi)
            inside = has & (truth >= rep.lo - 0.5) & (truth <= rep.hi + 0.5)
            std = est.std if est.std is not None else recent_sigma(view.raw, view.enabled, view.running, k)
            raw_lo, raw_hi = rep.estimate - z * std, rep.estimate + z * std
            raw_in = has & (truth >= raw_lo - 0.5) & (truth <= raw_hi + 0.5)
            below = has & ((raw_lo < np.nan_to_num(view.raw) - 0.5) | (raw_lo < 0))
            out[win, s] = {c: (int(np.sum(inside & m)), int(np.sum(raw_in & m)), int(np.sum(has & m)),
                               int(np.sum(m)), int(np.sum(below & m)))
                           for c, m in (("all", mux), ("change", mux & change))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=None, help=f"comma-separated (default: {','.join(DEFAULT_SETS)})")
    ap.add_argument("--tune", action="store_true", help="the tuning sets (TUNING_SETS) instead of the reported ten")
    ap.add_argument("--scalers", default="linear,dcam,tam,papi")
    ap.add_argument("--read-every", type=int, default=8)
    ap.add_argument("--windows", default=str(RECENT_WINDOWS),
                    help="measured windows recent_sigma keeps, comma-separated; 'all': Tintin's rule (every window)")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown (docs/verdicts.md's block)")
    ap.add_argument("--summary", action="store_true",
                    help="one row per --windows value: each scaler's coverage over all and >2x-change windows, and "
                         "their mean over the scalers (how RECENT_WINDOWS was chosen: docs/verdicts.md)")
    args = ap.parse_args(argv)
    if args.tune and args.datasets:
        ap.error("--tune and --datasets: give one")
    sets = list(TUNING_SETS) if args.tune else (args.datasets or ",".join(DEFAULT_SETS)).split(",")
    try:
        windows = tuple(None if w.strip() == "all" else int(w) for w in args.windows.split(",") if w.strip())
    except ValueError:
        ap.error(f"--windows {args.windows!r}: give whole numbers (at least 2) or 'all', comma-separated")
    if any(w is not None and w < 2 for w in windows):
        ap.error(f"--windows {args.windows!r}: a spread needs at least 2 measured windows")
    pmu = resolve_pmu("gem5-o3-g4")
    catalog = resolve_catalog("gem5")
    names = [s for s in args.scalers.split(",") if s]
    total: dict = {(w, s): {"all": np.zeros(5, int), "change": np.zeros(5, int)} for w in windows for s in names}
    for d in sets:
        res = replay(d, names, pmu, catalog, args.read_every, windows)
        for key in total:
            for k in ("all", "change"):
                total[key][k] += np.array(res[key][k])
        print(f"{d}: done", file=sys.stderr)

    def pct(a: int, b: int) -> str:
        return "-" if b == 0 else f"{100 * a / b:.1f} %"

    what = "tuning traces" if args.tune else "gem5 traces" if all(d.startswith("gem5") for d in sets) else "traces"
    if args.summary:
        print(f"90 % intervals of mpx estimate on {len(sets)} {what} replayed as perf stat -I: coverage of the "
              f"multiplexed windows, all / those where the rate changes >2x, per number of measured windows kept")
        head = ("windows kept", *names, "mean over scalers")
        rows = [head]
        for win in windows:
            cov = [(100 * total[win, s]["all"][0] / max(total[win, s]["all"][2], 1),
                    100 * total[win, s]["change"][0] / max(total[win, s]["change"][2], 1)) for s in names]
            mean = (float(np.mean([a for a, _ in cov])), float(np.mean([c for _, c in cov])))
            rows.append(("all (Tintin)" if win is None else str(win),
                         *(f"{a:.1f} / {c:.1f} %" for a, c in [*cov, mean])))
        if args.markdown:
            print("| " + " | ".join(head) + " |")
            print("| --- | " + " | ".join("---:" for _ in head[1:]) + " |")
            for r in rows[1:]:
                print("| " + " | ".join(r) + " |")
            return 0
        w = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in rows:
            print("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(r)))
        return 0
    for win in windows:
        kept = "all measured windows so far (Tintin's rule)" if win is None else f"the last {win} measured windows"
        print(f"90 % intervals of mpx estimate on {len(sets)} {what} replayed as perf stat -I (gem5-o3-g4, gem5 "
              f"catalog{'; callgrind: generic-4, all events' if args.tune else ''}, perf round robin, read every "
              f"{args.read_every} dumps; band from {kept}); multiplexed windows")
        head = ("scaler", "windows", "with interval", "coverage", "band alone", "rate change >2x", "coverage",
                "band alone", "band alone: lo < counted or < 0")
        rows = [head]
        for s in names:
            a, c = total[win, s]["all"], total[win, s]["change"]  # the rate-change windows are a subset of all
            rows.append((s, f"{a[3]:,}", pct(a[2], a[3]), pct(a[0], a[2]), pct(a[1], a[2]), f"{c[3]:,}",
                         pct(c[0], c[2]), pct(c[1], c[2]), f"{a[4]:,}"))
        if args.markdown:
            print("| " + " | ".join(head) + " |")
            print("| --- | " + " | ".join("---:" for _ in head[1:]) + " |")
            for r in rows[1:]:
                print("| " + " | ".join(r) + " |")
            continue
        w = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in rows:
            print("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(r)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
