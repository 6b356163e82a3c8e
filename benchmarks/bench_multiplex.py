"""Time `mpx.multiplex.multiplex` on a synthetic trace: schedule computation and replay separately.

Run: ``python benchmarks/bench_multiplex.py [--quanta 5000] [--events 50] [--counters 4] [--repeat 7]``.
Prints one line per case: best-of-``repeat`` wall-clock (this machine) of a whole ``multiplex`` call with
a static schedule already computed (the replay: slicing, apportioning, masks, read view), of the schedule
computation itself, and of an online scheduler deciding quantum by quantum. Target: the replay of 5,000
quanta x 50 events in well under 0.1 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mpx.multiplex import Noise, multiplex
from mpx.problem import Problem
from mpx.schedulers.base import OnlineScheduler, Schedule, StaticScheduler
from mpx.schedulers.perf import PerfScheduler
from mpx.schedulers.round_robin import RoundRobinScheduler
from mpx.trace import Trace


class Precomputed(StaticScheduler):
    """Returns a schedule computed beforehand (isolates the replay from the scheduling)."""

    name = "precomputed"

    def __init__(self, given: Schedule | None = None):
        self.given = given

    def _schedule(self, problem):
        return self.given


class LeastSeen(OnlineScheduler):
    """Online: each quantum, the k events observed least so far."""

    name = "least_seen"

    def __init__(self, k: int = 4):
        self.k = k

    def _start(self, problem):
        self.seen = np.zeros(problem.n_events)

    def _decide(self, observed):
        if observed.n_quanta:
            self.seen += observed.running[-1]
        row = np.zeros(observed.problem.n_events, dtype=bool)
        row[np.argsort(self.seen, kind="stable")[: self.k]] = True
        return row[None, :]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quanta", type=int, default=5000)
    ap.add_argument("--events", type=int, default=50)
    ap.add_argument("--counters", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    n_t, n_e = a.quanta, a.events
    trace = Trace([f"ev{i}" for i in range(n_e)], rng.integers(0, 10**6, (n_t, n_e)).astype(float),
                  np.arange(n_t + 1) * 4.0, "ms", meta={"workload": "bench", "synthetic": True})
    problem = Problem(trace.events, f"generic-{a.counters}")
    print(f"trace {n_t} intervals x {n_e} events, generic-{a.counters}, best of {a.repeat}")

    for name, sched in (("perf", PerfScheduler()), ("round_robin", RoundRobinScheduler())):
        t_sched = best(lambda: sched.schedule(problem), a.repeat)
        pre = Precomputed(sched.schedule(problem))
        t_aligned = best(lambda: multiplex(trace, problem, pre, quantum=4.0, read_every=25), a.repeat)
        t_interp = best(lambda: multiplex(trace, problem, pre, quantum=3.7, read_every=25), a.repeat)
        t_noise = best(lambda: multiplex(trace, problem, pre, quantum=4.0, read_every=25,
                                         noise=Noise(0.01, 10.0), seed=1), a.repeat)
        t_total = best(lambda: multiplex(trace, problem, name, quantum=4.0, read_every=25), a.repeat)
        print(f"{name:12s} schedule {t_sched * 1e3:7.2f} ms | replay: aligned {t_aligned * 1e3:6.2f} ms, "
              f"apportioned {t_interp * 1e3:6.2f} ms, with noise {t_noise * 1e3:6.2f} ms | "
              f"multiplex by name (schedule + replay) {t_total * 1e3:6.2f} ms")
    t_online = best(lambda: multiplex(trace, problem, LeastSeen(a.counters), quantum=4.0, read_every=25),
                    max(1, a.repeat // 3))
    print(f"online (one decision per quantum, {n_t} decisions): {t_online * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
