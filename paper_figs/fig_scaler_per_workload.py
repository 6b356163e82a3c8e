"""Thesis figure `scaler_per_workload` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_scaler_per_workload`).

    python paper_figs/fig_scaler_per_workload.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/scaler_accuracy.toml` (results/scaler_accuracy/). Same as `mpx figs RESULTS scaler_per_workload`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "scaler_per_workload"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/scaler_accuracy", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
