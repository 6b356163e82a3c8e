"""Regenerate every thesis figure: run the experiment each figure draws from (when its results are not there
yet, or with ``--run``), then draw the figure from the results store with ``mpx figs``.

    python paper_figs/make_all.py [FIGURE ...] [--results DIR] [--out DIR] [--site DIR | --no-site] [--run] [--dry-run]

Results go to ``DIR/<experiment name>/`` (default ``results/``, as ``mpx run`` does), figures to
``paper_figs/figures/`` as PDF and PNG. The figure → experiment table is the figure registry
(`mpx.figures`); ``--dry-run`` prints the commands without running them. Each step prints its wall and CPU
time (worker processes included) and the load, and the run ends with a table of them (paper_figs/README.md
quotes one). An experiment whose ``[data] files`` or ``heldout`` traces are made on this machine (the
held-out programs: `PREREQUISITES`) gets its recording first when they are missing. A failed step skips
the figures that need it, the others are still drawn, and the command ends with the list of what failed.
A figure of another package whose ``experiment`` is None or no config file (`foreign`) is skipped with a line.
Last, ``mpx site`` builds the static site of every store the figures read (``--site``, default
``paper_figs/site/``; the README says how to publish it).
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

from mpx.cli import main as mpx
from mpx.errors import ConfigError
from mpx.experiment import load_config
from mpx.experiment.config import load_suite
from mpx.figures import REGISTRY, get

available = REGISTRY.installed  # every figure that loads (an installed one that does not: a warning line)

REPO = Path(__file__).resolve().parent.parent

#: traces a config reads from a folder that is recorded on this machine (never shipped) → the command that
#: records them, run from the repository's root when the config's globs there match no file
PREREQUISITES: dict[str, list[str]] = {"datasets/heldout/traces": ["sh", "datasets/heldout/record.sh"]}


def prerequisites(config: Path) -> list[list[str]]:
    """The recording commands (`PREREQUISITES`) whose traces ``config`` (or a config of its suite) lists
    under ``[data] files`` or ``heldout`` and that are missing."""
    import tomllib

    suite = load_suite(config)
    configs = [Path(c) for c in suite[1]] if suite is not None else [config]
    out: list[list[str]] = []
    for c in configs:
        data = tomllib.loads(Path(c).read_text()).get("data", {})
        for pattern in [*data.get("files", []), *data.get("heldout", [])]:
            path = Path(os.path.normpath(Path(c).resolve().parent / pattern))
            if glob.glob(str(path)):
                continue
            for folder, cmd in PREREQUISITES.items():
                if (REPO / folder).resolve() in path.parents and cmd not in out:
                    out.append(cmd)
    return out


def store_name(config: Path) -> str:
    """The results folder name ``mpx run`` gives ``config``: a suite's name (a ``[suite]`` file, e.g.
    experiments/claims.toml, runs its configs into one store) or the experiment's."""
    suite = load_suite(config)
    return suite[0] if suite is not None else load_config(config).name


def config_of(name: str) -> Path | None:
    """The experiment config figure ``name`` draws from (relative to the repository unless absolute), or None
    when it names none or no file: a foreign figure, which this script cannot regenerate."""
    exp = get(name).experiment
    if not isinstance(exp, str) or not exp or not (REPO / exp).is_file():
        return None
    return REPO / exp


def foreign(names: list[str]) -> dict[str, str]:
    """The figures among ``names`` this script cannot regenerate, with the reason (`config_of`)."""
    return {n: (f"its experiment {get(n).experiment!r} is not a config file" if get(n).experiment
                else "it names no experiment") for n in names if config_of(n) is None}


def unloadable(names: list[str]) -> dict[str, str]:
    """The figures among ``names`` whose experiment config does not load here (an input it names is missing, such
    as ``../shared``), with the reason: skipped with a line, and the run ends as failed."""
    out = {}
    for n in names:
        where = config_of(n)
        if where is None:
            continue
        try:
            store_name(Path(os.path.relpath(where)))
        except ConfigError as exc:
            out[n] = f"its experiment does not load: {exc}"
    return out


def plan(figures: list[str], results: Path, out: Path, rerun: bool, site: Path | None = None) -> list[list[str]]:
    """The ``mpx`` commands that regenerate ``figures``: each experiment run at most once, then one ``figs``
    per store, then (``site``) one ``mpx site`` of every store."""
    commands: list[list[str]] = []
    by_store: dict[Path, list[str]] = {}
    for name in figures:
        where = config_of(name)
        if where is None:
            continue
        config = Path(os.path.relpath(where))
        store = results / store_name(config)
        if (rerun or not (store / "results.sqlite").is_file()) and store not in by_store:
            commands += [cmd for cmd in prerequisites(config) if cmd not in commands]
            commands.append(["run", str(config), "--out", str(store), "--no-figures", "--no-progress"])
        by_store.setdefault(store, []).append(name)
    for store, names in by_store.items():
        commands.append(["figs", str(store), *names, "--out", str(out)])
    if site is not None and by_store:
        commands.append(["site", *map(str, by_store), "--out", str(site)])
    return commands


def cpu_seconds() -> float:
    """User + system seconds of this process and its waited-for children (`mpx run`'s workers, recordings)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figures", nargs="*", metavar="FIGURE", help=f"figures (default: all of {', '.join(available())})")
    ap.add_argument("--results", default="results", help="results folder of the experiments (default: results)")
    ap.add_argument("--out", default=os.path.relpath(REPO / "paper_figs" / "figures"), help="figure folder")
    ap.add_argument("--site", default=os.path.relpath(REPO / "paper_figs" / "site"), help="the static site's folder")
    ap.add_argument("--no-site", action="store_true", help="do not build the site")
    ap.add_argument("--run", action="store_true", help="re-run the experiments even when their results exist")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.figures) - set(available()))
    if unknown:
        ap.error(f"unknown figure(s) {unknown}; figures: {', '.join(available())}")
    failed: list[str] = []
    for name, why in {**foreign(args.figures or available()), **unloadable(args.figures or available())}.items():
        print(f"skipped figure {name} (not regenerated here: {why})", flush=True)
        if name in args.figures or "does not load" in why:
            failed.append(f"figure {name}")
    wanted = [n for n in args.figures or available() if n not in unloadable(args.figures or available())]
    broken: set[str] = set()  # stores whose run, or a recording it needs, failed
    took: list[tuple[str, float, float]] = []  # step, wall and CPU seconds (worker processes included)
    site = None if args.no_site else Path(args.site)
    for cmd in plan(wanted, Path(args.results), Path(args.out), args.run, site):
        if cmd[0] == "site":  # the site of the stores whose runs succeeded
            cmd = ["site", *(s for s in cmd[1:cmd.index("--out")] if s not in broken), *cmd[cmd.index("--out"):]]
            if cmd[1] == "--out":
                continue
        shell = cmd[0] == "sh"
        text = shlex.join(cmd) if shell else "mpx " + shlex.join(cmd)
        store = cmd[cmd.index("--out") + 1] if cmd[0] == "run" else cmd[1] if cmd[0] == "figs" else None
        if store in broken:
            print(f"skipped (a step it needs failed): {text}", flush=True)
            failed.append(text)
            continue
        print(text, flush=True)
        if args.dry_run:
            continue
        # a recording script calls `mpx`: this interpreter's, even when its environment is not activated
        env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
        t0, c0 = time.perf_counter(), cpu_seconds()
        code = subprocess.run(cmd, cwd=REPO, env=env).returncode if shell else mpx(cmd)
        took.append((text, time.perf_counter() - t0, cpu_seconds() - c0))
        print(f"  {took[-1][1]:.0f} s wall, {took[-1][2]:.0f} s CPU ({load()})", flush=True)
        if code != 0:
            failed.append(text)
            if shell:  # the recording: every run after it that reads its traces is skipped
                broken.update(c[c.index("--out") + 1] for c in plan(wanted, Path(args.results), Path(args.out),
                                                                     args.run)
                              if c[0] == "run" and cmd in prerequisites(Path(c[1])))
            elif store is not None:
                broken.add(store)
    if took:
        print(f"\n| step | wall s | CPU s |\n| --- | ---: | ---: |", flush=True)
        for text, wall, cpu in [*took, ("total", sum(t[1] for t in took), sum(t[2] for t in took))]:
            print(f"| `{text}` | {wall:.0f} | {cpu:.0f} |" if text != "total" else f"| total | {wall:.0f} | {cpu:.0f} |")
    if failed:
        print(f"{len(failed)} step(s) failed or skipped:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
