"""``mpx report RESULTS``: summary tables of a results store, for the terminal or as LaTeX.

The tables and the ranking rules (winner, runner-up, the Linux-default baseline, the headline table) are
`mpx.studies.report`'s; this module parses the arguments and prints them (LaTeX with `mpx.experiment.store.to_latex`).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="summary tables of a results store (terminal or LaTeX)",
        description="Print the summary tables of a results store (mpx run --out DIR: give DIR or "
        "DIR/results.sqlite): scalers x schedulers (the headline measure of docs/scoring.md, mean over workloads), "
        "the winner and by how much with 95% intervals, every measure on common windows, per-scheduler figures, "
        "skipped and failed cells. --claims: the claims ledger instead (docs/claims.md).",
    )
    p.add_argument("results", help="results folder or results.sqlite file")
    p.add_argument("--experiment", help="experiment name (default: the latest run of every experiment)")
    p.add_argument("--run", type=int, metavar="ID", help="one run id (see --runs)")
    p.add_argument("--runs", action="store_true", help="list the runs stored")
    p.add_argument("--latex", action="store_true", help="print LaTeX tables (booktabs) instead")
    p.add_argument("--verify", action="store_true",
                   help="check every cell's rows against the checksum written with them; name the cells that "
                   "no longer match (exit 1 when any)")
    p.add_argument("--wide", action="store_true", help="print tables wider than 120 columns too (default: written "
                   "to DIR/tables/ and named)")
    p.add_argument("--claims", nargs="?", const="-", metavar="FILE",
                   help="the claims ledger of `mpx run experiments/claims.toml` (mpx.studies.claims); with FILE, write it "
                   "there as markdown (e.g. docs/claims.md) and its figure beside the store (DIR/figures/claims.*)")


def run(args: argparse.Namespace) -> int:
    from mpx.experiment.store import damage_as_error, open_store

    with damage_as_error(args.results), open_store(args.results) as store:
        return _report(store, args)


def _report(store: Any, args: argparse.Namespace) -> int:
    import re

    from mpx.studies.report import runs_table, summary_tables, summary_text
    from mpx.experiment.store import to_latex

    if args.verify:
        return verify(store)
    if args.runs:
        print(runs_table(store).to_string(index=False))
        return 0
    if args.claims:
        return claims(store, args)
    if not args.latex:
        from pathlib import Path

        print(summary_text(store, args.experiment, args.run, width=None if args.wide else 120,
                           wide_dir=Path(store.path).parent / "tables"))
        note = unchecked_note(store)
        if note:
            print(note)
        return 0
    names = [args.experiment] if args.experiment or args.run else list(dict.fromkeys(store.experiments()))
    used: set[str] = set()
    for name in names or [None]:
        if len(names) > 1:
            print(f"% ---- experiment {name}")
        for title, t in summary_tables(store, name, args.run).items():
            if isinstance(t, str):
                print("% " + t.replace("\n", "\n% "))
                continue
            slug = unique_label(re.sub(r"[^a-z0-9]+", "-", f"{name or ''} {title}".lower()).strip("-")[:48], used)
            print(to_latex(t, title if len(names) < 2 else f"{name}: {title}", "tab:" + slug))
            print()
    return 0


def unique_label(slug: str, used: set[str]) -> str:
    """``slug``, or ``slug-2``, ``slug-3`` ... when a table before it took it (titles cut to 48 characters
    can coincide, and LaTeX refuses a repeated ``\\label``); recorded in ``used``."""
    label, k = slug, 2
    while label in used:
        label, k = f"{slug}-{k}", k + 1
    used.add(label)
    return label


def verify(store: Any) -> int:
    """Print which cells are damaged (one line each: rows that no longer match their checksum, a missing checksum,
    a cell a finished run lists but the store lacks), then one line of totals."""
    problems = store.problems()
    n = store.conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    unchecked = store.unchecked()
    for key, why in sorted(problems.items()):
        print(f"{store.path}: {key if key.startswith('run ') else 'cell ' + key}: {why}")
    if n and unchecked == n and not problems:
        print(f"{store.path}: a store of {store.schema_name()}: none of its {n} cell(s) has a checksum, nothing "
              "to check (`mpx run` migrates it: the cells written from then on are checked)")
        return 0
    note = f" ({unchecked} written before checksums existed: not checked)" if unchecked else ""
    checked = n - unchecked
    bad = sum(1 for k in problems if "not stored" not in problems[k] and not k.startswith("run "))
    print(f"{store.path}: {checked - bad} of {checked} checked cell(s) match{note}")
    return 1 if problems else 0


def unchecked_note(store: Any) -> str | None:
    """One line when some cells of the store carry no checksum (written before checksums existed)."""
    n = store.unchecked()
    if not n:
        return None
    return (f"note: {n} cell(s) of {store.path} were written before checksums existed ({store.schema_name()}): "
            "not checked")


def claims(store: Any, args: argparse.Namespace) -> int:
    """Print the claims ledger; with a FILE, write it as markdown and draw its figure."""
    from pathlib import Path

    import pandas as pd

    from mpx.studies.claims import ledger, ledger_markdown

    table = ledger(store)
    with pd.option_context("display.width", 250, "display.max_colwidth", 160, "display.max_rows", 100):
        print(table[["claim", "paper", "mpx", "verdict"]].to_string())
    if args.claims != "-":
        out = Path(args.claims)
        out.parent.mkdir(parents=True, exist_ok=True)
        from mpx import code_version

        out.write_text(ledger_markdown(table, f"mpx report {args.results} --claims {args.claims}",
                                       code_version().rpartition("+g")[2]))
        from mpx.figures import draw

        written = draw(store, ["claims"], Path(store.path).parent / "figures")
        print(f"wrote {out}; figures: {', '.join(str(p) for p in written)}")
    return 0
