"""``kind = "scaling"`` (the default): a cell is one replay — one dataset × hardware × multiplexing
settings × seed × scheduler — scored with every scaler of the config.

The cell runs one `mpx.multiplex.multiplex`, then `mpx.scoring.replay.score_scalers` (each scaler's estimate
scored by `mpx.scoring.score.score`). Learned scalers are fitted on the traces of every *other* workload of
the config (`mpx.scoring.replay.other_workloads`); ``[data] heldout`` traces are scored but in no training set.
Config reference: ``experiments/README.md``.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import numpy as np

from mpx import code_version, schedulers
from mpx.errors import ConfigError, MpxError
from mpx.experiment.config import Experiment, check_plugin_sections, plugin_names, seeds
from mpx.experiment.grid import check_sweep, finish_cell, unique
from mpx.experiment.hardware import (HARDWARE_KEYS, build_problem, check_hardware_variant, hardware_checksums,
                                     relations_path_relative, require_hardware, resolve_hardware)
from mpx.experiment.inputs import dataset_checksum, dataset_head, dataset_specs, load_dataset, workload_of
from mpx.experiment.kinds import CellKind
from mpx.experiment.rows import (REPLAY_TABLES, clean, clean_row, event_class, event_rows, metric_rows, provenance,
                                 schedule_row, series_rows)
from mpx.experiment.schedule_cache import SCHEDULES
from mpx.multiplex import Noise, multiplex
from mpx.multiplex import resolve_quantum
from mpx.scoring.replay import learned_scalers, other_workloads, scaler_spec, score_scalers
from mpx.scoring.verdicts import confusion_text
from mpx.scoring.schedules import schedule_scores

__all__ = ["ScalingKind", "MULTIPLEX_KEYS", "SWEEP_ROOTS", "check_replay_common"]

#: keys of the ``[multiplex]`` table (``quanta`` is the schedule kind's)
MULTIPLEX_KEYS = frozenset({"quantum", "quantum_intervals", "quantum_ms", "clock_hz", "ticks_per_second", "read_every",
                            "noise", "seeds", "repetitions", "quanta"})
#: sections a replay experiment (scaling or schedule) can sweep
SWEEP_ROOTS = ("hardware", "multiplex", "schedulers", "scalers", "data")
_SWEEP_RULE = "only hardware.*, multiplex.*, data.*, schedulers.params.* and scalers.params.* can be swept"


def check_replay_common(exp: Experiment) -> None:
    """The scaling and schedule kinds' last checks: schedulers and scalers, sweep, seeds."""
    w, raw = exp.where, exp.raw
    if not raw.get("schedulers", {}).get("use"):
        raise ConfigError(f"{w}: [schedulers] use is required (a list of names or \"all\")")
    check_plugin_sections(raw, w)
    check_sweep(raw, w, SWEEP_ROOTS, _SWEEP_RULE)
    mux = raw.get("multiplex", {})
    if "seeds" in mux and "repetitions" in mux:
        raise ConfigError(f"{w}: [multiplex] give seeds or repetitions, not both")


def training_set(cell: dict) -> tuple[list[Any], str]:
    """The traces a cell's learned scalers are fitted on (its ``train`` datasets: other workloads, chosen when
    the grid was expanded; none when the cell has no learned scaler), loaded here so that scoring never calls
    back into the experiment, and what a learned scaler is told when there are none: a dataset that does not
    load leaves the learned scalers unscored with its reason, the others are scored."""
    try:
        return [load_dataset(t["dataset"]) for t in cell["train"]], "the cell has no training workloads"
    except MpxError as exc:
        return [], f"its training datasets did not load: {exc}"


class ScalingKind(CellKind):
    """Replays scored with scalers (module docstring)."""

    name = "scaling"
    sections = {"hardware": HARDWARE_KEYS, "multiplex": MULTIPLEX_KEYS,
                "schedulers": frozenset({"use", "params"}), "scalers": frozenset({"use", "params"})}
    data_keys = frozenset({"datasets", "files", "heldout", "synthetic", "intervals"})
    tables = REPLAY_TABLES

    # -- validation ---------------------------------------------------------------------------------

    def validate(self, exp: Experiment) -> None:
        w, raw = exp.where, exp.raw
        hw = require_hardware(raw, w)
        data = raw.get("data", {})
        if not any(data.get(k) for k in ("datasets", "files", "synthetic")):
            raise ConfigError(f"{w}: [data] needs datasets, files or synthetic")
        if "metrics" not in hw and "events" not in hw:
            raise ConfigError(f"{w}: [hardware] needs metrics (a catalog) or events (a list)")
        mux = raw.get("multiplex", {})
        given = [k for k in ("quantum", "quantum_intervals", "quantum_ms") if k in mux]
        swept = [k for k in raw.get("sweep", {}) if k.startswith("multiplex.quantum")]
        if len(given) + len(swept) != 1:
            raise ConfigError(f"{w}: [multiplex] needs exactly one of quantum (trace time unit), "
                              f"quantum_intervals (median trace intervals) or quantum_ms; got "
                              f"{given + swept or 'none'}")
        if "read_every" not in mux and "multiplex.read_every" not in raw.get("sweep", {}):
            raise ConfigError(f"{w}: [multiplex] read_every is required (quanta per read window)")
        if not raw.get("scalers", {}).get("use"):
            raise ConfigError(f"{w}: [scalers] use is required (a list of names or \"all\")")
        check_replay_common(exp)
        for cfg in exp.variants():  # every swept variant now, so a bad value fails before hours of computing
            self._check_variant(cfg, w)

    @staticmethod
    def _check_variant(cfg: dict, w: str) -> None:
        check_hardware_variant(cfg["hardware"], w)
        mux = cfg.get("multiplex", {})
        for k in ("quantum", "quantum_intervals", "quantum_ms"):
            if k in mux:
                v = mux[k]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                    raise ConfigError(f"{w}: [multiplex] {k} must be a positive number, got {v!r}")
        re_ = mux.get("read_every")
        if isinstance(re_, bool) or not isinstance(re_, int) or re_ < 1:
            raise ConfigError(f"{w}: [multiplex] read_every must be a whole number of quanta >= 1, got {re_!r}")
        noise = mux.get("noise", {})
        if not isinstance(noise, dict) or set(noise) - {"rel_sigma", "read_overhead"}:
            raise ConfigError(f"{w}: [multiplex] noise must be a table with rel_sigma and/or read_overhead")
        Noise(**noise)
        iv = cfg.get("data", {}).get("intervals")
        if iv is not None and not (isinstance(iv, list) and len(iv) == 2 and all(isinstance(x, int) for x in iv)
                                   and 0 <= iv[0] < iv[1]):
            raise ConfigError(f"{w}: [data] intervals must be [start, stop] with 0 <= start < stop, got {iv!r}")

    # -- the grid -----------------------------------------------------------------------------------

    def cells(self, exp: Experiment) -> list[dict]:
        w = exp.where
        version = code_version()
        cells: list[dict] = []
        for cfg in exp.variants():
            sched_names = plugin_names(cfg, "schedulers", w)
            sched_params = cfg.get("schedulers", {}).get("params", {})
            hardware = resolve_hardware(cfg, exp.base, w)
            try:  # a bad hardware table fails here, before any cell runs
                problem, _ = build_problem(hardware)
            except ConfigError as exc:
                raise ConfigError(f"{w}: {exc}") from None
            mux = {k: cfg["multiplex"][k] for k in sorted(cfg["multiplex"]) if k not in ("seeds", "repetitions")}
            mux.setdefault("noise", {})
            scaler_params = cfg.get("scalers", {}).get("params", {})
            scaler_specs = [{"name": n, "params": relations_path_relative(scaler_params.get(n, {}), exp.base)}
                            for n in plugin_names(cfg, "scalers", w)]
            ds = dataset_specs(cfg, exp.base, w)
            sums, workloads = {}, {}
            for d in ds:  # what the grid needs of a trace is its head: the counts are the cells' to read
                sums[d["name"]], workloads[d["name"]] = dataset_checksum(d), workload_of(d)
                try:  # a quantum in ms on a cycles axis needs clock_hz: no silent default
                    resolve_quantum(mux, dataset_head(d))
                except ConfigError as exc:
                    raise ConfigError(f"{w}: [multiplex] dataset {d['name']!r}: {exc}") from None
                have = set(dataset_head(d).events)
                missing = [e for e in problem.events if e not in have]
                if missing:
                    raise ConfigError(f"{w}: [hardware] the problem's event(s) {missing[:10]} are not in "
                                      f"dataset {d['name']!r} (it has {sorted(have)[:20]})")
            hw_sums = hardware_checksums(hardware, ("pmu", "metrics"))
            learned = learned_scalers(s["name"] for s in scaler_specs)
            trainable = [d for d in ds if not d.get("heldout")]
            if learned and len({workloads[d["name"]] for d in trainable}) < 2:
                raise ConfigError(f"{w}: learned scaler(s) {learned} need at least two workloads "
                                  "(leave-one-workload-out training)")
            out = cfg.get("output", {})
            for d in ds:
                train = ([{"dataset": t, "checksum": sums[t["name"]]}
                          for t in other_workloads(trainable, workloads[d["name"]], lambda t: workloads[t["name"]])]
                         if learned else [])
                series = (list(out.get("series_events", []))
                          if not out.get("series_workloads") or d["name"] in out["series_workloads"]
                          or workloads[d["name"]] in out["series_workloads"] else [])
                for seed in seeds(cfg.get("multiplex", {}), w):
                    for s in sched_names:
                        cells.append(finish_cell({
                            "kind": "scaling", "dataset": d, "dataset_checksum": sums[d["name"]],
                            "hardware": hardware, "hardware_checksums": hw_sums, "multiplex": mux, "seed": seed,
                            "scheduler": {"name": s, "params": sched_params.get(s, {})},
                            "scalers": scaler_specs, "train": train, "series_events": series,
                            "code_version": version}, exp.name))
        return unique(cells, w)

    # -- one cell -----------------------------------------------------------------------------------

    def run(self, cell: dict) -> dict[str, Any]:
        trace = load_dataset(cell["dataset"])
        if trace.checksum() != cell["dataset_checksum"]:
            raise ConfigError(f"dataset {cell['dataset']['name']!r} changed since the grid was expanded "
                              "(checksum differs): rerun to expand the grid again")
        problem, catalog = build_problem(cell["hardware"])
        mux = cell["multiplex"]
        noise = Noise(**mux["noise"]) if mux.get("noise") else None
        t0 = time.perf_counter()
        spec = cell["scheduler"]
        sched = schedulers.get(spec["name"], **spec.get("params", {}))
        obs = multiplex(trace, problem, sched, resolve_quantum(mux, trace)[0], mux["read_every"], noise=noise,
                        seed=cell["seed"], schedule=SCHEDULES.schedule(spec, cell["hardware"], sched, problem))
        mux_s = time.perf_counter() - t0
        ss = schedule_scores(obs)
        summ = ss.summary()
        prov = provenance(cell, problem, trace, obs)
        prov["scheduler_params"] = json.dumps(obs.meta.get("scheduler_params", {}), sort_keys=True, default=repr)
        sched_row = schedule_row(prov, catalog, summ, kind="static" if obs.schedule is not None else "online",
                                 groups=ss.n_configs, event_groups=len(obs.groups), n_quanta=obs.n_quanta,
                                 n_errors=len(obs.errors), n_metrics=len(problem.metrics),
                                 trace=cell["dataset"]["name"], mux_seconds=mux_s, skipped=None)
        sr = dict(zip(ss.events, np.asarray(ss.sampling_ratio, dtype=float)))
        out: dict[str, list] = {"scores": [], "events": [], "metrics": [], "series": []}
        cv = cls = med = None
        specs = [scaler_spec(spec["name"], spec["params"]) for spec in cell["scalers"]]
        train, no_train = training_set(cell)
        results = score_scalers(obs, trace, specs, catalog, catch_errors=True, train=train, no_train=no_train)
        for spec, res in zip(cell["scalers"], results):
            base = {**prov, "scaler": spec["name"], "scaler_params": clean(spec["params"]),
                    "mean_sampling_ratio": summ["mean_sampling_ratio"]}
            if res.scaler is not None:
                base["causal"] = res.scaler.tags().causal
                base["scaler_params"] = json.dumps(res.scaler.get_params(), sort_keys=True, default=repr)
            if res.status != "done":
                out["scores"].append({**base, "status": res.status, "reason": res.reason})
                continue
            sc, est, dt = res.scores, res.estimate, res.seconds
            w, e = est.counts.shape
            verdict_text = None if sc.verdicts is None else confusion_text(sc.verdicts)  # for the verdicts figure
            out["scores"].append(clean_row({**base, "status": "done", "reason": None, "n_windows": w, **sc.summary,
                                            "verdict_l1_confusion": verdict_text,
                                            "estimate_seconds": dt,
                                            "event_windows_per_s": (w * e / dt) if dt > 0 else None}))
            if cv is None:
                truth = sc.windows["truth"]
                cv, cls = event_class(truth)
                med = np.median(truth, axis=0) if truth.shape[0] else np.zeros(truth.shape[1])
            out["events"] += event_rows(cell, prov, spec["name"], sc, cv, cls, sr, med)
            out["metrics"] += metric_rows(cell, prov, spec["name"], sc)
            if cell.get("series_events"):
                out["series"] += series_rows(cell, spec["name"], sc,
                                             [x for x in cell["series_events"] if x in est.events])
        return {"scores": out["scores"], "events": out["events"], "metrics": out["metrics"],
                "schedule": [clean_row(sched_row)], "series": out["series"]}
