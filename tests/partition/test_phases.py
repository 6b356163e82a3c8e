"""Every phase alone: communities, coarsening/contraction, initial partitioning, FM and label propagation."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.partition import Context, Hypergraph, block_weights, build_constraints, km1
from mpx.partition.coarsening import COARSENERS, contract
from mpx.partition.community import COMMUNITIES, bipartite_graph, louvain_levels, modularity
from mpx.partition.context import CoarseningConfig, CommunityConfig, Constraints, RefinementConfig
from mpx.partition.initial import INITIAL, POOL
from mpx.partition.initial.pool import kernel_args
from mpx.partition.refinement import REFINERS, PartitionState, refine


def random_hypergraph(n: int, m: int, seed: int, max_size: int = 5, weighted: bool = True) -> Hypergraph:
    """Nets of 2..max_size pins with locality (pins near a random centre), so there is structure to find."""
    rng = np.random.default_rng(seed)
    nets = []
    for _ in range(m):
        size = int(rng.integers(2, max_size + 1))
        centre = int(rng.integers(0, n))
        pins = np.unique((centre + rng.integers(-n // 20 - 2, n // 20 + 3, size=size)) % n)
        if pins.size >= 2:
            nets.append(pins.tolist())
    nw = rng.integers(1, 4, len(nets)) if weighted else None
    vw = rng.integers(1, 3, n) if weighted else None
    return Hypergraph.from_nets(nets, num_vertices=n, net_weights=nw, vertex_weights=vw)


def check_state(state: PartitionState) -> None:
    """The incrementally kept gain cache equals one computed from scratch."""
    none_fixed = np.full(state.hg.num_vertices, -1, dtype=np.int64)
    fresh = PartitionState(state.hg, state.part.copy(), Constraints(state.k, state.maxw, none_fixed))
    for got, want in zip((state.phi, state.blockw, state.benefit, state.inc, state.total),
                         (fresh.phi, fresh.blockw, fresh.benefit, fresh.inc, fresh.total)):
        assert np.array_equal(got, want)
    assert state.km1() == km1(state.hg, state.part, state.k)


# --- communities -----------------------------------------------------------------------------------

def test_louvain_finds_planted_communities():
    # two groups of 6 vertices, dense inside, a single net across
    a = [[i, j] for i in range(6) for j in range(i + 1, 6)]
    b = [[i + 6, j + 6] for i in range(6) for j in range(i + 1, 6)]
    hg = Hypergraph.from_nets(a + b + [[0, 6]])
    comm = COMMUNITIES.get("louvain", "x")(hg, CommunityConfig(), np.random.default_rng(0))
    assert len(set(comm[:6])) == 1 and len(set(comm[6:])) == 1 and comm[0] != comm[6]


def test_louvain_modularity_close_to_networkx():
    hg = random_hypergraph(400, 500, seed=3, weighted=False)
    cfg = CommunityConfig(edge_weight="uniform")
    off, adj, w = bipartite_graph(hg, cfg)
    ours = modularity(off, adj, w, louvain_levels(off, adj, w, cfg, np.random.default_rng(0)))
    g = nx.Graph()
    src = np.repeat(np.arange(off.size - 1), np.diff(off))
    g.add_weighted_edges_from((int(s), int(d), float(x)) for s, d, x in zip(src, adj, w) if s < d)
    theirs = nx.community.modularity(g, nx.community.louvain_communities(g, seed=0))
    assert ours > 0.3 and ours >= 0.97 * theirs


def test_no_communities_is_one_community():
    hg = random_hypergraph(50, 60, seed=1)
    assert COMMUNITIES.get("none", "x")(hg, CommunityConfig(), np.random.default_rng(0)).tolist() == [0] * 50


# --- coarsening --------------------------------------------------------------------------------------

def test_contraction_drops_single_pin_nets_and_merges_parallel_nets():
    hg = Hypergraph.from_nets([[0, 1], [2, 3], [0, 2], [1, 3], [0, 1, 2]], net_weights=[5, 1, 2, 3, 4])
    coarse, mapping = contract(hg, np.array([0, 0, 2, 2]))  # clusters {0,1} and {2,3}
    assert mapping.tolist() == [0, 0, 1, 1]
    assert coarse.nets() == [[0, 1]] and coarse.net_weights.tolist() == [2 + 3 + 4]
    assert coarse.vertex_weights.tolist() == [2, 2]


@pytest.mark.parametrize("penalty", ["none", "multiplicative"])
def test_ml_style_coarsening_preserves_weight_pins_and_km1(penalty):
    hg = random_hypergraph(600, 700, seed=7)
    rng = np.random.default_rng(1)
    fixed = np.full(hg.num_vertices, -1)
    fixed[rng.choice(600, 30, replace=False)] = rng.integers(0, 2, 30)
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 2, 0.03, fixed=fixed)
    communities = rng.integers(0, 3, hg.num_vertices)
    cfg = CoarseningConfig(contraction_limit_multiplier=20, heavy_node_penalty=penalty)
    levels = COARSENERS.get("ml_style", "x")(hg, cons, cfg, communities, rng)
    assert len(levels) >= 2 and levels[-1].hypergraph.num_vertices < hg.num_vertices / 4
    fine, fine_fixed, fine_comm = hg, fixed, communities
    max_w = int(np.ceil(hg.total_weight / 40))
    for lv in levels:
        coarse, mp = lv.hypergraph, lv.mapping
        assert coarse.total_weight == fine.total_weight
        assert np.array_equal(np.bincount(mp, weights=fine.vertex_weights).astype(int), coarse.vertex_weights)
        # a cluster is heavier than the limit only when it is a single heavy vertex
        sizes = np.bincount(mp)
        assert np.all((coarse.vertex_weights <= max_w) | (sizes == 1))
        # clusters never mix communities or blocks of fixed vertices
        for c in range(coarse.num_vertices):
            members = np.flatnonzero(mp == c)
            assert len(set(fine_comm[members])) == 1
            fb = set(fine_fixed[members]) - {-1}
            assert len(fb) <= 1 and lv.fixed[c] == (fb.pop() if fb else -1)
        # every fine net maps onto a coarse net (or vanishes when it collapses to one pin); weights add up
        coarse_nets = {tuple(n): w for n, w in zip(coarse.nets(), coarse.net_weights)}
        expected: dict = {}
        for net, w in zip(fine.nets(), fine.net_weights):
            key = tuple(sorted(set(mp[net].tolist())))
            if len(key) >= 2:
                expected[key] = expected.get(key, 0) + int(w)
        assert coarse_nets == expected
        # km1 of any coarse partition equals km1 of its projection
        blocks = rng.integers(0, 3, coarse.num_vertices)
        assert km1(coarse, blocks, 3) == km1(fine, blocks[mp], 3)
        fine, fine_fixed, fine_comm = coarse, lv.fixed, lv.communities


def test_no_coarsening_and_contraction_limit():
    hg = random_hypergraph(300, 300, seed=2)
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 2, 0.03)
    rng = np.random.default_rng(0)
    assert COARSENERS.get("none", "x")(hg, cons, CoarseningConfig(), np.zeros(300, int), rng) == []
    # 300 vertices < 160·2: nothing to do even for ml_style
    assert COARSENERS.get("ml_style", "x")(hg, cons, CoarseningConfig(), np.zeros(300, int), rng) == []


# --- initial partitioning ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", POOL.names())
def test_pool_algorithms_respect_fixed_vertices_and_rebalance_to_feasible(name):
    hg = random_hypergraph(120, 150, seed=4)
    rng = np.random.default_rng(2)
    fixed = np.full(120, -1)
    fixed[:10] = np.arange(10) % 4
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 4, 0.05, fixed=fixed)
    for seed in range(5):
        part = POOL.get(name, "x")(*kernel_args(hg, cons), seed)
        assert part.min() >= 0 and part.max() < 4
        assert np.array_equal(part[:10], fixed[:10])
        state = PartitionState(hg, part, cons)
        _, ok = state.rebalance()
        assert ok and np.all(state.blockw <= cons.max_block_weights)
        assert np.array_equal(state.part[:10], fixed[:10])
        check_state(state)


@pytest.mark.parametrize("name", ["recursive_bisection", "pool", "none"])
def test_initial_partitioners_are_feasible(name):
    hg = random_hypergraph(200, 260, seed=5)
    caps = np.array([70, 60, 90, 80, 65])
    fixed = np.full(200, -1)
    fixed[[3, 50, 120]] = [4, 0, 2]
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 5, 0.0, max_block_weights=caps, fixed=fixed)
    ctx = Context(k=5)
    part, report = INITIAL.get(name, "x")(hg, cons, ctx, np.random.default_rng(0), None)
    state = PartitionState(hg, part, cons)
    state.rebalance()
    assert state.feasible() and part[3] == 4 and part[50] == 0 and part[120] == 2
    assert report["algorithm"] == name


# --- refinement ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithms, overload, stop", [
    (("fm",), True, "adaptive"), (("fm",), False, "simple"), (("fm",), True, "simple"),
    (("label_propagation",), True, "adaptive"), (("label_propagation", "fm"), True, "adaptive"),
])
def test_refiners_never_worsen_km1_respect_caps_and_fixed(algorithms, overload, stop):
    hg = random_hypergraph(500, 600, seed=11)
    rng = np.random.default_rng(3)
    k = 4
    fixed = np.full(500, -1)
    fixed[rng.choice(500, 25, replace=False)] = rng.integers(0, k, 25)
    cons = build_constraints(hg.total_weight, hg.vertex_weights, k, 0.05, fixed=fixed)
    cfg = RefinementConfig(algorithms=algorithms, fm_allow_overload=overload, fm_stop=stop)
    for trial in range(3):
        part = np.where(fixed >= 0, fixed, rng.integers(0, k, 500))
        state = PartitionState(hg, part, cons)
        state.rebalance()
        before = state.km1()
        reports = refine(state, cfg, rng)
        after = state.km1()
        assert after <= before and before - after == sum(r["improvement"] for r in reports)
        assert after < before  # a random partition always leaves something to gain
        assert np.all(block_weights(hg, state.part, k) <= cons.max_block_weights)
        assert np.array_equal(state.part[fixed >= 0], fixed[fixed >= 0])
        check_state(state)


def test_fm_swaps_under_caps_without_slack():
    # caps sum exactly to c(V): no single move is feasible, only overload-then-repair pairs help
    hg = Hypergraph.from_nets([[0, 1], [2, 3], [4, 5], [6, 7], [0, 1, 2], [4, 6]])
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 4, 0.0, max_block_weights=[2, 2, 2, 2])
    part = np.array([0, 1, 0, 1, 2, 3, 3, 2])
    state = PartitionState(hg, part, cons)
    before = state.km1()
    (rep,) = refine(state, RefinementConfig(algorithms=("fm",)), np.random.default_rng(0))
    assert state.km1() < before and np.all(state.blockw == 2)
    check_state(state)
    frozen = PartitionState(hg, part, cons)
    refine(frozen, RefinementConfig(algorithms=("fm",), fm_allow_overload=False), np.random.default_rng(0))
    assert frozen.km1() == before  # without swaps nothing can move


def test_do_nothing_refiner_and_unknown_names():
    hg = random_hypergraph(60, 80, seed=1)
    cons = build_constraints(hg.total_weight, hg.vertex_weights, 2, 0.1)
    part = np.arange(60) % 2
    state = PartitionState(hg, part, cons)
    refine(state, RefinementConfig(algorithms=("none",)), np.random.default_rng(0))
    assert np.array_equal(state.part, part)
    with pytest.raises(ConfigError, match=r"refinement.algorithms: unknown refinement policy 'fast' \(known: .*fm"):
        refine(state, RefinementConfig(algorithms=("fast",)), np.random.default_rng(0))
    for registry in (COARSENERS, INITIAL, REFINERS, COMMUNITIES, POOL):
        assert "nope" not in registry
        with pytest.raises(ConfigError, match="unknown"):
            registry.get("nope", "key")


def test_rebalance_reports_failure_when_nothing_fits():
    hg = Hypergraph.from_nets([[0, 1], [1, 2]], vertex_weights=[3, 3, 3])
    cons = Constraints(2, np.array([5, 5]), np.full(3, -1))
    state = PartitionState(hg, np.array([0, 0, 1]), cons)
    gain, ok = state.rebalance()
    assert not ok  # 6 > 5 and moving a 3 into block 1 (weight 3) would make it 6 > 5
