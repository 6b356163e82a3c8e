"""The rows a cell writes, in the schema `mpx.experiment.store` documents: provenance columns, the ``cells`` row,
and per scaler the ``scores``, ``events``, ``metrics`` and ``series`` rows of one `mpx.scoring.score.score`.

Every value is a plain Python scalar (`clean`): numpy numbers become ``int`` / ``float`` / ``bool``,
NaN and infinities become ``None``, dicts and lists become sorted JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from mpx.scoring.measures import MEASURES, METRIC_MEASURES, WINDOW_SETS
from mpx.multiplex import in_ms

__all__ = ["SETTINGS", "varying_settings", "TIMING_COLUMNS", "REPLAY_TABLES", "clean", "clean_row", "provenance", "regime", "cell_row",
           "schedule_row",
           "event_class", "event_rows", "metric_rows", "series_rows"]

#: columns of measured wall-clock time: the only values that differ between two runs of one cell
TIMING_COLUMNS = ("estimate_seconds", "event_windows_per_s", "mux_seconds", "cell_seconds", "partition_seconds")

#: the row tables of the replay kinds (``scaling``, ``schedule``) and the columns their rows are sorted by
#: (besides ``cell_key``): `mpx.experiment.kinds.CellKind.tables`
REPLAY_TABLES: dict[str, tuple[str, ...]] = {
    "scores": ("scaler",),
    "events": ("scaler", "event"),
    "metrics": ("scaler", "metric"),
    "schedule": (),
    "series": ("scaler", "event", "window"),
}


_PLAIN = frozenset({int, str, bool, type(None)})


def clean(v: Any) -> Any:
    """Plain Python scalars (numpy → float/int/bool/str; NaN/inf → None)."""
    t = type(v)
    if t is float:  # the common cases first: rows are made from ``tolist()`` values
        return v if math.isfinite(v) else None
    if t in _PLAIN:
        return v
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, sort_keys=True, default=repr)
    return v


def clean_row(row: dict[str, Any]) -> dict[str, Any]:
    """`clean` applied to every value of a row (key order kept: it is the column order of the store)."""
    return {k: clean(v) for k, v in row.items()}


#: configured settings an experiment may sweep (columns of every row; not values derived per dataset, such
#: as the quantum in trace units): no comparison, table or figure pools cells that differ in one of them
SETTINGS = ("counters", "max_events", "read_every", "quantum_intervals", "quantum_ms", "noise_rel_sigma",
            "noise_read_overhead")


def varying_settings(rows: Any, exclude: tuple[str, ...] = (), settings: tuple[str, ...] = SETTINGS) -> list[str]:
    """The ``settings`` (default `SETTINGS`) that take more than one value in ``rows``, less ``exclude``; a
    missing value is a value (cells that set a setting and cells that do not differ). The one rule of what
    no comparison, table or figure pools (`mpx.studies.compare`, `mpx.figures.slices`, the alignment report)."""
    return [k for k in settings if k not in exclude and k in rows and rows[k].nunique(dropna=False) > 1]


def schedule_row(prov: dict[str, Any], catalog: Any, summary: Any, *, kind: str, groups: int, event_groups: int,
                 n_quanta: int, n_errors: int, n_metrics: int, trace: str | None, mux_seconds: float,
                 skipped: str | None, tool: dict | None = None) -> dict[str, Any]:
    """The row of the ``schedule`` table, written by the ``scaling`` kind (the replay's schedule) and the
    ``schedule`` kind (a scheduler scored on a catalog): provenance, the catalog's name, the schedule's kind and
    size, its figures (``summary``: utilization, mean and min sampling ratio, mean co-scheduling ratio), and
    with ``tool`` (the schedule kind) the tool's own figures beside them."""
    row = {**prov, "catalog": catalog.name if catalog is not None else None, "kind": kind, "groups": groups,
           "event_groups": event_groups, "utilization": summary["utilization"],
           "mean_sampling_ratio": summary["mean_sampling_ratio"], "min_sampling_ratio": summary["min_sampling_ratio"],
           "mean_coschedule_ratio": summary["mean_coschedule_ratio"], "n_quanta": n_quanta, "n_errors": n_errors,
           "n_metrics": n_metrics, "trace": trace, "mux_seconds": mux_seconds, "skipped": skipped}
    if tool is not None:
        row.update({"tool_utilization": tool.get("utilization"), "tool_sampling_ratio": tool.get("sampling_ratio"),
                    "tool_group_count_spread": tool.get("group_count_spread")})
    return row


def provenance(cell: dict, problem: Any, trace: Any = None, obs: Any = None) -> dict[str, Any]:
    """The provenance columns of a replay cell's rows (cell, dataset, code, hardware, multiplexing)."""
    hw, mux = cell["hardware"], cell["multiplex"]
    return {
        "cell_key": cell["key"], "experiment": cell.get("experiment"), "dataset": cell["dataset"]["name"],
        "workload": (str(trace.meta.get("workload") or cell["dataset"]["name"]) if trace is not None
                     else cell["dataset"]["name"]),
        "dataset_checksum": cell["dataset_checksum"], "code_version": cell["code_version"], "seed": cell["seed"],
        "heldout": int(bool(cell["dataset"].get("heldout"))),
        "scheduler": cell["scheduler"]["name"], "scheduler_params": clean(cell["scheduler"]["params"]),
        "pmu": hw["pmu"], "counters": problem.n_counters(), "n_events": problem.n_events,
        "max_events": hw.get("max_events"),
        "quantum": None if obs is None else float(obs.quantum),
        "quantum_intervals": mux.get("quantum_intervals"), "quantum_ms": mux.get("quantum_ms"),
        "time_unit": None if obs is None else obs.time_unit,
        "read_every": mux.get("read_every"),
        "read_window": None if obs is None else float(obs.quantum * obs.read_every),
        "noise_rel_sigma": (mux.get("noise") or {}).get("rel_sigma", 0.0),
        "noise_read_overhead": (mux.get("noise") or {}).get("read_overhead", 0.0),
        **({} if obs is None else regime(obs, mux, trace)),
    }


def regime(obs: Any, mux: dict, trace: Any = None) -> dict[str, Any]:
    """The multiplexing regime of a replay, as a real tool's settings read: quanta per full rotation of a
    static schedule (None for online schedulers), read windows per rotation (< 1: a read window is
    shorter than a rotation, so some events are never counted in some windows), and the quantum and
    read window in ms where the trace's axis has a declared relation to time (`mpx.multiplex.in_ms`: the
    config's ``clock_hz``/``ticks_per_second``, else the tick rate a gem5 trace recorded, ``sim_freq``)."""
    rot = obs.meta.get("rotation_quanta")
    recorded = (getattr(trace, "meta", None) or {}).get("sim_freq")
    clock = {"clock_hz": mux.get("clock_hz"), "ticks_per_second": mux.get("ticks_per_second") or recorded}
    return {
        "rotation_quanta": rot,
        "read_per_rotation": None if not rot else obs.read_every / rot,
        "quantum_in_ms": in_ms(obs.quantum, obs.time_unit, **clock),
        "read_window_in_ms": in_ms(obs.quantum * obs.read_every, obs.time_unit, **clock),
    }


def cell_row(cell: dict, status: str, reason: str | None, seconds: float) -> dict[str, Any]:
    """The ``cells`` row of a computed cell (the store adds host, pid and finish time). Only ``key``,
    ``kind`` and ``code_version`` are required; ``dataset``, ``scheduler`` and ``seed`` are filled when
    the kind's cells have them."""
    return {
        "key": cell["key"], "experiment": cell.get("experiment"), "kind": cell["kind"],
        "dataset": (cell.get("dataset") or {}).get("name"), "dataset_checksum": cell.get("dataset_checksum"),
        "code_version": cell["code_version"], "scheduler": (cell.get("scheduler") or {}).get("name"),
        "seed": cell.get("seed"),
        "status": status, "reason": reason, "config": json.dumps(cell, sort_keys=True),
        "cell_seconds": seconds,
    }


def event_class(truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per event: coefficient of variation of the true window counts and its class — ``steady``
    (cv < 0.25), ``variable`` (< 1) or ``bursty`` (>= 1); ``zero`` when the event never counts."""
    mean = truth.mean(axis=0)
    sd = truth.std(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cv = np.where(mean > 0, sd / np.where(mean > 0, mean, 1.0), np.nan)
    cls = np.where(~(mean > 0), "zero", np.where(cv < 0.25, "steady", np.where(cv < 1.0, "variable", "bursty")))
    return cv, cls


def event_rows(cell: dict, prov: dict, scaler: str, sc: Any, cv: np.ndarray, cls: np.ndarray,
               sampling_ratio: dict[str, float], median: np.ndarray | None = None) -> list[dict[str, Any]]:
    """The ``events`` rows of one scaler's `mpx.scoring.score.Scores` ``sc`` (made from its per-event arrays);
    ``median``: each event's median true read-window count (``median_true``: the floor of the floored
    headline, `mpx.studies.compare.floored_rows`)."""
    ev = sc.per_event
    sets = [f"{m}_{s}" for m in (*MEASURES, "coverage") for s in WINDOW_SETS]
    cols = ("n_windows", "n_meaningful", "n_flagged", "never_estimated", "window_mape", "window_mape_ran",
            "total_error", "total_error_windows", "total_true", "calibration_50", "calibration_90", *sets,
            "over10_all")
    values = {k: ev[k].tolist() for k in cols}  # plain Python scalars, one conversion per column
    head = {"cell_key": cell["key"], "dataset": prov["dataset"], "workload": prov["workload"],
            "dataset_checksum": prov["dataset_checksum"], "code_version": prov["code_version"],
            "scheduler": prov["scheduler"], "scaler": scaler, "seed": cell["seed"],
            **{k: prov.get(k) for k in SETTINGS}, "n_events": prov["n_events"]}
    cv_, cls_ = cv.tolist(), cls.tolist()
    med_ = None if median is None else [float(v) for v in median]
    return [clean_row({
        **head, "event": name, "event_class": str(cls_[i]), "cv": cv_[i],
        "median_true": None if med_ is None else med_[i], "sampling_ratio": sampling_ratio.get(name),
        **{k: values[k][i] for k in cols[:11]}, **{k: values[k][i] for k in sets}, "over10_all": values["over10_all"][i]})
        for i, name in enumerate(sc.event_names)]


def metric_rows(cell: dict, prov: dict, scaler: str, sc: Any) -> list[dict[str, Any]]:
    """The ``metrics`` rows of one scaler's scores (made from its per-metric arrays)."""
    pm = sc.per_metric
    sets = [f"{m}_{s}" for m in METRIC_MEASURES for s in ("ran", "all")]
    values = {k: pm[k].tolist() for k in ("n_windows", "n_meaningful", "n_missing", "window_mape", *sets) if k in pm}
    head = {"cell_key": cell["key"], "dataset": prov["dataset"], "workload": prov["workload"],
            "dataset_checksum": prov["dataset_checksum"], "code_version": prov["code_version"],
            "scheduler": prov["scheduler"], "scaler": scaler, "seed": cell["seed"]}
    return [clean_row({
        **head, "metric": name, "n_windows": values["n_windows"][i], "n_meaningful": values["n_meaningful"][i],
        "n_missing": values["n_missing"][i], "window_mape": values["window_mape"][i],
        **{k: values[k][i] if k in values else None for k in sets}})
        for i, name in enumerate(sc.metric_names)]


def series_rows(cell: dict, scaler: str, sc: Any, events: list[str]) -> list[dict[str, Any]]:
    """The ``series`` rows (per-window truth, estimate, std) of ``events`` in one scaler's scores,
    window by window in the estimate's event order."""
    wanted = set(events)
    idx = [i for i, name in enumerate(sc.event_names) if name in wanted]
    if not idx:
        return []
    win = {k: sc.windows[k][:, idx].tolist() for k in ("truth", "estimate", "std", "flagged")}
    edges = sc.edges.tolist()
    return [clean_row({
        "cell_key": cell["key"], "scaler": scaler, "event": sc.event_names[i], "window": w,
        "start": edges[w], "end": edges[w + 1], "truth": win["truth"][w][j], "estimate": win["estimate"][w][j],
        "std": win["std"][w][j], "flagged": win["flagged"][w][j]})
        for w in range(len(edges) - 1) for j, i in enumerate(idx)]
