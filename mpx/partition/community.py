"""Preprocessing: communities that restrict coarsening (Heuer & Schlag, "Improving Coarsening Schemes for
Hypergraph Partitioning by Exploiting Community Structure", SEA 2017).

Louvain modularity maximisation (Blondel et al. 2008) on the bipartite star expansion: one node per vertex,
one per net (nets larger than ``max_net_size`` and single-pin nets left out), an edge between a net and
each of its pins. Edge weights as KaHyPar's ``p-louvain-edge-weight``: ``uniform`` ω(e), ``non_uniform``
ω(e)/|e|, ``degree`` ω(e)·d(v)/|e|, ``hybrid`` = degree when |E|/|V| < 0.75 else uniform. The community of a
vertex is that of its node. Registered policies: ``louvain`` and ``none`` (one community).
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit
from mpx.partition.context import CommunityConfig
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.registry import PhasePolicies

COMMUNITIES = PhasePolicies("community")


@njit
def _local_moving(adj_off, adj, adj_w, node_w, self_w, max_passes, min_improvement, seed):
    """Louvain's local-moving phase; returns the community of each node and whether anything moved."""
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    N = adj_off.shape[0] - 1
    comm = np.arange(N)
    tot = node_w.copy()
    m2 = 0.0
    for i in range(N):
        m2 += node_w[i]
    if m2 <= 0.0:
        return comm, False
    wto = np.zeros(N, np.float64)
    touched = np.empty(N, np.int64)
    any_move = False
    for _ in range(max_passes):
        perm = np.random.permutation(N)
        gain_sum = 0.0
        for t in range(N):
            i = perm[t]
            d = comm[i]
            ki = node_w[i]
            nt = 0
            for p in range(adj_off[i], adj_off[i + 1]):
                c = comm[adj[p]]
                if wto[c] == 0.0:
                    touched[nt] = c
                    nt += 1
                wto[c] += adj_w[p]
            tot[d] -= ki
            w_d = wto[d]
            best = d
            best_gain = 0.0
            for s in range(nt):
                c = touched[s]
                if c == d:
                    continue
                g = (wto[c] - w_d) - ki * (tot[c] - tot[d]) / m2
                if g > best_gain:
                    best_gain = g
                    best = c
            for s in range(nt):
                wto[touched[s]] = 0.0
            tot[best] += ki
            if best != d:
                comm[i] = best
                any_move = True
                gain_sum += best_gain
        if gain_sum / (m2 / 2.0) < min_improvement:
            break
    return comm, any_move


@njit
def _aggregate(adj_off, adj, adj_w, self_w, comm):
    """The community graph: nodes = communities (renumbered), parallel arcs summed, inner arcs → self-loops."""
    N = adj_off.shape[0] - 1
    cid = np.full(N, -1, np.int64)
    C = 0
    for i in range(N):
        c = comm[i]
        if cid[c] < 0:
            cid[c] = C
            C += 1
    label = np.empty(N, np.int64)
    for i in range(N):
        label[i] = cid[comm[i]]
    new_self = np.zeros(C, np.float64)
    for i in range(N):
        new_self[label[i]] += self_w[i]
    A = adj.shape[0]
    keys = np.empty(A, np.int64)
    ws = np.empty(A, np.float64)
    na = 0
    for i in range(N):
        li = label[i]
        for p in range(adj_off[i], adj_off[i + 1]):
            lj = label[adj[p]]
            if li == lj:
                new_self[li] += adj_w[p]
            else:
                keys[na] = li * C + lj
                ws[na] = adj_w[p]
                na += 1
    keys = keys[:na]
    ws = ws[:na]
    order = np.argsort(keys)
    off = np.zeros(C + 1, np.int64)
    out_adj = np.empty(na, np.int64)
    out_w = np.empty(na, np.float64)
    cnt = 0
    last = -1
    for t in range(na):
        key = keys[order[t]]
        if key != last:
            out_adj[cnt] = key % C
            out_w[cnt] = ws[order[t]]
            off[key // C + 1] += 1
            cnt += 1
            last = key
        else:
            out_w[cnt - 1] += ws[order[t]]
    for c in range(C):
        off[c + 1] += off[c]
    return label, off, out_adj[:cnt], out_w[:cnt], new_self


@njit
def _node_weights(adj_off, adj_w, self_w):
    N = adj_off.shape[0] - 1
    out = np.empty(N, np.float64)
    for i in range(N):
        s = self_w[i]
        for p in range(adj_off[i], adj_off[i + 1]):
            s += adj_w[p]
        out[i] = s
    return out


def bipartite_graph(hg: Hypergraph, cfg: CommunityConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR (offsets, neighbours, weights) of the star expansion; nodes ``n + e`` stand for the nets."""
    n, m = hg.num_vertices, hg.num_nets
    sizes = hg.net_sizes
    mode = cfg.edge_weight
    if mode == "hybrid":
        mode = "degree" if (m / max(n, 1)) < 0.75 else "uniform"
    keep = (sizes >= 2) & (sizes <= cfg.max_net_size)
    net_of_pin = np.repeat(np.arange(m), sizes)
    sel = keep[net_of_pin]
    v = hg.pins[sel]
    e = net_of_pin[sel]
    w = hg.net_weights[e].astype(np.float64)
    if mode == "non_uniform":
        w = w / sizes[e]
    elif mode == "degree":
        w = w * hg.degrees[v] / sizes[e]
    src = np.concatenate([v, n + e])
    dst = np.concatenate([n + e, v])
    ww = np.concatenate([w, w])
    order = np.argsort(src, kind="stable")
    off = np.zeros(n + m + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n + m), out=off[1:])
    return off, np.ascontiguousarray(dst[order], dtype=np.int64), np.ascontiguousarray(ww[order])


def louvain_levels(off: np.ndarray, adj: np.ndarray, w: np.ndarray, cfg: CommunityConfig,
                   rng: np.random.Generator) -> np.ndarray:
    """Multi-level Louvain on a CSR graph; the final community of every node."""
    N = off.size - 1
    labels = np.arange(N, dtype=np.int64)
    self_w = np.zeros(N, dtype=np.float64)
    while True:
        node_w = _node_weights(off, w, self_w)
        comm, moved = _local_moving(off, adj, w, node_w, self_w, cfg.max_passes, cfg.min_improvement,
                                    int(rng.integers(0, 2**31 - 1)))
        if not moved:
            break
        label, off, adj, w, self_w = _aggregate(off, adj, w, self_w, comm)
        labels = label[labels]
        if off.size - 1 == label.size:
            break
    return labels


def modularity(off: np.ndarray, adj: np.ndarray, w: np.ndarray, labels: np.ndarray) -> float:
    """Newman modularity of ``labels`` on a CSR graph without self-loops."""
    deg = np.add.reduceat(w, off[:-1]) if w.size else np.zeros(off.size - 1)
    deg[np.diff(off) == 0] = 0.0
    m2 = deg.sum()
    if m2 == 0:
        return 0.0
    src = np.repeat(np.arange(off.size - 1), np.diff(off))
    inner = w[labels[src] == labels[adj]].sum()
    tot = np.bincount(labels, weights=deg)
    return float(inner / m2 - np.sum((tot / m2) ** 2))


@COMMUNITIES.register("none")
def no_communities(hg: Hypergraph, cfg: CommunityConfig, rng: np.random.Generator) -> np.ndarray:
    """Every vertex in community 0."""
    return np.zeros(hg.num_vertices, dtype=np.int64)


@COMMUNITIES.register("louvain")
def louvain(hg: Hypergraph, cfg: CommunityConfig, rng: np.random.Generator) -> np.ndarray:
    """Louvain communities of the vertices, numbered 0, 1, …"""
    off, adj, w = bipartite_graph(hg, cfg)
    labels = louvain_levels(off, adj, w, cfg, rng)[: hg.num_vertices]
    _, dense = np.unique(labels, return_inverse=True)
    return dense.astype(np.int64)
