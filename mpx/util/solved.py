"""A machine-wide cache of exact MILP solutions (`scipy.optimize.milp`), so an exact schedule is solved once per
machine, not once per process.

The optimal scheduler's HiGHS search is bounded by a node count and deterministic for a given model and options
(`mpx.schedulers.optimal`), so its answer is a function of the model: caching it changes no result, only the
time (the quickstart's instance takes ~3 s of CPU; those of ``experiments/schedulers_real.toml`` most of its 4
minutes). An entry is
keyed by the SHA-256 of every array of the model, the options and the versions of scipy and numpy, and kept under
``~/.cache/mpx/milp`` (``$XDG_CACHE_HOME`` is followed; ``MPX_MILP_CACHE`` names another folder, and
``MPX_MILP_CACHE=""`` turns the cache off). An entry that does not read back (a partial write, a damaged file) is
solved again and rewritten; writes are atomic (a temporary file renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from mpx.util import machine_cache

__all__ = ["cache_folder", "milp_cached"]


def cache_folder() -> Path | None:
    """Where solutions are kept (None: the cache is off)."""
    return machine_cache("milp", "MPX_MILP_CACHE")


def _key(c: Any, a: Any, lo: Any, hi: Any, integrality: Any, lb: Any, ub: Any, options: dict) -> str:
    import scipy

    h = hashlib.sha256(json.dumps({"scipy": scipy.__version__, "numpy": np.__version__,
                                   "options": options}, sort_keys=True).encode())
    a = a.tocsr()
    for arr in (c, a.data, a.indices, a.indptr, np.asarray(a.shape), lo, hi, integrality, lb, ub):
        arr = np.ascontiguousarray(arr)
        h.update(str((arr.dtype.str, arr.shape)).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def milp_cached(c: Any, a: Any, lo: Any, hi: Any, integrality: Any, lb: Any, ub: Any, options: dict) -> Any:
    """`scipy.optimize.milp` of ``min c·x`` s.t. ``lo <= a x <= hi``, ``lb <= x <= ub``, with ``integrality`` and
    HiGHS ``options``: the result (``status``, ``x``, ``message``, ``mip_node_count``), from the cache when this
    model was solved on this machine before."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    folder = cache_folder()
    path = None if folder is None else folder / f"{_key(c, a, lo, hi, integrality, lb, ub, options)}.npz"
    if path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                x = z["x"] if z["has_x"] else None
                return SimpleNamespace(status=int(z["status"]), x=x, message=str(z["message"]),
                                       mip_node_count=int(z["nodes"]) if z["nodes"] >= 0 else None)
        except Exception:  # noqa: BLE001 - a damaged entry is solved again and rewritten
            pass
    res = milp(c, constraints=LinearConstraint(a.tocsr(), lo, hi), integrality=integrality, bounds=Bounds(lb, ub),
               options=options)
    if path is not None:
        _keep(path, res)
    return res


def _keep(path: Path, res: Any) -> None:
    nodes = getattr(res, "mip_node_count", None)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, status=res.status, has_x=res.x is not None, x=res.x if res.x is not None else np.zeros(0),
                     message=str(res.message), nodes=-1 if nodes is None else int(nodes))
        os.replace(tmp, path)
    except OSError:  # a read-only or full cache folder: the answer stands, it is just not kept
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
