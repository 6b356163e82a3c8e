"""``kind = "schedule"``: a cell is one metric catalog × PMU × counters × seed × scheduler, scored with
`mpx.scoring.schedules.score_schedulers` (utilization, sampling and co-scheduling ratios; no trace needed).

Catalogs come from ``[data] catalogs`` (names, paths, or ``{path, pmu}`` tables) or ``[hardware] metrics``.
Config reference: ``experiments/README.md``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from mpx.errors import ConfigError
from mpx.experiment.config import Experiment, plugin_names, seeds
from mpx.experiment.grid import finish_cell, unique
from mpx.experiment.hardware import (HARDWARE_KEYS, build_problem, check_hardware_variant, hardware_checksums,
                                     require_hardware, resolve_catalog_path, resolve_hardware)
from mpx import code_version
from mpx.experiment.inputs import catalog_checksum, catalog_label
from mpx.experiment.kinds import CellKind
from mpx.experiment.rows import REPLAY_TABLES, clean_row, provenance, schedule_row
from mpx.experiment.scaling import MULTIPLEX_KEYS, check_replay_common
from mpx.scoring.schedules import score_schedulers

__all__ = ["ScheduleKind"]


class ScheduleKind(CellKind):
    """Schedulers scored on metric catalogs (module docstring)."""

    name = "schedule"
    # [scalers] is accepted (checked, unused) as it always was: a scaling config turned into a schedule one runs
    sections = {"hardware": HARDWARE_KEYS, "multiplex": MULTIPLEX_KEYS, "schedulers": frozenset({"use", "params"}),
                "scalers": frozenset({"use", "params"})}
    data_keys = frozenset({"catalogs"})
    tables = REPLAY_TABLES

    def validate(self, exp: Experiment) -> None:
        w, raw = exp.where, exp.raw
        hw = require_hardware(raw, w)
        if not raw.get("data", {}).get("catalogs") and "metrics" not in hw:
            raise ConfigError(f"{w}: a schedule experiment needs [data] catalogs or [hardware] metrics")
        check_replay_common(exp)
        for cfg in exp.variants():
            check_hardware_variant(cfg["hardware"], w)
            q = cfg.get("multiplex", {}).get("quanta")
            if q is not None and not (isinstance(q, int) and q >= 1):
                raise ConfigError(f"{w}: [multiplex] quanta must be a positive integer, got {q!r}")

    def cells(self, exp: Experiment) -> list[dict]:
        w = exp.where
        version = code_version()
        cells: list[dict] = []
        for cfg in exp.variants():
            names = plugin_names(cfg, "schedulers", w)
            params = cfg.get("schedulers", {}).get("params", {})
            hardware = resolve_hardware(cfg, exp.base, w)
            if hardware.get("metrics"):
                try:  # a bad hardware table fails here, before any cell runs
                    build_problem(hardware)
                except ConfigError as exc:
                    raise ConfigError(f"{w}: {exc}") from None
            cats = cfg.get("data", {}).get("catalogs") or [hardware["metrics"]]
            if isinstance(cats, (str, dict)):
                cats = [cats]
            for i, entry in enumerate(cats):
                c, pmu = (entry, None) if isinstance(entry, str) else (entry.get("path"), entry.get("pmu"))
                if not isinstance(c, str) or (isinstance(entry, dict) and set(entry) - {"path", "pmu"}):
                    raise ConfigError(f"{w}: [data] catalogs[{i}] must be a path/built-in name or a table "
                                      "{path = ..., pmu = ...}")
                c = resolve_catalog_path(c, exp.base, w, "[data] catalogs")
                hw = dict(hardware, metrics=c, **({"pmu": pmu} if pmu else {}))
                try:
                    build_problem(hw)
                except ConfigError as exc:
                    raise ConfigError(f"{w}: [data] catalogs[{i}] ({c}): {exc}") from None
                for seed in seeds(cfg.get("multiplex", {}), w):
                    for s in names:
                        cells.append(finish_cell({
                            "kind": "schedule", "dataset": {"kind": "catalog", "name": catalog_label(c)},
                            "dataset_checksum": catalog_checksum(c), "hardware": hw,
                            "hardware_checksums": hardware_checksums(hw, ("pmu",)),
                            "multiplex": {"quanta": cfg.get("multiplex", {}).get("quanta")}, "seed": seed,
                            "scheduler": {"name": s, "params": params.get(s, {})}, "code_version": version},
                            exp.name))
        return unique(cells, w)

    def run(self, cell: dict) -> dict[str, Any]:
        problem, catalog = build_problem(cell["hardware"])
        s = cell["scheduler"]
        t0 = time.perf_counter()
        row = score_schedulers(problem, [s["name"]], quanta=cell["multiplex"].get("quanta"), seed=cell["seed"],
                               params={s["name"]: s["params"]})[0]
        prov = provenance(cell, problem)
        prov["scheduler_params"] = json.dumps(row["params"], sort_keys=True, default=repr)
        out = schedule_row(prov, catalog, row, kind=row["kind"], groups=row["groups"], event_groups=row["event_groups"],
                           n_quanta=row["n_quanta"], n_errors=len(row["errors"]), n_metrics=len(problem.metrics),
                           trace=row["trace"], mux_seconds=time.perf_counter() - t0, skipped=row["skipped"],
                           tool=row["tool"] or {})
        status = ("skipped", row["skipped"]) if row["skipped"] else ("done", None)
        return {"schedule": [clean_row(out)], "_status": status}
