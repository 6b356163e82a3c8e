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

from mpx.experiment.rows import SETTINGS, varying_settings  # re-exported: the studies take them from here
from mpx.scoring.measures import HEADLINE_COLUMN, MEASURES

__all__ = ["BOOT", "COLLAPSED", "FLOOR_MEDIAN", "HARD", "SETTINGS", "TIE_LEVEL", "fair_headline", "floored_rows", "hard_share",
           "headline", "identical_schedulers", "null_baselines",
           "headline_methods", "measure_intervals", "paired_bootstrap", "per_workload", "ranking_stability",
           "select_best", "varying_settings"]

#: bootstrap resamples of every interval (seed 0 unless a caller says otherwise)
BOOT = 2000


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


# -- issue 28: a headline near-empty events cannot decide, and winners that account for the selection --------

#: the floor of the floored headline (``docs/scoring.md``): an event counts in it when its median true
#: read-window count is at least this (``median_true`` of the ``events`` rows): a typical window of it holds a
#: count to estimate; the same events for every scheduler and scaler of a workload (it depends on the truth only)
FLOOR_MEDIAN = 1.0
#: a (workload, event) pair is **hard** when every scaler of its cell is at least this wrong on it (the
#: headline measure): no method got it, so its error measures luck rather than a method
HARD = 0.8
#: the simultaneous level of `select_best`'s ties: a pair is separated from the lowest only when its ratio's
#: simultaneous lower bound (every pair at once, 2.5 % one-sided) is above 1
TIE_LEVEL = 0.95


def floored_rows(ok: pd.DataFrame, events: pd.DataFrame, floor: float = FLOOR_MEDIAN,
                 column: str = HEADLINE_COLUMN) -> pd.DataFrame:
    """The score rows ``ok`` with ``{column}_floored``: the mean over the events of the cell whose median true
    read-window count is at least ``floor`` (``events`` rows with ``median_true``) of their ``column``, and
    ``events_floored`` / ``events_scored``: how many events that mean and the all-event one hold. NaN (and 0
    events) for a cell none of whose events reaches the floor or whose rows lack ``median_true``."""
    ok = ok.copy()
    name = f"{column}_floored"
    ev = events.copy()
    ev[column] = pd.to_numeric(ev.get(column), errors="coerce")
    med = pd.to_numeric(ev["median_true"], errors="coerce") if "median_true" in ev else pd.Series(np.nan, ev.index)
    ev["_keep"] = med >= floor
    scored = ev[ev[column].notna()]
    key = ["cell_key", "scaler"]
    allv = scored.groupby(key).size().rename("events_scored")
    kept = scored[scored["_keep"]]
    g = kept.groupby(key)[column].agg(["mean", "size"]).rename(columns={"mean": name, "size": "events_floored"})
    ok = ok.drop(columns=[c for c in (name, "events_floored", "events_scored") if c in ok])
    ok = ok.join(g, on=key).join(allv, on=key)
    ok["events_floored"] = ok["events_floored"].fillna(0).astype(int)
    return ok


def hard_share(events: pd.DataFrame, hard: float = HARD, column: str = HEADLINE_COLUMN,
               by: tuple[str, ...] = ("scheduler", "scaler")) -> pd.DataFrame:
    """How much of the headline the hardest events carry. A (cell, event) is hard when every scaler of the
    cell has ``column`` ≥ ``hard`` on it. Per ``by`` (a pair): ``hard_pairs`` and ``pairs`` ((workload, event)
    pairs of its cells, mean over seeds) and ``share``: the part of its headline (mean over workloads of
    the mean over events) that the hard events contribute."""
    ev = events[["cell_key", "workload", "seed", *by, "event", column]].copy()
    ev[column] = pd.to_numeric(ev[column], errors="coerce")
    ev = ev[ev[column].notna()]
    if ev.empty:
        return pd.DataFrame(columns=["hard_pairs", "pairs", "share"])
    ev["_hard"] = ev.groupby(["cell_key", "event"])[column].transform("min") >= hard
    n = ev.groupby([*by, "cell_key"])[column].transform("size")
    ev["_part"] = ev[column] / n                      # the event's part of its cell's mean over events
    ev["_hpart"] = ev["_part"].where(ev["_hard"], 0.0)
    cell = ev.groupby([*by, "workload", "seed"]).agg(total=("_part", "sum"), hardpart=("_hpart", "sum"),
                                                     hard_pairs=("_hard", "sum"), pairs=("_hard", "size"))
    per = cell.groupby([*by, "workload"]).mean()      # mean over seeds
    out = per.groupby(list(by)).agg(total=("total", "mean"), hardpart=("hardpart", "mean"),
                                    hard_pairs=("hard_pairs", "sum"), pairs=("pairs", "sum"))
    out["share"] = out["hardpart"] / out["total"].where(out["total"] > 0)
    return out[["hard_pairs", "pairs", "share"]]


def select_best(per: pd.DataFrame, boot: int = BOOT, seed: int = 0, level: float = TIE_LEVEL) -> dict[str, Any]:
    """The best row of ``per`` (pairs × workloads, lower is better; rows with a missing workload left out),
    with intervals that account for having chosen it among every row (``docs/scoring.md``, "Choosing the
    best of many"). The workloads are resampled ``boot`` times (the resamples of `paired_bootstrap`) and the
    selection is redone in each resample:

    - ``p_best``: per row, the share of resamples in which it is the best (how often the choice holds);
    - ``best_lo``/``best_hi``: 95% interval of the re-selected best's mean in the resample;
    - ``oob``/``oob_lo``/``oob_hi``: the re-selected best's mean on the workloads that resample left out
      (how much a choice made on some workloads is worth on others), beside ``apparent`` (the best's mean);
    - ``ratio``, ``ratio_lo``/``ratio_hi`` (per row: its mean over the best's, paired 95% interval) and
      ``ratio_simul``: the lower bound of that ratio simultaneous over every row (bootstrap max-t on the
      log ratio, one-sided ``(1 - level) / 2``): a row is **tied** with the best when it is ≤ 1 (the data
      cannot say the best is better than it, allowing for the many comparisons);
    - ``best``: the best row's label, ``tied``: the tied rows, best first, ``n``: rows ranked.

    Empty dict when no row is complete."""
    per = per[per.notna().all(axis=1)]
    if per.empty:
        return {}
    a = per.to_numpy(np.float64)
    w = a.shape[1]
    idx = np.random.default_rng(seed).integers(0, w, (boot, w))   # the resamples of paired_bootstrap
    samples = a[:, idx].mean(axis=2).T                              # [boot, rows]
    mean = a.mean(axis=1)
    order = np.argsort(mean, kind="mergesort")
    b0 = int(order[0])
    pick = np.argmin(samples, axis=1)
    p_best = np.bincount(pick, minlength=len(a)) / boot
    best_b = samples[np.arange(boot), pick]
    inb = np.zeros((boot, w), dtype=bool)
    inb[np.arange(boot)[:, None], idx] = True
    oob_n = (~inb).sum(axis=1)
    oob_sum = np.where(~inb, a[pick], 0.0).sum(axis=1)
    have = oob_n > 0
    oob = oob_sum[have] / oob_n[have]
    tiny = 1e-300
    with np.errstate(divide="ignore", invalid="ignore"):
        d_b = np.log(np.maximum(samples, tiny)) - np.log(np.maximum(samples[:, [b0]], tiny))
        d = np.log(np.maximum(mean, tiny)) - np.log(max(mean[b0], tiny))
        sd = d_b.std(axis=0)
        t = (d_b - d) / np.where(sd > 0, sd, np.nan)
    others = [j for j in range(len(a)) if j != b0 and sd[j] > 0]
    q = float(np.percentile(np.nanmax(-t[:, others], axis=1), 100 * (1 + level) / 2)) if others else 0.0
    simul = np.where(sd > 0, d - q * sd, d)                 # identical rows (sd = 0) keep their exact ratio
    ratio = np.exp(d)
    lo, hi = np.percentile(np.exp(d_b), [2.5, 97.5], axis=0)
    labels = list(per.index)
    tied = [labels[j] for j in order[1:] if simul[j] <= 1e-12]
    rows = pd.DataFrame({"mean": mean, "p_best": p_best, "ratio": ratio, "ratio_lo": lo, "ratio_hi": hi,
                         "ratio_simul": np.exp(simul)}, index=per.index).iloc[order]
    blo, bhi = np.percentile(best_b, [2.5, 97.5])
    olo, ohi = (np.percentile(oob, [2.5, 97.5]) if oob.size else (np.nan, np.nan))
    return {"best": labels[b0], "tied": tied, "n": len(a), "rows": rows, "apparent": float(mean[b0]),
            "best_lo": float(blo), "best_hi": float(bhi), "oob": float(oob.mean()) if oob.size else float("nan"),
            "oob_lo": float(olo), "oob_hi": float(ohi), "boot": boot, "workloads": w}


# -- issue 34: fair terms (each side on its own best schedule), null baselines, identical schedules -------------

#: a scaler is **collapsed** where its headline error is more than this many times the best scaler's in the same
#: place (scheduler, or workload in a figure): tables print the value marked, figures clip the bar and print it
COLLAPSED = 10.0


def _best_row(per: pd.DataFrame, idx: np.ndarray) -> tuple[Any, np.ndarray]:
    """The row of ``per`` (complete rows × workloads) with the lowest mean, and per resample (``idx``: the
    workload resamples) the re-selected lowest row's mean (the selection redone in each resample)."""
    a = per.to_numpy(np.float64)
    best = per.index[int(np.argmin(a.mean(axis=1)))]
    return best, a[:, idx].mean(axis=2).min(axis=0)


def fair_headline(scores: pd.DataFrame, methods: list[str], error: str = HEADLINE_COLUMN, boot: int = BOOT,
                  seed: int = 0) -> pd.DataFrame:
    """The headline on fair terms: per (workload set, counters, every other varying setting, method) the
    method on **its own best schedule** against the best other scaler on **its own best schedule** (the best
    scheduler+scaler pair; a causal method against causal scalers only, an offline one against all), both
    chosen by the lowest mean over workloads — the rule of `select_best` — and re-chosen in each of ``boot``
    paired resamples of the workloads, so the interval accounts for both choices (``ratio_lo``/``ratio_hi``).
    Beside it the **same-schedule** ratio (`headline`'s: the best other scaler under the method's best
    schedule, ``same_*``) and which schedule each side won on (``method_scheduler``, ``baseline_scheduler``,
    with ``method_p`` / ``baseline_p``: the share of resamples in which that schedule / pair stays the best)
    and ``method_fallback``: the method's mean ``fallback_share`` there (a learned scaler's coverage guard).
    Only pairs with a value on every workload are candidates."""
    df = scores.copy()
    df[error] = pd.to_numeric(df[error], errors="coerce")
    held = pd.to_numeric(df["heldout"], errors="coerce").fillna(0) if "heldout" in df else pd.Series(0, index=df.index)
    df["set"] = np.where(held.astype(bool), "held-out", "shipped")
    other = varying_settings(df, exclude=("counters", "scheduler"))
    rows = []
    for key, g in df.groupby(["set", "counters", *other], sort=True, dropna=False):
        group, k, *values = key
        per = g.groupby(["scheduler", "scaler", "workload"])[error].mean().unstack("workload")
        per = per[per.notna().all(axis=1)]
        if per.empty:
            continue
        causal = g.groupby("scaler")["causal"].first().astype(bool)
        w = per.shape[1]
        idx = np.random.default_rng(seed).integers(0, w, (boot, w))
        scalers_ = per.index.get_level_values("scaler")
        for m in methods:
            mine = per[scalers_ == m]
            if mine.empty:  # the method has no value on every workload of this group (or is not in it)
                continue
            pool = per[[s not in methods and (causal[s] or not causal[m]) for s in scalers_]]
            if pool.empty:
                continue
            (m_sched, _), m_boot = _best_row(mine, idx)
            (b_sched, b_name), b_boot = _best_row(pool, idx)
            m_err, b_err = float(mine.loc[(m_sched, m)].mean()), float(pool.loc[(b_sched, b_name)].mean())
            r = m_boot / np.maximum(b_boot, 1e-300)
            a = mine.to_numpy(np.float64)[:, idx].mean(axis=2)       # [schedules, boot]
            p = pool.to_numpy(np.float64)[:, idx].mean(axis=2)
            m_p = float(np.mean(np.argmin(a, axis=0) == list(mine.index).index((m_sched, m))))
            b_p = float(np.mean(np.argmin(p, axis=0) == list(pool.index).index((b_sched, b_name))))
            same = pool[pool.index.get_level_values("scheduler") == m_sched]
            fb = g.loc[(g["scheduler"] == m_sched) & (g["scaler"] == m)].get("fallback_share")
            fb = float(pd.to_numeric(fb, errors="coerce").mean()) if fb is not None else np.nan
            row = {"set": group, "counters": int(k), **dict(zip(other, values)), "method": m, "workloads": w,
                   "causal": bool(causal[m]), "method_scheduler": m_sched, "method_p": m_p, "method_error": m_err,
                   "baseline": b_name, "baseline_scheduler": b_sched, "baseline_p": b_p, "baseline_error": b_err,
                   "ratio": m_err / b_err if b_err > 0 else np.nan,
                   "ratio_lo": float(np.percentile(r, 2.5)), "ratio_hi": float(np.percentile(r, 97.5)),
                   "method_fallback": fb}
            if not same.empty:
                (_, s_name), _ = _best_row(same, idx)
                s_a, s_b = mine.loc[(m_sched, m)].to_numpy(float), same.loc[(m_sched, s_name)].to_numpy(float)
                sr = s_a[idx].mean(axis=1) / np.maximum(s_b[idx].mean(axis=1), 1e-300)
                row.update({"same_baseline": s_name, "same_baseline_error": float(s_b.mean()),
                            "same_ratio": float(s_a.mean() / s_b.mean()) if s_b.mean() > 0 else np.nan,
                            "same_ratio_lo": float(np.percentile(sr, 2.5)),
                            "same_ratio_hi": float(np.percentile(sr, 97.5))})
            rows.append(row)
    return pd.DataFrame(rows)


def null_baselines(scores: pd.DataFrame, nulls: dict[str, list[str]], error: str = HEADLINE_COLUMN, boot: int = BOOT,
                   seed: int = 0) -> pd.DataFrame:
    """Does each scaler beat its null baselines? ``nulls``: scaler → the null baselines (registry names) it
    must beat (`mpx.scalers.null`: the constant rate of its own causality, and its fill-matched baseline).
    Per (scaler, null): each on its own best schedule (lowest mean over workloads), the ratio
    ``error / null_error`` with a 95% paired bootstrap interval over workloads (both choices redone in each
    resample) and ``verdict``: ``beats`` (interval below 1), ``does not beat`` (ratio >= 1) or ``not
    separated``. Rows of one setting (callers split swept settings)."""
    df = scores.copy()
    df[error] = pd.to_numeric(df[error], errors="coerce")
    per = df.groupby(["scaler", "scheduler", "workload"])[error].mean().unstack("workload")
    per = per[per.notna().all(axis=1)]
    if per.empty:
        return pd.DataFrame()
    w = per.shape[1]
    idx = np.random.default_rng(seed).integers(0, w, (boot, w))
    have = set(per.index.get_level_values("scaler"))
    rows = []
    for s, names in nulls.items():
        if s not in have:
            continue
        s_sched, s_boot = _best_row(per.loc[s], idx)
        s_err = float(per.loc[(s, s_sched)].mean())
        for n in names:
            if n not in have or n == s:
                continue
            n_sched, n_boot = _best_row(per.loc[n], idx)
            n_err = float(per.loc[(n, n_sched)].mean())
            r = s_boot / np.maximum(n_boot, 1e-300)
            lo, hi = np.percentile(r, [2.5, 97.5])
            ratio = s_err / n_err if n_err > 0 else np.nan
            verdict = "beats" if hi < 1 else "does not beat" if ratio >= 1 else "not separated"
            rows.append({"scaler": s, "scheduler": s_sched, "error": s_err, "null": n, "null_scheduler": n_sched,
                         "null_error": n_err, "ratio": ratio, "ratio_lo": float(lo), "ratio_hi": float(hi),
                         "verdict": verdict})
    return pd.DataFrame(rows)


def identical_schedulers(scores: pd.DataFrame, column: str = HEADLINE_COLUMN) -> dict[str, str]:
    """Schedulers whose every score (``column`` of every scaler, workload and seed, bit for bit) equals an
    earlier scheduler's (alphabetical): the same schedule under two names. Returns later name → earlier name;
    a table lists them once (issue 34: ``fusion_aware`` was ``hypergraph``'s rotation on the gem5 catalog)."""
    df = scores.copy()
    df[column] = pd.to_numeric(df[column], errors="coerce")
    key = [c for c in ("scaler", "workload", "seed", *varying_settings(df, exclude=("scheduler",))) if c in df]
    per = df.groupby(["scheduler", *key], dropna=False)[column].first().unstack("scheduler")
    out: dict[str, str] = {}
    names = sorted(per.columns)
    for i, a in enumerate(names):
        if a in out:
            continue
        for b in names[i + 1:]:
            if b not in out and per[a].notna().any() and per[a].equals(per[b]):
                out[b] = a
    return out
