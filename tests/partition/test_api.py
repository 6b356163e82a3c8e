"""`partition`: optimal on small instances (brute force), caps and fixed vertices never violated, deterministic,
infeasible requests rejected with ConfigError; the ``mpx partition`` command."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.cli import main
from mpx.errors import ConfigError
from mpx.partition import (Context, Hypergraph, block_weights, km1, max_block_weight, partition, read_hmetis,
                           write_hmetis)


def brute_force_km1(hg: Hypergraph, k: int, caps: np.ndarray) -> int:
    """The optimum over all k^n assignments within the caps (vectorised over assignments)."""
    n = hg.num_vertices
    assign = np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)
    weights = np.stack([(assign == b) @ hg.vertex_weights for b in range(k)], axis=1)
    ok = np.all(weights <= caps, axis=1)
    assign = assign[ok]
    total = np.zeros(len(assign), dtype=np.int64)
    for net, w in zip(hg.nets(), hg.net_weights):
        lam = sum(np.any(assign[:, net] == b, axis=1).astype(np.int64) for b in range(k))
        total += w * (lam - 1)
    return int(total.min())


def small(seed: int, n: int, m: int, weighted: bool) -> Hypergraph:
    rng = np.random.default_rng(seed)
    nets = [rng.choice(n, size=int(rng.integers(2, 5)), replace=False).tolist() for _ in range(m)]
    return Hypergraph.from_nets(nets, num_vertices=n, net_weights=rng.integers(1, 6, m) if weighted else None,
                                vertex_weights=rng.integers(1, 3, n) if weighted else None)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n, m, k, weighted", [(8, 10, 3, True), (9, 13, 3, True), (10, 14, 2, True),
                                               (8, 12, 3, False)])
def test_finds_the_optimum_of_small_instances(seed, n, m, k, weighted):
    # a heuristic: on 160 such instances (seeds 0..39) the default context misses the optimum once, by 1
    hg = small(seed, n, m, weighted)
    eps = 0.1
    caps = np.full(k, max_block_weight(hg.total_weight, k, eps))
    res = partition(hg, k, epsilon=eps, seed=seed)
    assert res.km1 == brute_force_km1(hg, k, caps)
    # the same with explicit caps that differ per block
    caps2 = caps.copy()
    caps2[0] += 2
    caps2[-1] -= 1
    res2 = partition(hg, k, max_block_weights=caps2, seed=seed)
    assert res2.km1 == brute_force_km1(hg, k, caps2)
    assert np.all(res2.block_weights <= caps2)


@st.composite
def requests(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(0, 50))
    nets = [draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(n, 6), unique=True)) for _ in range(m)]
    nw = draw(st.lists(st.integers(0, 9), min_size=m, max_size=m))
    vw = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    k = draw(st.integers(1, min(6, n)))  # more blocks than vertices is refused (test below)
    total = sum(vw)
    base = -(-total // k)
    caps = draw(st.lists(st.integers(max(0, base - 2), base + 3), min_size=k, max_size=k))
    fixed = draw(st.lists(st.sampled_from([-1] * 6 + list(range(k))), min_size=n, max_size=n))
    return Hypergraph.from_nets(nets, num_vertices=n, net_weights=nw, vertex_weights=vw), k, caps, fixed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(), st.integers(0, 3))
def test_caps_and_fixed_vertices_are_never_violated(req, seed):
    hg, k, caps, fixed = req
    try:
        res = partition(hg, k, seed=seed, max_block_weights=caps, fixed=fixed)
    except ConfigError as exc:
        assert "infeasible" in str(exc)
        return
    assert np.all(block_weights(hg, res.blocks, k) <= np.array(caps))
    fixed = np.array(fixed)
    assert np.array_equal(res.blocks[fixed >= 0], fixed[fixed >= 0])
    assert res.km1 == km1(hg, res.blocks, k) and res.blocks.min() >= 0 and res.blocks.max() < k


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 60), st.integers(2, 8), st.sampled_from([0.0, 0.03, 0.1]), st.integers(0, 99))
def test_epsilon_balance_always_met_with_unit_weights(n, k, eps, seed):
    k = min(k, n)  # more blocks than vertices is refused (test_more_blocks_than_vertices_is_refused_...)
    rng = np.random.default_rng(seed)
    nets = [rng.choice(n, size=min(n, int(rng.integers(2, 5))), replace=False).tolist() for _ in range(n)]
    hg = Hypergraph.from_nets(nets, num_vertices=n)
    res = partition(hg, k, epsilon=eps, seed=seed)
    assert res.block_weights.max() <= max_block_weight(n, k, eps)


def test_deterministic_for_a_seed():
    hg = small(7, 300, 400, True)
    a = partition(hg, 4, seed=3)
    b = partition(hg, 4, seed=3)
    assert np.array_equal(a.blocks, b.blocks) and a.km1 == b.km1


def test_deterministic_with_coarsening_and_vcycles():
    rng = np.random.default_rng(0)
    nets = [(c + rng.integers(0, 30, size=3)) % 2000 for c in rng.integers(0, 2000, 2500)]
    hg = Hypergraph.from_nets([np.unique(x).tolist() for x in nets], num_vertices=2000)
    ctx = Context(vcycles=1)
    a = partition(hg, 4, seed=1, context=ctx)
    b = partition(hg, 4, seed=1, context=ctx)
    assert np.array_equal(a.blocks, b.blocks)
    assert a.phases["coarsening"]["levels"] and a.phases["communities"]["count"] >= 1
    assert len(a.phases["vcycles"]) == 1 and a.km1 <= a.phases["refinement"][-1]["km1_after"]


@pytest.mark.parametrize("kwargs, needle", [
    (dict(k=2, max_block_weights=[3, 3]), "caps sum to 6 < total vertex weight 8"),
    (dict(k=2, max_block_weights=[3]), "one weight per block"),
    (dict(k=2, max_block_weights=[3, -1]), "negative cap"),
    (dict(k=2, max_block_weights=[4.5, 4]), "must be integers"),
    (dict(k=0), "k must be an integer >= 1"),
    (dict(k=2, epsilon=-0.1), "epsilon"),
    (dict(k=2, epsilon=float("nan")), "epsilon"),
    (dict(k=2, seed=-1), "seed"),
    (dict(k=2, fixed=[0, 2, -1, -1, -1, -1, -1]), "one block"),
    (dict(k=2, fixed=[0, 2, -1, -1, -1, -1, -1, -1]), r"fixed\[1\] = 2"),
    (dict(k=2, max_block_weights=[5, 5], fixed=[0] * 6 + [-1, -1]), "fixed to block 0 weigh 6 > its cap 5"),
])
def test_invalid_requests_are_config_errors(kwargs, needle):
    hg = Hypergraph.from_nets([[0, 1], [2, 3], [4, 5], [6, 7]], num_vertices=8)
    with pytest.raises(ConfigError, match=needle):
        partition(hg, **kwargs)


def test_infeasible_requests():
    heavy = Hypergraph.from_nets([[0, 1]], vertex_weights=[5, 1])
    with pytest.raises(ConfigError, match="vertex 0 weighs 5, more than every block cap"):
        partition(heavy, 2, max_block_weights=[4, 4])
    # the caps add up, yet three items of weight 2 do not fit into two bins of 3: bin packing fails
    packing = Hypergraph.from_nets([[0, 1], [1, 2]], vertex_weights=[2, 2, 2])
    with pytest.raises(ConfigError, match="found no partition within the block caps"):
        partition(packing, 2, max_block_weights=[3, 3])
    with pytest.raises(ConfigError, match="needs a Hypergraph"):
        partition([[0, 1]], 2)
    with pytest.raises(ConfigError, match="coarsening.algorithm: unknown coarsening policy 'heavy'"):
        partition(packing, 2, max_block_weights=[4, 4],
                  context=Context(coarsening=Context().coarsening.__class__(algorithm="heavy")))


def test_trivial_cases():
    hg = Hypergraph.from_nets([[0, 1], [1, 2]])
    one = partition(hg, 1)
    assert one.blocks.tolist() == [0, 0, 0] and one.km1 == 0
    three = partition(hg, 3)  # one vertex per block
    assert three.block_weights.max() <= 1 and three.km1 == km1(hg, three.blocks, 3)
    empty = partition(Hypergraph(0, [0], []), 1)
    assert empty.blocks.size == 0 and empty.km1 == 0


def test_more_blocks_than_vertices_is_refused_before_any_work():
    # issue 17: `mpx partition ibm01.hgr -k 20000` (12,752 vertices) ran 47 s instead of refusing
    hg = Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(ConfigError, match="k = 4 blocks is more than the 3 vertices"):
        partition(hg, 4)
    with pytest.raises(ConfigError, match="k = 3 blocks is more than the 0 vertices"):
        partition(Hypergraph(0, [0], []), 3)


def test_result_is_inspectable():
    hg = small(8, 200, 260, True)
    res = partition(hg, 3, seed=0)
    assert sorted(sum(res.groups(), [])) == list(range(200))
    assert all(res.blocks[g].tolist() == [b] * len(g) for b, g in enumerate(res.groups()))
    d = json.loads(json.dumps(res.to_dict(include_blocks=True)))
    assert d["km1"] == res.km1 and len(d["blocks"]) == 200 and d["context"]["k"] == 3
    assert res.phases["initial"]["algorithm"] == "portfolio" and res.phases["initial"]["winner"] in ("recursive_bisection", "pool")
    steps = res.phases["refinement"]
    assert steps[-1]["km1_after"] == res.km1 and all(s["km1_after"] <= s["km1_before"] for s in steps)
    assert "km1=" in res.summary()


def test_real_ibm01_quality_and_balance(shared):
    hg = read_hmetis(shared("data", "hypergraphs", "ISPD98_ibm01.hgr"))
    res = partition(hg, 2, epsilon=0.03, seed=0)
    assert res.imbalance <= 0.03 and res.block_weights.max() <= 6567
    # KaHyPar's published mean for ibm01, k = 2, is 210.4 (min 202); one seed must land within 25 %
    assert res.km1 <= 263
    assert len(res.phases["coarsening"]["levels"]) >= 3


def test_cli_partition(tmp_path, capsys):
    hg = small(9, 120, 150, False)
    path = tmp_path / "g.hgr"
    write_hmetis(hg, path)
    assert main(["partition", str(path), "-k", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "km1" in out and "imbalance" in out and "seconds" in out
    part_file = tmp_path / "g.part"
    assert main(["partition", str(path), "-k", "4", "--cap", "30", "--json", "-o", str(part_file)]) == 0
    d = json.loads(capsys.readouterr().out)
    blocks = [int(x) for x in part_file.read_text().split()]
    assert d["km1"] == km1(hg, blocks, 4) and max(d["block_weights"]) <= 30 and d["vertices"] == 120
    assert main(["partition", str(path), "-k", "4", "--cap", "20"]) == 1
    assert "infeasible" in capsys.readouterr().err
    bad = tmp_path / "bad.hgr"
    bad.write_text("2 3\n1 2\n")
    assert main(["partition", str(bad), "-k", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpx partition: error:") and "bad.hgr" in err and "Traceback" not in err


def test_cli_partition_refuses_more_blocks_than_vertices(tmp_path, capsys):
    path = tmp_path / "g.hgr"
    write_hmetis(small(9, 12, 15, False), path)
    assert main(["partition", str(path), "-k", "13"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpx partition: error: k = 13 blocks is more than the 12 vertices")
