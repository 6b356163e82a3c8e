"""Partitioning instances for comparing partitioners: hMetis files, random event instances and the
event hypergraphs of real metric catalogs, each described by a JSON-able spec.

An instance spec is a dict with a ``family``:

- ``hmetis``: ``{"family": "hmetis", "path": FILE, "k": K, "epsilon": EPS}`` — a hypergraph file (e.g.
  ISPD98 ibm01) partitioned under ε-balance;
- ``events``: ``{"family": "events", "n": N, "cap": C, "instance_seed": S}`` — N events, N metrics of 2–4
  distinct events drawn uniformly (`random_event_nets`), k = ⌈N / C⌉ blocks of at most C events each
  (with N = C·k every group is full, the hardest case for the caps);
- ``catalog``: ``{"family": "catalog", "path": CATALOG, "pmu": PRESET, "unit": UNIT}`` — the event hypergraph
  `mpx.grouping.partitioned` builds for one PMU unit of a real catalog (schedulable events as vertices, metrics as
  nets weighted by importance), k = ⌈n / C⌉ with C the unit's usable counters.

`load_instance` turns a spec into ``(hypergraph, k, epsilon, caps)``; `catalog_units` lists the units of a
catalog worth partitioning (k ≥ 2 and at least one net). `experiments/analyses/partition_quality.py` and
`mpx.experiment` (``kind = "partition"``) share these definitions.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from mpx.errors import ConfigError

__all__ = ["random_event_nets", "load_instance", "catalog_units", "instance_checksum", "instance_name",
           "FAMILIES"]

FAMILIES = ("hmetis", "events", "catalog")


def random_event_nets(n: int, seed: int) -> list[list[int]]:
    """n metrics of 2–4 distinct events out of n events, uniformly at random (``numpy`` generator ``seed``)."""
    rng = np.random.default_rng(seed)
    return [sorted(rng.choice(n, size=int(s), replace=False).tolist()) for s in rng.integers(2, 5, n)]


def _catalog_problem(path: str, pmu: str) -> Any:
    from mpx.metrics import load_catalog
    from mpx.pmu import preset
    from mpx.problem import Problem

    return Problem.from_catalog(load_catalog(path), preset(pmu))


def _unit_events(problem: Any) -> dict[str, list[str]]:
    """Schedulable events (not free, countable, fitting some counter) per PMU unit, in problem order."""
    sched = [e for e in problem.events if e not in problem.free and problem.countable(e) and problem.fits([e])]
    out: dict[str, list[str]] = {}
    for e in sched:
        out.setdefault(problem.unit(e), []).append(e)
    return out


def _catalog_unit(path: str, pmu: str, unit: str) -> tuple[Any, int, int]:
    from mpx.grouping.partitioned import event_hypergraph, metric_importance

    problem = _catalog_problem(path, pmu)
    events = _unit_events(problem).get(unit)
    if not events:
        raise ConfigError(f"catalog {path} on {pmu}: no schedulable event on unit {unit!r}")
    cap = problem.n_counters(unit)
    hg, _, _ = event_hypergraph(events, [m.events for m in problem.metrics], metric_importance(problem))
    return hg, math.ceil(len(events) / cap), cap


def catalog_units(path: str, pmu: str) -> list[tuple[str, int, int, int]]:
    """``(unit, n events, cap, k)`` of every unit of a catalog whose event hypergraph needs partitioning
    (k = ⌈n / C⌉ ≥ 2 and at least one net of two or more events)."""
    problem = _catalog_problem(path, pmu)
    out = []
    for unit in _unit_events(problem):
        hg, k, cap = _catalog_unit(path, pmu, unit)
        if k >= 2 and hg.num_nets > 0:
            out.append((unit, hg.num_vertices, cap, k))
    return out


def load_instance(spec: dict) -> tuple[Any, int, float, list[int] | None]:
    """``(hypergraph, k, epsilon, caps)`` of an instance spec; ``caps`` is None under ε-balance."""
    from mpx.partition import Hypergraph, read_hmetis

    fam = spec.get("family")
    if fam == "hmetis":
        return read_hmetis(spec["path"]), int(spec["k"]), float(spec["epsilon"]), None
    if fam == "events":
        n, cap = int(spec["n"]), int(spec["cap"])
        hg = Hypergraph.from_nets(random_event_nets(n, int(spec.get("instance_seed", 0))), num_vertices=n)
        k = math.ceil(n / cap)
        return hg, k, 0.0, [cap] * k
    if fam == "catalog":
        hg, k, cap = _catalog_unit(spec["path"], spec["pmu"], spec["unit"])
        return hg, k, 0.0, [cap] * k
    raise ConfigError(f"unknown instance family {fam!r}; families: {', '.join(FAMILIES)}")


def instance_checksum(hg: Any) -> str:
    """sha256 of a hypergraph's content (pins, offsets, vertex and net weights)."""
    h = hashlib.sha256()
    for a in (hg.net_offsets, hg.pins, hg.vertex_weights, hg.net_weights):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        h.update(b"|")
    return h.hexdigest()


def instance_name(spec: dict) -> str:
    """A short label: ``ibm01 k=8``, ``events n=1000 C=8``, ``arm-telemetry/neoverse-v2 (cpu)``."""
    from pathlib import Path

    fam = spec["family"]
    if fam == "hmetis":
        stem = Path(spec["path"]).name.split(".")[0].replace("ISPD98_", "")
        return f"{stem} k={spec['k']}"
    if fam == "events":
        return f"events n={spec['n']} C={spec['cap']}"
    label = spec.get("label") or f"{Path(spec['path']).parent.name}/{Path(spec['path']).name}"
    return f"{label.removesuffix('.json')} ({spec['unit']})"
