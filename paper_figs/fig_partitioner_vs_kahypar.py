"""Thesis figure `partitioner_vs_kahypar` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_partitioner_vs_kahypar`).

    python paper_figs/fig_partitioner_vs_kahypar.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/partitioner.toml` (results/partitioner/). Same as `mpx figs RESULTS partitioner_vs_kahypar`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "partitioner_vs_kahypar"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/partitioner", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
