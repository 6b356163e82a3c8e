"""Thesis figure `headline` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_headline`).

    python paper_figs/fig_headline.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/headline.toml` (results/headline/). Same as `mpx figs RESULTS headline`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "headline"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/headline", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
