"""Thesis figure `scaler_per_workload` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_scaler_per_workload`).

    python paper_figs/fig_scaler_per_workload.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/scaler_accuracy.toml` (results/scaler_accuracy/). Same as `mpx figs RESULTS scaler_per_workload`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FIGURE = "scaler_per_workload"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default="results/scaler_accuracy", help="results folder or results.sqlite")
    ap.add_argument("--out", help="output folder (default: RESULTS/figures)")
    ap.add_argument("--experiment", help="experiment name (default: the latest run of each experiment)")
    args = ap.parse_args(argv)
    from mpx.figures import draw
    from mpx.results import open_store

    base = Path(args.results)
    out = Path(args.out) if args.out else (base if base.is_dir() else base.parent) / "figures"
    with open_store(args.results) as store:
        for p in draw(store, [FIGURE], out, experiment=args.experiment):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
