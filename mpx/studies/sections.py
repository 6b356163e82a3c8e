"""The report sections of the partition and alignment experiment kinds (each kind names its function in
`mpx.experiment.kinds.CellKind.report`; `mpx.studies.report.kind_sections` calls it with the run's rows)."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["ALIGNMENT_SETTINGS", "alignment_frontier", "alignment_tables", "partition_table"]


def partition_table(part: Any) -> dict[str, Any]:
    """Per instance and tool: runs, mean / best km1, mean km1 over the reference and over mpx's, seconds."""
    if "km1" not in part:
        return {}
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


#: settings of alignment rows that a config may vary: never pooled (each value its own rows)
ALIGNMENT_SETTINGS = ("pmu", "axis", "read_every", "alignment_params", "synthetic_warp", "synthetic_rate_noise",
                      "synthetic_offset")


def alignment_frontier(rows: pd.DataFrame) -> pd.DataFrame:
    """The ``done`` rows of the ``alignment`` table, one per workload × counters × road × method × anchor ×
    runs: medians over the reference runs of WAPE (all windows), EMD, coverage and cost."""
    df = rows[rows["status"] == "done"].copy()
    for c in ("wape_all", "emd", "coverage_all", "runs", "cost", "counters", "events_per_counter",
              "mux_sampling_ratio"):
        df[c] = pd.to_numeric(df.get(c), errors="coerce")
    df["anchor"] = df["anchor"].fillna("-")
    swept = [c for c in ALIGNMENT_SETTINGS if c in df and df[c].nunique(dropna=False) > 1]
    keys = ["workload", "counters", "events_per_counter", *swept, "road", "method", "anchor", "runs"]
    return (df.groupby(keys, as_index=False, dropna=False)
              .agg(wape_all=("wape_all", "median"), emd=("emd", "median"), coverage_all=("coverage_all", "median"),
                   cost=("cost", "median"), references=("reference", "nunique"),
                   mux_sampling=("mux_sampling_ratio", "median")))


def alignment_tables(rows: pd.DataFrame) -> dict[str, Any]:
    """Per workload and counter count: the best method of each road, and whether trace alignment beats
    multiplexing with one run and at the same run count (`alignment_frontier`)."""
    if "road" not in rows:
        return {}
    t = alignment_frontier(rows)
    if t.empty:
        return {}
    t["label"] = [m if a == "-" else f"{m}@{a}" for m, a in zip(t["method"], t["anchor"])]
    out = []
    swept = [c for c in ALIGNMENT_SETTINGS if c in t]
    for key, g in t.groupby(["workload", "counters", "events_per_counter", *swept], dropna=False):
        w, k, epc = key[:3]
        def best(road: str, runs: float | None = None) -> Any:
            sub = g[(g["road"] == road) & ((g["runs"] == runs) if runs is not None else True)]
            return None if sub.empty else sub.loc[sub["wape_all"].idxmin()]
        mux, al = best("multiplex"), best("alignment")
        same = best("multiplex_runs", al["runs"]) if al is not None else None
        floor = best("floor", al["runs"]) if al is not None else None
        row = {"workload": w, "counters": int(k), "events/counter": round(epc, 2), **dict(zip(swept, key[3:])),
               "mux sampling %": round(100 * g["mux_sampling"].median(), 1)}
        if mux is not None:
            row.update({"multiplex (1 run)": mux["label"], "mux %": round(100 * mux["wape_all"], 1)})
        if al is not None:
            row.update({"alignment": al["label"], "runs": int(al["runs"]), "align %": round(100 * al["wape_all"], 1),
                        "floor %": None if floor is None else round(100 * floor["wape_all"], 1)})
        if same is not None:
            row.update({"mux at R runs": same["label"], "mux R %": round(100 * same["wape_all"], 1)})
        if mux is not None and al is not None:
            row["align / mux (1 run)"] = round(al["wape_all"] / mux["wape_all"], 2) if mux["wape_all"] > 0 else None
        if same is not None and al is not None:
            row["align / mux (R runs)"] = (round(al["wape_all"] / same["wape_all"], 2) if same["wape_all"] > 0
                                           else None)
        out.append(row)
    best_t = pd.DataFrame(out).set_index(["workload", "counters", "events/counter", *swept])
    detail = t.assign(**{"WAPE %": (100 * t["wape_all"]).round(1), "EMD": t["emd"].round(3),
                         "coverage %": (100 * t["coverage_all"]).round(1), "cost": t["cost"].round(2)})
    detail = detail.set_index(["workload", "counters", *swept, "road", "label", "runs"])[
        ["WAPE %", "EMD", "coverage %", "cost", "references"]]
    return {"alignment vs multiplexing: the best method of each road (WAPE on all windows of the reference run, "
            "median over reference runs; R = the alignment plan's run count)": best_t,
            "alignment vs multiplexing: every method": detail}
