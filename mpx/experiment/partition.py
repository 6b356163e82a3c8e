"""``kind = "partition"``: a cell is one partitioning instance (`mpx.grouping.instances`) × seed × tool
(``mpx``, or the real ``kahypar`` / ``mtkahypar`` through `mpx.partition.external`).

A cell stores km1, cut, imbalance and the largest block recomputed by `mpx.partition` from the returned
blocks (whichever tool produced them), the tool's own km1, feasibility and the seconds of one partition
call; with ``[partition] reference``, the published mean km1 of the same (hypergraph, k, ε) beside it
(`reference_km1`). Config reference: ``experiments/README.md``.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mpx.errors import ConfigError, FormatError
from mpx.experiment.config import Experiment, seeds
from mpx.experiment.grid import check_sweep, finish_cell, unique
from mpx.experiment.hardware import is_builtin
from mpx import code_version
from mpx.experiment.inputs import catalog_checksum, catalog_label
from mpx.experiment.kinds import CellKind
from mpx.experiment.rows import clean_row
from mpx.grouping.partitioned import grouping_context
from mpx.partition import Context, Hypergraph, block_weights, cut, imbalance, km1, partition
from mpx.partition import external  # by module: tests replace external.tool_status
from mpx.grouping.instances import catalog_units, instance_checksum, instance_name, load_instance

__all__ = ["PartitionKind", "PARTITION_TOOLS", "partition_table", "reference_km1"]

#: tools a partition experiment can run
PARTITION_TOOLS = ("mpx", "kahypar", "mtkahypar")


def reference_km1(path: str) -> dict[tuple[str, int, float], dict[str, float]]:
    """The published km1 per (hypergraph file name, k, epsilon) of a per-run results file of
    kahypar/experimental-results (CSV rows ``algorithm, graph, ..., seed, k, epsilon, imbalance, time,
    objective, km1, cut, ...``: the columns are read from the end, which every file of that folder shares):
    ``{"km1": mean, "sd": sample standard deviation over the runs (0 for one run), "runs": count}``."""
    runs: dict[tuple[str, int, float], list[int]] = {}
    with open(path, newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh), start=1):
            if not row or row[0].startswith("#"):
                continue
            try:
                key = (row[1], int(row[-8]), round(float(row[-7]), 6))
                runs.setdefault(key, []).append(int(row[-3]))
            except (ValueError, IndexError):
                if lineno == 1:
                    continue  # a header line
                raise FormatError(path, lineno, "expected 'algorithm,graph,...,seed,k,epsilon,imbalance,time,"
                                  "objective,km1,cut,...'") from None
    return {k: {"km1": statistics.fmean(v), "sd": statistics.stdev(v) if len(v) > 1 else 0.0, "runs": len(v)}
            for k, v in runs.items()}


class PartitionKind(CellKind):
    """Partitioners compared on hypergraph and event instances (module docstring)."""

    name = "partition"
    sections = {"partition": frozenset({"tools", "k", "epsilon", "seeds", "repetitions", "kahypar_ini",
                                        "mtkahypar_preset", "threads", "mpx_context", "reference",
                                        "reference_label", "timeout"})}
    data_keys = frozenset({"catalogs", "hypergraphs", "random_events"})
    tables = {"partition": ()}
    report = {"partition": "mpx.experiment.partition:partition_table"}

    #: numba kernels are loaded (or compiled) once per process, outside the timed call
    _warm = False

    # -- validation ---------------------------------------------------------------------------------

    def refuse_sections(self, exp: Experiment, foreign: list[str]) -> None:
        raise ConfigError(f"{exp.where}: a partition experiment takes no {', '.join(f'[{s}]' for s in foreign)} "
                          "(its inputs are [data] hypergraphs / random_events / catalogs and [partition])")

    def validate(self, exp: Experiment) -> None:
        w, raw = exp.where, exp.raw
        data = raw.get("data", {})
        bad = sorted(set(data) - self.data_keys)
        if bad:
            raise ConfigError(f"{w}: [data] key(s) {bad} do not apply to a partition experiment "
                              "(hypergraphs, random_events, catalogs)")
        if not any(data.get(k) for k in ("hypergraphs", "random_events", "catalogs")):
            raise ConfigError(f"{w}: [data] needs hypergraphs, random_events or catalogs")
        if not raw.get("partition", {}).get("tools"):
            raise ConfigError(f"{w}: [partition] tools is required (a list out of {list(PARTITION_TOOLS)})")
        check_sweep(raw, w, ("partition", "data"), "a partition experiment sweeps partition.* and data.* only")
        for cfg in exp.variants():
            self.settings(exp, cfg)

    def settings(self, exp: Experiment, cfg: dict) -> dict:
        """The validated [partition] table of one variant (paths resolved, defaults filled in)."""
        w = exp.where
        p = dict(cfg.get("partition", {}))
        tools = p.get("tools")
        if isinstance(tools, str):
            tools = [tools]
        if not isinstance(tools, list) or not tools or any(t not in PARTITION_TOOLS for t in tools):
            raise ConfigError(f"{w}: [partition] tools must be a list out of {list(PARTITION_TOOLS)}, got {tools!r}")
        ks = p.get("k", [])
        ks = [ks] if isinstance(ks, int) else ks
        if cfg.get("data", {}).get("hypergraphs") and not ks:
            raise ConfigError(f"{w}: [partition] k is required with [data] hypergraphs (a list of block counts)")
        if not isinstance(ks, list) or any(isinstance(k, bool) or not isinstance(k, int) or k < 2 for k in ks):
            raise ConfigError(f"{w}: [partition] k must be a list of integers >= 2, got {ks!r}")
        eps = p.get("epsilon")
        if ks and (isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 1):
            raise ConfigError(f"{w}: [partition] epsilon is required with hypergraphs: a number in [0, 1), got {eps!r}")
        if "seeds" in p and "repetitions" in p:
            raise ConfigError(f"{w}: [partition] give seeds or repetitions, not both")
        run_seeds = seeds({k: p[k] for k in ("seeds", "repetitions") if k in p}, w, section="partition")
        ini = p.get("kahypar_ini")
        if "kahypar" in tools:
            if not isinstance(ini, str):
                raise ConfigError(f"{w}: [partition] kahypar_ini is required with tool kahypar (the path of a KaHyPar "
                                  ".ini configuration, e.g. km1_kKaHyPar_sea20.ini: the package ships none)")
            ini = exp.existing(ini, "[partition] kahypar_ini")
        preset = p.get("mtkahypar_preset", "quality")
        if preset not in external.MT_PRESETS:
            raise ConfigError(f"{w}: [partition] mtkahypar_preset must be one of {list(external.MT_PRESETS)}, "
                              f"got {preset!r}")
        threads = p.get("threads", 1)
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"{w}: [partition] threads must be a positive integer, got {threads!r}")
        ctx = p.get("mpx_context", "auto")
        if ctx not in ("auto", "default", "grouping"):
            raise ConfigError(f"{w}: [partition] mpx_context must be auto, default or grouping, got {ctx!r}")
        timeout = p.get("timeout", 600)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"{w}: [partition] timeout must be a positive number of seconds, got {timeout!r}")
        ref = p.get("reference")
        if ref is not None:
            ref = exp.existing(ref, "[partition] reference")
        return {"tools": tools, "k": ks, "epsilon": None if eps is None else float(eps), "seeds": run_seeds,
                "kahypar_ini": ini, "mtkahypar_preset": preset, "threads": threads, "mpx_context": ctx,
                "timeout": float(timeout), "reference": ref,
                "reference_label": str(p.get("reference_label", "published reference"))}

    # -- the grid -----------------------------------------------------------------------------------

    def instances(self, exp: Experiment, cfg: dict, settings: dict) -> list[dict]:
        """Instance specs (`mpx.grouping.instances`) of one variant, in config order."""
        w, data, out = exp.where, cfg.get("data", {}), []
        hgs = data.get("hypergraphs", [])
        for pat in [hgs] if isinstance(hgs, str) else hgs:
            if not isinstance(pat, str):
                raise ConfigError(f"{w}: [data] hypergraphs must be a list of paths or globs, got {pat!r}")
            full = pat if os.path.isabs(pat) else str(exp.base / pat)
            hits = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
            if not hits or not all(os.path.isfile(h) for h in hits):
                raise ConfigError(f"{w}: [data] hypergraphs: {pat!r} matches no file (resolved to {full})")
            for h in hits:
                for k in settings["k"]:
                    out.append({"family": "hmetis", "path": str(Path(h).resolve()), "k": k,
                                "epsilon": settings["epsilon"]})
        for i, r in enumerate(data.get("random_events", [])):
            if not isinstance(r, dict) or set(r) - {"n", "cap", "instance_seed"} or not {"n", "cap"} <= set(r):
                raise ConfigError(f"{w}: [data] random_events[{i}] must be a table {{n = N, cap = C}} "
                                  "(and optionally instance_seed)")
            n, cap, s = r["n"], r["cap"], r.get("instance_seed", 0)
            if any(isinstance(x, bool) or not isinstance(x, int) for x in (n, cap, s)) or cap < 1 or n <= cap or s < 0:
                raise ConfigError(f"{w}: [data] random_events[{i}]: need integers n > cap >= 1 (k = ceil(n / cap) "
                                  f">= 2) and instance_seed >= 0, got {r!r}")
            out.append({"family": "events", "n": n, "cap": cap, "instance_seed": s})
        for i, entry in enumerate(data.get("catalogs", [])):
            if not isinstance(entry, dict) or set(entry) != {"path", "pmu"}:
                raise ConfigError(f"{w}: [data] catalogs[{i}] must be a table {{path = CATALOG, pmu = PRESET}}")
            c = entry["path"]
            if not is_builtin("metrics", c):
                c = exp.existing(c, f"[data] catalogs[{i}] path")
            try:
                units = catalog_units(c, entry["pmu"])
            except ConfigError as exc:
                raise ConfigError(f"{w}: [data] catalogs[{i}] ({c}): {exc}") from None
            for unit, _n, _cap, _k in units:
                out.append({"family": "catalog", "path": c, "pmu": entry["pmu"], "unit": unit,
                            "label": catalog_label(c)})
        return out

    def cells(self, exp: Experiment) -> list[dict]:
        version = code_version()
        cells: list[dict] = []
        for cfg in exp.variants():
            st = self.settings(exp, cfg)
            refs = reference_km1(st["reference"]) if st["reference"] else {}
            ref_sum = catalog_checksum(st["reference"]) if st["reference"] else None
            tools = []
            for t in st["tools"]:
                if t == "mpx":
                    tools.append({"name": "mpx", "version": None, "params": {"context": st["mpx_context"]}})
                    continue
                ver, reason = external.tool_status(t)
                params = ({"ini": st["kahypar_ini"], "ini_checksum": catalog_checksum(st["kahypar_ini"])}
                          if t == "kahypar" else {"preset": st["mtkahypar_preset"], "threads": st["threads"]})
                tools.append({"name": t, "version": ver, "unavailable": reason,
                              "params": {**params, "timeout": st["timeout"]}})
            for spec in self.instances(exp, cfg, st):
                hg, k, eps, caps = load_instance(spec)
                name = instance_name(spec)
                ref = None
                if spec["family"] == "hmetis":
                    ref = refs.get((Path(spec["path"]).name, k, round(eps, 6)))
                for seed in st["seeds"]:
                    for tool in tools:
                        cells.append(finish_cell({
                            "kind": "partition", "dataset": {"kind": "instance", "name": name},
                            "dataset_checksum": instance_checksum(hg), "instance": spec, "k": k, "epsilon": eps,
                            "caps": caps, "seed": seed, "tool": tool,
                            "reference": None if ref is None else {**ref, "label": st["reference_label"],
                                                                   "checksum": ref_sum},
                            "scheduler": {"name": tool["name"], "params": {}}, "code_version": version}, exp.name))
        return unique(cells, exp.where)

    # -- one cell -----------------------------------------------------------------------------------

    def jit_schedulers(self, cell: dict) -> list[str]:
        """None: a partition cell's ``scheduler`` names its partitioning tool, and the kind warms mpx's own
        kernels itself (`_warm_up`)."""
        return []

    @classmethod
    def _warm_up(cls) -> None:
        """Load (or compile) the numba kernels outside the timed call, once per process."""
        if not cls._warm:
            partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2)
            partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2, max_block_weights=[2, 2],
                      context=grouping_context(4))
            PartitionKind._warm = True

    def run(self, cell: dict) -> dict[str, Any]:
        """One partition call of one tool on one instance; km1, cut, imbalance and block weights recomputed
        here from the returned blocks with `mpx.partition`'s objective functions, whichever tool produced them."""
        spec, tool, k, eps, caps = cell["instance"], cell["tool"], cell["k"], cell["epsilon"], cell["caps"]
        hg, _, _, _ = load_instance(spec)
        if instance_checksum(hg) != cell["dataset_checksum"]:
            raise ConfigError(f"instance {cell['dataset']['name']!r} changed since the grid was expanded "
                              "(checksum differs): rerun to expand the grid again")
        ref = cell.get("reference") or {}
        row: dict[str, Any] = {
            "cell_key": cell["key"], "experiment": cell.get("experiment"), "instance": cell["dataset"]["name"],
            "family": spec["family"], "dataset_checksum": cell["dataset_checksum"],
            "code_version": cell["code_version"], "n": hg.num_vertices, "nets": hg.num_nets, "pins": hg.num_pins,
            "k": k, "epsilon": eps, "cap": None if caps is None else int(max(caps)), "seed": cell["seed"],
            "tool": tool["name"], "tool_version": tool.get("version"),
            "tool_params": json.dumps(tool["params"], sort_keys=True),
            "reference_km1": ref.get("km1"), "reference_label": ref.get("label"),
            "reference_km1_sd": ref.get("sd"), "reference_runs": ref.get("runs")}
        if tool.get("unavailable"):
            row.update(status="skipped", reason=tool["unavailable"])
            return {"partition": [row], "_status": ("skipped", tool["unavailable"])}
        if tool["name"] == "mpx":
            self._warm_up()
            mode = tool["params"]["context"]
            ctx = grouping_context(hg.num_vertices) if mode == "grouping" or (mode == "auto" and caps) else Context()
            res = partition(hg, k, epsilon=eps, seed=cell["seed"], max_block_weights=caps, context=ctx)
            blocks, seconds, reported = res.blocks, res.seconds, None
        else:
            job = {"k": k, "epsilon": eps, "seed": cell["seed"], "caps": caps, **tool["params"]}
            job.update({"path": spec["path"]} if spec["family"] == "hmetis" else external.job_from_hypergraph(hg))
            r = external.run_external(tool["name"], job, timeout=tool["params"]["timeout"])
            if "error" in r:
                row.update(status="failed", reason=r["error"])
                return {"partition": [row], "_status": ("done", None)}
            blocks, seconds, reported = np.asarray(r["blocks"], dtype=np.int64), r["seconds"], r["km1"]
        bw = block_weights(hg, blocks, k)
        q = km1(hg, blocks, k)
        imb = imbalance(hg, blocks, k)
        feasible = bool(np.all(bw <= np.asarray(caps))) if caps is not None else bool(imb <= eps + 1e-12)
        row.update(status="done", reason=None, km1=q, km1_reported=reported, cut=cut(hg, blocks, k), imbalance=imb,
                   max_block=int(bw.max()), feasible=feasible, partition_seconds=float(seconds),
                   km1_vs_reference=(q / ref["km1"]) if ref.get("km1") else None)
        return {"partition": [clean_row(row)], "_status": ("done", None)}


# the report section of the partition table (`PartitionKind.report`; `mpx.studies.report.kind_sections`)
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
