"""``mpx figs RESULTS``: draw thesis figures from a results store (`mpx.figures`), PDF and PNG."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    from mpx.figures import available

    p = sub.add_parser(
        "figs",
        help="draw thesis figures (PDF + PNG) from a results store",
        description="Draw figures from a results store only (mpx run --out DIR: give DIR or DIR/results.sqlite). "
        f"Figures: {', '.join(available())}.",
    )
    p.add_argument("results", help="results folder or results.sqlite file")
    p.add_argument("figures", nargs="*", metavar="FIGURE", help="figure names (default: all that the data allows)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: RESULTS/figures)")
    p.add_argument("--experiment", help="experiment name (default: the latest run of every experiment)")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from mpx.figures import draw, draw_supported
    from mpx.experiment.store import damage_as_error, open_store

    base = Path(args.results)
    out = Path(args.out) if args.out else (base if base.is_dir() else base.parent) / "figures"
    with damage_as_error(args.results), open_store(args.results) as store:
        if args.figures:
            written = draw(store, args.figures, out, experiment=args.experiment)
        else:  # every figure the store has data for; say which could not be drawn and why
            written, skipped = draw_supported(store, out, experiment=args.experiment)
            for name, why in skipped.items():
                print(f"skipped {name}: {why}", file=sys.stderr)
    for p in written:
        print(p)
    return 0
