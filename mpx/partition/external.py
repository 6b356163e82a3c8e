"""The real KaHyPar and Mt-KaHyPar, run on the same inputs as `mpx.partition`, each in its own process.

Both are optional (``pip install -e ".[kahypar]"``: the ``kahypar`` and ``mtkahypar`` Python packages).
Each call runs in a fresh interpreter (``python -m mpx.partition.external TOOL`` reading a JSON job on
stdin): KaHyPar calls ``exit()`` when block caps cannot hold the vertices and would take the caller's
process with it, and a subprocess keeps both tools' threads and memory out of the caller. The time
reported is measured in the subprocess around the tool's partition call only (not the interpreter start
nor the input reading), so it compares with `mpx.partition.PartitionResult.seconds`.

KaHyPar (Schlag et al., "High-Quality Hypergraph Partitioning", ACM JEA 2023; kahypar/kahypar) needs an
``.ini`` configuration file (the Python package ships none): the job must name one. Mt-KaHyPar (Gottesbüren
et al., "Scalable High-Quality Hypergraph Partitioning", ACM TOPP 2024; kahypar/mt-kahypar) runs one of its
presets (default QUALITY) with ``threads`` threads.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import time
from typing import Any

from mpx.errors import ConfigError

__all__ = ["TOOLS", "tool_status", "run_external", "job_from_hypergraph"]

#: external tools and the Python module each needs
TOOLS = {"kahypar": "kahypar", "mtkahypar": "mtkahypar"}
MT_PRESETS = ("default", "quality", "highest_quality", "deterministic", "deterministic_quality", "large_k")


def tool_status(tool: str) -> tuple[str | None, str | None]:
    """``(version, None)`` when ``tool`` is importable, else ``(None, reason)`` (without importing it)."""
    if tool not in TOOLS:
        raise ConfigError(f"unknown external partitioner {tool!r}; known: {', '.join(TOOLS)}")
    if importlib.util.find_spec(TOOLS[tool]) is None:
        return None, f"{tool} is not installed (pip install -e \".[kahypar]\")"
    try:
        return importlib.metadata.version(tool), None
    except importlib.metadata.PackageNotFoundError:
        return "unknown", None


def job_from_hypergraph(hg: Any) -> dict[str, Any]:
    """The input part of a job for an in-memory `mpx.partition.Hypergraph` (nets, net and vertex weights)."""
    return {"n": int(hg.num_vertices), "nets": hg.nets(), "weights": hg.net_weights.tolist(),
            "vertex_weights": hg.vertex_weights.tolist()}


def run_external(tool: str, job: dict[str, Any], timeout: float = 600.0) -> dict[str, Any]:
    """Partition with ``tool`` in a subprocess. ``job``: ``k``, ``epsilon``, ``seed``, ``threads`` (Mt-KaHyPar),
    ``ini`` (KaHyPar's configuration file, required), ``preset`` (Mt-KaHyPar, default ``quality``), optional
    ``caps`` (per-block maximum weights), and the input: ``path`` (an hMetis file the tool reads itself) or
    ``n``/``nets``/``weights``/``vertex_weights`` (`job_from_hypergraph`).

    Returns ``{"km1", "seconds", "blocks"}`` (km1 as the tool reports it), or ``{"error": reason}`` when the
    tool refuses, crashes or exits (caps summing below the total weight are refused before it runs)."""
    if tool not in TOOLS:
        raise ConfigError(f"unknown external partitioner {tool!r}; known: {', '.join(TOOLS)}")
    if tool == "kahypar" and not job.get("ini"):
        raise ConfigError("KaHyPar needs its .ini configuration file (job key 'ini'): the package ships none")
    try:
        proc = subprocess.run([sys.executable, "-m", "mpx.partition.external", tool], input=json.dumps(job),
                              text=True, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"{tool} did not finish within {timeout:g} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": f"{tool} exited with status {proc.returncode}: {proc.stderr.strip()[-300:]}"}
    return json.loads(lines[-1])


# -- inside the subprocess --------------------------------------------------------------------------


def _total_weight(job: dict) -> int:
    vw = job.get("vertex_weights")
    return int(sum(vw)) if vw else int(job["n"])


def _kahypar(job: dict) -> dict:
    import kahypar

    k = job["k"]
    if job.get("path"):
        hg = kahypar.createHypergraphFromFile(job["path"], k)
    else:
        nets = job["nets"]
        index = [0]
        for e in nets:
            index.append(index[-1] + len(e))
        hg = kahypar.Hypergraph(job["n"], len(nets), index, [p for e in nets for p in e], k,
                                job.get("weights") or [1] * len(nets), job.get("vertex_weights") or [1] * job["n"])
    ctx = kahypar.Context()
    ctx.loadINIconfiguration(str(job["ini"]))
    ctx.setK(k)
    ctx.setEpsilon(job["epsilon"])
    ctx.setSeed(job["seed"])
    ctx.suppressOutput(True)
    if job.get("caps") is not None:
        ctx.setCustomTargetBlockWeights(job["caps"])
    t = time.perf_counter()
    kahypar.partition(hg, ctx)
    dt = time.perf_counter() - t
    return {"km1": int(kahypar.connectivityMinusOne(hg)), "seconds": dt,
            "blocks": [hg.blockID(v) for v in range(hg.numNodes())]}


def _mtkahypar(job: dict) -> dict:
    import mtkahypar

    preset = job.get("preset", "quality")
    mtkahypar.set_seed(job["seed"])
    mtk = mtkahypar.initialize(job.get("threads", 1))
    ctx = mtk.context_from_preset(getattr(mtkahypar.PresetType, preset.upper()))
    ctx.set_partitioning_parameters(job["k"], job["epsilon"], mtkahypar.Objective.KM1)
    ctx.logging = False
    if job.get("caps") is not None:
        ctx.set_individual_target_block_weights(job["caps"])
    if job.get("path"):
        hg = mtk.hypergraph_from_file(job["path"], ctx, mtkahypar.FileFormat.HMETIS)
    else:
        n, nets = job["n"], job["nets"]
        hg = mtk.create_hypergraph(ctx, n, len(nets), nets, job.get("vertex_weights") or [1] * n,
                                   job.get("weights") or [1] * len(nets))
    t = time.perf_counter()
    p = hg.partition(ctx)
    dt = time.perf_counter() - t
    return {"km1": int(p.km1()), "seconds": dt, "blocks": [int(b) for b in p.get_partition()]}


def _worker(tool: str) -> None:
    job = json.load(sys.stdin)
    caps = job.get("caps")
    if caps is not None and sum(caps) < _total_weight(job):
        print(json.dumps({"error": f"block caps sum to {sum(caps)}, below the total vertex weight "
                                   f"{_total_weight(job)}: no partition exists"}))
        return
    print(json.dumps(_kahypar(job) if tool == "kahypar" else _mtkahypar(job)))


if __name__ == "__main__":
    _worker(sys.argv[1])
