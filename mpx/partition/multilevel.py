"""The multilevel cycle: (communities →) coarsening → initial partitioning → uncoarsening with refinement.

Every phase is looked up by name in its registry from the one `Context`; the driver only wires them
together and records what each did (sizes, km1 before/after, seconds), so a run can be inspected phase by
phase. The coarsest partition is refined, then projected level by level and refined again at each level
(Karypis et al., hMetis; Schlag et al., KaHyPar, ACM JEA 2022).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from mpx.partition.coarsening import COARSENERS, contraction_limit
from mpx.partition.community import COMMUNITIES
from mpx.partition.context import Constraints, Context
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.initial import INITIAL
from mpx.partition.refinement import PartitionState, refine


def multilevel(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator,
               communities: np.ndarray | None = None, start: np.ndarray | None = None,
               on_phase: Callable[[str], object] | None = None) -> tuple[np.ndarray, dict]:
    """One multilevel cycle; returns the blocks of ``hg`` and a report of every phase (``on_phase(name)``
    is told as each starts).

    ``start`` (a partition of ``hg``) turns the cycle into a V-cycle: clusters never cross its blocks, and
    the coarsest level takes the projected ``start`` instead of a fresh initial partition.
    """
    report: dict = {}
    note = on_phase or (lambda _name: None)
    coarsen = COARSENERS.get(ctx.coarsening.algorithm, "coarsening.algorithm")
    will_coarsen = ctx.coarsening.algorithm != "none" and hg.num_vertices > contraction_limit(ctx.coarsening, constraints.k)

    t = time.perf_counter()
    if communities is None:
        if will_coarsen and ctx.coarsening.use_communities:
            note("community detection")
            detect = COMMUNITIES.get(ctx.community.algorithm, "community.algorithm")
            communities = detect(hg, ctx.community, rng)
            report["communities"] = {"algorithm": ctx.community.algorithm, "count": int(communities.max()) + 1
                                     if communities.size else 0, "seconds": time.perf_counter() - t}
        else:
            communities = np.zeros(hg.num_vertices, dtype=np.int64)
    if start is not None:
        # V-cycle: restrict clusters to the blocks of the current partition as well
        _, communities = np.unique(np.asarray(communities) * constraints.k + start, return_inverse=True)
        communities = communities.astype(np.int64)

    t = time.perf_counter()
    note("coarsening")
    levels = coarsen(hg, constraints, ctx.coarsening, communities, rng) if will_coarsen else []
    report["coarsening"] = {"algorithm": ctx.coarsening.algorithm if will_coarsen else "none",
                            "levels": [{"vertices": lv.hypergraph.num_vertices, "nets": lv.hypergraph.num_nets,
                                        "pins": lv.hypergraph.num_pins} for lv in levels],
                            "seconds": time.perf_counter() - t}

    hgs = [hg] + [lv.hypergraph for lv in levels]
    fixeds = [constraints.fixed] + [lv.fixed for lv in levels]
    coarsest = Constraints(constraints.k, constraints.max_block_weights, fixeds[-1])

    t = time.perf_counter()
    note("initial partitioning")
    if start is not None:
        part = np.asarray(start, dtype=np.int64)
        for lv in levels:
            coarse = np.empty(lv.hypergraph.num_vertices, dtype=np.int64)
            coarse[lv.mapping] = part
            part = coarse
        report["initial"] = {"algorithm": "projected start", "seconds": time.perf_counter() - t}
    else:
        initial = INITIAL.get(ctx.initial.algorithm, "initial.algorithm")
        part, info = initial(hgs[-1], coarsest, ctx, rng,
                             levels[-1].communities if levels else communities)
        report["initial"] = {**info, "seconds": time.perf_counter() - t}

    steps = []
    for i in range(len(hgs) - 1, -1, -1):
        t = time.perf_counter()
        note(f"refinement level {i}")
        if i < len(hgs) - 1:
            part = part[levels[i].mapping]
        level_constraints = Constraints(constraints.k, constraints.max_block_weights, fixeds[i])
        state = PartitionState(hgs[i], part, level_constraints)
        before = state.km1()
        rebalance_gain = None
        if not state.feasible():
            rebalance_gain, _ = state.rebalance()
        done = refine(state, ctx.refinement, rng)
        part = state.part
        steps.append({"level": i, "vertices": hgs[i].num_vertices, "km1_before": before, "km1_after": state.km1(),
                      "feasible": state.feasible(), **({"rebalance_gain": rebalance_gain} if rebalance_gain is not None
                                                       else {}),
                      "refiners": done, "seconds": time.perf_counter() - t})
    report["refinement"] = steps
    return part, report
