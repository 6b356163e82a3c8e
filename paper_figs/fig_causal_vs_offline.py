"""Thesis figure `causal_vs_offline` (PDF + PNG), drawn from a results store only (`mpx.figures.fig_causal_vs_offline`).

    python paper_figs/fig_causal_vs_offline.py RESULTS [--out DIR] [--experiment NAME]

RESULTS is a results folder or results.sqlite; the data come from
`mpx run experiments/causal_offline.toml` (results/causal_offline/). Same as `mpx figs RESULTS causal_vs_offline`.
"""

from __future__ import annotations

import sys

from mpx.figures import script_main

FIGURE = "causal_vs_offline"


def main(argv: list[str] | None = None) -> int:
    return script_main(FIGURE, "results/causal_offline", argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
