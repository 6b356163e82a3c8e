"""The grid of an experiment: ``[sweep]`` variants of a config, cell keys, and the no-duplicate rule.

A sweep maps dotted paths (``"hardware.counters"``) to lists of values; the variants are the product of
those lists, each a full config with the values set. A cell's **key** hashes the cell dict (the full
configuration, dataset checksum and code version), so changing any of them recomputes the cell.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from typing import Any

from mpx.errors import ConfigError

__all__ = ["variants", "set_path", "cell_key", "finish_cell", "unique", "check_sweep"]


def set_path(cfg: dict, dotted: str, value: Any, where: str) -> None:
    """Set ``cfg[a][b][c] = value`` for ``dotted = "a.b.c"`` (tables created on the way)."""
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


def variants(raw: dict, where: str) -> list[dict]:
    """Every variant of a config (its ``[sweep]`` product; the config itself when nothing is swept)."""
    sweep = raw.get("sweep", {})
    keys = sorted(sweep)
    out = []
    for combo in itertools.product(*(sweep[k] for k in keys)):
        cfg = copy.deepcopy({k: v for k, v in raw.items() if k != "sweep"})
        for k, v in zip(keys, combo):
            set_path(cfg, k, v, where)
        out.append(cfg)
    return out


def check_sweep(raw: dict, where: str, roots: tuple[str, ...], what: str) -> None:
    """Each swept path is a non-empty list of values under one of ``roots`` (``what`` says which)."""
    for k, v in raw.get("sweep", {}).items():
        if not isinstance(v, list) or not v:
            raise ConfigError(f"{where}: [sweep] {k!r} must be a non-empty list of values")
        if k.split(".")[0] not in roots:
            raise ConfigError(f"{where}: [sweep] {k!r}: {what}")


def cell_key(cell: dict) -> str:
    """Hash of a cell's full configuration (dataset checksum and code version included)."""
    body = {k: v for k, v in cell.items() if k not in ("key", "experiment")}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def finish_cell(cell: dict, experiment: str) -> dict:
    """``cell`` with its ``key`` and then its ``experiment`` name added (the key does not cover the name)."""
    cell["key"] = cell_key(cell)
    cell["experiment"] = experiment
    return cell


def unique(cells: list[dict], where: str) -> list[dict]:
    """``cells``, refused when two have one key (a sweep repeats a value)."""
    keys = [c["key"] for c in cells]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ConfigError(f"{where}: the grid has two identical cells (key {dup}): a sweep repeats a value")
    return cells
