"""Throughput of the stats framework, the mpx-stats dumper and the JSON-lines reader, and of the
synthetic generator.

Run: ``python benchmarks/bench_stats_jsonl.py [--intervals 2000] [--scalars 1000]``. Prints one line per
measurement (wall-clock, this machine). The stats shape mimics a gem5-sized dump: many scalars, a few
vectors and distributions, a few formulas.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

from mpx.readers import jsonl
from mpx.stats import PeriodicDumper, StatGroup
from mpx.datasets.synthetic import synth


def build(n_scalars: int) -> tuple[StatGroup, list, list, list]:
    root = StatGroup("")
    groups = [root.group(f"g{i}") for i in range(max(1, n_scalars // 100))]
    scalars = [groups[i % len(groups)].scalar(f"s{i}") for i in range(n_scalars)]
    vectors = [groups[i % len(groups)].vector(f"v{i}", labels=[f"l{j}" for j in range(8)]) for i in range(10)]
    dists = [groups[i % len(groups)].distribution(f"d{i}", edges=[0, 1, 2, 4, 8, 16, 32, 64, 128]) for i in range(10)]
    for i in range(5):
        a, b = scalars[2 * i], scalars[2 * i + 1]
        groups[0].formula(f"f{i}", "", lambda a=a, b=b: a.value / b.value)
    return root, scalars, vectors, dists


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--intervals", type=int, default=2000)
    ap.add_argument("--scalars", type=int, default=1000)
    args = ap.parse_args()
    rng = random.Random(0)
    root, scalars, vectors, dists = build(args.scalars)

    t0 = time.perf_counter()
    n_inc = 1_000_000
    s = scalars[0]
    for _ in range(n_inc):
        s.inc()
    dt = time.perf_counter() - t0
    print(f"Scalar.inc: {n_inc / dt / 1e6:.1f} M calls/s")
    t0 = time.perf_counter()
    d = dists[0]
    for i in range(n_inc // 10):
        d.sample(i % 100)
    dt = time.perf_counter() - t0
    print(f"Distribution.sample: {n_inc / 10 / dt / 1e6:.2f} M calls/s")
    root.reset()

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.jsonl")
        t_update = t_dump = 0.0
        with PeriodicDumper(root, path, "cycles", period=1000) as dumper:
            for k in range(args.intervals):
                t0 = time.perf_counter()
                for sc in scalars:
                    sc.inc(rng.randrange(1000))
                for v in vectors:
                    v.inc(f"l{rng.randrange(8)}", 3)
                for di in dists:
                    di.sample(rng.random() * 200)
                t1 = time.perf_counter()
                dumper.dump((k + 1) * 1000)
                t2 = time.perf_counter()
                t_update += t1 - t0
                t_dump += t2 - t1
        size = os.path.getsize(path)
        n_values = args.scalars + 10 * 8 + 10 * 8 + 5
        print(f"dump: {args.intervals} intervals x ~{n_values} values: {t_dump:.2f} s "
              f"({args.intervals / t_dump:.0f} records/s), file {size / 1e6:.1f} MB")
        t0 = time.perf_counter()
        trace = jsonl.read(path)
        dt = time.perf_counter() - t0
        print(f"read: {trace!r} in {dt:.2f} s ({args.intervals / dt:.0f} records/s, "
              f"{trace.counts.size / dt / 1e6:.2f} M values/s)")

    for name, n in (("tma", 100_000), ("correlated", 100_000)):
        t0 = time.perf_counter()
        tr = synth(name, intervals=n, seed=1)
        print(f"synth {name}: {tr.n_events} events x {n} intervals in {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
