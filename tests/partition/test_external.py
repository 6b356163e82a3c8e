"""Side by side with the real KaHyPar and Mt-KaHyPar on small capped (event-grouping) instances: the same
objective, caps respected, comparable quality. Skips when the optional extra ``mpx[kahypar]`` is absent."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.grouping.partitioned import grouping_context
from mpx.partition import Hypergraph, block_weights, km1, partition


def _instance(n: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [sorted(rng.choice(n, size=int(s), replace=False).tolist()) for s in rng.integers(2, 5, n)]


def _mpx_best(hg: Hypergraph, k: int, cap: int, seeds: int) -> int:
    out = []
    for s in range(seeds):
        res = partition(hg, k, seed=s, max_block_weights=[cap] * k, context=grouping_context(hg.num_vertices))
        assert res.block_weights.max() <= cap
        out.append(res.km1)
    return min(out)


def test_mtkahypar_agrees_on_km1_and_mpx_is_comparable():
    mtkahypar = pytest.importorskip("mtkahypar", exc_type=ImportError)
    n, cap, k, seeds = 80, 4, 20, 3
    nets = _instance(n, 1)
    hg = Hypergraph.from_nets(nets, num_vertices=n)
    mtk = mtkahypar.initialize(1)
    theirs = []
    for s in range(seeds):
        mtkahypar.set_seed(s)
        ctx = mtk.context_from_preset(mtkahypar.PresetType.QUALITY)
        ctx.set_partitioning_parameters(k, 0.03, mtkahypar.Objective.KM1)
        ctx.logging = False
        ctx.set_individual_target_block_weights([cap] * k)
        p = mtk.create_hypergraph(ctx, n, len(nets), nets).partition(ctx)
        blocks = np.array(p.get_partition())
        assert km1(hg, blocks, k) == p.km1()  # one objective, one definition
        assert block_weights(hg, blocks, k).max() <= cap
        theirs.append(p.km1())
    ours = _mpx_best(hg, k, cap, seeds)
    assert ours <= 1.05 * min(theirs)  # the benchmark measures "no worse"; a test leaves room for the seed


def test_kahypar_agrees_on_km1_and_mpx_is_comparable(shared):
    kahypar = pytest.importorskip("kahypar", exc_type=ImportError)
    ini = shared("data", "hypergraphs", "kahypar-configs", "km1_kKaHyPar_sea20.ini")
    n, cap, k, seeds = 80, 4, 20, 3
    assert cap * k >= n  # KaHyPar calls exit() on caps summing below n: never hand it such a request
    nets = _instance(n, 2)
    hg = Hypergraph.from_nets(nets, num_vertices=n)
    theirs = []
    for s in range(seeds):
        index = np.cumsum([0] + [len(e) for e in nets]).tolist()
        khg = kahypar.Hypergraph(n, len(nets), index, [p for e in nets for p in e], k, [1] * len(nets), [1] * n)
        ctx = kahypar.Context()
        ctx.loadINIconfiguration(str(ini))
        ctx.setK(k)
        ctx.setEpsilon(0.03)
        ctx.setSeed(s)
        ctx.suppressOutput(True)
        ctx.setCustomTargetBlockWeights([cap] * k)
        kahypar.partition(khg, ctx)
        blocks = np.array([khg.blockID(v) for v in range(n)])
        assert km1(hg, blocks, k) == kahypar.connectivityMinusOne(khg)
        assert block_weights(hg, blocks, k).max() <= cap
        theirs.append(kahypar.connectivityMinusOne(khg))
    assert _mpx_best(hg, k, cap, seeds) <= 1.05 * min(theirs)
