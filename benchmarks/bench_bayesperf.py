"""Throughput and accuracy of the BayesPerf scaler (`mpx.scalers.bayesperf`).

Throughput: read windows estimated per second of CPU time, on one core (BLAS limited to one thread),
for the 20 events of the synthetic ``tma`` preset multiplexed by perf's round robin on 4 generic
counters; the paper needed an FPGA to keep its overhead under 2% (Banerjee et al., ASPLOS 2021).
Multiplexing itself is not timed, only ``scaler.estimate``.

Accuracy: per read window, relative error of the estimated count against the truth (windows whose true
count is below ``--floor`` counts are left out), for linear scaling (perf's) and BayesPerf without
relations, with the trace's exact identities (filter and smoother; and the filter with the homoscedastic variance pool,
``pool="variance"``, and with the within-window drift term, ``drift=True``). Synthetic data: the identities are
the generator's (``mpx.datasets.synthetic.identities``), prior knowledge like vendor formulas, not the counts.

Run: ``python benchmarks/bench_bayesperf.py`` (``--help`` for sizes).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from mpx.datasets import synthetic  # noqa: E402
from mpx.multiplex import multiplex  # noqa: E402
from mpx.problem import Problem  # noqa: E402
from mpx.scalers.bayesperf import BayesPerfScaler, BayesPerfSmoother  # noqa: E402
from mpx.scalers.linear import LinearScaler  # noqa: E402


def observe(intervals: int, read_every: int, seed: int):
    tr = synthetic.synth("tma", intervals=intervals, seed=seed)
    quantum = float(tr.edges[1] - tr.edges[0])  # one trace interval (10,000 cycles) per quantum
    obs = multiplex(tr, Problem(tr.events, "generic-4"), "perf", quantum=quantum, read_every=read_every)
    truth = np.add.reduceat(tr.counts, obs.reads.quanta[:-1], axis=0)
    return tr, obs, truth


def rel_errors(counts: np.ndarray, truth: np.ndarray, floor: float) -> tuple[np.ndarray, float, int]:
    ok = (truth >= floor) & np.isfinite(counts)
    rel = np.abs(counts - truth) / np.where(ok, truth, 1.0)
    per_event = np.array([rel[ok[:, j], j].mean() if ok[:, j].any() else np.nan for j in range(truth.shape[1])])
    return per_event, float(rel[ok].mean()), int((~np.isfinite(counts) & (truth >= floor)).sum())


def throughput(args) -> None:
    tr, obs, _ = observe(args.windows * args.read_every, args.read_every, args.seed)
    ids = synthetic.identities(synthetic.preset("tma"))
    print(f"throughput: {obs.reads.n_reads} read windows of {args.read_every} quanta, {len(tr.events)} events, "
          f"perf round robin on 4 generic counters")
    for label, scaler in (("bayesperf (filter, k=4)", BayesPerfScaler(relations=ids)),
                          ("bayesperf_smooth (k=4)", BayesPerfSmoother(relations=ids)),
                          ("bayesperf, no relations", BayesPerfScaler())):
        scaler.estimate(obs)  # warm-up (imports, caches)
        best = np.inf
        for _ in range(args.repeat):
            t0 = time.process_time()
            scaler.estimate(obs)
            best = min(best, time.process_time() - t0)
        print(f"  {label:28s} {best:7.3f} s CPU  {obs.reads.n_reads / best:10.0f} windows/s  "
              f"EP iterations {[c['iterations'] for c in scaler.components_]}")


def accuracy(args) -> None:
    tr, obs, truth = observe(args.intervals, args.read_every, args.seed)
    ids = synthetic.identities(synthetic.preset("tma"))
    print(f"\naccuracy: {obs.reads.n_reads} read windows of {args.read_every} quanta, mean relative error per "
          f"window (truth >= {args.floor:g} counts)")
    runs = {
        "linear": LinearScaler(),
        "bp none": BayesPerfScaler(),
        "bp filter": BayesPerfScaler(relations=ids),
        "bp smooth": BayesPerfSmoother(relations=ids),
        "var-pool": BayesPerfScaler(relations=ids, pool="variance"),  # the paper's homoscedastic pool
        "drift": BayesPerfScaler(relations=ids, drift=True),
    }
    res = {k: rel_errors(s.estimate(obs).counts, truth, args.floor) for k, s in runs.items()}
    print("  " + "event".ljust(24) + "".join(k.rjust(11) for k in res))
    for j, e in enumerate(tr.events):
        print("  " + e.ljust(24) + "".join(f"{100 * res[k][0][j]:10.2f}%" for k in res))
    print("  " + "all windows".ljust(24) + "".join(f"{100 * res[k][1]:10.2f}%" for k in res))
    print("  " + "not estimated".ljust(24) + "".join(f"{res[k][2]:11d}" for k in res))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--windows", type=int, default=20_000, help="read windows for the throughput run")
    ap.add_argument("--intervals", type=int, default=40_000, help="trace intervals (= quanta) for the accuracy run")
    ap.add_argument("--read-every", type=int, default=25, help="quanta per read window (perf stat -I 100 at 4 ms)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--floor", type=float, default=50.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-throughput", action="store_true")
    args = ap.parse_args()
    if not args.skip_throughput:
        throughput(args)
    accuracy(args)


if __name__ == "__main__":
    main()
