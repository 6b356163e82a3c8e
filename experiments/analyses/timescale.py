"""Issue 25's scale study: does the ranking of the scalers hold when the multiplexing quantum grows from the
5 us grain of the gem5 recordings to the 0.4-4 ms of real multiplexing, and across three callgrind grains?

Reads the results of ``mpx run experiments/timescale.toml`` (the ``scores`` and ``events`` tables of the
store's results.sqlite, every experiment of the suite) and prints, in markdown, the tables of docs/timescale.md; draws ``timescale.png`` next to them:

    python experiments/analyses/timescale.py results/timescale [--scheduler perf] [--figure docs/timescale.png]

Per scale (gem5: quantum in simulated time and which recording, the shipped 5 ms start-up traces or the
steady-state 50 ms ones; callgrind: basic blocks per quantum), per scaler: the headline measure ``wape_all``
(mpx's scoring: share of the counts that are wrong, every window of every event charged) as the mean over
the programs with the lowest and highest program beside it, and the rank of that mean; then Kendall's tau
of each scale's ranking against the finest scale of its family (same programs), and how variable the truth
is at that scale (median over events and programs of the coefficient of variation of the true read-window
counts: ``cv`` of the events table). Only scales with at least ``--min-windows`` read windows per trace are
ranked (fewer windows: listed, marked).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

FAMILY_ORDER = ("gem5 start-up (5 ms)", "gem5 steady (50 ms)", "callgrind")


def _program(dataset: str) -> str:
    """gem5-long-xz, gem5-xz -> xz; sqlite-bb30k, sqlite -> sqlite."""
    name = re.sub(r"^gem5-(long-)?", "", dataset)
    return re.sub(r"-bb(30k|3m)$", "", name)


def _scale(row: pd.Series) -> tuple[str, float, str]:
    """(family, sort key, label) of a scores row."""
    ds = row["dataset"]
    if ds.startswith("gem5-"):
        q = float(row["quantum"]) if pd.notna(row["quantum"]) else np.nan
        fam = FAMILY_ORDER[1] if ds.startswith("gem5-long-") else FAMILY_ORDER[0]
        label = f"{q / 1e9:g} ms" if q >= 1e8 else f"{q / 1e6:g} us"
        return fam, q, label
    bb = {"bb30k": 30_000, "bb3m": 3_000_000}.get(ds.rsplit("-", 1)[-1], 300_000)
    return FAMILY_ORDER[2], float(bb), f"{bb:,} bb"


def load(store: Path, scheduler: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    from mpx.experiment.store import open_store

    db = store / "results.sqlite"
    if not db.is_file():
        sys.exit(f"{store}: no results.sqlite (run: mpx run experiments/timescale.toml --out {store})")
    st = open_store(db)  # every experiment of the suite (csv/ holds the last config's only)
    scores, events = st.table("scores", None, None), st.table("events", None, None)
    events = events[["cell_key", "scaler", "event", "cv"]]
    scores = scores[(scores["status"] == "done") & (scores["scheduler"] == scheduler)].copy()
    scores["wape_all"] = 100 * scores["wape_all"]  # stored as a fraction
    if scores.empty:
        sys.exit(f"{store}: no finished cell with scheduler {scheduler!r}")
    fam = scores.apply(_scale, axis=1, result_type="expand")
    scores["family"], scores["scale_key"], scores["scale"] = fam[0], fam[1], fam[2]
    scores["program"] = scores["dataset"].map(_program)
    return scores, events


def tables(scores: pd.DataFrame, events: pd.DataFrame, min_windows: int) -> str:
    out: list[str] = []
    cv = events.groupby("cell_key")["cv"].median()  # per cell: median over events
    for fam in FAMILY_ORDER:
        s = scores[scores["family"] == fam]
        if s.empty:
            out.append(f"### {fam}\n\nno results (not recorded or not run yet)\n")
            continue
        for read_every, r in s.groupby("read_every"):
            scales = sorted(r["scale_key"].unique())
            rows, ranks, info = {}, {}, []
            for key in scales:
                c = r[r["scale_key"] == key]
                label = c["scale"].iloc[0]
                progs = sorted(c["program"].unique())
                per = c.groupby(["scaler", "program"])["wape_all"].mean().unstack()
                mean = per.mean(axis=1)
                nwin = int(c["n_windows"].min())
                ok = nwin >= min_windows
                rows[label] = {sc: f"{mean[sc]:.1f} [{per.loc[sc].min():.1f}-{per.loc[sc].max():.1f}]"
                               for sc in mean.index}
                if ok:
                    ranks[label] = mean.rank(method="min")
                cells = c.drop_duplicates("cell_key")["cell_key"]
                quantum = float(np.median(c["read_window"] / c["read_every"]))
                if fam == "callgrind":  # callgrind dumps at valgrind's thread time slices: say the real grain
                    label = f"{label} ({quantum / 1e6:.2f}M insts)"
                    rows[label] = rows.pop(c["scale"].iloc[0])
                    if ok:
                        ranks[label] = ranks.pop(c["scale"].iloc[0])
                info.append((label, len(progs), int(c["n_windows"].min()), int(c["n_windows"].max()),
                             float(np.nanmedian(cv.reindex(cells))), float(c["rotation_quanta"].median()),
                             ok))
            q = "basic blocks per quantum" if fam == "callgrind" else "quantum"
            out.append(f"### {fam}, a read every {read_every} quanta\n")
            out.append(f"| {q} | programs | read windows per trace | median cv of true window counts | "
                       f"rotation (quanta) | ranked |")
            out.append("| --- | --- | --- | --- | --- | --- |")
            for label, n, lo, hi, c_, rot, ok in info:
                out.append(f"| {label} | {n} | {lo}-{hi} | {c_:.2f} | {rot:g} | "
                           f"{'yes' if ok else f'no (< {min_windows} windows)'} |")
            out.append("")
            table = pd.DataFrame(rows)
            rk = pd.DataFrame(ranks)
            order = table.index if rk.empty else rk.iloc[:, 0].sort_values().index
            out.append("wape_all % (mean over programs [lowest-highest program]); rank of the mean in ( ):\n")
            out.append("| scaler | " + " | ".join(table.columns) + " |")
            out.append("| --- |" + " --- |" * len(table.columns))
            for sc in order:
                cells = [f"{table.loc[sc, col]}" + (f" ({int(rk.loc[sc, col])})" if col in rk else "")
                         for col in table.columns]
                out.append(f"| {sc} | " + " | ".join(cells) + " |")
            if rk.shape[1] >= 2:
                base = rk.columns[0]
                taus = {col: _kendall(rk[base], rk[col]) for col in rk.columns[1:]}
                best = {col: rk[col].idxmin() for col in rk.columns}
                out.append("")
                out.append(f"Kendall tau of the ranking against {base}: "
                           + ", ".join(f"{col} {t:+.2f}" for col, t in taus.items())
                           + "; best scaler: " + ", ".join(f"{col} {b}" for col, b in best.items()))
            out.append("")
    return "\n".join(out)


def _kendall(a: pd.Series, b: pd.Series) -> float:
    a, b = a.align(b, join="inner")
    x, y = a.to_numpy(), b.to_numpy()
    n, s = len(x), 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return float(2 * s / (n * (n - 1))) if n > 1 else float("nan")


def figure(scores: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fams = [f for f in FAMILY_ORDER if (scores["family"] == f).any()]
    fig, axes = plt.subplots(1, len(fams), figsize=(4.2 * len(fams), 3.6), squeeze=False)
    for ax, fam in zip(axes[0], fams):
        s = scores[(scores["family"] == fam)]
        re_min = s["read_every"].max() if fam == "callgrind" else 10
        s = s[s["read_every"] == re_min] if (s["read_every"] == re_min).any() else s
        for sc, c in s.groupby("scaler"):
            m = c.groupby("scale_key")["wape_all"].mean()
            x = m.index.to_numpy() / (1.0 if fam == "callgrind" else 1e9)  # gem5 ticks are ps: ms
            ax.plot(x, m.to_numpy(), marker="o", label=sc)
        ax.set_xscale("log")
        ax.set_xlabel("basic blocks per quantum (nominal)" if fam == "callgrind" else "quantum (ms of simulated time)")
        ax.set_ylabel("wape_all % (mean over programs)")
        ax.set_title(f"{fam}, read every {re_min} quanta", fontsize=9)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}", file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store", type=Path, help="results folder of mpx run experiments/timescale.toml")
    p.add_argument("--scheduler", default="perf")
    p.add_argument("--min-windows", type=int, default=8)
    p.add_argument("--figure", type=Path, default=None, help="write the figure there (PNG)")
    a = p.parse_args()
    scores, events = load(a.store, a.scheduler)
    datasets = sorted(scores["dataset"].unique())
    print(f"<!-- python experiments/analyses/timescale.py {a.store} --scheduler {a.scheduler}: "
          f"{len(scores.drop_duplicates('cell_key'))} cells, datasets {', '.join(datasets)} -->\n")
    print(tables(scores, events, a.min_windows))
    if a.figure:
        figure(scores, a.figure)


if __name__ == "__main__":
    main()
