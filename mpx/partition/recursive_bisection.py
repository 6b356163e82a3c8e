"""Recursive bisection for the initial k-way partition (KaHyPar ``i-mode=recursive``), registered as the
``recursive_bisection`` initial partitioner.

It lives beside the multilevel driver, not in `mpx.partition.initial`, because every bisection is a
multilevel run itself (KaHyPar keeps it at driver level too): it uses `multilevel`, which uses the
initial partitioners, so it sits above both.

Blocks ``[lo, hi)`` are split into ``[lo, mid)`` and ``[mid, hi)`` with ``mid − lo = ⌈(hi − lo)/2⌉``. Each
bisection is a full multilevel run with k = 2 (coarsening to ``initial.coarsening`` t·2 vertices, the flat
portfolio, FM while uncoarsening); the two sides are then split recursively on their induced
sub-hypergraphs (cut-net splitting, which is exact for km1).

Side caps use KaHyPar's adaptive imbalance generalised to per-block caps: with ρ = Σ caps / c(V_sub) the
slack left for the sub-problem and d = ⌈log2 k_sub⌉ levels still to go, a side whose blocks own the share
q of the caps gets at most min(its caps, max(⌈q·c(V_sub)⌉, ⌊ρ^{1/d}·q·c(V_sub)⌋)). For k equal caps
L = (1+ε)⌈c(V)/k⌉ this is exactly ε' = (ρ)^{1/d} − 1 of Schlag et al. (JEA 2022, section 4).
"""

from __future__ import annotations

import math

import numpy as np

from mpx.partition.context import Constraints, Context, InitialConfig
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.initial import INITIAL
from mpx.partition.multilevel import multilevel


def bisection_context(ctx: Context) -> Context:
    """The context of one bisection: k = 2, the initial-partitioning coarsening/refinement, a flat pool."""
    ip = ctx.initial
    return Context(k=2, epsilon=ctx.epsilon, seed=ctx.seed, community=ctx.community, coarsening=ip.coarsening,
                   initial=InitialConfig(algorithm="pool", pool=ip.pool, runs=ip.runs, min_runs=ip.min_runs,
                                         full_runs_size=ip.full_runs_size, coarsening=ip.coarsening,
                                         refinement=ip.refinement),
                   refinement=ip.refinement)


def side_caps(total: int, caps: np.ndarray, lo: int, mid: int, hi: int) -> tuple[int, int]:
    """Maximum weights of the two sides of a bisection of blocks [lo, hi) at ``mid`` (see module doc)."""
    cap0 = int(caps[lo:mid].sum())
    cap1 = int(caps[mid:hi].sum())
    capsum = cap0 + cap1
    if total <= 0 or capsum <= 0:
        return cap0, cap1
    depth = max(1, math.ceil(math.log2(hi - lo)))
    slack = max(capsum / total, 1.0) ** (1.0 / depth)
    out = []
    for cap in (cap0, cap1):
        t = total * cap / capsum
        out.append(min(cap, max(math.ceil(t), math.floor(slack * t))))
    return out[0], out[1]


@INITIAL.register("recursive_bisection")
def recursive_bisection(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator,
                        communities: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """Recursive multilevel bisection into ``constraints.k`` blocks."""
    part = np.zeros(hg.num_vertices, dtype=np.int64)
    bctx = bisection_context(ctx)
    comm = np.zeros(hg.num_vertices, dtype=np.int64) if communities is None else np.asarray(communities, np.int64)
    stats = {"bisections": 0, "pool_runs": 0}
    _split(hg, np.arange(hg.num_vertices, dtype=np.int64), 0, constraints.k, constraints, comm, bctx, rng,
           part, stats)
    return part, {"algorithm": "recursive_bisection", **stats}


def _split(hg: Hypergraph, ids: np.ndarray, lo: int, hi: int, constraints: Constraints, comm: np.ndarray,
           bctx: Context, rng: np.random.Generator, part: np.ndarray, stats: dict) -> None:
    if hi - lo == 1 or hg.num_vertices == 0:
        part[ids] = lo
        return
    mid = lo + (hi - lo + 1) // 2
    caps = constraints.max_block_weights
    fixed = constraints.fixed[ids]
    side_fixed = np.where(fixed < 0, -1, (fixed >= mid).astype(np.int64))
    L = list(side_caps(hg.total_weight, caps, lo, mid, hi))
    full = (int(caps[lo:mid].sum()), int(caps[mid:hi].sum()))
    vw = hg.vertex_weights
    for s in (0, 1):
        fixed_w = int(vw[side_fixed == s].sum())
        L[s] = min(full[s], max(L[s], fixed_w))
    free = side_fixed < 0
    if np.any(free) and int(vw[free].max()) > max(L):
        L = list(full)
    bis = Constraints(2, np.array(L, dtype=np.int64), side_fixed)
    sides, report = multilevel(hg, bis, bctx, rng, communities=comm)
    stats["bisections"] += 1
    stats["pool_runs"] += int(report.get("initial", {}).get("runs", 0))
    for s, (a, b) in ((0, (lo, mid)), (1, (mid, hi))):
        local = np.flatnonzero(sides == s)
        if b - a == 1 or local.size == 0:
            part[ids[local]] = a
            continue
        sub, _ = hg.subhypergraph(local)
        _split(sub, ids[local], a, b, constraints, comm[local], bctx, rng, part, stats)
