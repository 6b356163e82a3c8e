"""Issue 25's scale study: does the ranking of the scalers hold when the multiplexing quantum grows from the
5 us grain of the gem5 recordings to the 0.4-4 ms of real multiplexing, and across three callgrind grains?

Reads the results of ``mpx run experiments/timescale.toml`` (the ``scores`` and ``events`` tables of the
store's results.sqlite, every experiment of the suite) and prints, in markdown, the tables of docs/timescale.md;
draws ``timescale.png`` next to them:

    python experiments/analyses/timescale.py results/timescale [--scheduler perf] [--figure docs/timescale.png]

Per scale (gem5: quantum in simulated time and which recording, the shipped 5 ms start-up traces or the
steady-state 50 ms ones; callgrind: basic blocks per quantum), per scaler: the headline measure ``wape_all``
(mpx's scoring: share of the counts that are wrong, every window of every event charged) as the mean over
the programs with the lowest and highest program beside it, and the rank of that mean; then Kendall's tau
of each scale's ranking against the finest scale of its family (same programs), and how variable the truth
is at that scale (median over events and programs of the coefficient of variation of the true read-window
counts: ``cv`` of the events table). Only scales with at least ``--min-windows`` read windows per trace are
ranked (fewer windows: listed, marked).

Intervals are 95 % percentile intervals of 2,000 bootstrap resamples of the *programs* (seed 0), paired: the same
resampled programs for every scaler and every scale of a family (`mpx.studies.compare.paired_bootstrap`), so
Kendall's tau and the best scaler get an interval (the share of resamples) too. Programs, not windows, are
resampled: the read windows of one program are consecutive stretches of one run (correlated), and each enters
through its program's ``wape_all``; the tables give the windows pooled per scale (programs x windows per trace).

    python experiments/analyses/timescale.py results/timescale --markdown -                   # docs/timescale.md, perf
    python experiments/analyses/timescale.py results/timescale --scheduler round_robin --rankings --markdown -
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
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


BOOT = 2000


def _family_scales(r: pd.DataFrame, fam: str, cv: pd.Series, min_windows: int) -> list[dict]:
    """The scales of one family and read period, finest first: label, per-program wape_all (scaler x program),
    windows per trace, median cv, rotation, whether ranked."""
    out = []
    for key in sorted(r["scale_key"].unique()):
        c = r[r["scale_key"] == key]
        label = c["scale"].iloc[0]
        if fam == "callgrind":  # callgrind dumps at valgrind's thread time slices: say the real grain
            quantum = float(np.median(c["read_window"] / c["read_every"]))
            label = f"{label} ({quantum / 1e6:.2f}M insts)"
        per = c.groupby(["scaler", "program"])["wape_all"].mean().unstack()
        nwin = c.groupby("program")["n_windows"].min()
        cells = c.drop_duplicates("cell_key")["cell_key"]
        out.append({"label": label, "per": per, "lo": int(nwin.min()), "hi": int(nwin.max()),
                    "pooled": int(nwin.sum()), "cv": float(np.nanmedian(cv.reindex(cells))),
                    "rot": float(c["rotation_quanta"].median()), "ranked": int(nwin.min()) >= min_windows})
    return out


def _resamples(programs: list[str], boot: int = BOOT, seed: int = 0) -> np.ndarray:
    """``boot`` resamples of the programs' positions (the same for every scaler and scale: paired)."""
    return np.random.default_rng(seed).integers(0, len(programs), (boot, len(programs)))


def _boot_means(per: pd.DataFrame, programs: list[str], idx: np.ndarray) -> np.ndarray:
    """Per resample the mean over the resampled programs of each scaler (rows of ``per``): ``[boot, scalers]``;
    a scaler without a value on a program is averaged over the programs it has (NaN-skipping, as the point
    estimate)."""
    a = per.reindex(columns=programs).to_numpy(np.float64)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(a[:, idx], axis=2).T


def _ranks(m: np.ndarray) -> np.ndarray:
    """Ranks (1 = lowest error, ties share the lowest rank; no value ranks last) along the last axis."""
    m = np.where(np.isfinite(m), m, np.inf)
    return (m[..., None, :] < m[..., :, None]).sum(axis=-1) + 1.0


def _kendall(a: pd.Series, b: pd.Series) -> float:
    a, b = a.align(b, join="inner")
    x, y = a.to_numpy(), b.to_numpy()
    n, s = len(x), 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return float(2 * s / (n * (n - 1))) if n > 1 else float("nan")


def _tau_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's tau (tau-a: ties count 0, as `_kendall`) of each row of ``a`` against the same row of ``b``."""
    k = a.shape[-1]
    i, j = np.triu_indices(k, 1)
    s = (np.sign(a[..., i] - a[..., j]) * np.sign(b[..., i] - b[..., j])).sum(axis=-1)
    return 2 * s / (k * (k - 1))


def _ci(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    return (float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))) if x.size else (np.nan, np.nan)


def _study(s: pd.DataFrame, fam: str, cv: pd.Series, min_windows: int) -> list[dict]:
    """Per read period of one family: its scales, the programs, the common scaler order, the bootstrap means
    per scale, the rankings' taus against the finest ranked scale with intervals, the best scaler per scale with
    its share of resamples."""
    out = []
    for read_every, r in s.groupby("read_every"):
        scales = _family_scales(r, fam, cv, min_windows)
        programs = sorted(r["program"].unique())
        scalers = sorted(set().union(*(sc["per"].index for sc in scales)))
        idx = _resamples(programs)
        for sc in scales:
            sc["per"] = sc["per"].reindex(scalers)
            sc["mean"] = sc["per"].mean(axis=1)
            sc["boot"] = _boot_means(sc["per"], programs, idx)
            sc["n_prog"] = sc["per"].notna().sum(axis=1)
            best = np.nanargmin(np.where(np.isfinite(sc["boot"]), sc["boot"], np.inf), axis=1)
            sc["best"] = sc["mean"].idxmin()
            sc["best_share"] = float((best == scalers.index(sc["best"])).mean())
        ranked = [sc for sc in scales if sc["ranked"]]
        taus = []
        if len(ranked) >= 2:
            base = ranked[0]
            for sc in ranked[1:]:
                t0 = _kendall(pd.Series(_ranks(base["mean"].to_numpy()), base["mean"].index),
                              pd.Series(_ranks(sc["mean"].to_numpy()), sc["mean"].index))
                tb = _tau_rows(_ranks(base["boot"]), _ranks(sc["boot"]))
                taus.append((base["label"], sc["label"], t0, *_ci(tb)))
        out.append({"read_every": int(read_every), "scales": scales, "programs": programs, "scalers": scalers,
                    "taus": taus, "min_windows": min_windows})
    return out


def tables(scores: pd.DataFrame, events: pd.DataFrame, min_windows: int, per_program: bool = True) -> str:
    out: list[str] = []
    cv = events.groupby("cell_key")["cv"].median()  # per cell: median over events
    for fam in FAMILY_ORDER:
        s = scores[scores["family"] == fam]
        if s.empty:
            out.append(f"#### {fam}\n\nno results (not recorded or not run yet)\n")
            continue
        for st in _study(s, fam, cv, min_windows):
            scales = st["scales"]
            q = "basic blocks per quantum" if fam == "callgrind" else "quantum"
            out.append(f"#### {fam}, a read every {st['read_every']} quanta\n")
            out.append(f"{len(st['programs'])} programs: {', '.join(st['programs'])}\n")
            out.append(f"| {q} | programs | read windows per trace | read windows pooled | median cv of true window "
                       f"counts | rotation (quanta) | ranked |")
            out.append("| --- | --- | --- | --- | --- | --- | --- |")
            for sc in scales:
                out.append(f"| {sc['label']} | {sc['per'].shape[1]} | {sc['lo']}-{sc['hi']} | {sc['pooled']:,} | "
                           f"{sc['cv']:.2f} | {sc['rot']:g} | "
                           f"{'yes' if sc['ranked'] else f'no (< {min_windows} windows)'} |")
            out.append("")
            first = next((sc for sc in scales if sc["ranked"]), scales[0])
            order = first["mean"].sort_values().index
            n = len(st["programs"])
            out.append("wape_all % (mean over programs [95 % bootstrap interval, programs resampled]); rank of the "
                       "mean in ( ) where ranked:\n")
            out.append("| scaler | " + " | ".join(sc["label"] for sc in scales) + " |")
            out.append("| --- |" + " --- |" * len(scales))
            for name in order:
                j = st["scalers"].index(name)
                cells = []
                for sc in scales:
                    m = sc["mean"][name]
                    if not np.isfinite(m):
                        cells.append("-")
                        continue
                    lo, hi = _ci(sc["boot"][:, j])
                    rank = sc["mean"].rank(method="min")[name]
                    part = "" if sc["n_prog"][name] == n else f", {sc['n_prog'][name]} of {n} programs"
                    cells.append(f"{m:.1f} [{lo:.1f}, {hi:.1f}]" + (f" ({int(rank)})" if sc["ranked"] else "") + part)
                out.append(f"| {name} | " + " | ".join(cells) + " |")
            out.append("")
            out.append(_rank_table(fam, st))
            if per_program and fam == FAMILY_ORDER[1] and st["read_every"] == 1:
                out.append(_per_program(st))
    return "\n".join(out)


def _rank_table(fam: str, st: dict) -> str:
    """The ranking at each scale against the finest ranked one: Kendall's tau with its interval, the best scaler
    and the share of resamples in which it is the best."""
    lines = ["| family | read every (quanta) | scale | Kendall tau vs the finest scale [95 %] | best scaler "
             "(share of resamples best) |", "| --- | --- | --- | --- | --- |"]
    taus = {b: (t, lo, hi) for _, b, t, lo, hi in st["taus"]}
    base = next((sc["label"] for sc in st["scales"] if sc["ranked"]), None)
    for sc in st["scales"]:
        if not sc["ranked"]:
            lines.append(f"| {fam} | {st['read_every']} | {sc['label']} | not ranked (< {st['min_windows']} "
                         "windows) | - |")
            continue
        tau = "(the finest)" if sc["label"] == base else "{:+.2f} [{:+.2f}, {:+.2f}]".format(*taus[sc["label"]])
        lines.append(f"| {fam} | {st['read_every']} | {sc['label']} | {tau} | {sc['best']} "
                     f"({100 * sc['best_share']:.0f} %) |")
    return "\n".join(lines) + "\n"


def _per_program(st: dict) -> str:
    """Per program, the best scaler of the finest scale, linear and fusion at every scale (wape_all %)."""
    best = st["scales"][0]["best"]
    cols = [(f"{best} {sc['label']}", sc["per"].loc[best]) for sc in st["scales"]]
    for other in ("linear", "fusion"):  # the baseline, and the learned scaler whose mean a few programs decide
        cols += [(f"{other} {sc['label']}", sc["per"].loc[other]) for sc in st["scales"] if other in sc["per"].index]
    lines = ["Per program (wape_all %):\n", "| program | " + " | ".join(c for c, _ in cols) + " |",
             "| --- |" + " --- |" * len(cols)]
    for prog in st["programs"]:
        lines.append(f"| {prog} | " + " | ".join("-" if not np.isfinite(v.get(prog, np.nan)) else f"{v[prog]:.1f}"
                                                  for _, v in cols) + " |")
    return "\n".join(lines) + "\n"


def rankings(scores: pd.DataFrame, events: pd.DataFrame, min_windows: int) -> str:
    """Only the ranking tables of every family (`_rank_table`), one table."""
    cv = events.groupby("cell_key")["cv"].median()
    lines: list[str] = []
    for fam in FAMILY_ORDER:
        s = scores[scores["family"] == fam]
        for st in ([] if s.empty else _study(s, fam, cv, min_windows)):
            body = _rank_table(fam, st).rstrip("\n").split("\n")
            lines += body if not lines else body[2:]
    return "\n".join(lines)


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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store", type=Path, help="results folder of mpx run experiments/timescale.toml")
    p.add_argument("--scheduler", default="perf")
    p.add_argument("--min-windows", type=int, default=8)
    p.add_argument("--rankings", action="store_true", help="only the ranking table (tau and best scaler per scale)")
    p.add_argument("--markdown", metavar="OUT", help="write the tables as a generated block of docs/timescale.md "
                   "(header: this command and the commit; '-': stdout; experiments/doc_tables.py splices it)")
    p.add_argument("--figure", type=Path, default=None, help="write the figure there (PNG)")
    a = p.parse_args(argv)
    scores, events = load(a.store, a.scheduler)
    body = rankings(scores, events, a.min_windows) if a.rankings else tables(scores, events, a.min_windows)
    datasets = sorted(scores["dataset"].unique())
    note = (f"{len(scores.drop_duplicates('cell_key'))} cells ({a.scheduler}), datasets {', '.join(datasets)}")
    if a.markdown:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import doc_tables

        cmd = f"python experiments/analyses/timescale.py {a.store} --scheduler {a.scheduler}"
        cmd += (" --rankings" if a.rankings else "") + " --markdown -"
        if a.min_windows != 8:
            cmd = cmd.replace(" --markdown -", f" --min-windows {a.min_windows} --markdown -")
        block = "timescale-" + a.scheduler.replace("_", "-") + ("-rankings" if a.rankings else "")
        text = doc_tables.block_header(block, cmd, doc_tables.commit()) + "\n" + body + "\n"
        if a.markdown == "-":
            print(text)
        else:
            Path(a.markdown).write_text(text)
    else:
        print(f"<!-- python experiments/analyses/timescale.py {a.store} --scheduler {a.scheduler}: {note} -->\n")
        print(body)
    if a.figure:
        figure(scores, a.figure)


if __name__ == "__main__":
    main()
