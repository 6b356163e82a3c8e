"""The ranking rules and summary tables of a results store (`mpx report`, and `mpx run` at the end).

Tables (from `mpx.experiment.store.ResultsStore`, the latest run of each experiment unless an experiment or a
run id says otherwise):

Every ranking uses the headline measure of ``docs/scoring.md`` (`mpx.scoring.measures.HEADLINE`: WAPE on every
read window, a window without a value charged as an estimate of 0), the mean over workloads of the
mean over seeds, with 95% intervals from 2,000 paired bootstrap resamples of the workloads (seed 0,
`mpx.studies.compare`).

- **scalers × schedulers**: each pair's headline measure (%);
- **the winner** (`winner_text`): the best scheduler+scaler pair, the runner-up, and a baseline pair,
  with their error ratios to the winner and intervals; the baseline is `LINUX_DEFAULT`, Linux's default
  — perf's rotation (scheduler ``perf``) with perf's linear scaling (scaler ``linear``) — unless the
  caller names another. Pairs without a value on every workload are listed apart, not ranked
  (`rank_pairs`); coverage is printed beside every error below 100%. The choice of the best is redone
  in every resample (`mpx.studies.compare.select_best`): "winner" only when every other pair is worse with
  simultaneous 95% confidence, otherwise "no single winner ... tied with"; the same on the events that
  carry counts (`mpx.studies.compare.floored_rows`), and the share of the headline the hard events carry
  (`mpx.studies.compare.hard_share`);
- **the headline with and without the floor** (`floor_table`): per scaler of the shown scheduler;
- a run that did not finish (or lacks cells) is said first (`incomplete_text`);
- **scalers**: per scaler (medians over cells) the headline measure, coverage, window MAPE on the
  windows it filled, whole-run total error (the tool's own total and the sum of the windows), metric
  MAPE, calibration and throughput (event-windows per second);
- **scalers on common windows** (`protocol_tables`, for the baseline scheduler): every measure on the
  window sets ``all`` and ``ran`` with its interval and coverage, and the ranking under each measure
  with its Kendall τ against the headline ranking;
- **headline** (when the config lists methods under ``[output] headline``): per scheduler, counter count
  and workload set (shipped / ``[data] heldout``), each method's mean error over workloads beside the
  best other scaler's (a causal method against causal scalers only; an offline one against all), their
  ratio with a 95% paired bootstrap interval and the method's 90% coverage (`mpx.studies.compare.headline`);
- **schedulers**: mean utilization, sampling ratio, co-scheduling ratio and configurations;
- **partitioners** (``kind = "partition"`` experiments): per instance and tool, mean and best km1, km1
  relative to the published reference (when the config gives one) and to mpx's, mean seconds, feasibility;
- cells and scalers that were skipped (with the reason) or failed.

The scaler tables and the winner are made once per value of every configured setting that varies
across the cells (`mpx.experiment.rows.SETTINGS`: counters, read window, quantum, noise...), each title naming the value:
a sweep is never pooled into one ranking.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import numpy as np
import pandas as pd

from mpx.studies.compare import (BOOT, FLOOR_MEDIAN, HARD, TIE_LEVEL, floored_rows, hard_share, headline,
                                 headline_methods, measure_intervals, null_baselines, paired_bootstrap, per_workload,
                                 ranking_stability, select_best, varying_settings)
from mpx.studies.fair import _collapse_note, _mark_pivot, _own_methods, fair_table, merge_identical, null_nulls, null_table
from mpx.scoring.measures import HEADLINE, HEADLINE_COLUMN
from mpx.studies.verdict_tables import verdict_tables

__all__ = ["LINUX_DEFAULT", "event_class_tables", "floor_table", "headline_table",
           "incomplete_text", "kind_sections", "protocol_tables",
           "rank_pairs", "regime_text", "runs_table", "scaler_tables", "summary_tables", "summary_text",
           "winner_text"]

#: the baseline pair of the winner text: Linux's default, perf's rotation (scheduler ``perf``) with perf's
#: linear scaling (scaler ``linear``): what a user gets without choosing anything
LINUX_DEFAULT: tuple[str, str] = ("perf", "linear")


def rank_pairs(ok: pd.DataFrame, boot: int = BOOT, seed: int = 0) -> pd.DataFrame:
    """Scheduler+scaler pairs of the ``done`` score rows ``ok`` by the headline measure
    (`mpx.scoring.measures.HEADLINE_COLUMN`, mean over workloads of the mean over seeds), best first: columns
    ``error``, ``coverage`` (share of event-windows with a value; the others are charged), ``complete``
    (a value on every workload: only complete pairs are ranked) and ``samples`` (the pair's paired
    bootstrap means, `mpx.studies.compare.paired_bootstrap`, for ratios with intervals)."""
    pair = ("scheduler", "scaler")
    per = per_workload(ok, HEADLINE_COLUMN, pair)
    cov = per_workload(ok, "coverage_all", pair).reindex(per.index).mean(axis=1)
    samples = paired_bootstrap(per, boot, seed)
    out = pd.DataFrame({"error": per.mean(axis=1, skipna=False), "coverage": cov,
                        "complete": per.notna().all(axis=1), "samples": list(samples.T)}, index=per.index)
    return out.sort_values(["complete", "error"], ascending=[False, True])


def _interval(samples: np.ndarray) -> str:
    lo, hi = np.percentile(samples, [2.5, 97.5])
    return f"[{lo:.2f}, {hi:.2f}]"


def winner_text(ok: pd.DataFrame, baseline: tuple[str, str] = LINUX_DEFAULT, events: pd.DataFrame | None = None,
                partial: str | None = None) -> str | None:
    """The best pair, the runner-up and ``baseline`` (by default `LINUX_DEFAULT`) by the headline measure,
    with their error ratios to the best and 95% paired bootstrap intervals over workloads, from the ``done``
    score rows ``ok`` (`rank_pairs`); None when nothing is ranked or the rows predate the measures.

    "winner" only when every other pair is separated from it allowing for the choice among all of them
    (`mpx.studies.compare.select_best`: simultaneous bound above 1); otherwise the pairs it is tied with. With the
    ``events`` rows: the same on the events that carry counts (`mpx.studies.compare.floored_rows`) and the share of
    the headline carried by the hard events (`mpx.studies.compare.hard_share`). ``partial`` (what is missing) is
    said first: a ranking of a partial set of cells."""
    if HEADLINE_COLUMN not in ok:
        return None
    pairs = rank_pairs(ok)
    ranked = pairs[pairs["complete"]]
    if not len(ranked):
        return None
    measure = f"{HEADLINE[0].upper()} on {HEADLINE[1]} windows"
    pair = ("scheduler", "scaler")
    sel = select_best(per_workload(ok, HEADLINE_COLUMN, pair))

    def cov(key: tuple[str, str]) -> str:
        c = pairs.loc[key, "coverage"]
        return "" if not c < 0.9995 else f"; {100 * c:.1f}% of event-windows with a value, the rest charged as 0"

    (s1, c1), top = sel["best"], pairs.loc[sel["best"]]
    lines = [f"PARTIAL RESULTS: {partial}; the ranking below is of the cells stored so far"] if partial else []
    lines += _selection_lines(sel, f"the headline measure ({measure})",
                              f"95% interval {_interval(100 * top['samples'])}{cov((s1, c1))}")
    rows = sel["rows"]

    def against(key: tuple[str, str], label: str) -> str:
        r = pairs.loc[key]
        ratio = r["samples"] / np.maximum(top["samples"], 1e-300)
        simul = (f", simultaneous lower bound {rows.loc[[key], 'ratio_simul'].iloc[0]:.2f}: "
                 + ("tied" if key in sel["tied"] else "separated")) if key in rows.index else ""
        return (f"{label}: {100 * r['error']:.2f}% ({_ratio(r['error'], top['error'])} the lowest error, "
                f"95% interval {_interval(ratio)}{simul}{cov(key)})")

    if len(ranked) > 1:
        k2 = rows.index[1]
        lines.append(against(k2, f"runner-up: {k2[0]} + {k2[1]}"))
    if baseline in pairs.index and pairs.loc[baseline, "complete"] and (s1, c1) != baseline:
        lines.append(against(baseline, f"Linux default ({baseline[0]} + {baseline[1]})" if baseline == LINUX_DEFAULT
                             else f"baseline ({baseline[0]} + {baseline[1]})"))
    if events is not None and not events.empty:
        lines += _floor_lines(ok, events, (s1, c1), baseline if baseline in pairs.index else None)
    gaps = pairs[~pairs["complete"]]
    if len(gaps):
        lines.append(f"not ranked: {len(gaps)} pair(s) without a value on every workload: "
                     + ", ".join(f"{a} + {b}" for a, b in gaps.index[:5]))
    lines.append(f"({len(pairs)} scheduler+scaler pairs, {ok['workload'].nunique()} workload(s), "
                 f"{ok['seed'].nunique()} seed(s); means over workloads; intervals: {BOOT} paired bootstrap "
                 "resamples of the workloads, the best re-selected in each; docs/scoring.md)")
    return "\n".join(lines)


def _name(key: Any) -> str:
    return " + ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _selection_lines(sel: dict[str, Any], by: str, interval: str) -> list[str]:
    """The winner (or the tie) and how the choice holds up under resampling (`mpx.studies.compare.select_best`)."""
    best, rows = sel["best"], sel["rows"]
    err = f"{100 * sel['apparent']:.2f}% ({interval})"
    if not sel["tied"]:
        head = (f"winner by {by}: {_name(best)}, {err}; each of the other {sel['n'] - 1} pairs is worse with "
                f"simultaneous {100 * TIE_LEVEL:.0f}% confidence")
    else:
        tied = sel["tied"]
        shown = ", ".join(f"{_name(k)} ({rows.loc[[k], 'ratio'].iloc[0]:.2f}x, bound "
                          f"{rows.loc[[k], 'ratio_simul'].iloc[0]:.2f})" for k in tied[:4])
        more = f" and {len(tied) - 4} more" if len(tied) > 4 else ""
        head = (f"no single winner by {by}: lowest {_name(best)}, {err}, tied with {len(tied)} of the other "
                f"{sel['n'] - 1} pairs the data cannot separate from it (ratio to the lowest, simultaneous "
                f"{100 * TIE_LEVEL:.0f}% lower bound <= 1): {shown}{more}")
    often = rows[rows["p_best"] > 0].sort_values("p_best", ascending=False)
    rest = [(k, p) for k, p in often["p_best"].items() if k != best]
    others = ", ".join(f"{_name(k)} {100 * p:.1f}%" for k, p in rest[:4]) + (
        f" and {len(rest) - 4} more" if len(rest) > 4 else "")
    return [head, f"the choice, redone in each of {sel['boot']} resamples of the {sel['workloads']} workloads: "
            f"{_name(best)} lowest in {100 * rows.loc[[best], 'p_best'].iloc[0]:.1f}% of them"
            + (f" (then {others})" if others else "")
            + f"; the re-selected lowest: {100 * sel['best_lo']:.2f}-{100 * sel['best_hi']:.2f}% on its resample, "
            f"{100 * sel['oob']:.2f}% [{100 * sel['oob_lo']:.2f}, {100 * sel['oob_hi']:.2f}] on the workloads "
            f"the resample left out (apparent {100 * sel['apparent']:.2f}%)"]


def _floor_lines(ok: pd.DataFrame, events: pd.DataFrame, best: tuple[str, str],
                 baseline: tuple[str, str] | None) -> list[str]:
    """The headline on the events that carry counts beside the all-event one, and the hard events' share."""
    lines = []
    col = f"{HEADLINE_COLUMN}_floored"
    fl = floored_rows(ok, events[events["cell_key"].isin(set(ok["cell_key"]))])
    if fl[col].notna().any():
        per = per_workload(fl, col, ("scheduler", "scaler"))
        n_all = fl.groupby("workload")["events_scored"].median().mean()
        n_kept = fl.groupby("workload")["events_floored"].median().mean()
        sel = select_best(per)
        if sel:
            mean = per.mean(axis=1)
            keys = [k for k in dict.fromkeys([best, baseline]) if k is not None and k in mean.index]
            also = "; ".join(f"{_name(k)} {100 * mean[k]:.2f}% (all events {100 * ok_mean:.2f}%)"
                             for k in keys if np.isfinite(ok_mean := per_workload(ok, HEADLINE_COLUMN, (
                                 "scheduler", "scaler")).mean(axis=1).get(k, np.nan)))
            lines += _selection_lines(sel, f"the headline on events that carry counts (median true read-window "
                                      f"count >= {FLOOR_MEDIAN:g}: {n_kept:.1f} of {n_all:.1f} events per workload)",
                                      "95% interval " + _interval(100 * paired_bootstrap(per.loc[[sel['best']]])[:, 0]))
            if also:
                lines.append(f"on events that carry counts: {also}")
    hs = hard_share(events[events["cell_key"].isin(set(ok["cell_key"]))])
    keys = [k for k in dict.fromkeys([best, baseline]) if k is not None and k in hs.index]
    if keys:
        h = hs.loc[keys[0]]
        lines.append(f"hard events (every scaler >= {100 * HARD:.0f}% wrong on it): {int(h['hard_pairs'])} of "
                     f"{int(h['pairs'])} (workload, event) pairs under {keys[0][0]}; share of the headline they "
                     "carry: " + ", ".join(f"{_name(k)} {100 * hs.loc[k, 'share']:.1f}%" for k in keys))
    return lines


#: a mean relative error (metrics) above this is flagged as a near-zero truth's, not a method's
IMPLAUSIBLE = 10.0


def _interval_table(iv: pd.DataFrame, causal: pd.Series) -> pd.DataFrame:
    """`mpx.studies.compare.measure_intervals` as text cells ``mean [lo, hi]`` (% except lnq)."""
    t = pd.DataFrame(index=iv.index)
    t["causal"] = causal.reindex(iv.index)
    for s, m in dict.fromkeys((w, m) for w, m, _ in iv.columns):
        scale, digits = (1.0, 3) if m == "lnq" else (100.0, 1)
        mean, lo, hi = (iv[(s, m, k)] * scale for k in ("mean", "lo", "hi"))
        name = f"{m} {s}" + (" (headline)" if (m, s) == HEADLINE else "")
        t[name] = [("n/a" if not np.isfinite(a) else f"{a:.{digits}f}" if m == "coverage"
                    else f"{a:.{digits}f} [{b:.{digits}f}, {c:.{digits}f}]") for a, b, c in zip(mean, lo, hi)]
    return t


def protocol_tables(ok: pd.DataFrame, where: str = "") -> dict[str, Any]:
    """The scoring protocol's tables for the rows of one scheduler and one setting: every scaler's
    coverage and every measure on the window sets ``all`` and ``ran`` with 95% paired bootstrap
    intervals (`mpx.studies.compare.measure_intervals`), and the ranking under each measure with its Kendall τ
    against the headline's (`mpx.studies.compare.ranking_stability`). Empty for rows that predate the measures."""
    if HEADLINE_COLUMN not in ok:
        return {}
    iv = measure_intervals(ok)
    if iv.empty:
        return {}
    order = iv[(HEADLINE[1], HEADLINE[0], "mean")].sort_values().index
    causal = ok.groupby("scaler")["causal"].first().astype(bool)
    n = ok["workload"].nunique()
    out = {f"scalers on common windows{where}: mean over {n} workloads [95% paired bootstrap interval]; % except "
           "lnq; coverage = share of the windows with a value, the rest charged as 0 (docs/scoring.md)":
           _interval_table(iv, causal).loc[order]}
    metrics = measure_intervals(ok, measures=("mape", "wape", "mdape"), prefix="metric_")
    if not metrics.empty and metrics.notna().any().any():
        mt = _interval_table(metrics, causal).loc[order]
        # a mean relative error over 1,000 %: some windows' true metric is near zero (a ratio of a near-zero
        # truth explodes); flagged in place, not left to look like a scaler's failure
        means = metrics.xs("mean", axis=1, level=2).loc[order]
        huge = means.ge(IMPLAUSIBLE).any().any()
        for (s_, m_), col in zip(means.columns, mt.columns[1:]):
            if m_ != "coverage":
                mt[col] = [f"{v} *" if np.isfinite(x) and x >= IMPLAUSIBLE else v for v, x in zip(mt[col], means[(s_, m_)])]
        out[f"metrics on common metric-windows{where}: mean over {n} workloads [95% paired bootstrap interval], %; "
            "a metric value not computable from a scaler's counts charged as 0"
            + ("; * over 1,000 %: the true metric is near zero in some windows, where a relative error explodes "
               "(not a scaler failing: read metric_wape)" if huge else "")] = mt
    st = ranking_stability(ok)
    if not st.empty:
        st = st.copy()
        st["p_best"] = (100 * st["p_best"]).round(1)
        st = st.rename(columns={"p_best": "best in % of resamples"})
        ranks = [c for c in st.columns if c != "best in % of resamples"]
        # one format per kind of number: ranks as whole numbers (ties share the lower rank), tau with two decimals
        st[ranks] = st[ranks].astype(object)
        for idx in st.index:
            fmt = "{:.2f}" if idx == "kendall_tau" else "{:.0f}"
            st.loc[idx, ranks] = ["n/a" if not np.isfinite(float(v)) else fmt.format(float(v)) for v in st.loc[idx, ranks]]
        st["best in % of resamples"] = ["" if not np.isfinite(v) else f"{v:.1f}" for v in st["best in % of resamples"]]
        out[f"ranking under each measure (1 = best){where}; last row: Kendall tau with the headline ranking"] = st
    return out


def regime_text(ok: pd.DataFrame, scheduler: str) -> str | None:
    """The read regime of the rows of one setting, under ``scheduler``'s rotation: quanta per read window,
    per full rotation of the schedule, and whether a read window is shorter than a rotation (then some
    events go uncounted in some windows and every interpolating formula bridges them)."""
    rows = ok[ok["scheduler"] == scheduler]
    if rows.empty or not {"read_every", "rotation_quanta", "read_per_rotation"} <= set(rows):
        return None
    read, rot, per = (pd.to_numeric(rows[k], errors="coerce").median()
                      for k in ("read_every", "rotation_quanta", "read_per_rotation"))
    if not (np.isfinite(read) and np.isfinite(rot) and np.isfinite(per)):
        return None
    side = "shorter than a rotation" if per < 1 else "at least one full rotation"
    return (f"regime: a read every {read:g} quanta, {scheduler}'s rotation {rot:g} quanta "
            f"(read window = {per:.2f} rotations: {side})")


def scaler_tables(ok: pd.DataFrame, baseline: tuple[str, str] = LINUX_DEFAULT, where: str = "",
                  events: pd.DataFrame | None = None, partial: str | None = None) -> dict[str, Any]:
    """The scaler tables and the winner of the ``done`` score rows ``ok`` of one setting (``where``
    names it in every title: callers split by every setting that varies, `mpx.experiment.rows.SETTINGS`);
    ``events`` and ``partial`` as in `winner_text`."""
    out: dict[str, Any] = {}

    def title(text: str) -> str:
        return text + where

    ok, same = merge_identical(ok.copy())
    measure = f"{HEADLINE[0].upper()} {HEADLINE[1]}"
    nt = pd.DataFrame()
    if HEADLINE_COLUMN in ok:
        ok[HEADLINE_COLUMN] = pd.to_numeric(ok[HEADLINE_COLUMN], errors="coerce")
        nt = null_baselines(ok, null_nulls(ok))
        piv = ok.pivot_table(index="scaler", columns="scheduler", values=HEADLINE_COLUMN, aggfunc="mean")
        out[title(f"headline measure ({measure} windows, %), mean over workloads: scaler x scheduler"
                  + _collapse_note(piv, nt, same))] = _mark_pivot(piv, nt)
    if not nt.empty:
        out.update(null_table(nt, where))
    text = winner_text(ok, baseline, events, partial)
    if text:
        regime = regime_text(ok, baseline[0])
        out[title("winner")] = (f"== {where.strip()}\n" if where else "") + text + (f"\n{regime}" if regime else "")
    cols = [k for k in (HEADLINE_COLUMN, "coverage_all", "window_mape", "total_error", "total_error_windows",
                        "metric_mape", "calibration_90", "event_windows_per_s") if k in ok]
    for k in cols:
        ok[k] = pd.to_numeric(ok[k], errors="coerce")
    per = ok.groupby("scaler")[cols].median()
    per.insert(0, "causal", ok.groupby("scaler")["causal"].first().astype(bool))
    for k in cols:
        per[k] = per[k].round(-3) if k == "event_windows_per_s" else (per[k] * 100).round(2)
    per = per.rename(columns={HEADLINE_COLUMN: f"{measure} %", "coverage_all": "coverage %",
                              "window_mape": "window MAPE % (windows it filled)",
                              "total_error": "total error % (tool's own total)",
                              "total_error_windows": "total error % (sum of windows)",
                              "metric_mape": "metric MAPE %", "calibration_90": "in 90% band %",
                              "event_windows_per_s": "event-windows/s"})
    out[title("scalers (medians over cells)")] = per.sort_values(per.columns[1])
    scheds = sorted(ok["scheduler"].dropna().unique())
    shown = baseline[0] if baseline[0] in scheds else (scheds[0] if scheds else None)
    if shown is not None:
        others = f"; the other {len(scheds) - 1} schedulers: csv/scores.csv" if len(scheds) > 1 else ""
        out.update(protocol_tables(ok[ok["scheduler"] == shown], f", scheduler {shown}{others}{where}"))
        if events is not None and not events.empty:
            out.update(floor_table(ok[ok["scheduler"] == shown], events, f", scheduler {shown}{where}"))
    return out


def floor_table(ok: pd.DataFrame, events: pd.DataFrame, where: str = "") -> dict[str, Any]:
    """Per scaler (the rows of one scheduler and one setting): the headline on every event and on the events
    that carry counts (`mpx.studies.compare.floored_rows`), each with its 95% paired interval, and the share of the
    headline the hard events carry (`mpx.studies.compare.hard_share`). Empty when the rows lack the measures."""
    if HEADLINE_COLUMN not in ok or "median_true" not in events:
        return {}
    ev = events[events["cell_key"].isin(set(ok["cell_key"]))]
    fl = floored_rows(ok, ev)
    col = f"{HEADLINE_COLUMN}_floored"
    t = pd.DataFrame(index=pd.Index(sorted(ok["scaler"].dropna().unique()), name="scaler"))
    for name, c, frame in (("all events %", HEADLINE_COLUMN, ok), ("events with counts %", col, fl)):
        per = per_workload(frame, c).reindex(t.index)
        samples = 100 * paired_bootstrap(per)
        with np.errstate(invalid="ignore"):
            lo, hi = np.nanpercentile(samples, [2.5, 97.5], axis=0) if np.isfinite(samples).any() else (
                np.full(len(t), np.nan),) * 2
        t[name] = [("n/a" if not np.isfinite(m) else f"{m:.1f} [{a:.1f}, {b:.1f}]")
                   for m, a, b in zip(100 * per.mean(axis=1, skipna=False), lo, hi)]
    hs = hard_share(ev, by=("scaler",))
    t["hard events' share %"] = (100 * hs["share"]).reindex(t.index).round(1)
    t["_order"] = per_workload(ok, HEADLINE_COLUMN).reindex(t.index).mean(axis=1)
    t = t.sort_values("_order").drop(columns="_order")
    n_all = fl.groupby("workload")["events_scored"].median().mean()
    n_kept = fl.groupby("workload")["events_floored"].median().mean()
    hard = hs["hard_pairs"].max() if len(hs) else 0
    pairs = hs["pairs"].max() if len(hs) else 0
    return {f"the headline with and without the floor{where}: {HEADLINE_COLUMN} %, mean over workloads [95% paired "
            f"interval]; events with counts: median true read-window count >= {FLOOR_MEDIAN:g} ({n_kept:.1f} of "
            f"{n_all:.1f} events per workload); hard events: every scaler >= {100 * HARD:.0f}% wrong "
            f"({int(hard)} of {int(pairs)} (workload, event) pairs; docs/scoring.md)": t}


def event_class_tables(events: pd.DataFrame) -> dict[str, Any]:
    """The headline measure per scaler and event class (cv of the true window counts), one table per value
    of every setting that varies: medians over events and cells."""
    ev = events.copy()
    ev[HEADLINE_COLUMN] = pd.to_numeric(ev[HEADLINE_COLUMN], errors="coerce")
    varying = varying_settings(ev[ev["event_class"] != "zero"])
    # an event is classed per workload (steady in one, bursty in another): count (workload, event) pairs,
    # so that the classes add up, the never-counting ones said apart
    pair = [c for c in ("workload", "event") if c in ev]
    out: dict[str, Any] = {}
    for values, whole in (ev.groupby(varying, dropna=False) if varying else [((), ev)]):
        values = values if isinstance(values, tuple) else (values,)
        where = "".join(f" [{k} = {v}]" for k, v in zip(varying, values))
        part = whole[whole["event_class"] != "zero"]
        t = part.pivot_table(index="scaler", columns="event_class", values=HEADLINE_COLUMN, aggfunc="median")
        if t.empty:
            continue
        n = whole.drop_duplicates([*pair, "event_class"]).groupby("event_class").size()
        t.columns = [f"{c} ({n[c]})" for c in t.columns]
        unit = "workload x event pairs" if "workload" in pair and whole["workload"].nunique() > 1 else "events"
        zero = f"; {n['zero']} never counting, left out" if "zero" in n else ""
        out[f"{HEADLINE_COLUMN} (%) by event class (cv of true window counts: steady < 0.25 <= variable < 1 <= "
            f"bursty; in brackets the {unit} of each, {int(n.sum())} in all{zero}), median over events and "
            f"cells{where}"] = (t * 100).round(2)
    return out


def summary_tables(store: Any, experiment: str | None = None, run_id: int | None = None,
                   baseline: tuple[str, str] = LINUX_DEFAULT) -> dict[str, Any]:
    """The summary tables (pandas DataFrames) and a ``winner`` text (`winner_text`, against
    ``baseline``); empty tables are left out."""
    out: dict[str, Any] = {}
    scores = store.table("scores", experiment, run_id)
    sched = store.table("schedule", experiment, run_id)
    cells = store.table("cells", experiment, run_id)
    events = store.table("events", experiment, run_id)
    partial = incomplete_text(store, experiment, run_id, cells)
    if partial:
        out["INCOMPLETE"] = f"INCOMPLETE STORE: {partial}; every table below is from the cells stored so far"
    if not scores.empty and "window_mape" in scores:
        ok = scores[scores["status"] == "done"].copy()
        ok["window_mape"] = pd.to_numeric(ok["window_mape"], errors="coerce")
        ok, same = merge_identical(ok)
        if same and not events.empty and "cell_key" in events:   # the events of a folded scheduler follow it
            cell = ok.drop_duplicates("cell_key").set_index("cell_key")["scheduler"]
            events = events[events["cell_key"].isin(cell.index)].assign(scheduler=lambda e: e["cell_key"].map(cell))
        if not ok.empty:
            varying = varying_settings(ok)
            if not varying:
                out.update(scaler_tables(ok, baseline, events=events, partial=partial))
            else:  # never pool a swept setting: one set of tables (and one winner) per value
                for values, part in ok.groupby(varying, dropna=False):
                    values = values if isinstance(values, tuple) else (values,)
                    where = ", ".join(f"{k} = {v}" for k, v in zip(varying, values))
                    out.update(scaler_tables(part, baseline, f" [{where}]", events, partial))
        methods = headline_methods(store, experiment, run_id)
        out.update(fair_table(ok, methods or _own_methods(ok)))
        if methods:
            out.update(headline_table(ok, methods))
        out.update(verdict_tables(ok))
        bad = scores[scores["status"] != "done"]
        if not bad.empty:
            g = bad.groupby(["scaler", "status"]).agg(cells=("cell_key", "nunique"), reason=("reason", "first"))
            g["reason"] = g["reason"].astype(str)  # whole: `summary_text` and LaTeX wrap it, never cut it
            out["scalers skipped or failed"] = g
    if not events.empty and "event_class" in events and HEADLINE_COLUMN in events:
        out.update(event_class_tables(events))
    if not sched.empty:
        s = sched[sched["skipped"].isna()] if "skipped" in sched else sched
        if not s.empty:
            cols = [c for c in ("utilization", "mean_sampling_ratio", "min_sampling_ratio", "mean_coschedule_ratio",
                                "groups") if c in s]
            s = s.copy()
            for c in cols:
                s[c] = pd.to_numeric(s[c], errors="coerce")
            per_catalog = ((s["trace"].astype(str) != s["dataset"].astype(str)).all()
                           and s["dataset"].nunique() > 1)  # schedule experiments: one cell per catalog
            by = (["dataset", "scheduler"] if per_catalog else ["scheduler"]) + varying_settings(s)
            t = s.groupby(by)[cols].mean()
            for c in cols[:-1]:
                t[c] = (t[c] * 100).round(1)
            t["groups"] = t["groups"].round(1)
            out["schedulers (means over cells; ratios in %)"] = t.rename(columns={
                "utilization": "utilization %", "mean_sampling_ratio": "sampling %", "min_sampling_ratio":
                "min sampling %", "mean_coschedule_ratio": "co-scheduled %", "groups": "configurations"})
    out.update(kind_sections(store, experiment, run_id))
    if not cells.empty:
        sk = cells[cells["status"] != "done"]
        if not sk.empty:
            g = sk.groupby(["scheduler", "status"]).agg(cells=("key", "count"), reason=("reason", "first"))
            g["reason"] = g["reason"].astype(str)
            out["cells skipped or failed"] = g
    return out


def incomplete_text(store: Any, experiment: str | None, run_id: int | None, cells: pd.DataFrame) -> str | None:
    """What is missing from the run(s) a report reads: runs not ``finished`` (interrupted, or still running)
    and how many of their cells are stored; None when every run finished with every cell stored."""
    runs = store.runs()
    if runs.empty:
        return None
    if run_id is not None:
        runs = runs[runs["run_id"] == run_id]
    else:
        if experiment is not None:
            runs = runs[runs["experiment"] == experiment]
        runs = runs.groupby("experiment", sort=False).tail(1)      # the latest run of each experiment
    stored = set(cells["key"]) if "key" in cells else set()
    said = []
    for r in runs.itertuples(index=False):
        keys = store.run_cells(run_id=int(r.run_id)) or []
        have = sum(k in stored for k in keys)
        if r.status != "finished" or have < len(keys):
            said.append(f"run {r.run_id} of {r.experiment} is {r.status}: {have} of {len(keys)} cells stored, "
                        f"{len(keys) - have} missing")
    return "; ".join(said) or None


def headline_table(ok: Any, methods: list[str]) -> dict[str, Any]:
    """The headline table of the module docstring (`mpx.studies.compare.headline`) from the ``done`` score rows."""
    h = headline(ok, methods)
    if h.empty:
        return {}
    t = h.assign(**{
        "workloads": [f"{s} ({n})" for s, n in zip(h["set"], h["workloads"])],
        "method %": (100 * h["method_error"]).round(1), "best baseline": h["baseline"],
        "baseline %": (100 * h["baseline_error"]).round(1), "ratio": h["ratio"].round(2),
        "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(h["ratio_lo"], h["ratio_hi"])],
        "in 90% band %": (100 * h["calibration_90"]).round(1)})
    t = t.set_index(["workloads", "scheduler", "counters", *varying_settings(h, exclude=("counters",)), "method"])[
        ["causal", "method %", "best baseline", "baseline %", "ratio", "95% CI", "in 90% band %"]]
    return {f"headline: {', '.join(methods)} against the best other scaler under the SAME SCHEDULER (per scheduler; "
            f"{HEADLINE_COLUMN}, mean over workloads; ratio with a 95% paired bootstrap interval over workloads; the "
            "fair-terms headline above puts each side on its own best schedule)": t}


def kind_sections(store: Any, experiment: str | None = None, run_id: int | None = None) -> dict[str, Any]:
    """The report sections experiment kinds declare (`mpx.experiment.kinds.CellKind.report`: table →
    ``"module:function"``), for each declared table that has rows in the store."""
    from mpx.experiment.kinds import all_kinds
    from mpx.registry import load_object

    out: dict[str, Any] = {}
    have = store.tables()
    for kind in all_kinds():
        for table, where in kind.report.items():
            if table not in have:
                continue
            rows = store.table(table, experiment, run_id)
            if not rows.empty:
                out.update(load_object(where)(rows))
    return out


def _ratio(a: float, b: float) -> str:
    if b > 0:
        return f"{a / b:.2f}x"
    return "n/a (winner's error is 0)"


def runs_table(store: Any) -> pd.DataFrame:
    """The runs of a store for people (``mpx report --runs``): start and end as UTC dates to the second
    (the store keeps Unix seconds), a run still going or interrupted has no end."""
    runs = store.runs()
    for c in ("started", "finished"):
        t = pd.to_datetime(pd.to_numeric(runs[c], errors="coerce"), unit="s", utc=True)
        runs[c] = t.dt.strftime("%Y-%m-%d %H:%M:%S").fillna("-")
    return runs.rename(columns={"started": "started (UTC)", "finished": "finished (UTC)"})


def summary_text(store: Any, experiment: str | None = None, run_id: int | None = None, *, width: int | None = 120,
                 wide_dir: Any = None) -> str:
    """The summary tables as text for the terminal; a store holding several experiments gets one section
    per experiment. Lines fit ``width`` columns (None: no limit, ``--wide``): sentences are wrapped, a
    table wider than that is written to ``wide_dir/<title>.txt`` (when given) and named in its place."""
    named = experiment  # wide tables' files are named after the experiment, whoever asks (mpx run or mpx report)
    if experiment is None:
        names = list(dict.fromkeys(store.experiments()))
        if run_id is not None:
            runs = store.runs()
            names = list(runs.loc[runs["run_id"] == run_id, "experiment"]) or names
        named = names[0] if len(names) == 1 else None
        if len(names) > 1 and run_id is None:
            return "\n".join(f"\n######## experiment {name}\n"
                             f"{summary_text(store, name, width=width, wide_dir=wide_dir)}" for name in names)
    tables = summary_tables(store, experiment, run_id)
    if not tables:
        return "no results"
    wrap = (lambda text, **kw: textwrap.wrap(text, width=width, **kw)) if width else (lambda text, **kw: [text])
    lines = []
    with pd.option_context("display.width", 400, "display.max_columns", 60, "display.max_rows", 200,
                           "display.max_colwidth", 110):
        for title, t in tables.items():
            lines.append("")
            if isinstance(t, str):
                for para in t.splitlines():
                    lines += wrap(para, subsequent_indent="    ") or [""]
                continue
            reasons = t["reason"] if "reason" in t.columns else None  # sentences: wrapped under the table
            text = (t.drop(columns="reason") if reasons is not None else t).to_string(na_rep="n/a")
            lines += wrap(f"== {title}", subsequent_indent="   ")
            cols = max(len(line) for line in text.splitlines())
            if width and cols > width:
                where = _write_wide(wide_dir, named, title, text)
                lines += wrap(f"({cols} columns wide: " + (f"written to {where}; " if where else "")
                              + "mpx report --wide prints it)", subsequent_indent=" ", break_on_hyphens=False,
                              break_long_words=False)
            else:
                lines.append(text)
            if reasons is not None:
                for idx, reason in reasons.items():
                    head = " / ".join(map(str, idx if isinstance(idx, tuple) else (idx,)))
                    lines += textwrap.wrap(f"{head}: {reason}", width=min(width or 110, 110), subsequent_indent="    ")
    return "\n".join(lines)


def _write_wide(folder: Any, experiment: str | None, title: str, text: str) -> Any:
    """Write a table too wide for the terminal to ``folder/<experiment>-<title>.txt``; where, as printed
    (``tables/<file>``: the folder sits beside the store), None without a folder."""
    if folder is None:
        return None
    from pathlib import Path

    from mpx.experiment.store import write_atomic

    import hashlib

    slug = re.sub(r"[^a-z0-9]+", "-", f"{experiment or ''} {title}".lower()).strip("-")[:60].strip("-")
    slug += "-" + hashlib.sha1(title.encode()).hexdigest()[:6]  # titles alike in 60 characters: two files
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.txt"
    write_atomic(path, lambda tmp: Path(tmp).write_text(f"{title}\n\n{text}\n"))
    return f"{folder.name}/{path.name} beside the results store"
