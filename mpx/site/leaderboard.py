"""The leaderboard's rows: every scheduler+scaler pair of every store, ranked on the headline measure per
data-set family x PMU x read regime, with intervals and ties.

`leaderboard_rows` is the one place the site's rankings come from; it computes nothing of its own but
calls `mpx.studies.compare`'s public API on the stores' score rows, exactly as ``mpx report`` ranks pairs
(`mpx.studies.report.rank_pairs`, `winner_text`):

- a **group** is one experiment of one store, one data-set family (simulator and collection of the shipped
  manifest, `family`), one workload set (shipped / held-out), one PMU and counter count, and one value of
  every other setting that varies (`mpx.studies.compare.varying_settings`: a read window, a quantum, a noise
  level are never pooled);
- per pair: ``error``, the headline measure (`mpx.scoring.measures.HEADLINE_COLUMN`) as the mean over
  workloads of the mean over seeds (`per_workload`), its 95 % interval from the paired bootstrap over
  workloads (`paired_bootstrap`, 2.5 / 97.5 percentiles), ``coverage``;
- the choice of the lowest redone in every resample (`select_best`): ``p_best``, the ratio to the lowest
  with its paired interval and its simultaneous lower bound, and ``tied``: the data cannot separate the pair
  from the lowest allowing for the choice among all pairs. ``rank`` is 1 for the lowest and every pair tied
  with it; then the position by mean. A pair without a value on every workload is listed, not ranked;
- ``best_schedule``: the scheduler is the pair's scaler's lowest in the group (the view "each scaler on its
  own best schedule"; the same-schedule view is every row of one scheduler).

Each scaler's null baselines (#34: the constant rate of its causality, its fill-matched baseline) are judged
on its own best schedule and shown on that row (``nulls``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from mpx.studies.compare import BOOT, paired_bootstrap, per_workload, select_best, varying_settings
from mpx.scoring.measures import HEADLINE_COLUMN

__all__ = ["GROUP_KEYS", "family", "leaderboard_rows", "null_columns", "rank_group"]

#: the columns that name a leaderboard group (besides the settings that vary in it, listed in ``settings``)
GROUP_KEYS = ("store", "experiment", "family", "set", "pmu", "counters")


def family(dataset: str) -> str:
    """The data-set family of a shipped dataset: its simulator, and its collection when not the main one
    (``callgrind``, ``gem5``, ``gem5 (gem5-long)``, ``callgrind (callgrind-grains)``); ``other`` for a name the
    manifest does not know (a synthetic trace, a file)."""
    from mpx.datasets import shipped

    try:
        e = shipped.entry(dataset)
    except (KeyError, LookupError, FileNotFoundError, ValueError):
        return "other"
    sim = (e.get("recipe") or {}).get("simulator", "callgrind")
    col = shipped.collection(e)
    return sim if col == shipped.MAIN else f"{sim} ({col})"


def _regime(g: pd.DataFrame) -> str:
    """The read regime in words: quanta per read, and where known perf's rotation and which side of it."""
    read = pd.to_numeric(g.get("read_every"), errors="coerce").median() if "read_every" in g else np.nan
    perf = g[g["scheduler"] == "perf"] if "read_per_rotation" in g else g.iloc[:0]
    per = pd.to_numeric(perf["read_per_rotation"], errors="coerce").median() if len(perf) else np.nan
    text = f"a read every {read:g} quanta" if np.isfinite(read) else "read window unknown"
    if np.isfinite(per):
        text += f"; {per:.2f} of perf's rotations ({'shorter than' if per < 1 else 'at least'} one rotation)"
    ms = pd.to_numeric(g.get("read_window_in_ms"), errors="coerce").median() if "read_window_in_ms" in g else np.nan
    return text + (f"; {ms:g} ms" if np.isfinite(ms) else "")


def null_columns(rows: pd.DataFrame, ok: pd.DataFrame) -> pd.DataFrame:
    """The null baselines of one group (`mpx.studies.compare.null_baselines`, the nulls each scaler must beat
    from `mpx.studies.fair.null_nulls`), joined on each scaler's own best schedule: ``nulls`` says, per null,
    whether the scaler beats it (``beats``, ``does not beat``, ``not separated``) with the ratio. The fair-terms
    view itself is the leaderboard filtered to each scaler's best schedule (``best_schedule``): the ratio to
    the lowest pair is then each side on its own best schedule."""
    from mpx.studies.compare import null_baselines
    from mpx.studies.fair import null_nulls

    rows = rows.copy()
    rows["nulls"] = ""
    try:
        nt = null_baselines(ok, null_nulls(ok))
    except (KeyError, ValueError):  # rows without the columns the nulls need (no causal flag): no verdicts
        return rows
    for (scaler, sched), g in nt.groupby(["scaler", "scheduler"]) if not nt.empty else ():
        text = "; ".join(f"{v}{' from' if v == 'not separated' else ''} {n} ({r:.2f}x)"
                         for v, n, r in zip(g["verdict"], g["null"], g["ratio"]))
        rows.loc[(rows["scheduler"] == sched) & (rows["scaler"] == scaler), "nulls"] = text
    return rows



def rank_group(ok: pd.DataFrame, boot: int = BOOT, seed: int = 0) -> pd.DataFrame:
    """The ranked pairs of one group's ``done`` score rows (see the module docstring), best first."""
    pair = ("scheduler", "scaler")
    per = per_workload(ok, HEADLINE_COLUMN, pair)
    samples = paired_bootstrap(per, boot, seed)
    with np.errstate(invalid="ignore"):
        lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    cov = per_workload(ok, "coverage_all", pair).reindex(per.index).mean(axis=1) if "coverage_all" in ok else np.nan
    causal = ok.groupby("scaler")["causal"].first().astype(bool) if "causal" in ok else pd.Series(dtype=bool)
    out = pd.DataFrame({"error": per.mean(axis=1, skipna=False), "error_lo": lo, "error_hi": hi, "coverage": cov,
                        "workloads": per.notna().sum(axis=1), "complete": per.notna().all(axis=1)}, index=per.index)
    sel = select_best(per, boot, seed)
    for c in ("p_best", "ratio", "ratio_lo", "ratio_hi", "ratio_simul"):
        out[c] = sel["rows"][c] if sel else np.nan
    best = sel.get("best")
    tied = set(sel.get("tied", ()))
    out["best"] = [k == best for k in out.index]
    out["tied"] = [k in tied for k in out.index]
    out = out.reset_index()
    out["causal"] = out["scaler"].map(causal)
    out = out.sort_values(["complete", "error"], ascending=[False, True], kind="mergesort").reset_index(drop=True)
    position = np.arange(1, len(out) + 1, dtype=float)
    out["rank"] = np.where(out["best"] | out["tied"], 1.0, np.where(out["complete"], position, np.nan))
    lowest = out[out["complete"]].groupby("scaler")["error"].idxmin()
    out["best_schedule"] = out.index.isin(lowest.to_numpy())
    out["pairs"] = int(out["complete"].sum())
    return null_columns(out, ok)


def leaderboard_rows(stores: Sequence[Any], names: Sequence[str] | None = None, boot: int = BOOT,
                     seed: int = 0) -> pd.DataFrame:
    """One row per (group, scheduler, scaler) of the read-only results ``stores`` (`mpx.experiment.store`;
    ``names``: how each store is called on the site, default its folder's name), groups as in the module
    docstring; columns `GROUP_KEYS`, ``settings`` (the varying settings as ``k = v`` text), ``regime``,
    ``workloads_in_group``, the pair, ``causal``, ``error``/``error_lo``/``error_hi``, ``coverage``,
    ``p_best``, ``ratio``/``ratio_lo``/``ratio_hi``/``ratio_simul``, ``best``, ``tied``, ``rank``,
    ``complete``, ``best_schedule``, ``pairs`` and ``estimate_seconds`` (median over the group's cells).
    Empty when no store holds scaling rows with the headline measure."""
    frames = []
    for i, store in enumerate(stores):
        name = names[i] if names else store.path.parent.name
        if "scores" not in store.tables():
            continue
        for exp in store.experiments():
            scores = store.table("scores", exp)
            if scores.empty or HEADLINE_COLUMN not in scores:
                continue
            ok = scores[scores["status"] == "done"].copy()
            ok[HEADLINE_COLUMN] = pd.to_numeric(ok[HEADLINE_COLUMN], errors="coerce")
            ok = ok[ok[HEADLINE_COLUMN].notna()]
            if ok.empty:
                continue
            fam = {d: family(d) for d in ok["dataset"].unique()}
            ok["family"] = ok["dataset"].map(fam)
            held = pd.to_numeric(ok["heldout"], errors="coerce").fillna(0) if "heldout" in ok else 0
            ok["set"] = np.where(np.asarray(held, dtype=float) > 0, "held-out", "shipped")
            other = varying_settings(ok, exclude=("counters",))
            keys = ["family", "set", "pmu", "counters", *other]
            for values, g in ok.groupby(keys, sort=True, dropna=False):
                rows = rank_group(g, boot, seed)
                fam_, set_, pmu, k, *vals = values
                secs = (pd.to_numeric(g["estimate_seconds"], errors="coerce").groupby([g["scheduler"], g["scaler"]])
                        .median() if "estimate_seconds" in g else None)
                rows.insert(0, "store", name)
                rows.insert(1, "experiment", exp)
                rows.insert(2, "family", fam_)
                rows.insert(3, "set", set_)
                rows.insert(4, "pmu", pmu)
                rows.insert(5, "counters", int(k))
                rows.insert(6, "settings", ", ".join(f"{a} = {b:g}" if isinstance(b, float) else f"{a} = {b}"
                                                     for a, b in zip(other, vals)))
                rows.insert(7, "regime", _regime(g))
                rows.insert(8, "workloads_in_group", int(g["workload"].nunique()))
                pairs = zip(rows["scheduler"], rows["scaler"])
                rows["estimate_seconds"] = [secs.get(k, np.nan) for k in pairs] if secs is not None else np.nan
                frames.append(rows)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
