"""``kind = "alignment"``: trace alignment against multiplexing on the same repeated runs.

A cell is one run set (`mpx.recording.runset.RunSet`; or ``[data] synthetic``: copies of one recorded run perturbed
by `mpx.recording.runset.vary`, labelled synthetic) × hardware × reference run. The truth is the reference
run's own trace; every row is scored on its read windows with `mpx.scoring.score.score` (the scalers'
protocol) plus `mpx.scoring.measures.emd` (Fuse's distribution measure). Rows (table ``alignment``), by ``road``:

- ``multiplex``: the reference run multiplexed by ``[alignment] scheduler`` and estimated by each scaler
  (one run: cost 1);
- ``multiplex_runs``: the same number of runs as an alignment plan, each multiplexed and estimated, merged
  onto the reference (``merge="mean"``) on each anchor — by the naive aligner on the time axis, by DTW on
  an anchor event (its scaled estimate: it is multiplexed too): the multiplexing road at equal run count;
- ``alignment``: one group per run (`mpx.aligners.measure.plan_runs` from ``grouping``), read by ``linear`` (exact:
  nothing is multiplexed), merged by each aligner on each anchor;
- ``floor``: the same aligner fed the other runs' *true* counts of every event — what run-to-run
  variation alone costs that aligner (not a strict bound: it averages over every other run);
- ``multiplex_vs_aligned`` (``[alignment] aligned_truth = "ANCHOR"``): the ``multiplex`` estimates scored
  against *another* run's true counts aligned onto the reference by DTW on ``ANCHOR`` — BayesPerf's
  protocol (its ground truth was a separate run aligned by DTW), beside mpx's own-run truth.

``mux_sampling_ratio`` is the multiplexed run's mean sampling ratio (with a catalog's metric groups
perf rotates groups, not events, so it stays below 1 even when the events would fit: ``perf stat -M``).
``cost`` is the measurement cost in reference-run lengths (the sum of the runs' durations on the set's
time axis); ``runs`` the number of runs. Config reference: ``experiments/README.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mpx import aligners, scalers
from mpx.errors import ConfigError, MpxError
from mpx.scoring.score import score
from mpx.experiment.config import Experiment
from mpx.experiment.grid import check_sweep, finish_cell, unique
from mpx.experiment.hardware import HARDWARE_KEYS, build_problem, check_hardware_variant, require_hardware, resolve_hardware
from mpx import code_version
from mpx.experiment.kinds import CellKind
from mpx.experiment.rows import clean_row, varying_settings
from mpx.scoring.measures import emd
from mpx.multiplex import multiplex, resolve_quantum
from mpx.aligners.measure import TIME_ANCHOR, measure_runs, multiplex_runs, plan_runs, run_costs
from mpx.recording.runset import RunSet, vary as runset_vary
from mpx.scalers.base import Estimate
from mpx.scoring.schedules import schedule_scores
from mpx.trace import Trace

__all__ = ["AlignmentKind", "ALIGNMENT_KEYS", "ALIGNMENT_SETTINGS", "alignment_frontier", "alignment_tables"]

ALIGNMENT_KEYS = frozenset({"grouping", "anchors", "aligners", "scheduler", "scalers", "references", "aligned_truth",
                            "params"})
_MUX_KEYS = frozenset({"quantum", "quantum_intervals", "read_every"})
_AXES = ("own", "estimated_cycles")
_SUMMARY = ("wape_all", "mape_all", "mdape_all", "wape_ran", "wape_unran", "coverage_all", "total_error",
            "metric_wape_all", "metric_mape_all", "over10_all")


_VARY_KEYS = frozenset({"from", "run", "runs", "warp", "rate_noise", "offset", "segments", "seed"})


@lru_cache(maxsize=8)
def _load(path: str, axis: str, vary: str = "") -> RunSet:
    """A run set (``vary``: the JSON of a ``[data] synthetic`` table: copies of one of its runs, perturbed by
    `mpx.recording.runset.vary`), on its own axis or on estimated cycles."""
    rs = RunSet.load(path)
    if axis == "estimated_cycles":
        rs = rs.on_estimated_cycles()
    if vary:
        v = json.loads(vary)
        rs = runset_vary(rs.traces[v.get("run", 0)], v["runs"], warp=v.get("warp", 0.0),
                         rate_noise=v.get("rate_noise", 0.0), offset=v.get("offset", 0.0),
                         segments=v.get("segments", 20), seed=v.get("seed", 0))
    return rs


def _checksum(path: str, axis: str, vary: str = "") -> str:
    h = hashlib.sha256((axis + vary).encode())
    for t in _load(path, axis, vary).traces:
        h.update(t.checksum().encode())
    return h.hexdigest()[:16]


class AlignmentKind(CellKind):
    """Trace alignment and multiplexing on repeated runs (module docstring)."""

    name = "alignment"
    sections = {"hardware": HARDWARE_KEYS, "multiplex": _MUX_KEYS, "alignment": ALIGNMENT_KEYS}
    data_keys = frozenset({"runsets", "axis", "synthetic"})
    tables = {"alignment": ("road", "method", "anchor")}
    report = {"alignment": "mpx.experiment.alignment:alignment_tables"}

    def validate(self, exp: Experiment) -> None:
        w, raw = exp.where, exp.raw
        hw = require_hardware(raw, w)
        if "metrics" not in hw and "events" not in hw:
            raise ConfigError(f"{w}: [hardware] needs metrics (a catalog) or events (a list)")
        data = raw.get("data", {})
        if not data.get("runsets") and not data.get("synthetic"):
            raise ConfigError(f"{w}: [data] needs runsets (run-set folders: mpx record --runs N) or synthetic")
        syn = data.get("synthetic")
        if syn is not None and (not isinstance(syn, dict) or set(syn) - _VARY_KEYS or "from" not in syn
                                or not isinstance(syn.get("runs"), int) or syn["runs"] < 1):
            raise ConfigError(f"{w}: [data] synthetic must be a table with from (a run set), runs (>= 1) and "
                              f"optionally {sorted(_VARY_KEYS - {'from', 'runs'})}")
        if data.get("axis", "own") not in _AXES:
            raise ConfigError(f"{w}: [data] axis must be one of {_AXES}, got {data.get('axis')!r}")
        mux = raw.get("multiplex", {})
        if sum(k in mux for k in ("quantum", "quantum_intervals")) != 1 or "read_every" not in mux:
            raise ConfigError(f"{w}: [multiplex] needs read_every and one of quantum or quantum_intervals")
        al = raw.get("alignment", {})
        for key in ("aligners", "scalers", "anchors"):
            if not isinstance(al.get(key), list) or not al[key]:
                raise ConfigError(f"{w}: [alignment] {key} must be a non-empty list")
        params = al.get("params", {})
        if not isinstance(params, dict) or set(params) - set(al["aligners"]):
            raise ConfigError(f"{w}: [alignment] params must be a table of the aligners' parameters, e.g. "
                              f"params = {{dtw = {{band = 0.05}}}} (aligners: {al['aligners']})")
        for a in al["aligners"]:
            aligners.get(a, **params.get(a, {})).validate_params()
        for s in al["scalers"]:
            if scalers.REGISTRY.tags(s).learned:
                raise ConfigError(f"{w}: [alignment] scalers: {s!r} is learned (fitted on other workloads); the "
                                  "alignment kind has no training sets: use it in a scaling experiment")
        check_sweep(raw, w, ("hardware", "multiplex", "alignment", "data"),
                    "only hardware.*, multiplex.*, alignment.* and data.* can be swept")
        for cfg in exp.variants():
            check_hardware_variant(cfg["hardware"], w)

    def cells(self, exp: Experiment) -> list[dict]:
        w = exp.where
        version = code_version()
        cells: list[dict] = []
        for cfg in exp.variants():
            hardware = resolve_hardware(cfg, exp.base, w)
            try:
                build_problem(hardware)
            except ConfigError as exc:
                raise ConfigError(f"{w}: {exc}") from None
            axis = cfg["data"].get("axis", "own")
            al = cfg["alignment"]
            entries = [(e, "") for e in cfg["data"].get("runsets", [])]
            syn = cfg["data"].get("synthetic")
            if syn:
                entries.append((syn["from"], json.dumps({k: v for k, v in syn.items() if k != "from"}, sort_keys=True)))
            for entry, vary in entries:
                path = str(Path(entry) if os.path.isabs(entry) else (exp.base / entry).resolve())
                try:
                    rs = _load(path, axis, vary)
                except (MpxError, ValueError, IndexError) as exc:
                    raise ConfigError(f"{w}: [data] {'synthetic' if vary else 'runsets'} {entry!r}: {exc}") from None
                for ref in al.get("references", [0]):
                    if not isinstance(ref, int) or not 0 <= ref < len(rs):
                        raise ConfigError(f"{w}: [alignment] references: {ref!r} is not a run of {entry!r} "
                                          f"(it has {len(rs)})")
                    cells.append(finish_cell({
                        "kind": "alignment", "dataset": {"kind": "runset", "name": rs.workload, "path": path,
                                                         "vary": vary},
                        "dataset_checksum": _checksum(path, axis, vary), "axis": axis, "hardware": hardware,
                        "multiplex": dict(cfg["multiplex"]), "seed": 0, "reference": ref,
                        "scheduler": {"name": al.get("scheduler", "perf"), "params": {}},
                        "alignment": {k: al[k] for k in sorted(al)}, "code_version": version}, exp.name))
        return unique(cells, w)

    def run(self, cell: dict) -> dict[str, Any]:
        rs = _load(cell["dataset"]["path"], cell["axis"], cell["dataset"].get("vary", ""))
        problem, catalog = build_problem(cell["hardware"])
        ref_i = cell["reference"]
        truth = rs.traces[ref_i]
        mux, al = cell["multiplex"], cell["alignment"]
        quantum = resolve_quantum(mux, truth)[0]
        every = mux["read_every"]
        base = {"cell_key": cell["key"], "experiment": cell.get("experiment"), "workload": rs.workload,
                "dataset_checksum": cell["dataset_checksum"], "code_version": cell["code_version"],
                "axis": cell["axis"], "reference": ref_i, "pmu": cell["hardware"]["pmu"],
                "counters": problem.n_counters(), "n_events": problem.n_events,
                "events_per_counter": problem.n_events / problem.n_counters(), "quantum": quantum,
                "read_every": every, "time_unit": truth.time_unit, "set_runs": len(rs),
                "alignment_params": json.dumps(al.get("params", {}), sort_keys=True),
                **{f"synthetic_{k}": v for k, v in rs.meta.get("synthetic", {}).items() if k in ("warp", "rate_noise",
                                                                                                 "offset")}}
        rows: list[dict] = []

        def add(road: str, method: str, est: Estimate, *, runs: int, anchor: str | None, seconds: float,
                note: str | None = None, against: Any = None) -> None:
            ref_truth = truth if against is None else against
            sc = score(est, ref_truth, catalog, check_trace=against is None)
            true_w = sc.windows["truth"]  # score's own true windows
            rows.append(clean_row({**base, "road": road, "method": method, "anchor": anchor, "runs": runs,
                                   "cost": run_costs(rs, runs, ref_i), "status": "done", "reason": note,
                                   "n_windows": est.counts.shape[0], "seconds": seconds,
                                   **{k: sc.summary.get(k) for k in _SUMMARY},
                                   "emd": float(np.nanmean(emd(est.counts, true_w)))}))

        def skip(road: str, method: str, anchor: str | None, why: str, runs: int | None = None) -> None:
            rows.append({**base, "road": road, "method": method, "anchor": anchor, "runs": runs,
                         "status": "skipped", "reason": why})

        sched = cell["scheduler"]["name"]
        obs = multiplex(truth, problem, sched, quantum, every)
        base["mux_sampling_ratio"] = schedule_scores(obs).summary()["mean_sampling_ratio"]
        aligned = _aligned_truth(rs, ref_i, obs, al["aligned_truth"]) if al.get("aligned_truth") else None
        for s in al["scalers"]:
            t = time.perf_counter()
            est = scalers.get(s).estimate(obs)
            add("multiplex", s, est, runs=1, anchor=None, seconds=time.perf_counter() - t)
            if aligned is not None:
                add("multiplex_vs_aligned", s, est, runs=1, anchor=al["aligned_truth"], seconds=0.0, against=aligned,
                    note=f"truth: run {(ref_i + 1) % len(rs)} aligned onto the reference by DTW")
        run_counts: set[int] = set()
        for anchor in al["anchors"]:
            try:
                plan = plan_runs(problem, al.get("grouping", "round_robin"), anchor)
                measured = measure_runs(rs, problem, plan, quantum, every, ref_i)
            except ConfigError as exc:
                for a in al["aligners"]:
                    skip("alignment", a, anchor, str(exc))
                continue
            run_counts.add(plan.n_runs)
            exact = [scalers.get("linear").estimate(o) for o in measured]
            oracle = [exact[0]] + [_oracle(rs.traces[(ref_i + i) % len(rs)], o) for i, o in enumerate(measured) if i]
            for a in al["aligners"]:
                aligner = aligners.get(a, **al.get("params", {}).get(a, {}))
                if aligner.tags().needs_rate and anchor == TIME_ANCHOR:
                    skip("alignment", a, anchor, f"{a} aligns on the anchor's rate: the time axis has none")
                    continue
                t = time.perf_counter()
                add("alignment", a, aligner.align(exact, anchor), runs=plan.n_runs, anchor=anchor,
                    seconds=time.perf_counter() - t, note=f"groups by {plan.grouping}; anchor cost: {plan.anchor_cost}")
                add("floor", a, aligner.align(oracle, anchor), runs=plan.n_runs, anchor=anchor, seconds=0.0)
        for n in sorted(run_counts):
            if n < 2:
                continue
            try:
                many = multiplex_runs(rs, problem, sched, quantum, every, n, ref_i)
            except ConfigError as exc:
                skip("multiplex_runs", "*", TIME_ANCHOR, str(exc), n)
                continue
            for s in al["scalers"]:
                t = time.perf_counter()
                ests = [scalers.get(s).estimate(o) for o in many]
                est_s = time.perf_counter() - t
                for anchor in al["anchors"]:  # merged on the time axis, or by DTW on the estimated anchor
                    how = aligners.get("naive" if anchor == TIME_ANCHOR else "dtw", merge="mean")
                    t = time.perf_counter()
                    try:
                        merged = how.align(ests, anchor)
                    except ConfigError as exc:
                        skip("multiplex_runs", s, anchor, str(exc), n)
                        continue
                    add("multiplex_runs", s, merged, runs=n, anchor=anchor, seconds=est_s + time.perf_counter() - t,
                        note=f"{n} multiplexed runs merged by {how.name} (merge=mean)")
        return {"alignment": rows}


def _aligned_truth(rs: RunSet, ref: int, obs: Any, anchor: str) -> Trace:
    """The next run's true counts of every event, aligned onto the reference's read windows by DTW on
    ``anchor`` (the reference contributes only the anchor): BayesPerf's kind of ground truth."""
    if len(rs) < 2:
        raise ConfigError("aligned_truth needs a run set of at least two runs")
    other = rs.traces[(ref + 1) % len(rs)]
    mine = _oracle(rs.traces[ref], obs)
    keep = np.array([e == anchor for e in mine.events])
    only_anchor = Estimate(mine.events, mine.edges, np.where(keep, mine.counts, np.nan),
                           np.broadcast_to(~keep, mine.counts.shape).copy())
    est = aligners.get("dtw").align([only_anchor, _oracle(other, obs)], anchor)
    counts = np.where(est.not_estimated, 0.0, est.counts)
    return Trace(est.events, counts, est.edges, rs.traces[ref].time_unit,
                 meta={"workload": rs.workload, "truth": f"run {(ref + 1) % len(rs)} aligned by DTW on {anchor}"})


def _oracle(trace: Any, obs: Any) -> Estimate:
    """Every event of ``trace`` exactly, on ``obs``'s read windows: the floor's other runs."""
    edges = obs.reads.edges
    counts = trace.rebin(obs.events, edges)
    return Estimate(obs.events, edges, counts, np.zeros(counts.shape, dtype=bool), scaler="oracle")


# the report section of the alignment table (`AlignmentKind.report`; `mpx.studies.report.kind_sections`)
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
    swept = varying_settings(df, settings=ALIGNMENT_SETTINGS)
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
