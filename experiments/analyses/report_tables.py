"""Sections of ``mpx report STORE`` as markdown, for the generated blocks of docs/*.md (issue 34 item 7: every
result table of a doc is printed by a named command; `experiments/doc_tables.py` splices the output).

    python experiments/analyses/report_tables.py results/quickstart --section winner \
        --section "the headline with and without the floor" --markdown -

Each ``--section`` is the start of a section title of `mpx.studies.report.summary_tables` (what ``mpx report``
prints under ``== title``); every section whose title starts with it is printed, in the report's order: a table
as a markdown table (its index as leading columns), a text section as its paragraphs. Nothing is computed here
that ``mpx report`` does not compute: the numbers are the report's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mpx.experiment.store import open_store  # noqa: E402
from mpx.studies.report import summary_tables  # noqa: E402


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return "-"
    return f"{v:g}" if isinstance(v, float) else str(v).replace("|", "/")


def table_md(df: pd.DataFrame) -> str:
    """A report table as markdown (its index as leading columns)."""
    d = df.reset_index() if any(n is not None for n in df.index.names) else df
    cols = [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in d.columns]
    return "\n".join(["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
                     + ["| " + " | ".join(_cell(v) for v in row) + " |" for row in d.itertuples(index=False)])


def sections(store: Path, wanted: list[str], experiment: str | None = None) -> str:
    db = store / "results.sqlite"
    if not db.is_file():
        sys.exit(f"{store}: no results.sqlite (mpx run CONFIG --out {store})")
    tables = summary_tables(open_store(db), experiment)
    out = []
    for title, t in tables.items():
        if not any(title.startswith(w) for w in wanted):
            continue
        out.append(f"**{title}**\n")
        if isinstance(t, str):
            out.append("\n\n".join(p.strip() for p in t.splitlines() if p.strip()) + "\n")
        else:
            out.append(table_md(t.drop(columns="reason") if "reason" in t.columns else t) + "\n")
    if not out:
        sys.exit(f"{store}: no report section matches {wanted}; sections: {list(tables)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--section", action="append", required=True, help="the start of a section title (repeatable)")
    ap.add_argument("--experiment", help="one experiment of the store (default: the latest run of each)")
    ap.add_argument("--id", default=None, help="the block id of --markdown (default: report-<store folder>)")
    ap.add_argument("--markdown", metavar="OUT", help="write a generated block ('-': stdout)")
    a = ap.parse_args(argv)
    body = sections(a.store, a.section, a.experiment)
    if not a.markdown:
        print(body)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import shlex

    import doc_tables

    block = a.id or f"report-{a.store.name}"
    cmd = (f"python experiments/analyses/report_tables.py {a.store} "
           + " ".join(f"--section {shlex.quote(s)}" for s in a.section)
           + (f" --experiment {a.experiment}" if a.experiment else "") + (f" --id {a.id}" if a.id else "")
           + " --markdown -")
    doc_tables.write_block(block, cmd, body, a.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
