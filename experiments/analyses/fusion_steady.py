"""Fusion on the steady-state gem5 recordings, leave one program out, on fair terms (issue 34, item 5).

The setting is `experiments/gem5_quickstart.toml`'s: every steady-state recording (``all-gem5-long``), every
built-in scheduler x every built-in scaler, ``gem5-o3-g4`` (4 generic counters + fixed instructions and
cycles), the gem5 catalog's 46 events, one quantum per 50 us dump, a read every 8 quanta. The runner fits
``fusion`` and ``fusion_smooth`` on every *other* program of the collection (leave one workload out:
`mpx.scoring.replay.other_workloads`), so each program is scored by a model that never saw it.

Printed (markdown, for docs/fusion.md through `experiments/doc_tables.py`):

- **per program**: each method on its own best schedule *on that program* against the best other scaler on
  its own best schedule there (`fusion` against causal scalers only, `fusion_smooth` against all; the null
  baselines `constant_rate*` and the fill-matched ``linear_*`` included), the ratio, and the method's
  ``fallback_share`` (the share of its event-windows its coverage guard took from the named baseline,
  `mpx.scalers.fusion`); ``> 1.5`` marks the issue's target missed;
- **pooled**: `mpx.studies.compare.fair_headline` over all programs: each side's schedule chosen by the lowest
  mean over programs, the ratio with a 95 % paired bootstrap interval over programs (both choices redone in
  each resample), and the same-schedule ratio beside it.

Error: the headline measure (``wape_all``, docs/scoring.md). The cells come from a results store of the
config (``--store``, default ``results/gem5_quickstart``): the command runs ``mpx run`` on it first, which
computes only the cells not stored yet (none when the store is current; ~110 cells otherwise).

    python experiments/analyses/fusion_steady.py --markdown -
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "experiments/gem5_quickstart.toml"
METHODS = ("fusion", "fusion_smooth")
#: the issue's target: a method on any steady-state program at most this many times the best other scaler
TARGET = 1.5


def load_rows(store_dir: Path, compute: bool = True) -> pd.DataFrame:
    """The ``done`` score rows of the config's latest run in ``store_dir`` (running ``mpx run`` first when
    ``compute``: cached cells are not recomputed)."""
    from mpx.experiment.store import ResultsStore
    from mpx.scoring.measures import HEADLINE_COLUMN

    if compute:
        cmd = [sys.executable, "-m", "mpx", "run", CONFIG, "--out", str(store_dir), "--no-figures", "--no-progress"]
        run = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode:
            raise SystemExit(f"`{' '.join(cmd[1:])}` failed ({run.returncode}):\n{run.stderr[-2000:]}")
    with ResultsStore(store_dir / "results.sqlite", read_only=True) as store:
        scores = store.table("scores", "gem5_quickstart")
    ok = scores[scores["status"] == "done"].copy()
    ok[HEADLINE_COLUMN] = pd.to_numeric(ok[HEADLINE_COLUMN], errors="coerce")
    ok["fallback_share"] = pd.to_numeric(ok.get("fallback_share"), errors="coerce")
    return ok


def per_program(ok: pd.DataFrame) -> pd.DataFrame:
    """Per program and method: the method on its own best schedule there, the best other scaler (causal
    against causal) on its own, their ratio and the method's fallback share."""
    from mpx.scoring.measures import HEADLINE_COLUMN

    causal = ok.groupby("scaler")["causal"].first().astype(bool)
    rows = []
    for wl, g in ok.groupby("workload", sort=True):
        err = g.groupby(["scheduler", "scaler"])[HEADLINE_COLUMN].mean().dropna()
        fb = g.groupby(["scheduler", "scaler"])["fallback_share"].mean()
        for m in METHODS:
            mine = err[err.index.get_level_values("scaler") == m]
            pool = err[[s not in METHODS and (causal[s] or not causal[m]) for s in err.index.get_level_values("scaler")]]
            if mine.empty or pool.empty:
                continue
            (ms, _), (bs, bn) = mine.idxmin(), pool.idxmin()
            rows.append({"program": str(wl).removeprefix("gem5-long-"), "method": m, "schedule": ms,
                         "error": float(mine.min()), "fallback": float(fb.get((ms, m), np.nan)),
                         "baseline": bn, "baseline_schedule": bs, "baseline_error": float(pool.min()),
                         "ratio": float(mine.min() / pool.min()) if pool.min() > 0 else np.nan})
    return pd.DataFrame(rows)


def _pct(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{100 * x:.1f}"


def markdown(per: pd.DataFrame, fair: pd.DataFrame, header: str) -> str:
    """The per-program and the pooled table as markdown, under ``header`` (`experiments/doc_tables.py`)."""
    out = [header, "", f"Per program ({per['program'].nunique()} steady-state recordings; {CONFIG}'s setting; "
           "each side on its own best schedule on that program; `wape_all` in %; ratio > "
           f"{TARGET:g}: **bold**):", "",
           "| program | method | % (schedule) | fallback % | best other % (scaler, schedule) | ratio |",
           "|---|---|---|---|---|---|"]
    for r in per.itertuples():
        ratio = f"{r.ratio:.2f}"
        out.append(f"| {r.program} | `{r.method}` | {_pct(r.error)} ({r.schedule}) | {_pct(r.fallback)} | "
                   f"{_pct(r.baseline_error)} ({r.baseline}, {r.baseline_schedule}) | "
                   + (f"**{ratio}**" if r.ratio > TARGET else ratio) + " |")
    for m in METHODS:
        sub = per[per["method"] == m]
        if sub.empty:
            continue
        worst = sub.loc[sub["ratio"].idxmax()]
        over = sub[sub["ratio"] > TARGET]
        out.append("")
        out.append(f"- `{m}`: worst ratio {worst['ratio']:.2f}x ({worst['program']}); above {TARGET:g}x on "
                   + (", ".join(over["program"]) if len(over) else "no program")
                   + f"; median fallback {_pct(float(sub['fallback'].median()))} %")
    out += ["", f"Pooled over the {int(fair['workloads'].iloc[0]) if not fair.empty else 0} programs "
            "(`mpx.studies.compare.fair_headline`: each side's schedule chosen by the lowest mean over programs; 95 % "
            "paired bootstrap interval over programs, both choices redone in each resample):", "",
            "| method | % (schedule) | fallback % | best other % (scaler, schedule) | fair ratio [95 % CI] | "
            "same-schedule ratio (baseline) |", "|---|---|---|---|---|---|"]
    for r in fair.itertuples():
        same = (f"{r.same_ratio:.2f} ({r.same_baseline})" if "same_ratio" in fair and np.isfinite(r.same_ratio)
                else "n/a")
        out.append(f"| `{r.method}` | {_pct(r.method_error)} ({r.method_scheduler}) | {_pct(r.method_fallback)} | "
                   f"{_pct(r.baseline_error)} ({r.baseline}, {r.baseline_scheduler}) | {r.ratio:.2f} "
                   f"[{r.ratio_lo:.2f}, {r.ratio_hi:.2f}] | {same} |")
    return "\n".join(out)


def _header(args: argparse.Namespace) -> str:
    sys.path.insert(0, str(ROOT / "experiments"))
    import doc_tables

    cmd = "python experiments/analyses/fusion_steady.py"
    if args.store != ROOT / "results" / "gem5_quickstart":
        cmd += f" --store {args.store}"
    if args.boot != 2000:
        cmd += f" --boot {args.boot}"
    return doc_tables.block_header("fusion-steady", cmd + " --markdown -", doc_tables.commit())


def main(argv: list[str] | None = None) -> int:
    from mpx.studies.compare import fair_headline

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, default=ROOT / "results" / "gem5_quickstart",
                    help="results folder of experiments/gem5_quickstart.toml (default results/gem5_quickstart)")
    ap.add_argument("--no-run", action="store_true", help="read the store as it is (no `mpx run` first)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples of the pooled interval")
    ap.add_argument("--markdown", metavar="OUT.md", help="write the tables as markdown ('-': stdout only)")
    args = ap.parse_args(argv)
    t0, c0 = time.time(), time.process_time()
    ok = load_rows(args.store, compute=not args.no_run)
    per = per_program(ok)
    fair = fair_headline(ok, list(METHODS), boot=args.boot)
    text = markdown(per, fair, _header(args))
    if args.markdown and args.markdown != "-":
        Path(args.markdown).write_text(text + "\n")
    print(text)
    if args.markdown != "-":
        print(f"\n({len(ok)} score rows; {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU in this "
              "process, the cells computed by `mpx run` not included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
