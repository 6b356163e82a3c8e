"""Time the main job: ``mpx run`` of the quickstart and the gem5 quickstart in a fresh output folder,
cold (empty numba cache) and warm, wall and CPU time, with a breakdown by phase.

    python benchmarks/quickstart.py                         # both configs, cold and warm, default --jobs
    python benchmarks/quickstart.py quickstart --warm --jobs 1
    python benchmarks/quickstart.py gem5_quickstart --breakdown      # + where the time goes, by phase
    python benchmarks/quickstart.py quickstart --fresh               # a fresh machine: see below

Each timed run is a fresh ``python -m mpx run CONFIG --out TMP --no-progress`` process. **Cold**
points numba's cache (``MPX_NUMBA_CACHE``, see `mpx.util.jit`) at an empty folder, as in a fresh clone on a
fresh machine; **warm** reuses the machine's cache (a second run, or a fresh clone on a machine that ran
mpx before), each time into a new output folder. CPU time is the children's user + system time
(`resource.getrusage`), worker processes included. The machine's load average is printed beside every
number: on a shared machine wall time says little, CPU time more.

``--fresh`` is a user's first contact: a fresh ``git clone`` of this checkout's HEAD (run from the clone,
``PYTHONPATH`` pointing at it) with every cache empty (``XDG_CACHE_HOME`` and ``MPLCONFIGDIR`` at empty
folders: numba's kernels, matplotlib's font list), then the same again warm (same clone, caches kept); also
the first ``mpx trace info`` of a 3-dump gem5 file with empty caches. The Python environment is this one (a
fresh venv would time pip's downloads, not mpx).

``--breakdown`` runs the config once more in one process (``--jobs 1``) with timers around each phase
(exclusive times: a phase nested in another is not counted twice): grid (config, cells), load (datasets),
multiplex, schedule scores, fit and estimate per scaler, truth (binning the true counts), score, rows,
store (writes, CSV export), report, figures; "other" is the rest.
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
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"quickstart": ROOT / "experiments" / "quickstart.toml",
           "gem5_quickstart": ROOT / "experiments" / "gem5_quickstart.toml"}


def load() -> str:
    """The 1-, 5- and 15-minute load averages and the usable CPUs, as one string."""
    a, b, c = os.getloadavg()
    return f"load {a:.1f} {b:.1f} {c:.1f} on {len(os.sched_getaffinity(0))} CPUs"


def children_cpu() -> float:
    """User + system seconds of every waited-for child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_run(config: Path, jobs: int | None, numba_cache: Path | None, out: Path, *, root: Path = ROOT,
              env_extra: dict[str, str] | None = None, cmd: list[str] | None = None) -> dict[str, Any]:
    """One fresh ``mpx run`` process (or ``cmd``): wall and CPU seconds, exit code, the load before and after."""
    env = dict(os.environ, **(env_extra or {}))
    if numba_cache is not None:
        env["MPX_NUMBA_CACHE"] = str(numba_cache)
    if cmd is None:
        cmd = [sys.executable, "-m", "mpx", "run", str(config), "--out", str(out), "--no-progress"]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
    before = load()
    c0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{config.name}: mpx run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {"wall": wall, "cpu": cpu, "load_before": before, "load_after": load()}


# -- the breakdown: one process, timers around the phases ------------------------------------------------


class Phases:
    """Exclusive wall and CPU seconds per phase (a phase entered inside another pauses the outer one)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.stack: list[tuple[str, float, float]] = []

    def _now(self) -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def wrap(self, name: str | Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` timed under ``name`` (or ``name(*args)``)."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            label = name(*args) if callable(name) else name
            w, c = self._now()
            if self.stack:  # pause the enclosing phase
                outer, ow, oc = self.stack[-1]
                self.wall[outer] += w - ow
                self.cpu[outer] += c - oc
            self.stack.append((label, w, c))
            try:
                return fn(*args, **kwargs)
            finally:
                w2, c2 = self._now()
                _, sw, sc = self.stack.pop()
                self.wall[label] += w2 - sw
                self.cpu[label] += c2 - sc
                self.calls[label] += 1
                if self.stack:  # resume the enclosing phase
                    outer, _, _ = self.stack[-1]
                    self.stack[-1] = (outer, w2, c2)

        return timed

    def patch(self, obj: Any, attr: str, name: str | Callable[..., str]) -> None:
        """Replace ``obj.attr`` by its timed version (when it exists)."""
        if hasattr(obj, attr):
            setattr(obj, attr, self.wrap(name, getattr(obj, attr)))


def breakdown_child(config: str, out: str) -> None:
    """``mpx run CONFIG --jobs 1`` in this process with the phase timers; prints one JSON line."""
    import importlib

    ph = Phases()
    from mpx.scalers.base import Scaler

    def scaler_label(verb: str) -> Callable[..., str]:
        return lambda self, *a: f"{verb} {self.name or type(self).__name__}"

    ph.patch(Scaler, "estimate", scaler_label("estimate"))
    ph.patch(Scaler, "fit", scaler_label("fit"))
    scaling = importlib.import_module("mpx.experiment.scaling")
    for attr, name in (("load_dataset", "load"), ("multiplex", "multiplex"), ("schedule_scores", "schedule scores"),
                       ("event_rows", "rows"), ("metric_rows", "rows"), ("series_rows", "rows"),
                       ("score_rows", "rows"), ("true_windows", "truth")):
        ph.patch(scaling, attr, name)
    replay = importlib.import_module("mpx.scoring.replay")
    ph.patch(replay, "score", "score")
    ph.patch(replay, "true_windows", "truth")
    evaluate = importlib.import_module("mpx.scoring.score")
    ph.patch(evaluate, "true_windows", "truth")
    from mpx.experiment import config as config_mod
    from mpx.experiment.config import Experiment
    from mpx.experiment.store import ResultsStore

    ph.patch(config_mod, "load_config", "grid")
    ph.patch(Experiment, "cells", "grid")
    ph.patch(ResultsStore, "write", "store")
    ph.patch(ResultsStore, "export", "store")
    ph.patch(importlib.import_module("mpx.studies.report"), "summary_text", "report")
    ph.patch(importlib.import_module("mpx.figures"), "draw", "figures")
    import mpx.experiment as exp_pkg

    ph.patch(exp_pkg, "load_config", "grid")
    from mpx.cli import main

    t0, c0 = time.perf_counter(), time.process_time()
    code = main(["run", config, "--out", out, "--no-progress", "--jobs", "1"])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"code": code, "wall": wall, "cpu": cpu, "phases": {
        k: {"wall": ph.wall[k], "cpu": ph.cpu[k], "calls": ph.calls[k]} for k in ph.wall}}))


def breakdown(config: Path, keep: Path | None = None) -> dict[str, Any]:
    """The phase breakdown of one warm ``--jobs 1`` run (a child process running `breakdown_child`); its
    output folder is ``keep`` if given (to compare stores), else a temporary one."""
    with tempfile.TemporaryDirectory(prefix="mpx-bench-") as tmp:
        before = load()
        out = keep / config.stem if keep is not None else Path(tmp) / "out"
        proc = subprocess.run([sys.executable, __file__, "--child", str(config), str(out)], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{config.name}: breakdown failed:\n{proc.stderr[-3000:]}")
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["load_before"], res["load_after"] = before, load()
    return res


def print_breakdown(name: str, res: dict[str, Any]) -> None:
    """The phases, largest CPU first, with "other" = total − phases."""
    ph = res["phases"]
    print(f"\n{name}: breakdown of one warm --jobs 1 run: {res['wall']:.1f} s wall, {res['cpu']:.1f} s CPU "
          f"({res['load_before']} → {res['load_after']})")
    print(f"  {'phase':<28} {'CPU s':>8} {'wall s':>8} {'calls':>6}")
    for k, v in sorted(ph.items(), key=lambda kv: -kv[1]["cpu"]):
        print(f"  {k:<28} {v['cpu']:8.2f} {v['wall']:8.2f} {v['calls']:6d}")
    other_cpu = res["cpu"] - sum(v["cpu"] for v in ph.values())
    other_wall = res["wall"] - sum(v["wall"] for v in ph.values())
    print(f"  {'other (imports, ...)':<28} {other_cpu:8.2f} {other_wall:8.2f}")


SMALL_GEM5 = "".join(f"\n---------- Begin Simulation Statistics ----------\nsimTicks 1000 # t\nfinalTick {1000 * d} "
                     f"# t\nsystem.cpu.numCycles {100 * d} # c\n---------- End Simulation Statistics   ----------\n"
                     for d in (1, 2, 3))


def fresh(names: list[str], jobs: int | None) -> None:
    """``--fresh``: a fresh clone with empty caches, cold then warm, and the first ``mpx trace info``."""
    with tempfile.TemporaryDirectory(prefix="mpx-fresh-") as tmp:
        clone = Path(tmp) / "mpx"
        subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True)
        for sub in ("cache", "mpl"):
            (Path(tmp) / sub).mkdir()
        env = {"XDG_CACHE_HOME": str(Path(tmp) / "cache"), "MPLCONFIGDIR": str(Path(tmp) / "mpl"),
               "PYTHONPATH": str(clone)}
        env.pop("MPX_NUMBA_CACHE", None)
        os.environ.pop("MPX_NUMBA_CACHE", None)
        stats = Path(tmp) / "stats.txt"
        stats.write_text(SMALL_GEM5)
        r = timed_run(Path(), None, None, Path(), root=clone, env_extra=env,
                      cmd=[sys.executable, "-m", "mpx", "trace", "info", str(stats)])
        print(f"{'trace info':<16} fresh {r['wall']:7.1f} s wall {r['cpu']:7.1f} s CPU   "
              f"({r['load_before']} → {r['load_after']})", flush=True)
        for name in names:
            config = clone / CONFIGS[name].relative_to(ROOT)
            for mode in ("fresh", "warm"):
                r = timed_run(config, jobs, None, Path(tmp) / f"out-{name}-{mode}", root=clone, env_extra=env)
                print(f"{name:<16} {mode:<5} {r['wall']:7.1f} s wall {r['cpu']:7.1f} s CPU   "
                      f"({r['load_before']} → {r['load_after']})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", help=f"any of {list(CONFIGS)} (default: both)")
    ap.add_argument("--jobs", type=int, help="mpx run --jobs (default: mpx's own default)")
    ap.add_argument("--cold", action="store_true", help="only the cold run")
    ap.add_argument("--warm", action="store_true", help="only the warm run")
    ap.add_argument("--fresh", action="store_true", help="a fresh clone with empty caches (XDG_CACHE_HOME, "
                    "MPLCONFIGDIR), then warm; and the first mpx trace info")
    ap.add_argument("--breakdown", action="store_true", help="also the phase breakdown (one more --jobs 1 run)")
    ap.add_argument("--only-breakdown", action="store_true", help="only the phase breakdown")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep the breakdown run's output in DIR/<config>")
    ap.add_argument("--child", nargs=2, metavar=("CONFIG", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        breakdown_child(*args.child)
        return
    names = args.configs or list(CONFIGS)
    if set(names) - set(CONFIGS):
        ap.error(f"unknown config(s) {sorted(set(names) - set(CONFIGS))}; choose from {list(CONFIGS)}")
    modes = ([] if args.only_breakdown else
             ["cold"] if args.cold and not args.warm else ["warm"] if args.warm and not args.cold else ["cold", "warm"])
    print(f"mpx run, fresh output folder each time; {load()}; jobs {args.jobs or 'default'}")
    if args.fresh:
        fresh(names, args.jobs)
        return
    for name in names:
        with tempfile.TemporaryDirectory(prefix="mpx-bench-") as tmp:
            for mode in modes:
                cache = Path(tmp) / "numba" if mode == "cold" else None
                r = timed_run(CONFIGS[name], args.jobs, cache, Path(tmp) / f"out-{mode}")
                print(f"{name:<16} {mode:<5} {r['wall']:7.1f} s wall {r['cpu']:7.1f} s CPU   "
                      f"({r['load_before']} → {r['load_after']})", flush=True)
        if args.breakdown or args.only_breakdown:
            print_breakdown(name, breakdown(CONFIGS[name], args.keep))


if __name__ == "__main__":
    main()
