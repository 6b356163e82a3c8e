"""What a cell reads, and the checksums that put it into the cell key: datasets, catalog/PMU files, code.

``[data]`` lists **dataset specs** (`mpx.datasets.specs`; a file listed under ``[data] heldout`` is marked
``heldout``). `load_dataset` turns one into a Trace (`mpx.datasets.specs.load_spec`, cached per process);
`dataset_head` says what it is about (`mpx.datasets.specs.spec_head`): what a grid needs, without the counts.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
from pathlib import Path

import mpx
from mpx.datasets import shipped as shipped_datasets
from mpx.errors import ConfigError
from mpx.datasets.specs import TraceHead, load_spec, spec_head
from mpx.trace import Trace

__all__ = ["dataset_specs", "load_dataset", "dataset_head", "dataset_checksum", "workload_of", "catalog_checksum",
           "catalog_label"]

def dataset_specs(cfg: dict, base: Path, where: str) -> list[dict]:
    """Dataset specs (JSON-able) of one config variant's ``[data]`` table, in config order; relative
    paths are resolved from ``base``, ``where`` names the config in errors."""
    data = cfg.get("data", {})
    out: list[dict] = []
    names = data.get("datasets", [])
    if isinstance(names, str):
        names = [names]
    shipped = shipped_datasets.names(None)
    groups = {"all": shipped_datasets.names()}  # "all": the callgrind datasets, as it always meant
    groups.update({f"all-{sim}": shipped_datasets.names(sim) for sim in shipped_datasets.SIMULATORS})
    groups.update({f"all-{c}": shipped_datasets.names(None, c) for c in shipped_datasets.collections()})
    for n in names:
        if n in groups and not groups[n]:
            raise ConfigError(f"{where}: [data] datasets: {n!r} has no recorded dataset yet (mpx datasets list; "
                              "record its recipes with mpx datasets rebuild NAME or datasets/gem5/record_long.sh)")
        if n in groups:
            out += [{"kind": "shipped", "name": s} for s in groups[n]]
        elif n in shipped:
            out.append({"kind": "shipped", "name": n})
        else:
            raise ConfigError(f"{where}: [data] datasets: unknown dataset {n!r}; shipped: {', '.join(shipped)} "
                              f"(groups: {', '.join(groups)})")
    for key in ("files", "heldout"):
        files = data.get(key, [])
        if isinstance(files, str):
            files = [files]
        for pat in files:
            full = pat if os.path.isabs(pat) else str(base / pat)
            hits = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
            if not hits or not all(os.path.exists(h) for h in hits):
                hint = ("; held-out traces are recorded on each machine (datasets/heldout/record.sh, record_gem5.sh: "
                        "the config's header names its script)") if key == "heldout" else ""
                raise ConfigError(f"{where}: [data] {key}: {pat!r} matches no file (resolved to {full}){hint}")
            extra = {"heldout": True} if key == "heldout" else {}
            out += [{"kind": "file", "name": Path(h).name, "path": str(Path(h).resolve()), **extra} for h in hits]
    for i, s in enumerate(data.get("synthetic", [])):
        if not isinstance(s, dict) or "preset" not in s:
            raise ConfigError(f"{where}: [data] synthetic[{i}] must be a table with preset (and intervals, seed)")
        bad = set(s) - {"preset", "intervals", "seed", "name"}
        if bad:
            raise ConfigError(f"{where}: [data] synthetic[{i}]: unknown key(s) {sorted(bad)}")
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
            raise ConfigError(f"{where}: [data] dataset {d['name']!r} appears twice")
        seen.add(d["name"])
    return out


_TRACES: dict[str, Trace] = {}


def load_dataset(spec: dict) -> Trace:
    """The Trace of a dataset spec (`mpx.datasets.specs.load_spec`; cached per process: cells of one dataset
    share it)."""
    k = json.dumps(spec, sort_keys=True)
    if k in _TRACES:
        return _TRACES[k]
    tr = load_spec(spec)
    if len(_TRACES) > 16:
        _TRACES.clear()
    _TRACES[k] = tr
    return tr


_HEADS: dict[tuple, TraceHead] = {}


def dataset_head(spec: dict) -> TraceHead:
    """The `TraceHead` of a dataset spec, remembered per process by the spec and its file's size and time of last
    change (a grid of many configs names the same datasets again and again; a file written anew is read anew)."""
    try:
        where = spec.get("path") or (shipped_datasets.path(spec["name"]) if spec["kind"] == "shipped" else None)
        st = os.stat(where) if where else None
    except (OSError, KeyError):
        st = None  # an error, if any, is the loader's to say
    key = (json.dumps(spec, sort_keys=True), st and (st.st_size, st.st_mtime_ns))
    if key not in _HEADS:
        _HEADS[key] = spec_head(spec)
    return _HEADS[key]


def dataset_checksum(spec: dict) -> str:
    """The content checksum of a dataset spec's Trace (`mpx.trace.Trace.checksum`)."""
    return dataset_head(spec).checksum


def workload_of(spec: dict) -> str:
    """The workload a dataset records (its trace's ``meta["workload"]``, else the dataset name)."""
    return str(dataset_head(spec).meta.get("workload") or spec["name"])


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
        h.update(f"builtin:{c}:{mpx.__version__}".encode())
    return h.hexdigest()


def catalog_label(c: str) -> str:
    """A short catalog label: the path under a ``metrics`` folder, else the last two path parts."""
    if os.path.sep not in c:
        return c
    p = Path(c)
    if "metrics" in p.parts[:-1]:  # ../shared/data/metrics/linux-perf/x86/skylake -> linux-perf/x86/skylake
        i = len(p.parts) - 1 - p.parts[::-1].index("metrics")
        return "/".join(p.parts[i + 1:])
    return f"{p.parent.name}/{p.name}"
