"""Score multiplexing on full-simulator ground truth: a shipped gem5 dataset, a realistic PMU, three scalers.

``gem5-phases`` alternates compute and memory phases (``datasets/gem5/README.md``); every one of its ~1,500
stats is known in every 5 µs dump. The PMU preset ``gem5-o3-g4`` has 4 generic counters plus fixed
counters for instructions and cycles; the ``gem5`` catalog says which stats are events (46: the stats its
metrics and relations use, as experiments/gem5_quickstart.toml and ``mpx evaluate`` take them) and which
metrics combine them. perf's rotation every 4 ms would be longer than the run, so the quantum is one dump
(5 µs) and a read every 10 quanta — say so in a thesis, as `mpx evaluate` prints it.

Run: ``python examples/score_gem5.py [DATASET]`` (any name of ``mpx datasets list``).
"""

from __future__ import annotations

import sys

from mpx import scalers

from mpx.datasets import shipped as datasets
from mpx.scoring.score import score
from mpx.metrics import resolve_catalog
from mpx.multiplex import multiplex
from mpx.problem import Problem


def main(name: str = "gem5-phases") -> dict[str, float]:
    trace = datasets.load(name)
    catalog = resolve_catalog("gem5")
    problem = Problem.from_catalog(catalog, "gem5-o3-g4")
    quantum = float(trace.edges[1] - trace.edges[0])  # one dump
    obs = multiplex(trace, problem, "perf", quantum=quantum, read_every=10)
    print(f"{name}: {len(problem.events)} events of the gem5 catalog on {problem.pmu.name}, "
          f"{obs.reads.n_reads} read windows")
    out = {}
    for s in ("linear", "dcam", "bayesperf"):
        sc = score(scalers.get(s).estimate(obs), trace, catalog)
        out[s] = sc.summary["wape_all"]
        print(f"  {s:10} WAPE (all windows) {sc.summary['wape_all']:6.1%}   metric WAPE "
              f"{sc.summary['metric_wape_all']:6.1%}   coverage {sc.summary['coverage_all']:6.1%}")
    return out


if __name__ == "__main__":
    main(*sys.argv[1:2])
