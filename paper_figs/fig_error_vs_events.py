"""Thesis figure `error_vs_events` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_error_vs_events`).

    python paper_figs/fig_error_vs_events.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/n_events.toml` (results/n_events/). Same as `mpx figs RESULTS error_vs_events`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "error_vs_events"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/n_events", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
