"""Thesis figure `timeline` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_timeline`).

    python paper_figs/fig_timeline.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/quickstart.toml` (results/quickstart/). Same as `mpx figs RESULTS timeline`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "timeline"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/quickstart", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
