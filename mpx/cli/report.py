"""``mpx report RESULTS``: summary tables of a results store, for the terminal or as LaTeX.

Tables (from `mpx.results.ResultsStore`, the latest run of each experiment unless ``--experiment`` /
``--run`` say otherwise):

- **scalers × schedulers**: median over workloads (and seeds) of each scaler's window MAPE (%), the
  read-window relative error of `mpx.evaluate.score`; medians, because a few workloads where a scaler
  blows up would otherwise decide a mean;
- **the winner**: the best scheduler+scaler pair by that median, the runner-up, and Linux's default
  (perf's rotation + perf's linear scaling), with ratios;
- **scalers**: per scaler median window MAPE, whole-run total error, metric MAPE, calibration and
  throughput (event-windows per second);
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
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run", "summary_tables", "print_summary", "headline_table"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="summary tables of a results store (terminal or LaTeX)",
        description="Print the summary tables of a results store (mpx run --out DIR: give DIR or "
        "DIR/results.sqlite): scalers x schedulers (median window MAPE over workloads), the winner and by how "
        "much, per-scaler and per-scheduler figures, skipped and failed cells.",
    )
    p.add_argument("results", help="results folder or results.sqlite file")
    p.add_argument("--experiment", help="experiment name (default: the latest run of every experiment)")
    p.add_argument("--run", type=int, metavar="ID", help="one run id (see --runs)")
    p.add_argument("--runs", action="store_true", help="list the runs stored")
    p.add_argument("--latex", action="store_true", help="print LaTeX tables (booktabs) instead")


# -- tables -----------------------------------------------------------------------------------------


def _pct(x: Any) -> Any:
    return x * 100.0


def summary_tables(store: Any, experiment: str | None = None, run_id: int | None = None) -> dict[str, Any]:
    """The summary tables (pandas DataFrames) and a ``winner`` text; empty tables are left out."""
    import pandas as pd

    out: dict[str, Any] = {}
    scores = store.table("scores", experiment, run_id)
    sched = store.table("schedule", experiment, run_id)
    cells = store.table("cells", experiment, run_id)
    if not scores.empty and "window_mape" in scores:
        ok = scores[scores["status"] == "done"].copy()
        if not ok.empty:
            ok["window_mape"] = pd.to_numeric(ok["window_mape"], errors="coerce")
            piv = ok.pivot_table(index="scaler", columns="scheduler", values="window_mape", aggfunc="median")
            out["window MAPE (%), median over workloads: scaler x scheduler"] = (piv * 100).round(2)
            pair = ok.groupby(["scheduler", "scaler"])["window_mape"].median().dropna().sort_values()
            # window MAPE scores only windows with an estimate: a pair that leaves windows empty (perf's
            # <not counted>) is not ranked against pairs that estimate every window
            miss = (pd.to_numeric(ok["missing_share"], errors="coerce") if "missing_share" in ok
                    else pd.Series(0.0, index=ok.index))
            pmiss = miss.groupby([ok["scheduler"], ok["scaler"]]).median().reindex(pair.index).fillna(0.0)
            never = (pd.to_numeric(ok["n_events_never_estimated"], errors="coerce") if "n_events_never_estimated" in ok
                     else pd.Series(0.0, index=ok.index))
            pnever = never.groupby([ok["scheduler"], ok["scaler"]]).max().reindex(pair.index).fillna(0.0)
            good = (pmiss <= 0.01) & (pnever == 0)
            full = pair[good]
            gaps = pair[~good]
            ranked = full if len(full) else pair
            if len(ranked):
                (s1, c1), v1 = ranked.index[0], ranked.iloc[0]
                lines = [f"winner: {s1} + {c1}, median window MAPE {v1 * 100:.2f}%"]
                if len(ranked) > 1:
                    (s2, c2), v2 = ranked.index[1], ranked.iloc[1]
                    lines.append(f"runner-up: {s2} + {c2}, {v2 * 100:.2f}% "
                                 f"({_ratio(v2, v1)} the winner's error)")
                if ("perf", "linear") in pair.index and (s1, c1) != ("perf", "linear"):
                    v0 = pair.loc[("perf", "linear")]
                    lines.append(f"Linux default (perf + linear): {v0 * 100:.2f}% ({_ratio(v0, v1)} the winner's error"
                                 + (f"; leaves {pmiss.loc[('perf', 'linear')] * 100:.1f}% of event-windows without "
                                    "an estimate)" if pmiss.loc[("perf", "linear")] > 0.01 else ")"))
                if len(full) and len(gaps):
                    (sg, cg), vg = gaps.index[0], gaps.iloc[0]
                    lines.append(f"not ranked: {len(gaps)} pair(s) leaving > 1% of event-windows without an estimate "
                                 "or never counting an event, which window MAPE leaves out (best of them: "
                                 f"{sg} + {cg}, {vg * 100:.2f}%; {pmiss.loc[(sg, cg)] * 100:.1f}% of event-windows "
                                 f"without an estimate, up to {int(pnever.loc[(sg, cg)])} event(s) never counted)")
                n_w = ok["workload"].nunique()
                lines.append(f"({len(pair)} scheduler+scaler pairs, {n_w} workload(s), "
                             f"{ok['seed'].nunique()} seed(s); medians over workloads and seeds)")
                out["winner"] = "\n".join(lines)
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
            per = per.rename(columns={"window_mape": "window MAPE %", "total_error": "total error %", "missing_share": "no estimate %",
                                      "metric_mape": "metric MAPE %", "calibration_90": "in 90% band %",
                                      "event_windows_per_s": "event-windows/s"})
            out["scalers (medians over cells)"] = per.sort_values("window MAPE %")
        from mpx.compare import headline_methods

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
        out.update(_partition_table(part))
    if not cells.empty:
        sk = cells[cells["status"] != "done"]
        if not sk.empty:
            g = sk.groupby(["scheduler", "status"]).agg(cells=("key", "count"), reason=("reason", "first"))
            g["reason"] = g["reason"].astype(str).str.slice(0, 110)
            out["cells skipped or failed"] = g
    return out


def headline_table(ok: Any, methods: list[str]) -> dict[str, Any]:
    """The headline table of the module docstring (`mpx.compare.headline`) from the ``done`` score rows."""
    from mpx.compare import headline

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


def _partition_table(part: Any) -> dict[str, Any]:
    """Per instance and tool: runs, mean / best km1, mean km1 over the reference and over mpx's, seconds."""
    import pandas as pd

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


def print_summary(store: Any, experiment: str | None = None, run_id: int | None = None) -> None:
    """Print the summary tables; a store holding several experiments gets one section per experiment."""
    import pandas as pd

    if experiment is None and run_id is None:
        names = list(dict.fromkeys(store.experiments()))
        if len(names) > 1:
            for name in names:
                print(f"\n######## experiment {name}")
                print_summary(store, name)
            return
    tables = summary_tables(store, experiment, run_id)
    if not tables:
        print("no results")
        return
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 200,
                           "display.max_colwidth", 110):
        for title, t in tables.items():
            print()
            if isinstance(t, str):
                print(t)
            else:
                print(f"== {title}")
                print(t.to_string())


def run(args: argparse.Namespace) -> int:
    import re

    from mpx.results import open_store, to_latex

    with open_store(args.results) as store:
        if args.runs:
            print(store.runs().to_string(index=False))
            return 0
        if not args.latex:
            print_summary(store, args.experiment, args.run)
            return 0
        names = [args.experiment] if args.experiment or args.run else list(dict.fromkeys(store.experiments()))
        for name in names or [None]:
            if len(names) > 1:
                print(f"% ---- experiment {name}")
            for title, t in summary_tables(store, name, args.run).items():
                if isinstance(t, str):
                    print("% " + t.replace("\n", "\n% "))
                    continue
                slug = re.sub(r"[^a-z0-9]+", "-", f"{name or ''} {title}".lower()).strip("-")[:48]
                print(to_latex(t, title if len(names) < 2 else f"{name}: {title}", "tab:" + slug))
                print()
    return 0
