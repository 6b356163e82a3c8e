"""Paired comparisons of scalers over workloads: each method against the best *other* scaler.

The headline question of a new estimator is "by how much does it beat the best baseline?". `headline`
answers it from stored score rows (`mpx.results`, table ``scores``): per workload set (shipped /
``[data] heldout``), scheduler and counter count, each method's mean error over workloads beside the
best other scaler's — a causal method against causal scalers only, an offline one against all — and
their ratio with a 95% bootstrap interval over workloads (resampled in pairs, so a workload that is hard
for both counts once). The default error is `mpx.evaluate`'s ``window_mape_ran``: the windows where the
event ran, where every scaler has a value, so scalers are compared on the same event-windows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["headline", "headline_methods"]


def headline_methods(store: Any, experiment: str | None = None, run_id: int | None = None) -> list[str]:
    """The methods a run's config lists under ``[output] headline`` (the latest run of ``experiment``, or
    run ``run_id``); empty when it lists none."""
    cfg = store.run_config(experiment, run_id) or {}
    return list((cfg.get("output") or {}).get("headline") or [])


def headline(scores: Any, methods: list[str], error: str = "window_mape_ran", boot: int = 2000,
             seed: int = 0) -> Any:
    """A DataFrame with one row per (workload set, scheduler, counters, method): ``workloads`` (number),
    ``causal``, ``method_error``, ``baseline`` (name), ``baseline_error``, ``ratio``, ``ratio_lo``,
    ``ratio_hi`` (2.5 / 97.5 percentiles of ``boot`` paired resamples) and ``calibration_90`` (the
    method's mean). ``scores``: score rows with status ``done``. Baselines that miss a workload of the
    group are not candidates."""
    import pandas as pd

    df = scores.copy()
    df[error] = pd.to_numeric(df[error], errors="coerce")
    df["calibration_90"] = pd.to_numeric(df["calibration_90"], errors="coerce") if "calibration_90" in df else np.nan
    held = pd.to_numeric(df["heldout"], errors="coerce").fillna(0) if "heldout" in df else pd.Series(0, index=df.index)
    df["set"] = np.where(held.astype(bool), "held-out", "shipped")
    rng = np.random.default_rng(seed)
    rows = []
    for (group, sched, k), g in df.groupby(["set", "scheduler", "counters"], sort=True):
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
            rows.append({"set": group, "scheduler": sched, "counters": int(k), "method": m, "workloads": int(a.size),
                         "causal": bool(causal[m]), "method_error": float(a.mean()), "baseline": best,
                         "baseline_error": float(b.mean()), "ratio": float(a.mean() / b.mean()),
                         "ratio_lo": float(np.percentile(r, 2.5)), "ratio_hi": float(np.percentile(r, 97.5)),
                         "calibration_90": float(g[g["scaler"] == m]["calibration_90"].mean())})
    return pd.DataFrame(rows)
