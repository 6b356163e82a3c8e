"""BayesPerf with the gem5 catalog's relations: the prior of relation members no counter measures (issue 28).

Per gem5 dataset (perf's rotation on ``gem5-o3-g4`` with ``--counters`` generic counters, quantum = one dump,
a read every 10 quanta): BayesPerf without relations, with them and the earlier prior of a never-measured
member (``latent="zero"``: a Gaussian centred at 0), and with them and the flat prior on ``x >= 0``
integrated out (``latent="flat"``, the default): the headline measure (``wape_all``, mean over events) and
the WAPE of ``icache.demandMisses``, which the 0-centred latent ``demandHits`` pulled towards
``demandAccesses``.

Run: ``python experiments/analyses/bayesperf_latent.py [--counters 2] [DATASET ...]`` (default: every gem5
dataset; 10-40 s per dataset and variant on a 2-core machine).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from mpx import scalers  # noqa: E402

from mpx.datasets import shipped as datasets
from mpx.scoring.score import score  # noqa: E402
from mpx.metrics import builtin  # noqa: E402
from mpx.multiplex import multiplex  # noqa: E402
from mpx.pmu import preset  # noqa: E402
from mpx.problem import Problem  # noqa: E402

EVENT = "system.cpu.icache.demandMisses::total"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--counters", type=int, default=2)
    ap.add_argument("datasets", nargs="*")
    args = ap.parse_args()
    cat = builtin("gem5")
    for wl in args.datasets or datasets.names("gem5"):
        tr = datasets.load(wl)
        problem = Problem.from_catalog(cat, preset("gem5-o3-g4").with_generic_counters(args.counters))
        obs = multiplex(tr, problem, "perf", quantum=float(np.median(np.diff(tr.edges))), read_every=10)
        out = []
        for label, params in (("no relations", {}), ("latent centred at 0", {"relations": cat, "latent": "zero"}),
                              ("latent flat", {"relations": cat})):
            sc = score(scalers.get("bayesperf", **params).estimate(obs), tr)
            ev = sc.events.set_index("event")["wape_all"]
            out.append(f"{label}: all events {100 * sc.summary['wape_all']:.1f}%, icache.demandMisses "
                       f"{100 * ev[EVENT]:.0f}%")
        print(f"{wl}, {args.counters} counters: " + "; ".join(out), flush=True)


if __name__ == "__main__":
    main()
