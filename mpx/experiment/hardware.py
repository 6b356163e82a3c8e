"""The ``[hardware]`` table of replay experiments (``scaling`` and ``schedule`` kinds): PMU, counters,
catalog and events → a `mpx.problem.Problem`.

No silent defaults: ``pmu`` and ``counters`` are required. Names are built-ins (PMU presets, built-in
catalogs) or paths relative to the config; a cell holds the resolved absolute path, and the file's
checksum is in its key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mpx.errors import ConfigError
from mpx.experiment.inputs import catalog_checksum
from mpx.metrics import builtin, builtin_names, load_catalog
from mpx.pmu import is_preset, resolve_pmu
from mpx.problem import EventGroup, Problem

__all__ = ["HARDWARE_KEYS", "require_hardware", "check_hardware_variant", "resolve_hardware", "resolve_catalog_path",
           "relations_path_relative", "is_builtin", "build_problem", "restrict"]

#: keys of the ``[hardware]`` table
HARDWARE_KEYS = frozenset({"pmu", "counters", "metrics", "events", "max_events", "groups"})


def require_hardware(raw: dict, where: str) -> dict:
    """The ``[hardware]`` table, refused without ``pmu`` and ``counters``."""
    hw = raw.get("hardware")
    if not hw:
        raise ConfigError(f"{where}: [hardware] is required (pmu, counters): hardware has no defaults")
    if "pmu" not in hw:
        raise ConfigError(f"{where}: [hardware] pmu is required (a preset: mpx.pmu.presets(), or a PMU TOML file)")
    if "counters" not in hw:
        raise ConfigError(f"{where}: [hardware] counters is required (generic counters of the core unit, or "
                          "\"preset\" for the PMU's own): hardware has no defaults")
    return hw


def check_hardware_variant(hw: dict, where: str) -> None:
    """``counters`` and ``max_events`` of one variant's ``[hardware]`` table."""
    c = hw["counters"]
    if not (c == "preset" or (isinstance(c, int) and not isinstance(c, bool) and c >= 1)):
        raise ConfigError(f"{where}: [hardware] counters must be a positive integer or \"preset\", got {c!r}")
    me = hw.get("max_events")
    if me is not None and not (isinstance(me, int) and not isinstance(me, bool) and me >= 1):
        raise ConfigError(f"{where}: [hardware] max_events must be a positive integer, got {me!r}")


def is_builtin(kind: str, value: str) -> bool:
    """Is ``value`` a built-in catalog (``kind = "metrics"``) or PMU preset (``"pmu"``) name?"""
    if kind == "metrics":
        return value in builtin_names()
    return is_preset(value)


def hardware_checksums(hardware: dict, keys: tuple[str, ...]) -> dict[str, str]:
    """The checksums of the ``keys`` of a ``[hardware]`` table that name a file or folder rather than a built-in
    (`mpx.experiment.inputs.catalog_checksum`): a PMU or catalog file's content is part of a cell's key, so
    editing the file recomputes the cells. The one test of "is this a path" for every kind."""
    return {k: catalog_checksum(v) for k in keys
            if isinstance(v := hardware.get(k), str) and not is_builtin(k, v) and os.path.exists(v)}


def resolve_hardware(cfg: dict, base: Path, where: str) -> dict:
    """One variant's ``[hardware]`` table with sorted keys and file names made absolute."""
    hardware = {k: cfg["hardware"][k] for k in sorted(cfg["hardware"])}
    for k in ("metrics", "pmu"):
        v = hardware.get(k)
        if isinstance(v, str) and not is_builtin(k, v):
            p = Path(v) if os.path.isabs(v) else base / v
            if not p.exists():
                raise ConfigError(f"{where}: [hardware] {k} {v!r} is neither a built-in name nor an "
                                  f"existing path (resolved to {p})")
            hardware[k] = str(p.resolve())
    return hardware


def resolve_catalog_path(c: str, base: Path, where: str, what: str) -> str:
    """A catalog named in a config: a built-in name as is, a path made absolute (refused if missing)."""
    if is_builtin("metrics", c):
        return c
    p = Path(c) if os.path.isabs(c) else base / c
    if not p.exists():
        raise ConfigError(f"{where}: {what}: {c!r} is neither a built-in catalog nor an existing path "
                          f"(resolved to {p})")
    return str(p.resolve())


def relations_path_relative(params: dict, base: Path) -> dict:
    """A scaler's hyper-parameters with a ``relations`` catalog file named relative to the config made absolute,
    as `resolve_catalog_path` does for catalogs; built-in names, relation expressions and absolute paths stay."""
    rel = params.get("relations")
    if isinstance(rel, str) and not os.path.isabs(rel) and (Path(base) / rel).is_file():
        return {**params, "relations": str((Path(base) / rel).resolve())}
    return params


_PROBLEMS: dict[str, tuple[Problem, Any]] = {}


def build_problem(hardware: dict) -> tuple[Problem, Any]:
    """(Problem, catalog or None) of a cell's hardware table (cached per process)."""
    k = json.dumps(hardware, sort_keys=True)
    if k in _PROBLEMS:
        return _PROBLEMS[k]
    counters, name = hardware["counters"], hardware["pmu"]
    if name == "generic-N":  # the family of generic presets: N is the counters key
        if counters == "preset":
            raise ConfigError("[hardware] pmu = \"generic-N\" needs counters = a number (N)")
        name = f"generic-{counters}"
    pmu = resolve_pmu(name)
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
            problem = restrict(problem, list(events))
    else:
        problem = Problem(tuple(events), pmu)
    me = hardware.get("max_events")
    if me is not None:
        if me > problem.n_events:
            raise ConfigError(f"[hardware] max_events = {me} but the problem has only {problem.n_events} events")
        problem = restrict(problem, list(problem.events[:me]))
    _PROBLEMS[k] = (problem, catalog)
    return problem, catalog


def restrict(problem: Problem, keep: list[str]) -> Problem:
    """The problem on ``keep`` only: groups cut to the kept events, metrics with a dropped event removed."""
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
