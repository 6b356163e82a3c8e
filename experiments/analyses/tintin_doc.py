"""Write docs/tintin.md: Tintin and CounterMiner as mpx implements them, and claims 6, 12 and 14 (figure 13)
as measured in a claims store (issue 35).

    python -m mpx run experiments/claims.toml --out results/claims
    python experiments/analyses/tintin_doc.py results/claims --out docs/tintin.md

The measured part is read from the store by the claims ledger's own code (`mpx.studies.claims`); the page
names the command and the commit it was written at, and is never edited by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mpx.experiment.store import open_store
from mpx.studies.claims import CLAIMS, ledger
from mpx.studies.claims.tintin import FIG13_BARS, FIG13_GRID, fig13_sets

COMMAND = "python experiments/analyses/tintin_doc.py results/claims --out docs/tintin.md"

IMPLEMENTED = """\
mpx's `tintin` scheduler and `tintin` scaler follow the authors' kernel (github WUSTL-CSPL/tintin-kernel at
7906262e, read in `../shared/peers/tintin/kernel/`; `kernel-events-core.c.excerpts` holds the blocks of
`kernel/events/core.c` that Tintin touches, cited as `core.c:N` with N the original line). Every default cites
its file and line in `mpx/schedulers/tintin.py` and `mpx/scalers/tintin.py`; `tests/test_citations.py` checks
that each such citation resolves and holds the identifier the text names; `tests/schedulers/test_tintin_kernel.py`
and `tests/scalers/test_tintin_scaler.py` pin the rules on hand cases worked from that code.

{table}

The red-black tree comparator (`__group_index_less`, `tintin_sched_event_handler.c:161-168`) orders
priorities the opposite way from the comments (`tintin_scheduler.c:240, 264`); mpx follows the comments. The
kernel's u64 arithmetic wraps; mpx computes the intended mathematics in float64.

The `tintin` scaler is the kernel's running count (first measurement extrapolated back, TAM from the previous
measurement's end to the current one's midpoint, reads extrapolated at the last rate) and reports
sigma = sqrt(V) x (unmonitored time of the window) as its std, V by Welford over the pieces (quanta).

`perf` with `groups="single"` opens every event alone (`perf stat -e a,b,c`), so its rotation moves one event
per tick: figure 13's perf baseline (24 single events). `counterminer` cleans any read-window scaler's
estimate as CounterMiner (MICRO 2018) describes it; `variant="tintin"` is the rule Tintin's code intended
(mean + 5 sigma over a trailing window on per-window counts, no filling, independent of the trace's time
unit). As written, Tintin's code changes no count (its loop over `counterminer_ii` never runs,
`arch/x86/events/core.c:191-194`),
so figure 13's CounterMiner bar is a second perf run.
"""

#: the table of what mpx implements: (what, the kernel (mpx's default), other options)
KERNEL_TABLE = (
    ("tick",
     "the timer forwarded one quantum at every tick (`hrtimer_forward_now`, `core.c:1198-1200`); the "
     "scheduler's `next_schedule` only restarts a stopped timer (`tintin_sched_remaining_time`, "
     "`core.c:1263-1264`)",
     "`tick=\"next_schedule\"`: the return value, as the line the authors commented out wired it "
     "(`tintin_sched_quantum`, `core.c:4533`)"),
    ("readings",
     "every tick schedules the events out and stores a reading (`tintin_store_new_reading`, `core.c:2366, "
     "2479-2487`) before the scheduler runs (`tintin_mux_hrtimer_handler`, `core.c:4534`)",
     "-"),
    ("measurements",
     "back-to-back readings merged (`core.c:2401`), the merged time charged to the budget at every tick "
     "(`last_measurement`, `core.c:2416-2418`): k one-quantum ticks spend k(k+1)/2",
     "`merge=False`"),
    ("variance",
     "Welford per piece, merged or not (`tintin_update_variance_by_Welfords_method`, `core.c:2423, 2450`; "
     "`tintin_uncertainty.c:166-220`); sigma = sqrt(V) x unmonitored time (`tintin_update_uncertainty`, "
     "`tintin_uncertainty.c:160-164`)",
     "-"),
    ("warm-up",
     "least monitored first until every event has 20 H on counters (`MIN_WARMUP_TIMESLICES`, "
     "`tintin_scheduler.c:219, 234`)",
     "`warmup=k` hyperperiods"),
    ("budgets",
     "`tintin_elastic` (`tintin_elastic.c:24-119`): ceiling `u_max` of ceil(n/m) H "
     "(`tintin_elastic.c:31-32`), minimum one quantum (`u_min`, `tintin_elastic.c:40`), elasticity "
     "x^2/(wV) with x the extrapolated running count (`tintin_running_count_extrapolated`, "
     "`tintin_elastic.c:61-76`), re-solved when every budget is spent (`new_hyperperiod`, "
     "`tintin_scheduler.c:237, 258`)",
     "`resolve=\"hyperperiod\"`"),
    ("layout",
     "largest remaining budget, then uncertainty (`event_time_uncertainty_desc`, "
     "`tintin_scheduler.c:139-155`), perf's sched-in stopping at the first event that does not fit",
     "`layout=\"mcnaughton\"`: the paper's appendix"),
    ("m",
     "`NUM_HPCS` = 6 whatever the PMU (`tintin_event.h:14`)",
     "`m=None`"),
    ("policy",
     "elastic (`tintin_schedule`, `tintin_scheduler.c:221-290`)",
     "`policy=\"uncertainty_first\"` (`tintin_schedule_uncertainty_first`, `tintin_scheduler.c:183-217`), "
     "`uf_warmup=48` for the round-robin warm-up its code overwrites (`uf_warmup_count`, "
     "`tintin_scheduler.c:189-197`)"),
)

NOT_DONE = """\
## Not shipped: Lim et al.

Lim et al.'s rate-of-change multiplexing scheduler (Linux 3.11): only the abstract of its paper is known to
this project, not its algorithm. No guess at it is shipped: a scheduler written from an abstract would not
be a faithful baseline.
"""


def _table() -> str:
    rows = ["| what | the kernel (mpx's default) | other options |", "| --- | --- | --- |"]
    return "\n".join(rows + [f"| {a} | {b} | {c} |" for a, b, c in KERNEL_TABLE])


def _commit() -> str:
    """The commit stamp of every generated doc (`experiments/doc_tables.commit`: ``+dirty`` when tracked files
    other than the docs differ from it)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import doc_tables

    return doc_tables.commit() or "unknown (not a git checkout)"


def _fig13_tables(store) -> list[str]:
    out = []
    for d in fig13_sets(store):
        out += [f"### {d['label']}: {d['setting']}", "",
                "| row | mean whole-run total error [95 % bootstrap interval] |", "| --- | --- |"]
        for row in [b[0] for b in FIG13_BARS] + [f"{n} + {e}" for n, _ in FIG13_GRID
                                                  for e in ("linear", "Tintin's estimator")]:
            if row in d["bars"]:
                m, lo, hi = d["bars"][row]
                out.append(f"| {row} | {100 * m:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}] |")
        r, lo, hi = d["ratio"]
        out += ["", f"perf (single events) / Tintin elastic: **{r:.2f}x [{lo:.2f}, {hi:.2f}]** (Tintin better on "
                f"{d['better']} of {d['n']} programs)"
                + (f"; perf (the catalog's groups) / Tintin elastic: {d['ratio_grouped'][0]:.2f}x "
                   f"[{d['ratio_grouped'][1]:.2f}, {d['ratio_grouped'][2]:.2f}]" if "ratio_grouped" in d else "")
                + ". The last four rows are the 2 x 2 decomposition (schedule x estimator).", ""]
    return out


def render(store) -> str:
    """The page for a claims results store (`mpx.experiment.store.open_store`)."""
    table = ledger(store, tuple(c for c in CLAIMS if c.id in (6, 12, 14)))
    lines = ["# Tintin as its authors built it, CounterMiner's cleaning (issues 24, 35)", "",
             f"Generated by `{COMMAND}` at commit {_commit()}, from the store of `mpx run experiments/claims.toml`. "
             "Do not edit by hand.", "", "## What mpx implements", "", IMPLEMENTED.format(table=_table()),
             "## Claim 14 as figure 13", "",
             "The paper's figure 13: Linux perf 9.01 %, CounterMiner 8.80 %, uncertainty-first 6.51 %, Tintin "
             "elastic 2.91 % (mean over 26 programs of the whole-run error against one pinned event). Here: "
             "one quantum per dump, a read every 10 quanta, H = 10 quanta, the trace's whole-run total as the truth.",
             ""]
    lines += _fig13_tables(store)
    lines += ["## The ledger's rows", "", "| # | claim | mpx | verdict |", "| --- | --- | --- | --- |"]
    for cid, row in table.iterrows():
        lines.append(f"| {cid} | {row['claim']} | {row['mpx']} | {row['verdict']} |")
    lines += ["", NOT_DONE]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="the claims results folder (mpx run experiments/claims.toml --out DIR)")
    ap.add_argument("--out", help="write here (default: stdout)")
    args = ap.parse_args(argv)
    text = render(open_store(args.store))
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
