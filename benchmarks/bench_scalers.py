"""Throughput of the baseline scalers, in event-windows per second, and of NeoMPX's fixes.

Run: ``python benchmarks/bench_scalers.py [--quanta 200000] [--events 50] [--read-every 4] [--repeat 5]
[--all] [--gem5 ../shared/data/gem5-periodic/compute.stats.txt.xz]``.
Builds one synthetic trace (one interval per quantum, rates with phases and bursts), multiplexes it once
with perf's scheduler on 4 generic counters plus cycles on a fixed counter (not timed), then times
``scaler.estimate(observation)`` best-of-``repeat`` for each baseline scaler (``--all``: every registered
scaler) with its default parameters, and for the read-window scalers with each NeoMPX fix turned on.
Prints event-windows per second (read windows × events / seconds) and, for information, the scaler's
``window_mape`` on this synthetic run (`mpx.scoring.score.score`). Target: every baseline >= 1,000,000 event-windows per second.

``--gem5 PATH`` also scores every registered scaler on a real gem5 periodic run with the set-up of
``tests/scalers/test_realdata.py`` (10 core and cache events, instructions and cycles on fixed counters,
4 generic counters, one dump interval per quantum, reads every 3 quanta) and prints the summaries.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mpx import scalers
from mpx.scoring.score import score
from mpx.multiplex import multiplex
from mpx.pmu import PMU
from mpx.problem import Problem
from mpx.trace import Trace


BASELINES = ("linear", "papi", "papi_sw", "dira", "tam", "dcam", "cam")


def make_trace(n_q: int, n_e: int, seed: int = 0) -> Trace:
    rng = np.random.default_rng(seed)
    t = np.arange(n_q)
    phase = 1.0 + 0.7 * np.sin(2 * np.pi * t[:, None] / rng.uniform(50, 500, n_e)[None, :])
    burst = np.where(rng.random((n_q, 1)) < 0.02, 3.0, 1.0)
    counts = rng.poisson(rng.uniform(100, 10000, n_e)[None, :] * phase * burst).astype(float)
    names = [f"ev{i}" for i in range(n_e - 1)] + ["cycles"]
    counts[:, -1] = 40000.0
    return Trace(names, counts, np.arange(n_q + 1) * 1000.0, "ns", meta={"workload": "bench", "synthetic": True})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quanta", type=int, default=200_000)
    ap.add_argument("--events", type=int, default=50)
    ap.add_argument("--read-every", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gem5", help="a gem5 periodic stats file to score every scaler on (real data)")
    ap.add_argument("--all", action="store_true", help="time every registered scaler, not only the baselines")
    args = ap.parse_args()
    if args.gem5:
        real(args.gem5)

    tr = make_trace(args.quanta, args.events)
    pmu = PMU.from_dict({"name": "bench", "units": {"cpu": {"generic": 4, "fixed": {"fixed0": ["cycles"]}}}})
    obs = multiplex(tr, Problem(tr.events, pmu), "perf", quantum=1000.0, read_every=args.read_every)
    w, e = obs.reads.raw.shape
    print(f"observation: {obs.n_quanta} quanta, {w} read windows x {e} events = {w * e:,} event-windows; "
          f"{float(obs.quanta.running[:, :-1].mean()):.0%} of multiplexed event-quanta counted")

    names = scalers.available() if args.all else list(BASELINES)
    cases: list[tuple[str, dict]] = [(n, {}) for n in names]
    for n in ("linear", "dira"):
        for fix in ("te_fix", "outlier_fix", "missing_fix"):
            cases.append((n, {fix: True}))
    cases.append(("linear", {"fill": "interpolate"}))
    cases.append(("papi_sw", {"attribution": "spread"}))
    for name, params in cases:
        s = scalers.get(name, **params)
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            est = s.estimate(obs)
            best = min(best, time.perf_counter() - t0)
        mape = score(est, tr).summary["window_mape"]
        label = name + ("" if not params else "(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")")
        print(f"{label:32s} {best * 1e3:9.1f} ms  {w * e / best:14,.0f} event-windows/s  "
              f"window_mape {mape if mape is None else round(mape, 4)}")


CORE = "board.processor.cores.core."
L1D = "board.cache_hierarchy.l1d-cache-0."
GEM5_EVENTS = {  # the events of tests/scalers/test_realdata.py
    "cycles": CORE + "numCycles",
    "insts": CORE + "commitStats0.numInsts",
    "l1d_miss": L1D + "overallMisses::total",
    "l1d_acc": L1D + "overallAccesses::total",
    "l2_miss": "board.cache_hierarchy.l2-cache-0.overallMisses::total",
    "br": CORE + "executeStats0.numBranches",
    "br_miss": CORE + "branchPred.condIncorrect",
    "loads": CORE + "commitStats0.numLoadInsts",
    "stores": CORE + "commitStats0.numStoreInsts",
    "lookups": CORE + "branchPred.lookups_0::total",
}


def real(path: str) -> None:
    import re

    from mpx.metrics import Catalog, Metric
    from mpx.readers import read_trace

    ev = GEM5_EVENTS
    tr = read_trace(path)
    pmu = PMU.from_dict({"name": "g4f2", "units": {"cpu": {"generic": 4, "fixed": {
        "fixed0": [ev["insts"]], "fixed1": [ev["cycles"]]}}}})
    obs = multiplex(tr, Problem(list(ev.values()), pmu), "perf", quantum=float(np.diff(tr.edges)[0]), read_every=3)
    q = {k: re.sub(r"([^0-9A-Za-z_.:?])", r"\\\1", v) for k, v in ev.items()}  # perf-lexer escapes
    cat = Catalog([
        Metric.from_expr("ipc", f"{q['insts']} / {q['cycles']}"),
        Metric.from_expr("l1d_miss_ratio", f"{q['l1d_miss']} / {q['l1d_acc']}"),
        Metric.from_expr("branch_miss_ratio", f"{q['br_miss']} / {q['br']}"),
    ])
    print(f"real run {path}: {obs.reads.raw.shape[0]} read windows x {len(obs.events)} events, "
          f"{float((obs.reads.running == 0).mean()):.0%} event-windows not counted")
    keys = ("window_mape", "window_mape_ran", "flagged_mape", "total_error", "metric_mape")
    print(f"{'scaler':18s} " + " ".join(f"{k:>15s}" for k in keys))
    for name in scalers.available():
        # 5 µs dump intervals hold ~15,000 cycles, under PAPI's 25,000-cycle minimum slice
        s = scalers.get(name, **({"min_cycles": 0} if name == "papi_sw" else {}))
        sm = score(s.estimate(obs), tr, cat).summary
        print(f"{name:18s} " + " ".join(f"{'n/a' if sm[k] is None else f'{sm[k]:.4f}':>15s}" for k in keys))
    print()


if __name__ == "__main__":
    main()
