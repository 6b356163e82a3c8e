"""Declarative experiments: a TOML config expands to a grid of cells; ``run_cell`` computes one cell.

A **cell** is one replay — one dataset × hardware (PMU, counters, events) × multiplexing settings
(quantum, read window, noise) × seed × scheduler — scored with every scaler of the config (one
`mpx.multiplex.multiplex`, then each scaler's estimate, then `mpx.evaluate.score`). A ``kind =
"schedule"`` experiment has cells of one metric catalog × PMU × counters × scheduler, scored with
`mpx.schedule_scores.score_schedulers` (no trace needed). A ``kind = "partition"`` experiment has
cells of one partitioning instance (`mpx.partition_instances`) × seed × tool (``mpx``, the real
``kahypar`` or ``mtkahypar``, `mpx.partition.external`): km1, cut, imbalance, largest block and seconds
of one partition call (see "Partition experiments" below). A cell is a plain JSON-able dict; its
**key** is a hash of that dict, which holds the full configuration, the dataset checksum and the code
version (`code_version`): change any of them and the cell is recomputed, change nothing and the
results store (`mpx.results`) skips it.

Config (every relative path is relative to the config file)::

    [experiment]
    name = "quickstart"            # required
    kind = "scaling"               # "scaling" (default) or "schedule"

    [data]                         # scaling: at least one of datasets / files / synthetic
    datasets = ["all"]             # shipped datasets (mpx.datasets), "all" = every one
    files = ["runs/*.npz"]         # trace files or globs (any format mpx.readers reads)
    heldout = ["new/*.npz"]        # trace files scored but never trained on (see "Learned scalers")
    synthetic = [{preset = "tma", intervals = 2000, seed = 0}]   # mpx.synthetic presets
    intervals = [0, 600]           # optional: keep these trace intervals (start, stop)

    [hardware]                     # no silent defaults: pmu and counters are required
    pmu = "generic-N"              # preset (mpx.pmu.presets()) or a PMU TOML file
    counters = 4                   # generic counters of the core unit, or "preset" (the PMU's own)
    metrics = "callgrind"          # catalog: built-in name or file/folder (the problem's events+groups)
    events = ["Ir", "Dr"]          # instead of (or to restrict) the catalog's events
    max_events = 8                 # optional: keep the problem's first N events

    [multiplex]                    # exactly one of quantum / quantum_intervals / quantum_ms
    quantum_intervals = 1          # quantum = this many median trace intervals
    read_every = 10                # quanta per read window (perf stat -I)
    noise = {rel_sigma = 0.0, read_overhead = 0.0}
    seeds = [0]                    # or repetitions = N (seeds 0..N-1)

    [schedulers]
    use = "all"                    # registry names or "all" (mpx.schedulers.available())
    params.hperf = {available_gp = 4}

    [scalers]
    use = ["linear", "dira"]       # registry names or "all"
    params.papi_sw = {min_cycles = 0}

    [sweep]                        # dotted path -> list of values; cells = the product
    "hardware.counters" = [2, 3, 4, 6, 8]

    [output]
    series_events = ["D1mr"]       # store per-window truth/estimate/std of these events (timeline figures)
    series_workloads = ["sqlite"]  # ... for these workloads only (default: all)
    figures = ["scaler_per_workload"]   # figures `mpx run` draws at the end (mpx.figures)

Partition experiments (``kind = "partition"``; no [hardware], [multiplex], [schedulers] or [scalers])::

    [data]                         # at least one of hypergraphs / random_events / catalogs
    hypergraphs = ["ibm01.hgr"]    # hMetis files (or globs): partitioned into k blocks under epsilon-balance
    random_events = [{n = 200, cap = 4}]   # random event instances (instance_seed = 0 unless given)
    catalogs = [{path = "metrics/likwid/skylake", pmu = "skylake-htoff"}]  # every PMU unit with k >= 2

    [partition]
    tools = ["mpx", "kahypar", "mtkahypar"]   # a tool that is not importable: cells stored as skipped
    k = [2, 8, 32]                 # for hypergraphs; event instances have k = ceil(n / cap)
    epsilon = 0.03                 # for hypergraphs (event instances have the hard caps instead)
    seeds = [0, 1, 2, 3, 4]        # or repetitions = N
    kahypar_ini = "km1_kKaHyPar_sea20.ini"   # required with kahypar (the package ships no configuration)
    mtkahypar_preset = "quality"   # default | quality | highest_quality | deterministic | ...
    threads = 1                    # Mt-KaHyPar threads
    mpx_context = "auto"           # auto: mpx.grouping's configuration on capped instances, defaults otherwise
    reference = "km1_kKaHyPar.ibm.csv"       # optional published per-run results (kahypar/experimental-results)
    reference_label = "KaHyPar-K (published)"
    timeout = 600                  # seconds per external run

Learned scalers (``learned = True``, `mpx.scalers.base.Scaler`) are fitted, inside each cell, on the
traces of every *other* workload of the config (leave-one-workload-out); their checksums are in the
cell, so the key changes when the training data does. Traces under ``[data] heldout`` (programs kept
away while a method was developed) are scored like ``files`` but are in no cell's training set: every
cell trains on the other workloads of ``datasets``/``files``/``synthetic`` only. Their score rows have
``heldout = 1``; ``mpx report`` gives them their own rows in the ``[output] headline`` table.
"""

from __future__ import annotations

import copy
import glob
import hashlib
import itertools
import json
import math
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from mpx.errors import ConfigError, MpxError

__all__ = ["Experiment", "load_config", "expand", "cell_key", "run_cell", "run_experiment", "code_version", "KINDS",
           "TIMING_COLUMNS"]

KINDS = ("scaling", "schedule", "partition")

_SECTIONS = {
    "experiment": {"name", "description", "kind"},
    "data": {"datasets", "files", "heldout", "synthetic", "intervals", "catalogs", "hypergraphs", "random_events"},
    "hardware": {"pmu", "counters", "metrics", "events", "max_events", "groups"},
    "multiplex": {"quantum", "quantum_intervals", "quantum_ms", "clock_hz", "ticks_per_second", "read_every",
                  "noise", "seeds", "repetitions", "quanta"},
    "schedulers": {"use", "params"},
    "scalers": {"use", "params"},
    "sweep": None,
    "output": {"series_events", "series_workloads", "figures", "summary", "headline"},
    "partition": {"tools", "k", "epsilon", "seeds", "repetitions", "kahypar_ini", "mtkahypar_preset", "threads",
                  "mpx_context", "reference", "reference_label", "timeout"},
}

#: tools a partition experiment can run
PARTITION_TOOLS = ("mpx", "kahypar", "mtkahypar")

#: columns of measured wall-clock time: the only values that differ between two runs of one cell
TIMING_COLUMNS = ("estimate_seconds", "event_windows_per_s", "mux_seconds", "cell_seconds", "partition_seconds")


# -- code version -----------------------------------------------------------------------------------

_CODE_VERSION: str | None = None


def code_version() -> str:
    """``mpx.__version__`` plus the git commit of the package checkout when there is one
    (``0.1.0+g1a2b3c4d5e6f``); ``MPX_CODE_VERSION`` overrides it (pin it to reuse results across
    commits that do not change numbers, or in tests)."""
    global _CODE_VERSION
    env = os.environ.get("MPX_CODE_VERSION")
    if env:
        return env
    if _CODE_VERSION is None:
        import mpx

        v = mpx.__version__
        try:
            head = subprocess.run(["git", "-C", str(Path(mpx.__file__).resolve().parent), "rev-parse",
                                   "--short=12", "HEAD"], capture_output=True, text=True, timeout=10)
            if head.returncode == 0 and head.stdout.strip():
                v = f"{v}+g{head.stdout.strip()}"
        except (OSError, subprocess.SubprocessError):
            pass
        _CODE_VERSION = v
    return _CODE_VERSION


# -- config loading and validation ------------------------------------------------------------------


def _toml_load(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise
    except Exception as exc:  # tomllib.TOMLDecodeError carries line and column in its message
        from mpx.errors import FormatError

        raise FormatError(path, None, f"not valid TOML: {exc}") from None


def _set_path(cfg: dict, dotted: str, value: Any, where: str) -> None:
    parts = dotted.split(".")
    node = cfg
    for p in parts[:-1]:
        nxt = node.get(p)
        if nxt is None:
            nxt = node[p] = {}
        if not isinstance(nxt, dict):
            raise ConfigError(f"{where}: [sweep] {dotted!r}: {p!r} is not a table")
        node = nxt
    node[parts[-1]] = value


class Experiment:
    """A validated experiment config: ``name``, ``kind``, ``raw`` (the TOML as read), ``path`` and
    ``base`` (the folder relative paths are resolved from). `cells` expands the grid."""

    def __init__(self, raw: dict, path: str | os.PathLike | None = None) -> None:
        self.raw = raw
        self.path = None if path is None else Path(path)
        self.base = self.path.resolve().parent if self.path is not None else Path.cwd()
        self.where = str(path) if path is not None else "<config>"
        self._validate()

    # ---------------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.raw["experiment"]["name"]

    @property
    def kind(self) -> str:
        return self.raw["experiment"].get("kind", "scaling")

    @property
    def output(self) -> dict:
        return dict(self.raw.get("output", {}))

    def _validate(self) -> None:
        from mpx import scalers, schedulers

        w, raw = self.where, self.raw
        for sec, val in raw.items():
            if sec not in _SECTIONS:
                raise ConfigError(f"{w}: unknown section [{sec}]; known: {', '.join(_SECTIONS)}")
            if not isinstance(val, dict):
                raise ConfigError(f"{w}: [{sec}] must be a table")
            allowed = _SECTIONS[sec]
            if allowed is not None:
                bad = sorted(set(val) - allowed)
                if bad:
                    raise ConfigError(f"{w}: unknown key(s) {bad} in [{sec}]; known: {sorted(allowed)}")
        exp = raw.get("experiment")
        if not exp or not isinstance(exp.get("name"), str) or not exp["name"]:
            raise ConfigError(f"{w}: [experiment] name is required (a non-empty string)")
        if self.kind not in KINDS:
            raise ConfigError(f"{w}: [experiment] kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "partition":
            self._validate_partition()
            return
        if "partition" in raw:
            raise ConfigError(f"{w}: [partition] belongs to kind = \"partition\" experiments only")
        hw = raw.get("hardware")
        if not hw:
            raise ConfigError(f"{w}: [hardware] is required (pmu, counters): hardware has no defaults")
        if "pmu" not in hw:
            raise ConfigError(f"{w}: [hardware] pmu is required (a preset: mpx.pmu.presets(), or a PMU TOML file)")
        if "counters" not in hw:
            raise ConfigError(f"{w}: [hardware] counters is required (generic counters of the core unit, or "
                              "\"preset\" for the PMU's own): hardware has no defaults")
        if self.kind == "scaling":
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
            for k in ("scalers",):
                if not raw.get(k, {}).get("use"):
                    raise ConfigError(f"{w}: [{k}] use is required (a list of names or \"all\")")
        else:
            if not raw.get("data", {}).get("catalogs") and "metrics" not in hw:
                raise ConfigError(f"{w}: a schedule experiment needs [data] catalogs or [hardware] metrics")
        if not raw.get("schedulers", {}).get("use"):
            raise ConfigError(f"{w}: [schedulers] use is required (a list of names or \"all\")")
        for reg, sec in ((schedulers, "schedulers"), (scalers, "scalers")):
            if sec not in raw:
                continue
            names = self._names(sec)
            avail = reg.available()
            bad = [n for n in names if n not in avail]
            if bad:
                raise ConfigError(f"{w}: [{sec}] use: unknown {sec[:-1]}(s) {bad}; available: {', '.join(avail)}")
            params = raw[sec].get("params", {})
            if not isinstance(params, dict):
                raise ConfigError(f"{w}: [{sec}] params must be a table of tables")
            for n, p in params.items():
                if n not in avail:
                    raise ConfigError(f"{w}: [{sec}.params.{n}]: unknown {sec[:-1]} {n!r}")
                if not isinstance(p, dict):
                    raise ConfigError(f"{w}: [{sec}.params.{n}] must be a table")
                allowed = reg.get_class(n)._param_names()
                bad = sorted(set(p) - set(allowed))
                if bad:
                    raise ConfigError(f"{w}: [{sec}.params.{n}] unknown parameter(s) {bad}; {n} takes {allowed}")
        for k, v in raw.get("sweep", {}).items():
            if not isinstance(v, list) or not v:
                raise ConfigError(f"{w}: [sweep] {k!r} must be a non-empty list of values")
            if k.split(".")[0] not in ("hardware", "multiplex", "schedulers", "scalers", "data"):
                raise ConfigError(f"{w}: [sweep] {k!r}: only hardware.*, multiplex.*, data.*, schedulers.params.* "
                                  "and scalers.params.* can be swept")
        mux = raw.get("multiplex", {})
        if "seeds" in mux and "repetitions" in mux:
            raise ConfigError(f"{w}: [multiplex] give seeds or repetitions, not both")
        # check every swept variant now, so a bad value fails before hours of computing
        for variant in self._variants():
            self._check_variant(variant)

    def _names(self, sec: str) -> list[str]:
        from mpx import scalers, schedulers

        use = self.raw[sec]["use"]
        reg = schedulers if sec == "schedulers" else scalers
        if use == "all":
            return reg.available()
        if isinstance(use, str):
            use = [use]
        if not isinstance(use, list) or not all(isinstance(n, str) for n in use):
            raise ConfigError(f"{self.where}: [{sec}] use must be \"all\" or a list of names")
        return list(use)

    def _variants(self) -> list[dict]:
        sweep = self.raw.get("sweep", {})
        keys = sorted(sweep)
        out = []
        for combo in itertools.product(*(sweep[k] for k in keys)):
            cfg = copy.deepcopy({k: v for k, v in self.raw.items() if k != "sweep"})
            for k, v in zip(keys, combo):
                _set_path(cfg, k, v, self.where)
            out.append(cfg)
        return out

    def _check_variant(self, cfg: dict) -> None:
        w = self.where
        hw, mux = cfg["hardware"], cfg.get("multiplex", {})
        c = hw["counters"]
        if not (c == "preset" or (isinstance(c, int) and not isinstance(c, bool) and c >= 1)):
            raise ConfigError(f"{w}: [hardware] counters must be a positive integer or \"preset\", got {c!r}")
        me = hw.get("max_events")
        if me is not None and not (isinstance(me, int) and not isinstance(me, bool) and me >= 1):
            raise ConfigError(f"{w}: [hardware] max_events must be a positive integer, got {me!r}")
        if self.kind == "schedule":
            q = mux.get("quanta")
            if q is not None and not (isinstance(q, int) and q >= 1):
                raise ConfigError(f"{w}: [multiplex] quanta must be a positive integer, got {q!r}")
            return
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
        from mpx.multiplex import Noise

        Noise(**noise)
        iv = cfg.get("data", {}).get("intervals")
        if iv is not None and not (isinstance(iv, list) and len(iv) == 2 and all(isinstance(x, int) for x in iv)
                                   and 0 <= iv[0] < iv[1]):
            raise ConfigError(f"{w}: [data] intervals must be [start, stop] with 0 <= start < stop, got {iv!r}")

    def seeds(self, cfg: dict) -> list[int]:
        mux = cfg.get("multiplex", {})
        if "repetitions" in mux:
            r = mux["repetitions"]
            if isinstance(r, bool) or not isinstance(r, int) or r < 1:
                raise ConfigError(f"{self.where}: [multiplex] repetitions must be a positive integer, got {r!r}")
            return list(range(r))
        seeds = mux.get("seeds", [0])
        if isinstance(seeds, int):
            seeds = [seeds]
        if not isinstance(seeds, list) or not all(isinstance(s, int) and s >= 0 for s in seeds):
            raise ConfigError(f"{self.where}: [multiplex] seeds must be a list of integers >= 0, got {seeds!r}")
        return seeds

    # -- datasets ------------------------------------------------------------------------------------

    def datasets(self, cfg: dict) -> list[dict]:
        """Dataset specs (JSON-able) of one variant, in config order."""
        from mpx import datasets as D

        data = cfg.get("data", {})
        out: list[dict] = []
        names = data.get("datasets", [])
        if isinstance(names, str):
            names = [names]
        shipped = D.names()
        for n in names:
            if n == "all":
                out += [{"kind": "shipped", "name": s} for s in shipped]
            elif n in shipped:
                out.append({"kind": "shipped", "name": n})
            else:
                raise ConfigError(f"{self.where}: [data] datasets: unknown dataset {n!r}; shipped: {', '.join(shipped)}")
        for key in ("files", "heldout"):
            files = data.get(key, [])
            if isinstance(files, str):
                files = [files]
            for pat in files:
                full = pat if os.path.isabs(pat) else str(self.base / pat)
                hits = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
                if not hits or not all(os.path.exists(h) for h in hits):
                    raise ConfigError(f"{self.where}: [data] {key}: {pat!r} matches no file (resolved to {full})")
                extra = {"heldout": True} if key == "heldout" else {}
                out += [{"kind": "file", "name": Path(h).name, "path": str(Path(h).resolve()), **extra} for h in hits]
        for i, s in enumerate(data.get("synthetic", [])):
            if not isinstance(s, dict) or "preset" not in s:
                raise ConfigError(f"{self.where}: [data] synthetic[{i}] must be a table with preset (and intervals, seed)")
            bad = set(s) - {"preset", "intervals", "seed", "name"}
            if bad:
                raise ConfigError(f"{self.where}: [data] synthetic[{i}]: unknown key(s) {sorted(bad)}")
            spec = {"kind": "synthetic", "preset": s["preset"], "intervals": s.get("intervals"),
                    "seed": int(s.get("seed", 0))}
            spec["name"] = s.get("name") or f"synthetic-{s['preset']}-s{spec['seed']}"
            out.append(spec)
        iv = data.get("intervals")
        if iv is not None:
            for d in out:
                d["slice"] = list(iv)
        seen: set[str] = set()
        for d in out:
            if d["name"] in seen:
                raise ConfigError(f"{self.where}: [data] dataset {d['name']!r} appears twice")
            seen.add(d["name"])
        return out

    # -- the grid ------------------------------------------------------------------------------------

    def cells(self) -> list[dict]:
        """Every cell of the grid (JSON-able dicts with a ``key``), in a deterministic order."""
        if self.kind == "partition":
            return _unique(self._partition_cells(), self.where)
        version = code_version()
        cells: list[dict] = []
        for cfg in self._variants():
            sched_names = self._names_of(cfg, "schedulers")
            sched_params = cfg.get("schedulers", {}).get("params", {})
            hardware = {k: cfg["hardware"][k] for k in sorted(cfg["hardware"])}
            for k in ("metrics", "pmu"):
                v = hardware.get(k)
                if isinstance(v, str) and not _is_builtin(k, v):
                    p = Path(v) if os.path.isabs(v) else self.base / v
                    if not p.exists():
                        raise ConfigError(f"{self.where}: [hardware] {k} {v!r} is neither a built-in name nor an "
                                          f"existing path (resolved to {p})")
                    hardware[k] = str(p.resolve())
            if self.kind == "scaling" or hardware.get("metrics"):
                try:  # a bad hardware table fails here, before any cell runs
                    build_problem(hardware)
                except ConfigError as exc:
                    raise ConfigError(f"{self.where}: {exc}") from None
            if self.kind == "schedule":
                cells += self._schedule_cells(cfg, hardware, sched_names, sched_params, version)
                continue
            mux = {k: cfg["multiplex"][k] for k in sorted(cfg["multiplex"]) if k not in ("seeds", "repetitions")}
            mux.setdefault("noise", {})
            scaler_names = self._names_of(cfg, "scalers")
            scaler_params = cfg.get("scalers", {}).get("params", {})
            scaler_specs = [{"name": n, "params": scaler_params.get(n, {})} for n in scaler_names]
            ds = self.datasets(cfg)
            sums = {d["name"]: dataset_checksum(d) for d in ds}
            # a PMU or catalog file's content is part of the key (edit the file: the cells recompute)
            hw_sums = {k: catalog_checksum(hardware[k]) for k in ("pmu", "metrics")
                       if isinstance(hardware.get(k), str) and os.path.isabs(hardware[k])}
            workloads = {d["name"]: _workload_of(d) for d in ds}
            learned = [s["name"] for s in scaler_specs if _is_learned(s["name"])]
            if learned and len({workloads[d["name"]] for d in ds if not d.get("heldout")}) < 2:
                raise ConfigError(f"{self.where}: learned scaler(s) {learned} need at least two workloads "
                                  "(leave-one-workload-out training)")
            problem, _ = build_problem(hardware)
            for d in ds:
                try:  # a quantum in ms on a cycles axis needs clock_hz: no silent default
                    _quantum(mux, load_dataset(d))
                except ConfigError as exc:
                    raise ConfigError(f"{self.where}: [multiplex] dataset {d['name']!r}: {exc}") from None
                have = set(load_dataset(d).events)
                missing = [e for e in problem.events if e not in have]
                if missing:
                    raise ConfigError(f"{self.where}: [hardware] the problem's event(s) {missing[:10]} are not in "
                                      f"dataset {d['name']!r} (it has {sorted(have)[:20]})")
            out = cfg.get("output", {})
            for d in ds:
                train = ([{"dataset": t, "checksum": sums[t["name"]]} for t in ds
                          if workloads[t["name"]] != workloads[d["name"]] and not t.get("heldout")]
                         if learned else [])
                series = (list(out.get("series_events", []))
                          if not out.get("series_workloads") or d["name"] in out["series_workloads"]
                          or workloads[d["name"]] in out["series_workloads"] else [])
                for seed in self.seeds(cfg):
                    for s in sched_names:
                        cell = {"kind": "scaling", "dataset": d, "dataset_checksum": sums[d["name"]],
                                "hardware": hardware, "hardware_checksums": hw_sums, "multiplex": mux, "seed": seed,
                                "scheduler": {"name": s, "params": sched_params.get(s, {})},
                                "scalers": scaler_specs, "train": train, "series_events": series,
                                "code_version": version}
                        cell["key"] = cell_key(cell)
                        cell["experiment"] = self.name
                        cells.append(cell)
        return _unique(cells, self.where)

    def _names_of(self, cfg: dict, sec: str) -> list[str]:
        saved, self.raw = self.raw, cfg
        try:
            return self._names(sec)
        finally:
            self.raw = saved

    def _schedule_cells(self, cfg: dict, hardware: dict, names: list[str], params: dict, version: str) -> list[dict]:
        cats = cfg.get("data", {}).get("catalogs") or [hardware["metrics"]]
        if isinstance(cats, (str, dict)):
            cats = [cats]
        cells = []
        for i, entry in enumerate(cats):
            c, pmu = (entry, None) if isinstance(entry, str) else (entry.get("path"), entry.get("pmu"))
            if not isinstance(c, str) or (isinstance(entry, dict) and set(entry) - {"path", "pmu"}):
                raise ConfigError(f"{self.where}: [data] catalogs[{i}] must be a path/built-in name or a table "
                                  "{path = ..., pmu = ...}")
            if not _is_builtin("metrics", c):
                p = Path(c) if os.path.isabs(c) else self.base / c
                if not p.exists():
                    raise ConfigError(f"{self.where}: [data] catalogs: {c!r} is neither a built-in catalog nor an "
                                      f"existing path (resolved to {p})")
                c = str(p.resolve())
            hw = dict(hardware, metrics=c, **({"pmu": pmu} if pmu else {}))
            try:
                build_problem(hw)
            except ConfigError as exc:
                raise ConfigError(f"{self.where}: [data] catalogs[{i}] ({c}): {exc}") from None
            for seed in self.seeds(cfg):
                for s in names:
                    cell = {"kind": "schedule", "dataset": {"kind": "catalog", "name": _catalog_label(c)},
                            "dataset_checksum": catalog_checksum(c), "hardware": hw,
                            "hardware_checksums": ({"pmu": catalog_checksum(hw["pmu"])} if os.path.isfile(hw["pmu"])
                                                   else {}),
                            "multiplex": {"quanta": cfg.get("multiplex", {}).get("quanta")}, "seed": seed,
                            "scheduler": {"name": s, "params": params.get(s, {})}, "code_version": version}
                    cell["key"] = cell_key(cell)
                    cell["experiment"] = self.name
                    cells.append(cell)
        return cells

    # -- partition experiments -----------------------------------------------------------------------

    def _validate_partition(self) -> None:
        w, raw = self.where, self.raw
        extra = [s for s in ("hardware", "multiplex", "schedulers", "scalers") if s in raw]
        if extra:
            raise ConfigError(f"{w}: a partition experiment takes no {', '.join(f'[{s}]' for s in extra)} "
                              "(its inputs are [data] hypergraphs / random_events / catalogs and [partition])")
        data = raw.get("data", {})
        bad = sorted(set(data) - {"hypergraphs", "random_events", "catalogs"})
        if bad:
            raise ConfigError(f"{w}: [data] key(s) {bad} do not apply to a partition experiment "
                              "(hypergraphs, random_events, catalogs)")
        if not any(data.get(k) for k in ("hypergraphs", "random_events", "catalogs")):
            raise ConfigError(f"{w}: [data] needs hypergraphs, random_events or catalogs")
        if not raw.get("partition", {}).get("tools"):
            raise ConfigError(f"{w}: [partition] tools is required (a list out of {list(PARTITION_TOOLS)})")
        for k in raw.get("sweep", {}):
            if k.split(".")[0] not in ("partition", "data"):
                raise ConfigError(f"{w}: [sweep] {k!r}: a partition experiment sweeps partition.* and data.* only")
        for k, v in raw.get("sweep", {}).items():
            if not isinstance(v, list) or not v:
                raise ConfigError(f"{w}: [sweep] {k!r} must be a non-empty list of values")
        for cfg in self._variants():
            self._partition_settings(cfg)

    def _partition_settings(self, cfg: dict) -> dict:
        """The validated [partition] table of one variant (paths resolved, defaults filled in)."""
        w = self.where
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
        try:  # the same rules as [multiplex] seeds / repetitions
            seeds = self.seeds({"multiplex": {k: p[k] for k in ("seeds", "repetitions") if k in p}})
        except ConfigError as exc:
            raise ConfigError(str(exc).replace("[multiplex]", "[partition]")) from None
        ini = p.get("kahypar_ini")
        if "kahypar" in tools:
            if not isinstance(ini, str):
                raise ConfigError(f"{w}: [partition] kahypar_ini is required with tool kahypar (the path of a KaHyPar "
                                  ".ini configuration, e.g. km1_kKaHyPar_sea20.ini: the package ships none)")
            ini = self._existing(ini, "[partition] kahypar_ini")
        preset = p.get("mtkahypar_preset", "quality")
        from mpx.partition.external import MT_PRESETS

        if preset not in MT_PRESETS:
            raise ConfigError(f"{w}: [partition] mtkahypar_preset must be one of {list(MT_PRESETS)}, got {preset!r}")
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
            ref = self._existing(ref, "[partition] reference")
        return {"tools": tools, "k": ks, "epsilon": None if eps is None else float(eps), "seeds": seeds,
                "kahypar_ini": ini, "mtkahypar_preset": preset, "threads": threads, "mpx_context": ctx,
                "timeout": float(timeout), "reference": ref,
                "reference_label": str(p.get("reference_label", "published reference"))}

    def _existing(self, v: Any, what: str) -> str:
        if not isinstance(v, str):
            raise ConfigError(f"{self.where}: {what} must be a path, got {v!r}")
        q = Path(v) if os.path.isabs(v) else self.base / v
        if not q.exists():
            raise ConfigError(f"{self.where}: {what} {v!r} does not exist (resolved to {q})")
        return str(q.resolve())

    def _partition_instances(self, cfg: dict, settings: dict) -> list[dict]:
        """Instance specs (`mpx.partition_instances`) of one variant, in config order."""
        from mpx.partition_instances import catalog_units

        w, data, out = self.where, cfg.get("data", {}), []
        hgs = data.get("hypergraphs", [])
        for pat in [hgs] if isinstance(hgs, str) else hgs:
            if not isinstance(pat, str):
                raise ConfigError(f"{w}: [data] hypergraphs must be a list of paths or globs, got {pat!r}")
            full = pat if os.path.isabs(pat) else str(self.base / pat)
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
            if not _is_builtin("metrics", c):
                c = self._existing(c, f"[data] catalogs[{i}] path")
            try:
                units = catalog_units(c, entry["pmu"])
            except ConfigError as exc:
                raise ConfigError(f"{w}: [data] catalogs[{i}] ({c}): {exc}") from None
            for unit, _n, _cap, _k in units:
                out.append({"family": "catalog", "path": c, "pmu": entry["pmu"], "unit": unit,
                            "label": _catalog_label(c)})
        return out

    def _partition_cells(self) -> list[dict]:
        from mpx.partition.external import tool_status
        from mpx.partition_instances import instance_checksum, instance_name, load_instance

        version = code_version()
        cells: list[dict] = []
        for cfg in self._variants():
            st = self._partition_settings(cfg)
            refs = _reference_km1(st["reference"]) if st["reference"] else {}
            ref_sum = catalog_checksum(st["reference"]) if st["reference"] else None
            tools = []
            for t in st["tools"]:
                if t == "mpx":
                    tools.append({"name": "mpx", "version": None, "params": {"context": st["mpx_context"]}})
                    continue
                ver, reason = tool_status(t)
                params = ({"ini": st["kahypar_ini"], "ini_checksum": catalog_checksum(st["kahypar_ini"])}
                          if t == "kahypar" else {"preset": st["mtkahypar_preset"], "threads": st["threads"]})
                tools.append({"name": t, "version": ver, "unavailable": reason,
                              "params": {**params, "timeout": st["timeout"]}})
            for spec in self._partition_instances(cfg, st):
                hg, k, eps, caps = load_instance(spec)
                name = instance_name(spec)
                ref = None
                if spec["family"] == "hmetis":
                    ref = refs.get((Path(spec["path"]).name, k, round(eps, 6)))
                for seed in st["seeds"]:
                    for tool in tools:
                        cell = {"kind": "partition", "dataset": {"kind": "instance", "name": name},
                                "dataset_checksum": instance_checksum(hg), "instance": spec, "k": k, "epsilon": eps,
                                "caps": caps, "seed": seed, "tool": tool,
                                "reference": None if ref is None else {"km1": ref, "label": st["reference_label"],
                                                                       "checksum": ref_sum},
                                "scheduler": {"name": tool["name"], "params": {}}, "code_version": version}
                        cell["key"] = cell_key(cell)
                        cell["experiment"] = self.name
                        cells.append(cell)
        return cells


def load_config(path: str | os.PathLike) -> Experiment:
    """Read and validate an experiment TOML file (`ConfigError` naming the key on a bad one)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"experiment config {str(path)!r} does not exist")
    return Experiment(_toml_load(p), p)


def expand(path_or_raw: Any) -> list[dict]:
    """The grid of cells of a config file or an already-read config dict."""
    exp = path_or_raw if isinstance(path_or_raw, Experiment) else (
        Experiment(path_or_raw) if isinstance(path_or_raw, dict) else load_config(path_or_raw))
    return exp.cells()


def cell_key(cell: dict) -> str:
    """Hash of a cell's full configuration (dataset checksum and code version included)."""
    body = {k: v for k, v in cell.items() if k not in ("key", "experiment")}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


# -- helpers ----------------------------------------------------------------------------------------


def _unique(cells: list[dict], where: str) -> list[dict]:
    keys = [c["key"] for c in cells]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ConfigError(f"{where}: the grid has two identical cells (key {dup}): a sweep repeats a value")
    return cells


def _reference_km1(path: str) -> dict[tuple[str, int, float], float]:
    """Mean km1 per (hypergraph file name, k, epsilon) of a published per-run results file of
    kahypar/experimental-results (CSV rows ``algorithm, graph, ..., seed, k, epsilon, imbalance, time,
    objective, km1, cut, ...``: the columns are read from the end, which every file of that folder shares)."""
    import csv

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
                from mpx.errors import FormatError

                raise FormatError(path, lineno, "expected 'algorithm,graph,...,seed,k,epsilon,imbalance,time,"
                                  "objective,km1,cut,...'") from None
    return {k: sum(v) / len(v) for k, v in runs.items()}


def _is_builtin(kind: str, value: str) -> bool:
    if kind == "metrics":
        from mpx.metrics import builtin_names

        return value in builtin_names()
    from mpx.pmu import presets

    known = presets()
    return value in known or (value.startswith("generic-") and value[8:].isdigit())


def _is_learned(name: str) -> bool:
    from mpx import scalers

    return bool(getattr(scalers.get_class(name), "learned", False))


def _catalog_label(c: str) -> str:
    """A short catalog label: the path under a ``metrics`` folder, else the last two path parts."""
    if os.path.sep not in c:
        return c
    p = Path(c)
    if "metrics" in p.parts[:-1]:  # ../shared/data/metrics/linux-perf/x86/skylake -> linux-perf/x86/skylake
        i = len(p.parts) - 1 - p.parts[::-1].index("metrics")
        return "/".join(p.parts[i + 1:])
    return f"{p.parent.name}/{p.name}"


def catalog_checksum(c: str) -> str:
    """sha256 of a catalog's files (every file of a folder, sorted), or of a built-in catalog's name."""
    h = hashlib.sha256()
    p = Path(c)
    if p.exists():
        files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
        for f in files:
            h.update(str(f.relative_to(p) if p.is_dir() else f.name).encode())
            h.update(f.read_bytes())
    else:
        import mpx

        h.update(f"builtin:{c}:{mpx.__version__}".encode())
    return h.hexdigest()


_TRACES: dict[str, Any] = {}


def load_dataset(spec: dict) -> Any:
    """The Trace of a dataset spec (cached per process: cells of one dataset share it)."""
    k = json.dumps(spec, sort_keys=True)
    if k in _TRACES:
        return _TRACES[k]
    if spec["kind"] == "shipped":
        from mpx import datasets

        tr = datasets.load(spec["name"], verify=True)  # the manifest checksum: a corrupted file fails here
    elif spec["kind"] == "file":
        from mpx.readers import read_trace

        tr = read_trace(spec["path"])
    elif spec["kind"] == "synthetic":
        from mpx.synthetic import synth

        tr = synth(spec["preset"], intervals=spec.get("intervals"), seed=spec.get("seed", 0))
    else:
        raise ConfigError(f"unknown dataset kind {spec['kind']!r}")
    iv = spec.get("slice")
    if iv is not None:
        if iv[0] >= tr.n_intervals:
            raise ConfigError(f"[data] intervals {iv}: dataset {spec['name']!r} has only {tr.n_intervals} intervals")
        tr = tr.interval_slice(iv[0], min(iv[1], tr.n_intervals))
    if len(_TRACES) > 16:
        _TRACES.clear()
    _TRACES[k] = tr
    return tr


def dataset_checksum(spec: dict) -> str:
    return load_dataset(spec).checksum()


def _workload_of(spec: dict) -> str:
    tr = load_dataset(spec)
    return str(tr.meta.get("workload") or spec["name"])


_PROBLEMS: dict[str, Any] = {}
_SCHEDULES: dict[str, Any] = {}


def build_problem(hardware: dict) -> tuple[Any, Any]:
    """(Problem, catalog or None) of a cell's hardware table (cached per process)."""
    k = json.dumps(hardware, sort_keys=True)
    if k in _PROBLEMS:
        return _PROBLEMS[k]
    from mpx.metrics import builtin, builtin_names, load_catalog
    from mpx.pmu import PMU, preset
    from mpx.problem import Problem

    counters, name = hardware["counters"], hardware["pmu"]
    if name == "generic-N":  # the family of generic presets: N is the counters key
        if counters == "preset":
            raise ConfigError("[hardware] pmu = \"generic-N\" needs counters = a number (N)")
        name = f"generic-{counters}"
    pmu = PMU.from_file(name) if os.path.isfile(name) else preset(name)
    if counters != "preset":
        try:
            pmu = pmu.with_generic_counters(counters)
        except ConfigError as exc:
            raise ConfigError(f"[hardware] counters = {counters}: {exc}") from None
    m = hardware.get("metrics")
    catalog = None if not m else (builtin(m) if m in builtin_names() else load_catalog(m))
    events = hardware.get("events")
    if catalog is not None:
        problem = Problem.from_catalog(catalog, pmu, groups=hardware.get("groups", "auto"))
        if events:
            missing = [e for e in events if e not in problem.events]
            if missing:
                raise ConfigError(f"[hardware] events {missing} are not events of catalog {catalog.name!r}")
            problem = _restrict(problem, list(events))
    else:
        problem = Problem(tuple(events), pmu)
    me = hardware.get("max_events")
    if me is not None:
        if me > problem.n_events:
            raise ConfigError(f"[hardware] max_events = {me} but the problem has only {problem.n_events} events")
        problem = _restrict(problem, list(problem.events[:me]))
    _PROBLEMS[k] = (problem, catalog)
    return problem, catalog


def _restrict(problem: Any, keep: list[str]) -> Any:
    """The problem on ``keep`` only: groups cut to the kept events, metrics with a dropped event removed."""
    from mpx.problem import EventGroup, Problem

    ks = set(keep)
    groups = []
    for g in problem.groups:
        ev = tuple(e for e in g.events if e in ks)
        if ev:
            groups.append(EventGroup(ev, pinned=g.pinned, exclusive=g.exclusive, weak=g.weak, name=g.name))
    metrics = [m for m in problem.metrics if set(m.events) <= ks]
    relations = [r for r in problem.relations if set(r) <= ks]
    return Problem(tuple(keep), problem.pmu, groups=tuple(groups), metrics=tuple(metrics), software=problem.software,
                   meta={**problem.meta, "restricted_to": len(keep)}, relations=tuple(relations))


def _scheduler(spec: dict, hardware: dict) -> Any:
    """A scheduler instance; a static scheduler's schedule is computed once per process and problem
    (static schedules depend on the problem only, and the MILP one takes seconds)."""
    from mpx import schedulers
    from mpx.schedulers.base import StaticScheduler

    sched = schedulers.get(spec["name"], **spec.get("params", {}))
    if isinstance(sched, StaticScheduler):
        k = json.dumps([spec, hardware], sort_keys=True)
        compute = sched.schedule

        def schedule(problem: Any) -> Any:
            if k not in _SCHEDULES:
                _SCHEDULES[k] = compute(problem)
            return _SCHEDULES[k]

        sched.schedule = schedule  # instance attribute: this object only
    return sched


def _quantum(mux: dict, trace: Any) -> float:
    import numpy as np

    if "quantum" in mux:
        return float(mux["quantum"])
    if "quantum_intervals" in mux:
        return float(mux["quantum_intervals"]) * float(np.median(np.diff(trace.edges)))
    from mpx.multiplex import quantum_from_ms

    return quantum_from_ms(mux["quantum_ms"], trace.time_unit, clock_hz=mux.get("clock_hz"),
                           ticks_per_second=mux.get("ticks_per_second"))


def _event_class(truth: Any) -> tuple[Any, Any]:
    """Per event: coefficient of variation of the true window counts and its class — ``steady``
    (cv < 0.25), ``variable`` (< 1) or ``bursty`` (>= 1); ``zero`` when the event never counts."""
    import numpy as np

    mean = truth.mean(axis=0)
    sd = truth.std(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cv = np.where(mean > 0, sd / np.where(mean > 0, mean, 1.0), np.nan)
    cls = np.where(~(mean > 0), "zero", np.where(cv < 0.25, "steady", np.where(cv < 1.0, "variable", "bursty")))
    return cv, cls


def _clean(v: Any) -> Any:
    """Plain Python scalars (numpy → float/int/bool/str; NaN/inf → None)."""
    import numpy as np

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


# -- one cell ---------------------------------------------------------------------------------------


def run_cell(cell: dict) -> dict[str, Any]:
    """Compute one cell: a dict of tables (lists of row dicts) ``cell``, ``scores``, ``events``,
    ``metrics``, ``schedule``, ``series``. A cell the scheduler cannot handle (a `ConfigError`) comes
    back with ``status = "skipped"`` and the reason; a scaler that cannot handle it likewise, per row."""
    t0 = time.perf_counter()
    try:
        if cell["kind"] == "partition":
            out = _run_partition_cell(cell)
        elif cell["kind"] == "schedule":
            out = _run_schedule_cell(cell)
        else:
            out = _run_scaling_cell(cell)
        status, reason = out.pop("_status", ("done", None))
    except MpxError as exc:
        out = {"scores": [], "events": [], "metrics": [], "schedule": [], "series": []}
        status, reason = "skipped", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a bug must not stop a long run: the cell is stored as an error, retried on rerun
        out = {"scores": [], "events": [], "metrics": [], "schedule": [], "series": []}
        status, reason = "error", f"{type(exc).__name__}: {exc}"
    out["cell"] = {
        "key": cell["key"], "experiment": cell.get("experiment"), "kind": cell["kind"],
        "dataset": cell["dataset"]["name"], "dataset_checksum": cell["dataset_checksum"],
        "code_version": cell["code_version"], "scheduler": cell["scheduler"]["name"], "seed": cell["seed"],
        "status": status, "reason": reason, "config": json.dumps(cell, sort_keys=True),
        "cell_seconds": time.perf_counter() - t0,
    }
    return out


def _provenance(cell: dict, problem: Any, trace: Any = None, obs: Any = None) -> dict[str, Any]:
    hw, mux = cell["hardware"], cell["multiplex"]
    return {
        "cell_key": cell["key"], "experiment": cell.get("experiment"), "dataset": cell["dataset"]["name"],
        "workload": (str(trace.meta.get("workload") or cell["dataset"]["name"]) if trace is not None
                     else cell["dataset"]["name"]),
        "dataset_checksum": cell["dataset_checksum"], "code_version": cell["code_version"], "seed": cell["seed"],
        "heldout": int(bool(cell["dataset"].get("heldout"))),
        "scheduler": cell["scheduler"]["name"], "scheduler_params": _clean(cell["scheduler"]["params"]),
        "pmu": hw["pmu"], "counters": problem.n_counters(), "n_events": problem.n_events,
        "max_events": hw.get("max_events"),
        "quantum": None if obs is None else float(obs.quantum),
        "quantum_intervals": mux.get("quantum_intervals"), "quantum_ms": mux.get("quantum_ms"),
        "time_unit": None if obs is None else obs.time_unit,
        "read_every": mux.get("read_every"),
        "read_window": None if obs is None else float(obs.quantum * obs.read_every),
        "noise_rel_sigma": (mux.get("noise") or {}).get("rel_sigma", 0.0),
        "noise_read_overhead": (mux.get("noise") or {}).get("read_overhead", 0.0),
    }


def _run_schedule_cell(cell: dict) -> dict[str, Any]:
    from mpx.schedule_scores import score_schedulers

    problem, catalog = build_problem(cell["hardware"])
    s = cell["scheduler"]
    sp = dict(s["params"])
    gp = catalog.platform.get("available_GP") if catalog is not None else None
    if (s["name"] == "hperf" and cell["hardware"]["counters"] == "preset" and "available_gp" not in sp
            and isinstance(gp, int) and not isinstance(gp, bool)):
        sp["available_gp"] = gp  # hperf's own counter budget from its configuration, as mpx schedule does
    t0 = time.perf_counter()
    row = score_schedulers(problem, [s["name"]], quanta=cell["multiplex"].get("quanta"), seed=cell["seed"],
                           params={s["name"]: sp})[0]
    prov = _provenance(cell, problem)
    prov["scheduler_params"] = json.dumps(row["params"], sort_keys=True, default=repr)
    out = {**prov, "catalog": catalog.name if catalog is not None else None, "kind": row["kind"],
           "groups": row["groups"], "event_groups": row["event_groups"], "utilization": row["utilization"],
           "mean_sampling_ratio": row["mean_sampling_ratio"], "min_sampling_ratio": row["min_sampling_ratio"],
           "mean_coschedule_ratio": row["mean_coschedule_ratio"], "n_quanta": row["n_quanta"],
           "n_errors": len(row["errors"]), "n_metrics": len(problem.metrics), "trace": row["trace"],
           "mux_seconds": time.perf_counter() - t0, "skipped": row["skipped"]}
    status = ("skipped", row["skipped"]) if row["skipped"] else ("done", None)
    return {"scores": [], "events": [], "metrics": [], "series": [],
            "schedule": [{k: _clean(v) for k, v in out.items()}], "_status": status}


_PARTITION_WARM = False


def _run_partition_cell(cell: dict) -> dict[str, Any]:
    """One partition call of one tool on one instance; km1, cut, imbalance and block weights recomputed
    here from the returned blocks with `mpx.partition`'s objective functions, whichever tool produced them."""
    global _PARTITION_WARM
    import numpy as np

    from mpx.partition import Context, Hypergraph, block_weights, cut, imbalance, km1, partition
    from mpx.partition_instances import instance_checksum, load_instance

    spec, tool, k, eps, caps = cell["instance"], cell["tool"], cell["k"], cell["epsilon"], cell["caps"]
    hg, _, _, _ = load_instance(spec)
    if instance_checksum(hg) != cell["dataset_checksum"]:
        raise ConfigError(f"instance {cell['dataset']['name']!r} changed since the grid was expanded "
                          "(checksum differs): rerun to expand the grid again")
    ref = cell.get("reference") or {}
    row: dict[str, Any] = {
        "cell_key": cell["key"], "experiment": cell.get("experiment"), "instance": cell["dataset"]["name"],
        "family": spec["family"], "dataset_checksum": cell["dataset_checksum"], "code_version": cell["code_version"],
        "n": hg.num_vertices, "nets": hg.num_nets, "pins": hg.num_pins, "k": k, "epsilon": eps,
        "cap": None if caps is None else int(max(caps)), "seed": cell["seed"], "tool": tool["name"],
        "tool_version": tool.get("version"), "tool_params": json.dumps(tool["params"], sort_keys=True),
        "reference_km1": ref.get("km1"), "reference_label": ref.get("label")}
    if tool.get("unavailable"):
        row.update(status="skipped", reason=tool["unavailable"])
        return {"partition": [row], "_status": ("skipped", tool["unavailable"])}
    if tool["name"] == "mpx":
        from mpx.grouping import grouping_context

        if not _PARTITION_WARM:  # load (or compile) the numba kernels outside the timed call
            partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2)
            partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2, max_block_weights=[2, 2],
                      context=grouping_context(4))
            _PARTITION_WARM = True
        mode = tool["params"]["context"]
        ctx = grouping_context(hg.num_vertices) if mode == "grouping" or (mode == "auto" and caps) else Context()
        res = partition(hg, k, epsilon=eps, seed=cell["seed"], max_block_weights=caps, context=ctx)
        blocks, seconds, reported = res.blocks, res.seconds, None
    else:
        from mpx.partition.external import job_from_hypergraph, run_external

        job = {"k": k, "epsilon": eps, "seed": cell["seed"], "caps": caps, **tool["params"]}
        job.update({"path": spec["path"]} if spec["family"] == "hmetis" else job_from_hypergraph(hg))
        r = run_external(tool["name"], job, timeout=tool["params"]["timeout"])
        if "error" in r:
            row.update(status="failed", reason=r["error"])
            return {"partition": [row], "_status": ("done", None)}
        blocks, seconds, reported = np.asarray(r["blocks"], dtype=np.int64), r["seconds"], r["km1"]
    bw = block_weights(hg, blocks, k)
    maxw = caps if caps is not None else None
    q = km1(hg, blocks, k)
    imb = imbalance(hg, blocks, k)
    feasible = bool(np.all(bw <= np.asarray(maxw))) if maxw is not None else bool(imb <= eps + 1e-12)
    row.update(status="done", reason=None, km1=q, km1_reported=reported, cut=cut(hg, blocks, k), imbalance=imb,
               max_block=int(bw.max()), feasible=feasible, partition_seconds=float(seconds),
               km1_vs_reference=(q / ref["km1"]) if ref.get("km1") else None)
    return {"partition": [{kk: _clean(v) for kk, v in row.items()}], "_status": ("done", None)}


def _run_scaling_cell(cell: dict) -> dict[str, Any]:
    import numpy as np

    from mpx import scalers
    from mpx.evaluate import score
    from mpx.multiplex import Noise, multiplex
    from mpx.schedule_scores import schedule_scores

    trace = load_dataset(cell["dataset"])
    if trace.checksum() != cell["dataset_checksum"]:
        raise ConfigError(f"dataset {cell['dataset']['name']!r} changed since the grid was expanded "
                          "(checksum differs): rerun to expand the grid again")
    problem, catalog = build_problem(cell["hardware"])
    mux = cell["multiplex"]
    noise = Noise(**mux["noise"]) if mux.get("noise") else None
    t0 = time.perf_counter()
    obs = multiplex(trace, problem, _scheduler(cell["scheduler"], cell["hardware"]), _quantum(mux, trace),
                    mux["read_every"], noise=noise, seed=cell["seed"])
    mux_s = time.perf_counter() - t0
    ss = schedule_scores(obs)
    summ = ss.summary()
    prov = _provenance(cell, problem, trace, obs)
    prov["scheduler_params"] = json.dumps(obs.meta.get("scheduler_params", {}), sort_keys=True, default=repr)
    sched_row = {**prov, "catalog": catalog.name if catalog is not None else None,
                 "kind": "static" if obs.schedule is not None else "online", "groups": ss.n_configs,
                 "event_groups": len(obs.groups), "utilization": summ["utilization"],
                 "mean_sampling_ratio": summ["mean_sampling_ratio"], "min_sampling_ratio": summ["min_sampling_ratio"],
                 "mean_coschedule_ratio": summ["mean_coschedule_ratio"], "n_quanta": obs.n_quanta,
                 "n_errors": len(obs.errors), "n_metrics": len(problem.metrics), "trace": cell["dataset"]["name"],
                 "mux_seconds": mux_s, "skipped": None}
    sr = dict(zip(ss.events, np.asarray(ss.sampling_ratio, dtype=float)))
    train = None
    scores_rows, event_rows, metric_rows, series_rows = [], [], [], []
    cv = cls = None
    for spec in cell["scalers"]:
        base = {**prov, "scaler": spec["name"], "scaler_params": _clean(spec["params"]),
                "mean_sampling_ratio": summ["mean_sampling_ratio"]}
        try:
            s = scalers.get(spec["name"], **spec["params"])
            base["causal"] = bool(s.causal)
            base["scaler_params"] = json.dumps(s.get_params(), sort_keys=True, default=repr)
            if s.learned:
                if train is None:
                    train = [load_dataset(t["dataset"]) for t in cell["train"]]
                s.fit(train)
            t1 = time.perf_counter()
            est = s.estimate(obs)
            dt = time.perf_counter() - t1
            sc = score(est, trace, catalog)
        except MpxError as exc:
            scores_rows.append({**base, "status": "skipped", "reason": f"{type(exc).__name__}: {exc}"})
            continue
        except Exception as exc:  # a broken scaler must not stop a long run: recorded, reported
            scores_rows.append({**base, "status": "error", "reason": f"{type(exc).__name__}: {exc}"})
            continue
        w, e = est.counts.shape
        row = {**base, "status": "done", "reason": None, "n_windows": w, **sc.summary,
               "estimate_seconds": dt, "event_windows_per_s": (w * e / dt) if dt > 0 else None}
        scores_rows.append({k: _clean(v) for k, v in row.items()})
        if cv is None:
            truth = sc.rows["truth"].to_numpy().reshape(w, e)
            cv, cls = _event_class(truth)
        ev = sc.events
        for i, r in enumerate(ev.itertuples(index=False)):
            event_rows.append({k: _clean(v) for k, v in {
                "cell_key": cell["key"], "dataset": prov["dataset"], "workload": prov["workload"],
                "dataset_checksum": prov["dataset_checksum"], "code_version": prov["code_version"],
                "scheduler": prov["scheduler"], "scaler": spec["name"], "seed": cell["seed"],
                "counters": prov["counters"], "n_events": prov["n_events"], "event": r.event,
                "event_class": str(cls[i]), "cv": cv[i], "sampling_ratio": sr.get(r.event),
                "n_windows": r.n_windows, "n_meaningful": r.n_meaningful, "n_flagged": r.n_flagged,
                "never_estimated": r.never_estimated, "window_mape": r.window_mape,
                "window_mape_ran": r.window_mape_ran, "total_error": r.total_error, "total_true": r.total_true,
                "calibration_50": r.calibration_50, "calibration_90": r.calibration_90}.items()})
        for r in sc.metrics.itertuples(index=False):
            metric_rows.append({k: _clean(v) for k, v in {
                "cell_key": cell["key"], "dataset": prov["dataset"], "workload": prov["workload"],
                "dataset_checksum": prov["dataset_checksum"], "code_version": prov["code_version"],
                "scheduler": prov["scheduler"], "scaler": spec["name"], "seed": cell["seed"],
                "metric": r.metric, "n_windows": r.n_windows, "n_meaningful": r.n_meaningful,
                "n_missing": r.n_missing, "window_mape": r.window_mape}.items()})
        if cell.get("series_events"):
            want = [x for x in cell["series_events"] if x in est.events]
            rows = sc.rows[sc.rows["event"].isin(want)]
            for r in rows.itertuples(index=False):
                series_rows.append({k: _clean(v) for k, v in {
                    "cell_key": cell["key"], "scaler": spec["name"], "event": str(r.event), "window": r.window,
                    "start": r.start, "end": r.end, "truth": r.truth, "estimate": r.estimate, "std": r.std,
                    "flagged": r.flagged}.items()})
    return {"scores": scores_rows, "events": event_rows, "metrics": metric_rows,
            "schedule": [{k: _clean(v) for k, v in sched_row.items()}], "series": series_rows}


# -- the runner -------------------------------------------------------------------------------------


def run_experiment(exp: Experiment, store: Any, *, jobs: int = 1, dask_scheduler: str | None = None,
                   progress: bool = True, cells: list[dict] | None = None) -> dict[str, int]:
    """Compute every cell of ``exp`` not yet in ``store`` (a `mpx.results.ResultsStore`): in this
    process (``jobs = 1``), in a pool of ``jobs`` processes, or on the Dask distributed scheduler at
    ``dask_scheduler`` (``tcp://host:port``). Each finished cell is written at once, in one transaction,
    by this process only. Returns counts: ``cells``, ``cached``, ``computed``, ``skipped``, ``errors``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"--jobs must be a positive integer, got {jobs!r}")
    cells = exp.cells() if cells is None else cells
    finished = store.finished_keys()
    todo = [c for c in cells if c["key"] not in finished]
    where = f"dask {dask_scheduler}" if dask_scheduler else f"{jobs} process(es)"
    run_id = store.begin_run(exp.name, str(exp.path) if exp.path else None, exp.raw, code_version(),
                             [c["key"] for c in cells], where)
    counts = {"cells": len(cells), "cached": len(cells) - len(todo), "computed": 0, "skipped": 0, "errors": 0}
    from tqdm import tqdm

    bar = tqdm(total=len(cells), initial=counts["cached"], desc=exp.name, unit="cell", disable=not progress,
               dynamic_ncols=True)

    def done(result: dict) -> None:
        store.write(result)
        st = result["cell"]["status"]
        counts["computed"] += 1
        counts["skipped"] += st == "skipped"
        counts["errors"] += st == "error" or any(r.get("status") == "error" for r in result.get("scores", []))
        bar.update(1)

    try:
        if not todo:
            pass
        elif dask_scheduler:
            _run_dask(todo, dask_scheduler, done)
        elif jobs == 1 or len(todo) == 1:
            todo, warming = _warm_up_aside(todo)
            try:
                for c in todo:
                    done(run_cell(c))
            finally:
                if warming is not None:
                    warming.kill()
                    warming.wait()
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
                futs = [pool.submit(run_cell, c) for c in todo]
                for f in as_completed(futs):
                    done(f.result())
    except BaseException:
        bar.close()
        store.end_run(run_id, "interrupted")
        raise
    bar.close()
    store.end_run(run_id, "finished")
    counts["run_id"] = run_id
    return counts


def _jit_schedulers(cell: dict) -> bool:
    from mpx import schedulers

    s = cell.get("scheduler")
    if cell.get("kind") == "partition" or not s or s["name"] not in schedulers.available():
        return False
    return bool(getattr(schedulers.get_class(s["name"]), "jit", False))


def _warm_up_aside(todo: list[dict]) -> tuple[list[dict], Any]:
    """Hide the first-run JIT compilation of schedulers (the hypergraph partitioner's numba kernels take
    ~25 s to compile in a fresh checkout) behind the other cells: a side process compiles them into numba's
    on-disk cache while this process runs the cells that do not need them; those run last. Results do
    not depend on the order. Returns the reordered cells and the side process (None if not needed)."""
    import sys

    needing = [c for c in todo if _jit_schedulers(c)]
    if not needing or len(needing) == len(todo):
        return todo, None
    names = sorted({c["scheduler"]["name"] for c in needing})
    code = ("import sys; from mpx import schedulers\n"
            "for n in sys.argv[1:]: schedulers.get_class(n).warm_up()")
    proc = subprocess.Popen([sys.executable, "-c", code, *names], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [c for c in todo if not _jit_schedulers(c)] + needing, proc


def _run_dask(todo: list[dict], address: str, done: Any) -> None:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise ConfigError("--dask-scheduler needs dask.distributed: pip install 'mpx[dask]'") from None
    try:
        client = Client(address, timeout=30)
    except OSError as exc:
        raise ConfigError(f"--dask-scheduler {address}: cannot connect ({exc})") from None
    try:
        futs = client.map(run_cell, todo, key=[f"mpx-cell-{c['key']}" for c in todo], pure=False)
        for f in as_completed(futs):
            done(f.result())
    finally:
        client.close()
