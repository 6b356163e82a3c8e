"""The Hypergraph type, its validation, the inverse incidence, and the objectives against their definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpx.errors import ConfigError
from mpx.partition import (Hypergraph, block_weights, connectivity, cut, imbalance, km1, max_block_weight)


def _naive(nets, weights, blocks):
    lam = [len({blocks[p] for p in net}) for net in nets]
    return (sum(w * (l - 1) for w, l in zip(weights, lam) if l > 0), sum(w for w, l in zip(weights, lam) if l > 1), lam)


@st.composite
def hypergraphs(draw, max_n=12, max_m=15):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    nets = [draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(n, 5), unique=True)) for _ in range(m)]
    nw = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
    vw = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return nets, nw, vw, n


@settings(max_examples=100, deadline=None)
@given(hypergraphs(), st.integers(1, 4), st.data())
def test_objectives_match_their_definitions(h, k, data):
    nets, nw, vw, n = h
    hg = Hypergraph.from_nets(nets, num_vertices=n, net_weights=nw, vertex_weights=vw)
    blocks = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    want_km1, want_cut, lam = _naive(nets, nw, blocks)
    assert km1(hg, blocks, k) == want_km1
    assert cut(hg, blocks, k) == want_cut
    assert connectivity(hg, blocks, k).tolist() == lam
    bw = [sum(w for w, b in zip(vw, blocks) if b == j) for j in range(k)]
    assert block_weights(hg, blocks, k).tolist() == bw
    perfect = -(-sum(vw) // k)
    assert imbalance(hg, blocks, k) == (max(bw) / perfect - 1 if perfect else 0.0)
    # inverse incidence lists every (vertex, net) pair exactly once
    pairs = sorted((v, e) for e, net in enumerate(nets) for v in net)
    got = sorted((v, int(e)) for v in range(n) for e in hg.nets_of(v))
    assert got == pairs


def test_construction_and_accessors():
    hg = Hypergraph.from_nets([[0, 1, 2], [2, 3]], net_weights=[3, 1], vertex_weights=[1, 2, 1, 1], names=list("abcd"))
    assert (hg.num_vertices, hg.num_nets, hg.num_pins, hg.total_weight) == (4, 2, 5, 5)
    assert hg.net_sizes.tolist() == [3, 2] and hg.degrees.tolist() == [1, 1, 2, 1]
    assert hg.net(1).tolist() == [2, 3] and hg.nets_of(2).tolist() == [0, 1]
    assert hg.names == ["a", "b", "c", "d"]
    assert "4 vertices, 2 nets" in repr(hg)
    with pytest.raises(ValueError):
        hg.pins[0] = 3  # frozen


def test_inputs_are_copied_not_frozen():
    pins = np.array([0, 1, 1, 2])
    Hypergraph(3, [0, 2, 4], pins)
    pins[0] = 2  # the caller's array stays writable
    assert pins[0] == 2


@pytest.mark.parametrize("kwargs, needle", [
    (dict(num_vertices=3, net_offsets=[1, 2], pins=[0]), "start with 0"),
    (dict(num_vertices=3, net_offsets=[0, 2, 1], pins=[0, 1]), "non-decreasing"),
    (dict(num_vertices=3, net_offsets=[0, 3], pins=[0, 1]), "ends at 3"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[0, 3]), "pin 3 out of range"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[1, 1]), "lists vertex 1 more than once"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[0, 1], vertex_weights=[1, -1, 1]), "negative weight"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[0, 1], net_weights=[-2]), "negative weight"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[0, 1], net_weights=[1, 1]), "2 entries for 1 nets"),
    (dict(num_vertices=3, net_offsets=[0, 2], pins=[0.5, 1]), "expected integers"),
])
def test_invalid_hypergraphs_are_config_errors(kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        Hypergraph(**kwargs)


def test_block_validation():
    hg = Hypergraph.from_nets([[0, 1]])
    with pytest.raises(ConfigError, match="1 entries for 2 vertices"):
        km1(hg, [0], 2)
    with pytest.raises(ConfigError, match=r"\[0, 2\)"):
        km1(hg, [0, 2], 2)


def test_subhypergraph_splits_nets():
    hg = Hypergraph.from_nets([[0, 1, 2, 3], [0, 4], [1, 2], [3, 4]], net_weights=[5, 2, 3, 4],
                              vertex_weights=[1, 2, 3, 4, 5])
    sub, kept = hg.subhypergraph(np.array([1, 2, 3]))
    assert sub.nets() == [[0, 1, 2], [0, 1]] and kept.tolist() == [0, 2]
    assert sub.net_weights.tolist() == [5, 3] and sub.vertex_weights.tolist() == [2, 3, 4]


def test_kahypar_max_block_weight():
    assert max_block_weight(12752, 2, 0.03) == 6567   # ⌊1.03 · 6376⌋
    assert max_block_weight(12752, 8, 0.03) == 1641   # ⌊1.03 · 1594⌋
    assert max_block_weight(100, 1, 0.15) == 115      # exact decimal arithmetic (float gives 114.999…)
    assert max_block_weight(10, 3, 0.0) == 4
