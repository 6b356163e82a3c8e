"""The study pages of the site, from the same stores and only where they hold the study's rows: the claims
ledger (`mpx.studies.claims.ledger`, as ``docs/claims.md``), the top-down verdict study
(`mpx.studies.verdict_tables.verdict_tables`, as ``mpx report`` prints it) and the time-scale study (the headline
measure per scaler at each quantum of the ``timescale*`` experiments, as the tables of ``docs/timescale.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from mpx.site.html import esc, frame_table, page, slug, write_csv, write_page
from mpx.scoring.measures import HEADLINE_COLUMN
from mpx.studies.compare import per_workload

__all__ = ["claims_frame", "claims_page", "timescale_page", "timescale_tables", "verdict_page", "verdict_frames"]


def claims_frame(stores: Sequence[Any], names: Sequence[str]) -> pd.DataFrame | None:
    """The claims ledger of every store that ran at least one claim's experiment (a ``store`` column says which);
    None when none did."""
    from mpx.studies.claims import CLAIMS, ledger

    wanted = {c.experiment for c in CLAIMS if c.experiment}
    frames = []
    for store, name in zip(stores, names):
        if wanted & set(store.experiments()):
            t = ledger(store)
            t.insert(0, "store", name)
            frames.append(t)
    return pd.concat(frames) if frames else None


def claims_page(out: Path, table: pd.DataFrame, have: Sequence[str]) -> Path:
    """``claims.html``: the ledger's columns as ``docs/claims.md`` has them, and its CSV."""
    cols = ["store", "claim", "source", "paper setting", "paper", "paper scale", "mpx scale", "mpx setting", "mpx",
            "verdict", "why"]
    t = table[[c for c in cols if c in table]]
    write_csv(t, out / "csv" / "claims.csv")
    counts = t["verdict"].value_counts()
    body = ("<p>Every quantitative claim the thesis cites, re-measured in mpx (<code>mpx.studies.claims</code>). "
            + esc(", ".join(f"{v}: {n}" for v, n in counts.items())) + ".</p>"
            + frame_table(t, csv="csv/claims.csv"))
    return write_page(out / "claims.html", page("Claims ledger", body, have=have))


def verdict_frames(stores: Sequence[Any], names: Sequence[str]) -> dict[str, pd.DataFrame]:
    """``mpx report``'s top-down verdict tables (`mpx.studies.verdict_tables.verdict_tables`) per store and experiment;
    title → table, empty when no score row carries verdicts."""
    from mpx.studies.verdict_tables import verdict_tables

    out: dict[str, pd.DataFrame] = {}
    for store, name in zip(stores, names):
        if "scores" not in store.tables():
            continue
        for exp in store.experiments():
            s = store.table("scores", exp)
            if s.empty or "status" not in s:
                continue
            for title, t in verdict_tables(s[s["status"] == "done"]).items():
                out[f"{name} / {exp}: {title}"] = t
    return out


def verdict_page(out: Path, frames: dict[str, pd.DataFrame], have: Sequence[str]) -> Path:
    """``verdicts.html``: each verdict table with its CSV."""
    parts = ["<p>Which top-down verdict a user can trust (<code>docs/verdicts.md</code>): the level-1 bottleneck "
             "read from each estimate against the true one, per read window.</p>"]
    for i, (title, t) in enumerate(frames.items()):
        csv = f"csv/verdicts/{i:02d}-{slug(title)[:60]}.csv"
        write_csv(t, out / csv)
        parts.append(f"<h2>{esc(title.split(': ', 1)[0])}</h2>" + frame_table(t, csv=csv, caption=title, digits=1))
    return write_page(out / "verdicts.html", page("Top-down verdicts", "".join(parts), have=have))


def timescale_tables(stores: Sequence[Any], names: Sequence[str], scheduler: str = "perf") -> dict[str, pd.DataFrame]:
    """Per store, ``timescale*`` experiment and read regime, under ``scheduler``: each scaler's headline measure
    (mean over workloads, `mpx.studies.compare.per_workload`) at each quantum, the rank of that mean per
    quantum, and a last row with Kendall's tau of each quantum's ranking against the finest quantum's."""
    out: dict[str, pd.DataFrame] = {}
    for store, name in zip(stores, names):
        if "scores" not in store.tables():
            continue
        for exp in (e for e in store.experiments() if e.startswith("timescale")):
            s = store.table("scores", exp)
            s = s[(s["status"] == "done") & (s["scheduler"] == scheduler)] if not s.empty else s
            if s.empty or HEADLINE_COLUMN not in s:
                continue
            s = s.assign(**{HEADLINE_COLUMN: pd.to_numeric(s[HEADLINE_COLUMN], errors="coerce")})
            # the recording's grain (callgrind's grains are other datasets of one program) and the quantum in
            # ms where the trace's axis has one, else as the config sets it: a quantum of N intervals is a
            # different length on each trace, so its stored length would split the workloads
            s["grain"] = s["dataset"].map({d: _grain(d) for d in s["dataset"].unique()})
            scale = [k for k in ("quantum_in_ms", "quantum_ms", "quantum_intervals", "quantum")
                     if k in s and s[k].notna().all()][:1]
            if not scale:
                continue
            s[scale[0]] = pd.to_numeric(s[scale[0]], errors="coerce").round(9)
            for read_every, r in s.groupby("read_every", dropna=False):
                cols = {}
                for (grain, q), c in r.groupby(["grain", scale[0]], sort=True):
                    label = f"{q:g} ms" if scale[0] == "quantum_in_ms" else f"{scale[0]} = {q:g}"
                    cols[f"{grain}, {label}" if grain else label] = per_workload(c, HEADLINE_COLUMN).mean(axis=1)
                t = pd.DataFrame(cols)
                if t.empty:
                    continue
                ranks = t.rank(method="min")
                base = t.columns[0]
                tau = {c: (kendalltau(ranks[base], ranks[c], nan_policy="omit").statistic if len(t) > 1 else np.nan)
                       for c in t.columns}
                t = t.copy()
                t.loc["kendall_tau vs finest"] = pd.Series(tau)
                out[f"{name} / {exp}, a read every {read_every} quanta, scheduler {scheduler}: {HEADLINE_COLUMN} "
                    "(fraction, mean over workloads) per quantum; last row: Kendall tau against the finest"] = t
    return out


def _grain(dataset: str) -> str:
    """How finely a shipped dataset was recorded (callgrind: basic blocks per interval; gem5: the dump period);
    "" for a dataset the manifest does not know."""
    from mpx.datasets import shipped
    from mpx.site.pages import literal

    try:
        recipe = literal(shipped.entry(dataset).get("recipe")) or {}
    except (KeyError, LookupError, FileNotFoundError, ValueError):
        return ""
    if recipe.get("interval_bb"):
        return f"{int(recipe['interval_bb']):,} bb dumps"
    return f"{recipe['period_ps'] / 1e6:g} us dumps" if recipe.get("period_ps") else ""


def timescale_page(out: Path, frames: dict[str, pd.DataFrame], have: Sequence[str]) -> Path:
    """``timescale.html``: the tables of `timescale_tables` with their CSVs."""
    parts = ["<p>Does the ranking of the scalers hold when the quantum grows (<code>docs/timescale.md</code>)?</p>"]
    for i, (title, t) in enumerate(frames.items()):
        csv = f"csv/timescale/{i:02d}-{slug(title)[:60]}.csv"
        write_csv(t, out / csv)
        parts.append(f"<h2>{esc(title.split(':', 1)[0])}</h2>" + frame_table(t, csv=csv, caption=title, digits=4))
    return write_page(out / "timescale.html", page("Time scales", "".join(parts), have=have))
