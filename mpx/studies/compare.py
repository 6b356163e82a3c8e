"""Paired comparisons of scalers over workloads: every measure with a bootstrap interval, the stability
of the ranking across measures, and each new method against the best *other* scaler.

`measure_intervals` and `ranking_stability` are the scoring protocol of ``docs/scoring.md``: on the
score rows of one setting and one scheduler, each scaler's mean over workloads of every measure of
`mpx.scoring.measures` on a window set, with a 95% percentile interval from resampling workloads **in pairs**
(the same resampled workloads for every scaler and every measure, so a workload that is hard for all
counts once and intervals of two scalers can be compared), and the ranking under each measure beside
the headline's (`mpx.scoring.measures.HEADLINE`).

The headline question of a new estimator is "by how much does it beat the best baseline?". `headline`
answers it from stored score rows (`mpx.experiment.store`, table ``scores``): per workload set (shipped /
``[data] heldout``), scheduler and counter count, each method's mean error over workloads beside the
best other scaler's — a causal method against causal scalers only, an offline one against all — and
their ratio with a 95% bootstrap interval over workloads (resampled in pairs, so a workload that is hard
for both counts once). The default error is the headline measure (`mpx.scoring.measures.HEADLINE_COLUMN`,
``wape_all``: WAPE over every read window, a window without a value charged, docs/scoring.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from mpx.experiment.rows import SETTINGS
from mpx.scoring.measures import HEADLINE_COLUMN, MEASURES

__all__ = ["BOOT", "SETTINGS", "headline", "headline_methods", "measure_intervals", "paired_bootstrap",
           "per_workload", "ranking_stability", "varying_settings"]

#: bootstrap resamples of every interval (seed 0 unless a caller says otherwise)
BOOT = 2000


def varying_settings(rows: pd.DataFrame, exclude: tuple[str, ...] = ()) -> list[str]:
    """The `mpx.experiment.rows.SETTINGS` (no comparison, table or figure pools cells that differ in
    one of them) that take more than one value in ``rows`` (less ``exclude``)."""
    return [k for k in SETTINGS if k not in exclude and k in rows and rows[k].nunique(dropna=False) > 1]


def per_workload(scores: pd.DataFrame, column: str, by: tuple[str, ...] = ("scaler",)) -> pd.DataFrame:
    """``column`` as a (``by``) × workload table: scaler × workload by default (the mean over seeds of
    the numeric values)."""
    v = pd.to_numeric(scores[column], errors="coerce")
    return v.groupby([scores[k] for k in (*by, "workload")]).mean().unstack("workload")


def paired_bootstrap(per: pd.DataFrame, boot: int = BOOT, seed: int = 0) -> np.ndarray:
    """Means over workloads of ``per`` (rows × workloads) in ``boot`` resamples of the workloads, the
    same resamples for every row: ``[boot, rows]``. A row with a missing workload is NaN throughout."""
    a = per.to_numpy(np.float64)
    idx = np.random.default_rng(seed).integers(0, a.shape[1], (boot, a.shape[1]))
    return a[:, idx].mean(axis=2).T


def measure_intervals(scores: pd.DataFrame, sets: tuple[str, ...] = ("all", "ran"),
                      measures: tuple[str, ...] = MEASURES, boot: int = BOOT, seed: int = 0,
                      prefix: str = "") -> pd.DataFrame:
    """Per scaler (rows of one setting and one scheduler, status ``done``): for every ``set`` and
    ``measure`` the mean over workloads of ``{prefix}{measure}_{set}`` and its 95% paired bootstrap
    interval, beside ``{prefix}coverage_{set}`` (``prefix="metric_"``: the metric-windows). Columns
    ``(set, measure, stat)`` with stat ``mean``/``lo``/``hi``; a scaler without a value on some workload
    gets NaN for that measure (it cannot be paired)."""
    cols: dict[tuple[str, str, str], pd.Series] = {}
    index = pd.Index(sorted(scores["scaler"].dropna().unique()), name="scaler")
    for s in sets:
        for m in ("coverage", *measures):
            column = f"{prefix}{m}_{s}"
            if column not in scores:
                continue
            per = per_workload(scores, column).reindex(index)
            samples = paired_bootstrap(per, boot, seed)
            with np.errstate(invalid="ignore"):
                lo, hi = (np.percentile(samples, q, axis=0) for q in (2.5, 97.5))
            cols[(s, m, "mean")] = per.mean(axis=1, skipna=False)
            cols[(s, m, "lo")] = pd.Series(lo, index=index)
            cols[(s, m, "hi")] = pd.Series(hi, index=index)
    out = pd.DataFrame(cols, index=index)
    out.columns = pd.MultiIndex.from_tuples(out.columns, names=["windows", "measure", "stat"])
    return out


def ranking_stability(scores: pd.DataFrame, sets: tuple[str, ...] = ("all", "ran"),
                      measures: tuple[str, ...] = MEASURES, boot: int = BOOT, seed: int = 0) -> pd.DataFrame:
    """Is the ranking of the scalers a property of the scalers or of the measure? Per scaler, its rank
    (1 = best) under each ``{measure}_{set}`` (mean over workloads) and, under the headline measure,
    ``p_best``: the share of paired bootstrap resamples of the workloads in which it is the best. The
    last row, ``kendall_tau``, is each ranking's Kendall τ with the headline ranking (1: the same order).
    Scalers without the headline measure on every workload are left out."""
    head = per_workload(scores, HEADLINE_COLUMN).dropna()
    if head.empty:
        return pd.DataFrame()
    ranks: dict[str, pd.Series] = {}
    for s in sets:
        for m in measures:
            column = f"{m}_{s}"
            if column in scores:
                ranks[column] = per_workload(scores, column).reindex(head.index).mean(axis=1).rank(method="min")
    out = pd.DataFrame(ranks)
    samples = paired_bootstrap(head, boot, seed)
    best = np.argmin(samples, axis=1)
    out["p_best"] = np.bincount(best, minlength=len(head)) / boot
    ref = out[HEADLINE_COLUMN]
    tau = {c: (kendalltau(ref, out[c]).statistic if out[c].notna().all() and len(out) > 1 else np.nan)
           for c in ranks}
    out.loc["kendall_tau"] = pd.Series(tau)
    return out


def headline_methods(store: Any, experiment: str | None = None, run_id: int | None = None) -> list[str]:
    """The methods a run's config lists under ``[output] headline`` (the latest run of ``experiment``, or
    run ``run_id``); empty when it lists none."""
    cfg = store.run_config(experiment, run_id) or {}
    return list((cfg.get("output") or {}).get("headline") or [])


def headline(scores: Any, methods: list[str], error: str = HEADLINE_COLUMN, boot: int = BOOT,
             seed: int = 0) -> Any:
    """A DataFrame with one row per (workload set, scheduler, counters, every other setting that varies
    (`varying_settings`), method): ``workloads`` (number),
    ``causal``, ``method_error``, ``baseline`` (name), ``baseline_error``, ``ratio``, ``ratio_lo``,
    ``ratio_hi`` (2.5 / 97.5 percentiles of ``boot`` paired resamples) and ``calibration_90`` (the
    method's mean). ``scores``: score rows with status ``done``. Baselines that miss a workload of the
    group are not candidates."""
    df = scores.copy()
    df[error] = pd.to_numeric(df[error], errors="coerce")
    df["calibration_90"] = pd.to_numeric(df["calibration_90"], errors="coerce") if "calibration_90" in df else np.nan
    held = pd.to_numeric(df["heldout"], errors="coerce").fillna(0) if "heldout" in df else pd.Series(0, index=df.index)
    df["set"] = np.where(held.astype(bool), "held-out", "shipped")
    rng = np.random.default_rng(seed)
    rows = []
    other = varying_settings(df, exclude=("counters",))
    for key, g in df.groupby(["set", "scheduler", "counters", *other], sort=True, dropna=False):
        group, sched, k, *values = key
        per = g.groupby(["scaler", "workload"])[error].mean().unstack("workload")  # mean over seeds
        causal = g.groupby("scaler")["causal"].first().astype(bool)
        for m in methods:
            if m not in per.index:
                continue
            pool = [s for s in per.index if s not in methods and (causal[s] or not causal[m])
                    and per.loc[s].notna().all()]
            if not pool:
                continue
            best = min(pool, key=lambda s: per.loc[s].mean())
            a, b = per.loc[m].to_numpy(float), per.loc[best].to_numpy(float)
            keep = np.isfinite(a) & np.isfinite(b)
            a, b = a[keep], b[keep]
            if not a.size:
                continue
            idx = rng.integers(0, a.size, (boot, a.size))
            r = a[idx].mean(axis=1) / np.maximum(b[idx].mean(axis=1), 1e-300)
            rows.append({"set": group, "scheduler": sched, "counters": int(k), **dict(zip(other, values)),
                         "method": m, "workloads": int(a.size),
                         "causal": bool(causal[m]), "method_error": float(a.mean()), "baseline": best,
                         "baseline_error": float(b.mean()), "ratio": float(a.mean() / b.mean()),
                         "ratio_lo": float(np.percentile(r, 2.5)), "ratio_hi": float(np.percentile(r, 97.5)),
                         "calibration_90": float(g[g["scaler"] == m]["calibration_90"].mean())})
    return pd.DataFrame(rows)
