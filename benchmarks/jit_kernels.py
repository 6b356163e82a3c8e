"""What each group of numba kernels costs to compile and what it buys: per group, a fresh process times the
same work three ways — with an empty numba cache (compile + run), with the cache that run filled (load +
run), and as plain Python (``MPX_NO_NUMBA=1``: the very same functions, uncompiled).

    python benchmarks/jit_kernels.py                 # every group
    python benchmarks/jit_kernels.py gem5 kalman     # some

Groups (the modules that hold ``@njit`` kernels, by the work that calls them):

- ``gem5``: `mpx.readers.gem5.tokens`, reading a generated 400,000-line ``stats.txt`` (the reader uses the
  kernel only after `mpx.readers.gem5.scan.COMPILE_AFTER_LINES` lines; forced from line 1 here);
- ``grouping``: `mpx.partition` kernels through the hypergraph scheduler on the quickstart's problem
  (the callgrind catalog's 14 events on 4 generic counters) — what ``mpx run`` of the quickstart compiles;
- ``partition``: the same kernels on a random hypergraph of 600 vertices and 1,200 nets, k = 8;
- ``kalman``: `mpx.scalers.inference.kalman` through the fusion scaler on a synthetic trace.

Columns: ``work`` is the timed call alone, ``process`` the whole child process (wall and CPU: imports,
compilation, the call). Every child gets an empty ``XDG_CACHE_HOME``-style numba folder of its own for the
cold run. The machine's load is printed: on a shared machine CPU seconds say more than wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORK = {
    "gem5": """
import mpx.readers.gem5.scan as scan
from mpx.readers import gem5
scan.COMPILE_AFTER_LINES = 0
p = TMP / "stats.txt"
p.write_text("".join("\\n---------- Begin Simulation Statistics ----------\\nsimTicks 1000 # t\\n"
                     f"finalTick {1000 * (d + 1)} # t\\n"
                     + "".join(f"system.cpu.s{i} {d * i + 1} # c\\n" for i in range(2000))
                     + "---------- End Simulation Statistics   ----------\\n" for d in range(200)))
T0 = time.perf_counter()
tr = gem5.read(p)
assert tr.counts.shape[0] == 200
""",
    "grouping": """
from mpx import schedulers
from mpx.metrics import resolve_catalog
from mpx.problem import Problem
cat = resolve_catalog("callgrind")
problem = Problem.from_catalog(cat, "generic-4")
T0 = time.perf_counter()
schedulers.get("hypergraph").schedule(problem)
""",
    "partition": """
import numpy as np
from mpx.partition import Hypergraph, partition
rng = np.random.default_rng(0)
nets = [sorted(set(rng.integers(0, 600, size=int(rng.integers(2, 8))).tolist())) for _ in range(1200)]
hg = Hypergraph.from_nets(nets, 600)
T0 = time.perf_counter()
partition(hg, 8, seed=0)
""",
    "kalman": """
from mpx import scalers
from mpx.datasets.synthetic import synth
from mpx.multiplex import multiplex
from mpx.problem import Problem
tr = synth("tma", intervals=400, seed=0)
obs = multiplex(tr, Problem(tr.events, "generic-4"), "perf", quantum=tr.edges[1] - tr.edges[0], read_every=5)
fusion = scalers.get("fusion")
fusion.fit([synth("tma", intervals=400, seed=1)])  # another workload than the scored one
T0 = time.perf_counter()
fusion.estimate(obs)
""",
}


def child(group: str, tmp: str) -> None:
    """Run one group's work in this process and print its timed seconds as JSON."""
    global_ns = {"time": time, "TMP": Path(tmp)}
    exec(WORK[group], global_ns)  # noqa: S102 - this file's own code
    print(json.dumps({"work": time.perf_counter() - global_ns["T0"]}))


def run(group: str, env_extra: dict[str, str], tmp: str) -> dict[str, float]:
    """One child process: wall, CPU (children's user + system) and the timed work."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", group, tmp], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{group}: child failed:\n{proc.stderr[-3000:]}")
    work = json.loads(proc.stdout.strip().splitlines()[-1])["work"]
    return {"wall": wall, "cpu": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, "work": work}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="*", help=f"any of {list(WORK)} (default: all)")
    ap.add_argument("--no-python", action="store_true", help="skip the plain-Python runs (the partitioner's take "
                    "minutes: grouping the quickstart's problem took 277 s of plain Python at load ~10)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    groups = args.groups or list(WORK)
    a, b, c = os.getloadavg()
    print(f"load {a:.1f} {b:.1f} {c:.1f} on {len(os.sched_getaffinity(0))} CPUs")
    print(f"{'group':<10} {'mode':<7} {'work s':>8} {'process wall s':>15} {'process CPU s':>14}")
    for group in groups:
        with tempfile.TemporaryDirectory(prefix="mpx-jit-") as tmp:
            cache = str(Path(tmp) / "numba")
            for mode, env in (("cold", {"MPX_NUMBA_CACHE": cache}), ("warm", {"MPX_NUMBA_CACHE": cache}),
                              ("python", {"MPX_NO_NUMBA": "1"})):
                if mode == "python" and args.no_python:
                    continue
                r = run(group, env, tmp)
                print(f"{group:<10} {mode:<7} {r['work']:8.2f} {r['wall']:15.2f} {r['cpu']:14.2f}", flush=True)


if __name__ == "__main__":
    main()
