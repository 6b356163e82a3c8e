"""Thesis figure `scaler_cost` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_scaler_cost`).

    python paper_figs/fig_scaler_cost.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/scaler_cost.toml` (results/scaler_cost/). Same as `mpx figs RESULTS scaler_cost`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "scaler_cost"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/scaler_cost", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
