"""The ranking rules and summary tables of a results store (`mpx report`, and `mpx run` at the end).

Tables (from `mpx.results.ResultsStore`, the latest run of each experiment unless an experiment or a
run id says otherwise):

- **scalers × schedulers**: median over workloads (and seeds) of each scaler's window MAPE (%), the
  read-window relative error of `mpx.evaluate.score`; medians, because a few workloads where a scaler
  blows up would otherwise decide a mean;
- **the winner** (`winner_text`): the best scheduler+scaler pair by that median, the runner-up, and a
  baseline pair with ratios; the baseline is `LINUX_DEFAULT`, Linux's default — perf's rotation
  (scheduler ``perf``) with perf's linear scaling (scaler ``linear``) — unless the caller names another.
  Pairs that leave > 1% of event-windows without an estimate or never estimate an event are listed
  apart, not ranked (`rank_pairs`);
- **scalers**: per scaler median window MAPE, whole-run total error, metric MAPE, calibration and
  throughput (event-windows per second);
- **scalers on common windows** (`common_windows_table`): per scaler, coverage, WAPE, median APE, MAPE
  and log accuracy on the window sets ``ran`` and ``all`` of `mpx.measures` (``docs/scoring.md``);
- **headline** (when the config lists methods under ``[output] headline``): per scheduler, counter count
  and workload set (shipped / ``[data] heldout``), each method's mean error over workloads beside the
  best other scaler's (a causal method against causal scalers only; an offline one against all), their
  ratio with a 95% bootstrap interval over workloads (paired by workload, 2,000 resamples, seed 0) and
  the method's 90% coverage. The error is `mpx.evaluate`'s ``window_mape_ran`` (windows where the event
  ran: every scaler has a value there), so scalers are compared on the same event-windows
  (`mpx.compare`);
- **schedulers**: mean utilization, sampling ratio, co-scheduling ratio and configurations;
- **partitioners** (``kind = "partition"`` experiments): per instance and tool, mean and best km1, km1
  relative to the published reference (when the config gives one) and to mpx's, mean seconds, feasibility;
- cells and scalers that were skipped (with the reason) or failed.

The scaler tables and the winner are made once per value of every configured setting that varies
across the cells (`SETTINGS`: counters, read window, quantum, noise...), each title naming the value:
a sweep is never pooled into one ranking.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from mpx.compare import headline, headline_methods

__all__ = ["LINUX_DEFAULT", "rank_pairs", "winner_text", "summary_tables", "common_windows_table", "headline_table",
           "partition_table", "summary_text"]

#: the baseline pair of the winner text: Linux's default, perf's rotation (scheduler ``perf``) with perf's
#: linear scaling (scaler ``linear``): what a user gets without choosing anything
LINUX_DEFAULT: tuple[str, str] = ("perf", "linear")


def rank_pairs(ok: pd.DataFrame) -> tuple[pd.Series, pd.Series, pd.Series, pd.Series]:
    """Scheduler+scaler pairs by median window MAPE over cells (``ok``: ``done`` score rows):
    ``(pair, missing, never, rankable)`` — each pair's median, median share of event-windows without an
    estimate, most events never estimated, and whether it is ranked. Window MAPE scores only windows with
    an estimate, so a pair that leaves > 1% of event-windows empty (perf's ``<not counted>``) or never
    estimates an event is not ranked against pairs that estimate every window."""
    pair = ok.groupby(["scheduler", "scaler"])["window_mape"].median().dropna().sort_values()
    miss = (pd.to_numeric(ok["missing_share"], errors="coerce") if "missing_share" in ok
            else pd.Series(0.0, index=ok.index))
    pmiss = miss.groupby([ok["scheduler"], ok["scaler"]]).median().reindex(pair.index).fillna(0.0)
    never = (pd.to_numeric(ok["n_events_never_estimated"], errors="coerce") if "n_events_never_estimated" in ok
             else pd.Series(0.0, index=ok.index))
    pnever = never.groupby([ok["scheduler"], ok["scaler"]]).max().reindex(pair.index).fillna(0.0)
    return pair, pmiss, pnever, (pmiss <= 0.01) & (pnever == 0)


def winner_text(ok: pd.DataFrame, baseline: tuple[str, str] = LINUX_DEFAULT) -> str | None:
    """The winner, the runner-up and ``baseline`` (by default `LINUX_DEFAULT`) with ratios to the
    winner's error, from the ``done`` score rows ``ok`` (`rank_pairs`); None when nothing is ranked."""
    pair, pmiss, pnever, good = rank_pairs(ok)
    full = pair[good]
    gaps = pair[~good]
    ranked = full if len(full) else pair
    if not len(ranked):
        return None
    (s1, c1), v1 = ranked.index[0], ranked.iloc[0]
    lines = [f"winner: {s1} + {c1}, median window MAPE {v1 * 100:.2f}%"]
    if len(ranked) > 1:
        (s2, c2), v2 = ranked.index[1], ranked.iloc[1]
        lines.append(f"runner-up: {s2} + {c2}, {v2 * 100:.2f}% ({_ratio(v2, v1)} the winner's error)")
    if baseline in pair.index and (s1, c1) != baseline:
        v0 = pair.loc[baseline]
        label = (f"Linux default ({baseline[0]} + {baseline[1]})" if baseline == LINUX_DEFAULT
                 else f"baseline ({baseline[0]} + {baseline[1]})")
        lines.append(f"{label}: {v0 * 100:.2f}% ({_ratio(v0, v1)} the winner's error"
                     + (f"; leaves {pmiss.loc[baseline] * 100:.1f}% of event-windows without "
                        "an estimate)" if pmiss.loc[baseline] > 0.01 else ")"))
    if len(full) and len(gaps):
        (sg, cg), vg = gaps.index[0], gaps.iloc[0]
        lines.append(f"not ranked: {len(gaps)} pair(s) leaving > 1% of event-windows without an estimate "
                     "or never counting an event, which window MAPE leaves out (best of them: "
                     f"{sg} + {cg}, {vg * 100:.2f}%; {pmiss.loc[(sg, cg)] * 100:.1f}% of event-windows "
                     f"without an estimate, up to {int(pnever.loc[(sg, cg)])} event(s) never counted)")
    lines.append(f"({len(pair)} scheduler+scaler pairs, {ok['workload'].nunique()} workload(s), "
                 f"{ok['seed'].nunique()} seed(s); medians over workloads and seeds)")
    return "\n".join(lines)


def scaler_tables(ok: pd.DataFrame, baseline: tuple[str, str] = LINUX_DEFAULT, where: str = "") -> dict[str, Any]:
    """The scaler tables and the winner of the ``done`` score rows ``ok`` of one setting (``where``
    names it in every title: callers split by every setting that varies, `SETTINGS`)."""
    out: dict[str, Any] = {}

    def title(text: str) -> str:
        return text + where

    ok = ok.copy()
    ok["window_mape"] = pd.to_numeric(ok["window_mape"], errors="coerce")
    piv = ok.pivot_table(index="scaler", columns="scheduler", values="window_mape", aggfunc="median")
    out[title("window MAPE (%), median over workloads: scaler x scheduler")] = (piv * 100).round(2)
    text = winner_text(ok, baseline)
    if text:
        out[title("winner")] = (f"== {where.strip()}\n" if where else "") + text
    agg = {"window_mape": "median", "total_error": "median"}
    for k in ("missing_share", "metric_mape", "calibration_90", "event_windows_per_s"):
        if k in ok:
            ok[k] = pd.to_numeric(ok[k], errors="coerce")
            agg[k] = "median"
    per = ok.groupby("scaler").agg(agg)
    per.insert(0, "causal", ok.groupby("scaler")["causal"].first().astype(bool))
    for k in ("window_mape", "total_error", "missing_share", "metric_mape", "calibration_90"):
        if k in per:
            per[k] = (per[k] * 100).round(2)
    if "event_windows_per_s" in per:
        per["event_windows_per_s"] = per["event_windows_per_s"].round(-3)
    per = per.rename(columns={"window_mape": "window MAPE %", "total_error": "total error %",
                              "missing_share": "no estimate %",
                              "metric_mape": "metric MAPE %", "calibration_90": "in 90% band %",
                              "event_windows_per_s": "event-windows/s"})
    out[title("scalers (medians over cells)")] = per.sort_values("window MAPE %")
    scheds = sorted(ok["scheduler"].dropna().unique())
    shown = baseline[0] if baseline[0] in scheds else (scheds[0] if scheds else None)
    common = common_windows_table(ok[ok["scheduler"] == shown]) if shown is not None else None
    if common is not None:
        others = f"; the other {len(scheds) - 1} schedulers: csv/scores.csv" if len(scheds) > 1 else ""
        out[title(f"scalers on common windows, scheduler {shown}{others} (docs/scoring.md: missing values "
                  "charged as 0; medians over cells; % except lnq)")] = common
    return out


def summary_tables(store: Any, experiment: str | None = None, run_id: int | None = None,
                   baseline: tuple[str, str] = LINUX_DEFAULT) -> dict[str, Any]:
    """The summary tables (pandas DataFrames) and a ``winner`` text (`winner_text`, against
    ``baseline``); empty tables are left out."""
    out: dict[str, Any] = {}
    scores = store.table("scores", experiment, run_id)
    sched = store.table("schedule", experiment, run_id)
    cells = store.table("cells", experiment, run_id)
    if not scores.empty and "window_mape" in scores:
        ok = scores[scores["status"] == "done"].copy()
        ok["window_mape"] = pd.to_numeric(ok["window_mape"], errors="coerce")
        if not ok.empty:
            varying = [k for k in SETTINGS if k in ok and ok[k].nunique(dropna=False) > 1]
            if not varying:
                out.update(scaler_tables(ok, baseline))
            else:  # never pool a swept setting: one set of tables (and one winner) per value
                for values, part in ok.groupby(varying, dropna=False):
                    values = values if isinstance(values, tuple) else (values,)
                    where = ", ".join(f"{k} = {v}" for k, v in zip(varying, values))
                    out.update(scaler_tables(part, baseline, f" [{where}]"))
        methods = headline_methods(store, experiment, run_id)
        if methods:
            out.update(headline_table(ok, methods))
        bad = scores[scores["status"] != "done"]
        if not bad.empty:
            g = bad.groupby(["scaler", "status"]).agg(cells=("cell_key", "nunique"), reason=("reason", "first"))
            g["reason"] = g["reason"].astype(str).str.slice(0, 110)
            out["scalers skipped or failed"] = g
    events = store.table("events", experiment, run_id)
    if not events.empty and "event_class" in events:
        ev = events.copy()
        ev["window_mape"] = pd.to_numeric(ev["window_mape"], errors="coerce")
        ev = ev[ev["event_class"] != "zero"]
        t = ev.pivot_table(index="scaler", columns="event_class", values="window_mape", aggfunc="median")
        if not t.empty:
            n = ev.groupby("event_class")["event"].nunique()
            t.columns = [f"{c} ({n[c]} ev.)" for c in t.columns]
            out["window MAPE (%) by event class (cv of true window counts: steady < 0.25 <= variable < 1 <= bursty), "
                "median over events and cells"] = (t * 100).round(2)
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
            by = ["dataset", "scheduler"] if per_catalog else ["scheduler"]
            t = s.groupby(by)[cols].mean()
            for c in cols[:-1]:
                t[c] = (t[c] * 100).round(1)
            t["groups"] = t["groups"].round(1)
            out["schedulers (means over cells; ratios in %)"] = t.rename(columns={
                "utilization": "utilization %", "mean_sampling_ratio": "sampling %", "min_sampling_ratio":
                "min sampling %", "mean_coschedule_ratio": "co-scheduled %", "groups": "configurations"})
    part = store.table("partition", experiment, run_id)
    if not part.empty and "km1" in part:
        out.update(partition_table(part))
    if not cells.empty:
        sk = cells[cells["status"] != "done"]
        if not sk.empty:
            g = sk.groupby(["scheduler", "status"]).agg(cells=("key", "count"), reason=("reason", "first"))
            g["reason"] = g["reason"].astype(str).str.slice(0, 110)
            out["cells skipped or failed"] = g
    return out


#: configured settings an experiment may sweep (not values derived per dataset, such as the quantum in trace
#: units): a table never pools cells that differ in one of them
SETTINGS = ("counters", "max_events", "read_every", "quantum_intervals", "quantum_ms", "noise_rel_sigma",
            "noise_read_overhead")


def common_windows_table(ok: pd.DataFrame) -> pd.DataFrame | None:
    """Per scaler (and per value of every setting that varies across ``ok``, `SETTINGS`), the measures of
    `mpx.measures` on the window sets ``ran`` and ``all`` (the same windows for every scaler of a cell)
    with coverage beside them: medians over cells, sorted by WAPE on ``all``. None for scores recorded
    before these measures existed. Callers pass one scheduler's rows."""
    cols = [f"{m}_{s}" for s in ("ran", "all") for m in ("coverage", "wape", "mdape", "mape", "lnq")]
    if not all(c in ok for c in cols):
        return None
    by = [k for k in SETTINGS if k in ok and ok[k].nunique(dropna=False) > 1] + ["scaler"]
    t = ok[cols].apply(pd.to_numeric, errors="coerce").groupby([ok[k] for k in by]).median()
    for c in cols:
        t[c] = t[c].round(3) if c.startswith("lnq") else (t[c] * 100).round(2)
    t.columns = pd.MultiIndex.from_tuples([(s, m) for s, m in (c.split("_")[::-1] for c in cols)],
                                          names=["windows", "measure"])
    return t.sort_values([*by[:-1], ("all", "wape")]) if len(by) > 1 else t.sort_values(("all", "wape"))


def headline_table(ok: Any, methods: list[str]) -> dict[str, Any]:
    """The headline table of the module docstring (`mpx.compare.headline`) from the ``done`` score rows."""
    h = headline(ok, methods)
    if h.empty:
        return {}
    t = h.assign(**{
        "workloads": [f"{s} ({n})" for s, n in zip(h["set"], h["workloads"])],
        "method %": (100 * h["method_error"]).round(1), "best baseline": h["baseline"],
        "baseline %": (100 * h["baseline_error"]).round(1), "ratio": h["ratio"].round(2),
        "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(h["ratio_lo"], h["ratio_hi"])],
        "in 90% band %": (100 * h["calibration_90"]).round(1)})
    t = t.set_index(["workloads", "scheduler", "counters", "method"])[
        ["causal", "method %", "best baseline", "baseline %", "ratio", "95% CI", "in 90% band %"]]
    return {f"headline: {', '.join(methods)} against the best other scaler (window_mape_ran, mean over workloads; "
            "ratio with a 95% bootstrap interval over workloads)": t}


def partition_table(part: Any) -> dict[str, Any]:
    """Per instance and tool: runs, mean / best km1, mean km1 over the reference and over mpx's, seconds."""
    ok = part[part["status"] == "done"].copy()
    if ok.empty:
        return {}
    for c in ("km1", "partition_seconds", "reference_km1"):
        ok[c] = pd.to_numeric(ok[c], errors="coerce")
    ok["feasible"] = ok["feasible"].astype(bool)
    ok["_f"] = ok["family"].map({"hmetis": 0, "events": 1, "catalog": 2})
    ok["_t"] = ok["tool"].map({"mpx": 0, "kahypar": 1, "mtkahypar": 2})
    ok = ok.sort_values(["_f", "n", "k", "instance", "_t"], kind="mergesort")
    t = ok.groupby(["instance", "tool"], sort=False).agg(
        runs=("km1", "size"), mean_km1=("km1", "mean"), best_km1=("km1", "min"), ref=("reference_km1", "first"),
        mean_s=("partition_seconds", "mean"), feasible=("feasible", "mean"))
    t["km1 / reference"] = (t["mean_km1"] / t["ref"]).round(3)
    mpx_mean = t["mean_km1"].xs("mpx", level="tool") if "mpx" in set(ok["tool"]) else None
    if mpx_mean is not None:
        t["km1 / mpx's"] = [round(m / mpx_mean[i], 3) if i in mpx_mean.index and mpx_mean[i] > 0 else float("nan")
                            for (i, _), m in t["mean_km1"].items()]
    t["feasible %"] = (t.pop("feasible") * 100).round(0)
    t = t.drop(columns="ref").rename(columns={"mean_km1": "mean km1", "best_km1": "best km1", "mean_s": "mean s"})
    t["mean km1"] = t["mean km1"].round(1)
    t["mean s"] = t["mean s"].round(4)
    return {"partitioners: km1 and seconds per instance and tool (means over seeds; wall time of one call)": t}


def _ratio(a: float, b: float) -> str:
    if b > 0:
        return f"{a / b:.2f}x"
    return "n/a (winner's error is 0)"


def summary_text(store: Any, experiment: str | None = None, run_id: int | None = None) -> str:
    """The summary tables as text for the terminal; a store holding several experiments gets one section
    per experiment."""
    if experiment is None and run_id is None:
        names = list(dict.fromkeys(store.experiments()))
        if len(names) > 1:
            return "\n".join(f"\n######## experiment {name}\n{summary_text(store, name)}" for name in names)
    tables = summary_tables(store, experiment, run_id)
    if not tables:
        return "no results"
    lines = []
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 200,
                           "display.max_colwidth", 110):
        for title, t in tables.items():
            lines.append("")
            lines += [t] if isinstance(t, str) else [f"== {title}", t.to_string()]
    return "\n".join(lines)
