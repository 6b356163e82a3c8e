"""Thesis figure `partitioner_vs_kahypar` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_partitioner_vs_kahypar`).

    python paper_figs/fig_partitioner_vs_kahypar.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/partitioner.toml` (results/partitioner/). Same as `mpx figs RESULTS partitioner_vs_kahypar`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FIGURE = "partitioner_vs_kahypar"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default="results/partitioner", help="results folder or results.sqlite")
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
