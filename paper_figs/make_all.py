"""Regenerate every thesis figure: run the experiment each figure draws from (when its results are not there
yet, or with ``--run``), then draw the figure from the results store with ``mpx figs``.

    python paper_figs/make_all.py [FIGURE ...] [--results DIR] [--out DIR] [--run] [--dry-run]

Results go to ``DIR/<experiment name>/`` (default ``results/``, as ``mpx run`` does), figures to
``paper_figs/figures/`` as PDF and PNG. The figure → experiment table is the figure registry
(`mpx.figures`); ``--dry-run`` prints the commands without running them. Run times are listed in
``experiments/README.md``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from mpx.cli import main as mpx
from mpx.experiment import load_config
from mpx.experiment.config import load_suite
from mpx.figures import available, get

REPO = Path(__file__).resolve().parent.parent


def store_name(config: Path) -> str:
    """The results folder name ``mpx run`` gives ``config``: a suite's name (a ``[suite]`` file, e.g.
    experiments/claims.toml, runs its configs into one store) or the experiment's."""
    suite = load_suite(config)
    return suite[0] if suite is not None else load_config(config).name


def plan(figures: list[str], results: Path, out: Path, rerun: bool) -> list[list[str]]:
    """The ``mpx`` commands that regenerate ``figures``: each experiment run at most once, then one ``figs``."""
    commands: list[list[str]] = []
    by_store: dict[Path, list[str]] = {}
    for name in figures:
        config = Path(os.path.relpath(REPO / get(name).experiment))
        store = results / store_name(config)
        if (rerun or not (store / "results.sqlite").is_file()) and store not in by_store:
            commands.append(["run", str(config), "--out", str(store), "--no-figures", "--no-progress"])
        by_store.setdefault(store, []).append(name)
    for store, names in by_store.items():
        commands.append(["figs", str(store), *names, "--out", str(out)])
    return commands


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figures", nargs="*", metavar="FIGURE", help=f"figures (default: all of {', '.join(available())})")
    ap.add_argument("--results", default="results", help="results folder of the experiments (default: results)")
    ap.add_argument("--out", default=os.path.relpath(REPO / "paper_figs" / "figures"), help="figure folder")
    ap.add_argument("--run", action="store_true", help="re-run the experiments even when their results exist")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.figures) - set(available()))
    if unknown:
        ap.error(f"unknown figure(s) {unknown}; figures: {', '.join(available())}")
    for cmd in plan(args.figures or available(), Path(args.results), Path(args.out), args.run):
        print("mpx " + shlex.join(cmd), flush=True)
        if not args.dry_run and mpx(cmd) != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
