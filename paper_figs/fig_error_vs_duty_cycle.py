"""Thesis figure `error_vs_duty_cycle` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_error_vs_duty_cycle`).

    python paper_figs/fig_error_vs_duty_cycle.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/duty_cycle.toml` (results/duty_cycle/). Same as `mpx figs RESULTS error_vs_duty_cycle`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "error_vs_duty_cycle"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/duty_cycle", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
