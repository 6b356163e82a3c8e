"""Thesis figure `scheduler_table` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_scheduler_table`).

    python paper_figs/fig_scheduler_table.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/schedulers_real.toml` (results/schedulers_real/). Same as `mpx figs RESULTS scheduler_table`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "scheduler_table"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/schedulers_real", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
