"""The result tables of docs/alignment.md, as markdown, from the stores of the alignment experiments (issue 18;
issue 34 item 7: every result table of a doc is printed by a named command).

    mpx run experiments/alignment.toml --out results/alignment                     # 54 cells
    python experiments/analyses/alignment_tables.py results/alignment --markdown -
    mpx run experiments/alignment_band.toml --out results/alignment_band           # 24 cells
    python experiments/analyses/alignment_tables.py results/alignment_band --markdown -
    mpx run experiments/alignment_variation.toml --out results/alignment_variation # 30 cells
    python experiments/analyses/alignment_tables.py results/alignment_variation --markdown -

What it prints depends on what the store's ``alignment`` rows vary (`mpx.experiment.alignment.alignment_frontier`:
medians over the reference runs of WAPE on every read window of the reference run):

- counters (experiments/alignment.toml): the best method of each road per program and counter count
  (`mpx.experiment.alignment.alignment_tables`, what ``mpx report`` prints), then every method at ``--counters``;
- DTW's band (alignment_band.toml): WAPE per band and program;
- synthetic variation (alignment_variation.toml): per (warp, rate noise) the best alignment and the best one-run
  multiplexing, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mpx.experiment.alignment import alignment_frontier, alignment_tables  # noqa: E402


def load(store: Path) -> pd.DataFrame:
    """The ``alignment`` rows of a store (every experiment in it)."""
    from mpx.experiment.store import open_store

    db = store / "results.sqlite"
    if not db.is_file():
        sys.exit(f"{store}: no results.sqlite (run the alignment config with --out {store})")
    rows = open_store(db).table("alignment", None, None)
    if rows.empty:
        sys.exit(f"{store}: no alignment rows")
    return rows


def _md(df: pd.DataFrame, pct: bool = False) -> str:
    """A DataFrame (its index as leading columns) as a markdown table: percentages (a column named with %, or
    every value column when ``pct``) with one decimal, ratios and events per counter with two."""
    d = df.reset_index()
    lead = df.index.nlevels

    def cell(col: str, j: int, v) -> str:
        if pd.isna(v):
            return "-"
        if not isinstance(v, float):
            return str(v)
        if "%" in col or (pct and j >= lead):
            return f"{v:.1f}"
        return f"{v:.2f}" if ("/" in col or "ratio" in col) else f"{v:g}"
    rows = [[cell(str(c), j, v) for j, (c, v) in enumerate(zip(d.columns, row))] for row in d.itertuples(index=False)]
    return "\n".join(["| " + " | ".join(map(str, d.columns)) + " |", "|" + " --- |" * d.shape[1]]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def _label(t: pd.DataFrame) -> pd.Series:
    return pd.Series([m if a == "-" else f"{m}@{a}" for m, a in zip(t["method"], t["anchor"])], index=t.index)


def counters_tables(rows: pd.DataFrame, counters: list[int]) -> str:
    """The best method of each road per program and counter count, then every method at ``counters``."""
    best = next(iter(alignment_tables(rows).values()))
    best = best.drop(columns=[c for c in ("floor %",) if c in best])
    out = ["WAPE on every window of the reference run (%), median over the three references; R = the alignment "
           "plan's run count; mux sampling = the multiplexed run's mean sampling ratio.", "", _md(best), ""]
    t = alignment_frontier(rows)
    t = t[t["counters"].isin(counters) & t["road"].isin(["alignment", "multiplex"])]
    t = t.assign(label=_label(t), col=[f"{w} {int(k)}" for w, k in zip(t["workload"], t["counters"])])
    piv = (100 * t.pivot_table(index=["road", "label"], columns="col", values="wape_all", aggfunc="min")).round(1)
    out += [f"Every method at {' and '.join(map(str, counters))} counters (WAPE %):", "", _md(piv, pct=True)]
    return "\n".join(out)


def band_table(rows: pd.DataFrame) -> str:
    """DTW's WAPE per band (rows) and program (columns)."""
    t = alignment_frontier(rows)
    band = [json.loads(p)["dtw"]["band"] if isinstance(p, str) else p["dtw"]["band"] for p in t["alignment_params"]]
    t = t.assign(band=band, col=[f"{w} {int(k)}" for w, k in zip(t["workload"], t["counters"])])
    t = t[t["road"] == "alignment"]
    piv = (100 * t.pivot_table(index="band", columns="col", values="wape_all", aggfunc="min")).round(1)
    return "DTW on Ir, WAPE % per band (share of the series' length), 4 counters:\n\n" + _md(piv, pct=True)


def variation_table(rows: pd.DataFrame) -> str:
    """Per (warp, rate noise): the best alignment and the best one-run multiplexing, their ratio, and the
    alignment methods on each anchor."""
    t = alignment_frontier(rows)
    t = t.assign(label=_label(t))
    out = []
    for (warp, noise), g in t.groupby(["synthetic_warp", "synthetic_rate_noise"]):
        al = g[g["road"] == "alignment"]
        mx = g[g["road"] == "multiplex"]
        a, m = al.loc[al["wape_all"].idxmin()], mx.loc[mx["wape_all"].idxmin()]
        row = {"warp sigma": warp, "rate noise sigma": noise, "best alignment": a["label"],
               "alignment %": round(100 * a["wape_all"], 1), "best 1-run multiplexing": m["label"],
               "multiplexing %": round(100 * m["wape_all"], 1),
               "alignment / multiplexing": round(a["wape_all"] / m["wape_all"], 2)}
        for lab in sorted(al["label"].unique()):
            row[f"{lab} %"] = round(100 * al.loc[al["label"] == lab, "wape_all"].min(), 1)
        out.append(row)
    df = pd.DataFrame(out).set_index(["warp sigma", "rate noise sigma"])
    return ("Copies of one pywc run with synthetic variation (rate noise: each event's counts in each of 20 "
            "stretches scaled by exp(N(0, sigma)); warp: each stretch's length), 4 counters, WAPE %:\n\n" + _md(df))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("store", type=Path, help="results folder of an alignment experiment")
    ap.add_argument("--counters", type=int, nargs="+", default=[4, 8], help="the every-method table's counters")
    ap.add_argument("--markdown", metavar="OUT", help="write the tables as a generated block of docs/alignment.md "
                    "(header: this command and the commit; '-': stdout)")
    a = ap.parse_args(argv)
    rows = load(a.store)
    if "synthetic_rate_noise" in rows and rows["synthetic_rate_noise"].notna().any():
        body, kind = variation_table(rows), "variation"
    elif "alignment_params" in rows and rows["alignment_params"].nunique() > 1:
        body, kind = band_table(rows), "band"
    else:
        body, kind = counters_tables(rows, a.counters), "counters"
    if not a.markdown:
        print(body)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import doc_tables

    cmd = f"python experiments/analyses/alignment_tables.py {a.store}"
    cmd += ("" if a.counters == [4, 8] or kind != "counters" else " --counters " + " ".join(map(str, a.counters)))
    cmd += " --markdown -"
    doc_tables.write_block(f"alignment-{kind}", cmd, body, a.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
