"""The fusion scaler against every baseline scaler: leave-one-workload-out, causal and offline, 2-8 counters.

Protocol (issue 7): each shipped dataset (`mpx.datasets.shipped`, 9 callgrind workloads, 18 events) is scored
with the learned scalers fitted on the *other eight* only; traces given with ``--heldout`` (recorded
with ``mpx record`` from programs in no shipped dataset, never used while developing the method) are
scored with the learned scalers fitted on all nine. Every event is multiplexed by perf's round robin on
``generic-K`` (K = ``--counters``), one quantum = one median trace interval, a read every
``--read-every`` quanta.

Errors (relative, per event and read window, only where the truth is meaningful — `mpx.scoring.score.score`'s
floor):

- ``ran``: windows where the event ran (the windows where every scaler has a value — linear/PAPI leave
  the others empty): mean over windows, then over events;
- ``all``: every window; scalers that leave a window empty (perf's ``<not counted>``) are marked with
  their missing share and averaged over the windows they fill — read it only beside ``miss``;
- ``metric``: the callgrind catalog's metrics (miss ratios, MPKI, CPI estimate) per window, on the
  windows and metrics where *every* scaler gave a value;
- ``cal90``: share of truths inside est ± 1.645 std (scalers with a std).

Each number is the mean over workloads with a 95% bootstrap interval over workloads (``--boot``
resamples); ``ratio`` is fusion's error over the best baseline's (causal: best causal baseline; offline:
best of all baselines), bootstrapped paired by workload. ``--cost`` times the fusion estimate (fit
excluded, warm numba cache) on one dataset.

Run: ``python experiments/analyses/fusion.py [--counters 2,4,6,8] [--read-every 10]
[--heldout datasets/heldout/traces/*.npz] [--json results/analyses/fusion.json] [--cost] [--ablation] [--noise-share 0.5,0.9] [--scheduler NAME[:param=value...][,NAME...]] [--gem5 ../shared/data/gem5-periodic]`` (a few minutes on one
core per scheduler). With several schedulers a last table crosses every scheduler with every scaler on the
``all`` error and gives each fusion pair's ratio to the best baseline pair; ``--counters ""`` with
``--cost`` only times the estimate.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mpx import scalers  # noqa: E402

from mpx.datasets import shipped as datasets
from mpx.errors import ConfigError  # noqa: E402
from mpx.scoring.score import score  # noqa: E402
from mpx.scoring.measures import HEADLINE_COLUMN  # noqa: E402
from mpx.metrics import builtin  # noqa: E402
from mpx.multiplex import multiplex  # noqa: E402
from mpx.problem import Problem  # noqa: E402

FUSION = ("fusion", "fusion_smooth")


def cases(ablation: bool = False, noise_shares: tuple[float, ...] = ()) -> list[tuple[str, str, dict]]:
    """(label, registry name, parameters): every registered scaler with its defaults, BayesPerf and
    fusion also with the callgrind catalog's relations; ``ablation``: fusion without the learned
    cross-event covariances (``cross=False``); ``noise_shares``: fusion with other ``noise_share`` values."""
    out = []
    for name in scalers.available():
        if name == "papi_sw":
            out.append(("papi_sw (time axis)", name, {"cycles_event": "time", "min_cycles": 0}))
            continue
        out.append((name, name, {}))
        if name.startswith("bayesperf") or name in FUSION:
            out.append((f"{name}+rel", name, {"relations": "callgrind"}))
        if ablation and name in FUSION:
            out.append((f"{name} (cross=False)", name, {"cross": False}))
        if name in FUSION:
            out += [(f"{name} (noise_share={v:g})", name, {"noise_share": v}) for v in noise_shares]
    return out


def load_trace(p: str):
    from mpx.readers import read_trace

    return read_trace(p)


def per_workload(tr, obs, ests: dict, cat) -> dict[str, dict]:
    """Errors of every scaler's estimate on one workload (module docstring)."""
    ran = np.asarray(obs.reads.running) > 0
    ev_index = {e: j for j, e in enumerate(obs.events)}
    res, metric_rows = {}, {}
    for label, est in ests.items():
        sc = score(est, tr, cat)
        rows = sc.rows
        rows = rows[rows["meaningful"]]
        w = rows["window"].to_numpy()
        j = rows["event"].map(ev_index).to_numpy()
        r_ran = ran[w, j]
        rel = rows["rel_error"].to_numpy(dtype=float)
        has = np.isfinite(rel)
        df = rows.assign(ran=r_ran, has=has)
        e_ran = df[df.ran & df.has].groupby("event")["rel_error"].mean()
        e_all = df[df.has].groupby("event")["rel_error"].mean()
        res[label] = {"ran": float(e_ran.mean()), "all": float(e_all.mean()),
                      "headline": float(sc.summary.get(HEADLINE_COLUMN, float("nan"))),
                      "miss": float((~has).mean()), "cal90": sc.summary.get("calibration_90"),
                      "per_event_ran": e_ran.to_dict()}
        mr = sc.metric_rows
        metric_rows[label] = mr[mr["meaningful"]].set_index(["metric", "window"])["rel_error"]
    common = None
    for s in metric_rows.values():
        ok = s[np.isfinite(s.to_numpy(dtype=float))].index
        common = ok if common is None else common.intersection(ok)
    for label, s in metric_rows.items():
        m = s.loc[common].groupby(level=0).mean()
        res[label]["metric"] = float(m.mean()) if len(m) else float("nan")
        res[label]["per_metric"] = m.to_dict()
    return res


GEM5_CORE = "board.processor.cores.core."
GEM5_EVENTS = [GEM5_CORE + "numCycles", GEM5_CORE + "commitStats0.numInsts",
               "board.cache_hierarchy.l1d-cache-0.overallMisses::total",
               "board.cache_hierarchy.l1d-cache-0.overallAccesses::total",
               "board.cache_hierarchy.l2-cache-0.overallMisses::total", GEM5_CORE + "executeStats0.numBranches",
               GEM5_CORE + "branchPred.condIncorrect", GEM5_CORE + "commitStats0.numLoadInsts",
               GEM5_CORE + "commitStats0.numStoreInsts", GEM5_CORE + "branchPred.lookups_0::total"]


def gem5_check(folder: str) -> None:
    """Leave-one-run-out over the gem5 periodic runs in ``folder`` (``*.stats.txt.xz``): the 10 events of
    ``tests/scalers/test_realdata.py``, instructions and cycles on fixed counters, 4 generic ones, perf's
    rotation, a read every 3 quanta; window error where the event ran and 90% coverage."""
    from mpx.pmu import PMU
    from mpx.readers import read_trace

    runs = {Path(p).name.split(".")[0]: read_trace(p) for p in sorted(Path(folder).glob("*.stats.txt.xz"))}
    pmu = PMU.from_dict({"name": "g4f2", "units": {"cpu": {"generic": 4, "fixed": {
        "fixed0": [GEM5_EVENTS[1]], "fixed1": [GEM5_EVENTS[0]]}}}})
    print(f"\n### gem5 periodic runs ({', '.join(runs)}), leave-one-run-out, 4 generic + 2 fixed counters\n")
    print("| run | linear | fusion | fusion_smooth | cal90 fusion / smooth |")
    print("|---|---|---|---|---|")
    for name, tr in runs.items():
        obs = multiplex(tr, Problem(GEM5_EVENTS, pmu), "perf", quantum=float(np.diff(tr.edges)[0]), read_every=3)
        train = [t for n, t in runs.items() if n != name]
        res = {}
        for s in (scalers.get("linear"), scalers.get("fusion").fit(train), scalers.get("fusion_smooth").fit(train)):
            res[s.name] = score(s.estimate(obs), tr).summary
        print(f"| {name} | {pct(res['linear']['window_mape_ran'])} | {pct(res['fusion']['window_mape_ran'])} | "
              f"{pct(res['fusion_smooth']['window_mape_ran'])} | {pct(res['fusion']['calibration_90'])} / "
              f"{pct(res['fusion_smooth']['calibration_90'])} |")


def boot(values: np.ndarray, n: int, rng) -> tuple[float, float, float]:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return (float("nan"),) * 3
    idx = rng.integers(0, v.size, (n, v.size))
    means = v[idx].mean(axis=1)
    return float(v.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def ratio_boot(a: np.ndarray, b: np.ndarray, n: int, rng) -> tuple[float, float, float]:
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    idx = rng.integers(0, a.size, (n, a.size))
    r = a[idx].mean(axis=1) / b[idx].mean(axis=1)
    return float(a.mean() / b.mean()), float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5))


def pct(x) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.1f}%"


def ci(t) -> str:
    m, lo, hi = t
    return "n/a" if not np.isfinite(m) else f"{100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def widen(tr, n: int):
    """The trace with ``n`` events: the extra ones are earlier events shifted in time by 37·j intervals
    (a cost test at the issue's 20 events with realistic counts)."""
    from mpx.trace import Trace

    c = np.asarray(tr.counts, dtype=float)
    extra = [np.roll(c[:, j % c.shape[1]], 37 * (j + 1)) for j in range(n - c.shape[1])]
    names = list(tr.events) + [f"shift{j}_{tr.events[j % c.shape[1]]}" for j in range(n - c.shape[1])]
    return Trace(names, np.column_stack([c] + extra), tr.edges, tr.time_unit, meta=dict(tr.meta))


def make_scheduler(spec: str, read_every: int):
    """A scheduler from ``name[:param=value...]`` (e.g. ``fusion_aware:shares=groups``); ``fusion_aware``
    decides one read window at a time (``window`` = ``--read-every``)."""
    from mpx import schedulers

    name, *pairs = spec.split(":")
    params = {}
    for kv in pairs:
        k, _, v = kv.partition("=")
        params[k] = json.loads(v) if v[:1] in "0123456789-[{tfn" else v
    if name == "fusion_aware":
        params.setdefault("window", read_every)
    return schedulers.get(name, **params)


def bench_problem(events: list[str], k: int, cat) -> Problem:
    """``generic-K`` with the catalog's metrics on these events (the hypergraph groupings use them)."""
    full = Problem.from_catalog(cat, f"generic-{k}")
    ks = set(events)
    return Problem(events, f"generic-{k}", metrics=tuple(m for m in full.metrics if set(m.events) <= ks))


def run_scheduler(sched, k, args, shipped, test, held, runs, cat, causal) -> dict[str, dict]:
    """Every scaler on every workload multiplexed by ``sched`` at ``k`` counters."""
    results: dict[str, dict] = {}
    for group, names in (("shipped", test), ("heldout", list(held))):
        for wl in names:
            tr = shipped[wl] if group == "shipped" else held[wl]
            events = [e for e in tr.events if e in shipped[next(iter(shipped))].events]
            train = [t for n, t in shipped.items() if n != wl]
            quantum = args.quantum_intervals * float(np.median(np.diff(tr.edges)))
            obs = multiplex(tr, bench_problem(events, k, cat), make_scheduler(sched, args.read_every),
                            quantum=quantum, read_every=args.read_every)
            ests = {}
            for label, name, params in runs:
                s = scalers.get(name, **params)
                if s.learned:
                    s.fit(train)
                ests[label] = s.estimate(obs)
                causal[label] = bool(ests[label].causal)
            results[f"{group}:{wl}"] = per_workload(tr, obs, ests, cat)
            print(f"  k={k} {sched} {group}:{wl}: {obs.reads.n_reads} windows", flush=True)
    return results


def print_tables(results, runs, causal, k, sched, args, rng) -> None:
    """Per-scaler table and fusion's ratios to the best baseline, under one scheduler."""
    for group in ("shipped", "heldout"):
        keys = [w for w in results if w.startswith(group + ":")]
        if not keys:
            continue
        print(f"\n### {group} workloads ({len(keys)}), {k} counters, scheduler {sched}, read every "
              f"{args.read_every} quanta\n")
        print("| scaler | causal | ran | all (miss) | metric | cal90 |")
        print("|---|---|---|---|---|---|")
        table = {}
        for label, _, _ in runs:
            col = {m: np.array([results[w][label][m] for w in keys], dtype=float) for m in ("ran", "all", "metric")}
            miss = np.mean([results[w][label]["miss"] for w in keys])
            cal = [results[w][label]["cal90"] for w in keys if results[w][label]["cal90"] is not None]
            table[label] = col
            print(f"| {label} | {'yes' if causal[label] else 'no'} | {ci(boot(col['ran'], args.boot, rng))} | "
                  f"{ci(boot(col['all'], args.boot, rng))} ({pct(miss)}) | {ci(boot(col['metric'], args.boot, rng))}"
                  f" | {pct(np.mean(cal)) if cal else '-'} |")
        base = [lb for lb, n, _ in runs if n not in FUSION]
        for fus, pool in (("fusion", [b for b in base if causal[b]]), ("fusion_smooth", base),
                          ("fusion+rel", [b for b in base if causal[b]]), ("fusion_smooth+rel", base)):
            if fus not in table:
                continue
            for m in ("ran", "metric"):
                best = min(pool, key=lambda b: np.nanmean(table[b][m]))
                r = ratio_boot(table[fus][m], table[best][m], args.boot, rng)
                print(f"- {fus} / best {'causal ' if causal[fus] else ''}baseline ({best}) on `{m}`: "
                      f"{r[0]:.2f} [{r[1]:.2f}, {r[2]:.2f}]")


def cross_table(by_sched: dict, runs, causal, k, args, rng) -> None:
    """Every (scheduler, scaler) pair on the ``all`` error (every window; pairs that leave windows
    empty are excluded from the bar) and ``ran``; each fusion pair's ratio to the best baseline pair."""
    base = [lb for lb, n, _ in runs if n not in FUSION]
    for group in ("shipped", "heldout"):
        first = next(iter(by_sched.values()))
        keys = [w for w in first if w.startswith(group + ":")]
        if not keys:
            continue
        col = {(s, lb): np.array([by_sched[s][w][lb]["all"] for w in keys]) for s in by_sched for lb, _, _ in runs}
        ran = {(s, lb): np.array([by_sched[s][w][lb]["ran"] for w in keys]) for s in by_sched for lb, _, _ in runs}
        miss = {(s, lb): float(np.mean([by_sched[s][w][lb]["miss"] for w in keys])) for s in by_sched for lb, _, _ in runs}
        print(f"\n### every scheduler x scaler, {group} ({len(keys)}), {k} counters: mean `all` error "
              f"(`ran` in brackets; [miss x%] = share of windows left empty)\n")
        print("| scaler | " + " | ".join(by_sched) + " |")
        print("|---|" + "---|" * len(by_sched))
        for lb, _, _ in runs:
            cells = [f"{pct(np.nanmean(col[s, lb]))} ({pct(np.nanmean(ran[s, lb]))})"
                     + (f" [miss {pct(miss[s, lb])}]" if miss[s, lb] > 0.005 else "")
                     for s in by_sched]
            print(f"| {lb} | " + " | ".join(cells) + " |")
        for s_f in by_sched:
            for fus in ("fusion", "fusion_smooth"):
                if (s_f, fus) not in col:
                    continue
                pool = [(s, b) for s in by_sched for b in base if miss[s, b] <= 0.005 and (causal[b] or not causal[fus])]
                best = min(pool, key=lambda p: np.nanmean(col[p]))
                r = ratio_boot(col[s_f, fus], col[best], args.boot, rng)
                note = (f" (scored on fewer event-windows: {pct(miss[s_f, fus])} left empty)"
                        if miss[s_f, fus] > 0.005 else "")
                print(f"- {s_f} + {fus} / best {'causal ' if causal[fus] else ''}baseline pair {best[0]} + {best[1]} "
                      f"on `all`: {r[0]:.2f} [{r[1]:.2f}, {r[2]:.2f}]{note}")


def _best_time(fn, repeat: int = 3, number: int = 5) -> float:
    """Best of ``repeat`` CPU timings of ``number`` calls (seconds per call; a shared machine)."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t0) / number)
    return best


def cost(shipped: dict, name: str, args) -> dict[str, float]:
    """Read windows per second of the fusion estimates (fit excluded, warm numba cache), with and without
    the callgrind relations, on dataset ``name`` (18 events) and on it widened to 20 events; and the
    smoother kernels alone on the same model: Bryson–Frazier (the estimate's path) against RTS."""
    from mpx.scalers.inference.kalman import rts_smoother

    out: dict[str, float] = {}
    for n_ev in (None, 20):
        tr = shipped[name] if n_ev is None else widen(shipped[name], n_ev)
        train = [t if n_ev is None else widen(t, n_ev) for n, t in shipped.items() if n != name]
        quantum = args.quantum_intervals * float(np.median(np.diff(tr.edges)))
        obs = multiplex(tr, Problem(tr.events, "generic-4"), "perf", quantum=quantum, read_every=args.read_every)
        n_e, n_r = len(tr.events), obs.reads.n_reads
        for fus in FUSION:
            for label, params in ((fus, {}), (f"{fus}+rel", {"relations": "callgrind"})):
                s = scalers.get(fus, **params).fit(train)
                s.estimate(obs)  # compile, learn the statistics at this time scale
                out[f"{label}/{n_e}"] = n_r / _best_time(lambda: s.estimate(obs))
                print(f"- cost {label}: {out[f'{label}/{n_e}']:,.0f} read windows/s ({n_e} events, {args.read_every} "
                      "quanta per window, CPU time, best of 3)")
            md = s.model_
            kw = dict(R=np.broadcast_to(md["R"], md["y"].shape), m0=md["mu"], P0=md["P0"], Q=md["Q"],
                      segment_ends=md["segment_ends"])
            for path, ckw in (("B-F", {"cov": False}), ("B-F+cov", {"cov": True}), ("RTS+cov", {"method": "rts"})):
                out[f"{fus}/{n_e}/smoother/{path}"] = n_r / _best_time(lambda: rts_smoother(md["y"], **kw, **ckw))
            print(f"  smoother alone ({fus}, {n_e} events), read windows/s: " + ", ".join(
                f"{p} {out[f'{fus}/{n_e}/smoother/{p}']:,.0f}" for p in ("B-F", "B-F+cov", "RTS+cov")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--counters", default="2,4,6,8")
    ap.add_argument("--read-every", type=int, default=10)
    ap.add_argument("--quantum-intervals", type=float, default=1.0)
    ap.add_argument("--datasets", help="comma-separated subset of the shipped datasets (default all)")
    ap.add_argument("--heldout", nargs="*", default=[], help="recorded traces scored as held-out workloads")
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--cost", action="store_true", help="time the fusion estimate")
    ap.add_argument("--ablation", action="store_true", help="also fusion without cross-event covariances")
    ap.add_argument("--scheduler", default="perf", help="scheduler registry name(s), comma-separated (default perf)")
    ap.add_argument("--noise-share", default="", help="comma list: fusion also with these noise_share values")
    ap.add_argument("--gem5", metavar="DIR", help="also leave-one-run-out over the gem5 periodic runs in DIR")
    ap.add_argument("--json", help="write every number here")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    cat = builtin("callgrind")
    shipped = {n: datasets.load(n) for n in datasets.names()}
    test = args.datasets.split(",") if args.datasets else list(shipped)
    held = {Path(p).stem: load_trace(p) for p in args.heldout}
    runs = cases(args.ablation, tuple(float(x) for x in args.noise_share.split(",") if x))
    causal: dict[str, bool] = {}
    out: dict = {"setup": vars(args), "results": {}}
    scheds = [x for x in args.scheduler.split(",") if x]
    for k in (int(x) for x in args.counters.split(",") if x):  # --counters "" : cost only
        out["results"][k] = {}
        for sched in scheds:
            try:
                make_scheduler(sched, args.read_every)
            except ConfigError as exc:
                print(f"- scheduler {sched} skipped: {exc}")
                continue
            results = out["results"][k][sched] = run_scheduler(sched, k, args, shipped, test, held, runs, cat, causal)
            print_tables(results, runs, causal, k, sched, args, rng)
        if len(scheds) > 1:
            cross_table(out["results"][k], runs, causal, k, args, rng)
    if args.gem5:
        gem5_check(args.gem5)
    if args.cost:
        out["cost"] = cost(shipped, test[0], args)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
