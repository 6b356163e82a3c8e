"""``kind = "alignment"``: trace alignment against multiplexing on the same repeated runs.

A cell is one run set (`mpx.runset.RunSet`) × hardware × reference run. The truth is the reference
run's own trace; every row is scored on its read windows with `mpx.evaluate.score` (the scalers'
protocol) plus `mpx.measures.emd` (Fuse's distribution measure). Rows (table ``alignment``), by ``road``:

- ``multiplex``: the reference run multiplexed by ``[alignment] scheduler`` and estimated by each scaler
  (one run: cost 1);
- ``multiplex_runs``: the same number of runs as an alignment plan, each multiplexed and estimated, merged
  onto the reference (``merge="mean"``) on each anchor — by the naive aligner on the time axis, by DTW on
  an anchor event (its scaled estimate: it is multiplexed too): the multiplexing road at equal run count;
- ``alignment``: one group per run (`mpx.runs.plan_runs` from ``grouping``), read by ``linear`` (exact:
  nothing is multiplexed), merged by each aligner on each anchor;
- ``floor``: the same aligner fed the other runs' *true* counts of every event — what run-to-run
  variation alone costs that aligner; no method of that road can be expected to beat it.

``cost`` is the measurement cost in reference-run lengths (the sum of the runs' durations on the set's
time axis); ``runs`` the number of runs. Config reference: ``experiments/README.md``.
"""

from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mpx import aligners, scalers
from mpx.errors import ConfigError, MpxError
from mpx.evaluate import score
from mpx.experiment.config import Experiment
from mpx.experiment.grid import check_sweep, finish_cell, unique
from mpx.experiment.hardware import HARDWARE_KEYS, build_problem, check_hardware_variant, require_hardware, resolve_hardware
from mpx.experiment.inputs import code_version
from mpx.experiment.kinds import CellKind
from mpx.experiment.rows import clean_row
from mpx.measures import emd
from mpx.multiplex import multiplex, resolve_quantum
from mpx.runs import TIME_ANCHOR, measure_runs, multiplex_runs, plan_runs, run_costs
from mpx.runset import RunSet
from mpx.scalers.base import Estimate
from mpx.trace import rebin_counts

__all__ = ["AlignmentKind", "ALIGNMENT_KEYS"]

ALIGNMENT_KEYS = frozenset({"grouping", "anchors", "aligners", "scheduler", "scalers", "references"})
_MUX_KEYS = frozenset({"quantum", "quantum_intervals", "read_every"})
_AXES = ("own", "estimated_cycles")
_SUMMARY = ("wape_all", "mape_all", "mdape_all", "wape_ran", "wape_unran", "coverage_all", "total_error",
            "metric_wape_all", "over10_all")


@lru_cache(maxsize=8)
def _load(path: str, axis: str) -> RunSet:
    rs = RunSet.load(path)
    return rs.on_estimated_cycles() if axis == "estimated_cycles" else rs


def _checksum(path: str, axis: str) -> str:
    h = hashlib.sha256(axis.encode())
    for t in _load(path, axis).traces:
        h.update(t.checksum().encode())
    return h.hexdigest()[:16]


class AlignmentKind(CellKind):
    """Trace alignment and multiplexing on repeated runs (module docstring)."""

    name = "alignment"
    sections = {"hardware": HARDWARE_KEYS, "multiplex": _MUX_KEYS, "alignment": ALIGNMENT_KEYS}
    data_keys = frozenset({"runsets", "axis"})

    def validate(self, exp: Experiment) -> None:
        w, raw = exp.where, exp.raw
        hw = require_hardware(raw, w)
        if "metrics" not in hw and "events" not in hw:
            raise ConfigError(f"{w}: [hardware] needs metrics (a catalog) or events (a list)")
        data = raw.get("data", {})
        if not data.get("runsets"):
            raise ConfigError(f"{w}: [data] runsets is required (run-set folders: mpx record --runs N)")
        if data.get("axis", "own") not in _AXES:
            raise ConfigError(f"{w}: [data] axis must be one of {_AXES}, got {data.get('axis')!r}")
        mux = raw.get("multiplex", {})
        if sum(k in mux for k in ("quantum", "quantum_intervals")) != 1 or "read_every" not in mux:
            raise ConfigError(f"{w}: [multiplex] needs read_every and one of quantum or quantum_intervals")
        al = raw.get("alignment", {})
        for key in ("aligners", "scalers", "anchors"):
            if not isinstance(al.get(key), list) or not al[key]:
                raise ConfigError(f"{w}: [alignment] {key} must be a non-empty list")
        for a in al["aligners"]:
            aligners.get_class(a)
        for s in al["scalers"]:
            scalers.get_class(s)
        check_sweep(raw, w, ("hardware", "multiplex", "alignment"),
                    "only hardware.*, multiplex.* and alignment.* can be swept")
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
            for entry in cfg["data"]["runsets"]:
                path = str(Path(entry) if os.path.isabs(entry) else (exp.base / entry).resolve())
                try:
                    rs = _load(path, axis)
                except (MpxError, ValueError) as exc:
                    raise ConfigError(f"{w}: [data] runsets {entry!r}: {exc}") from None
                for ref in al.get("references", [0]):
                    if not isinstance(ref, int) or not 0 <= ref < len(rs):
                        raise ConfigError(f"{w}: [alignment] references: {ref!r} is not a run of {entry!r} "
                                          f"(it has {len(rs)})")
                    cells.append(finish_cell({
                        "kind": "alignment", "dataset": {"kind": "runset", "name": rs.workload, "path": path},
                        "dataset_checksum": _checksum(path, axis), "axis": axis, "hardware": hardware,
                        "multiplex": dict(cfg["multiplex"]), "seed": 0, "reference": ref,
                        "scheduler": {"name": al.get("scheduler", "perf"), "params": {}},
                        "alignment": {k: al[k] for k in sorted(al)}, "code_version": version}, exp.name))
        return unique(cells, w)

    def run(self, cell: dict) -> dict[str, Any]:
        rs = _load(cell["dataset"]["path"], cell["axis"])
        problem, _catalog = build_problem(cell["hardware"])
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
                "read_every": every, "time_unit": truth.time_unit, "set_runs": len(rs)}
        rows: list[dict] = []

        def add(road: str, method: str, est: Estimate, *, runs: int, anchor: str | None, seconds: float,
                note: str | None = None) -> None:
            sc = score(est, truth)
            true_w = rebin_counts(truth.counts[:, [truth.index(e) for e in est.events]], truth.edges, est.edges)
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
        for s in al["scalers"]:
            t = time.perf_counter()
            add("multiplex", s, scalers.get(s).estimate(obs), runs=1, anchor=None,
                seconds=time.perf_counter() - t)
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
                aligner = aligners.get(a)
                if aligner.needs_rate and anchor == TIME_ANCHOR:
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
        return {"scores": [], "events": [], "metrics": [], "series": [], "schedule": [], "alignment": rows}


def _oracle(trace: Any, obs: Any) -> Estimate:
    """Every event of ``trace`` exactly, on ``obs``'s read windows: the floor's other runs."""
    edges = obs.reads.edges
    counts = rebin_counts(trace.counts[:, [trace.index(e) for e in obs.events]], trace.edges, edges)
    return Estimate(obs.events, edges, counts, np.zeros(counts.shape, dtype=bool), scaler="oracle")
