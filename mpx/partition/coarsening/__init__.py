"""Coarsening phase: a hierarchy of ever smaller hypergraphs (KaHyPar ``partition/coarsening``).

Interface: a coarsener is ``fn(hg, constraints, cfg, communities, rng) -> list[Level]``, finest first;
each `Level` holds the coarse hypergraph, the map from the vertices of the level above to it, and the coarse
fixed-vertex and community labels. Contraction keeps the total vertex weight and maps every fine pin to a
coarse pin, and km1 of a coarse partition equals km1 of its projection. Registered policies: ``ml_style``
(heavy-edge clustering) and ``none`` (no levels: the flat hypergraph goes straight to initial partitioning).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mpx.partition.coarsening.contraction import contract_kernel
from mpx.partition.coarsening.ml_style import cluster_pass
from mpx.partition.context import CoarseningConfig, Constraints
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.registry import PhasePolicies

COARSENERS = PhasePolicies("coarsening")


@dataclass
class Level:
    """One coarsening step: ``hypergraph`` is the coarse one, ``mapping[v]`` the coarse vertex of fine v."""

    hypergraph: Hypergraph
    mapping: np.ndarray
    fixed: np.ndarray
    communities: np.ndarray


def contraction_limit(cfg: CoarseningConfig, k: int) -> int:
    """t·k: coarsening stops at this many vertices."""
    return int(cfg.contraction_limit_multiplier) * int(k)


def max_coarse_weight(hg: Hypergraph, constraints: Constraints, cfg: CoarseningConfig) -> int:
    """KaHyPar's ⌈s·c(V)/(t·k)⌉, also bounded by the smallest positive cap so any coarse vertex fits a block."""
    limit = contraction_limit(cfg, constraints.k)
    w = math.ceil(cfg.max_vertex_weight_multiplier * hg.total_weight / max(limit, 1))
    caps = constraints.max_block_weights[constraints.max_block_weights > 0]
    if caps.size:
        w = min(w, int(caps.min()))
    return max(int(w), 1)


def contract(hg: Hypergraph, rep: np.ndarray) -> tuple[Hypergraph, np.ndarray]:
    """The coarse hypergraph of the clustering ``rep`` (representative per vertex) and the vertex map."""
    mapping, off, pins, nw, vw = contract_kernel(hg.net_offsets, hg.pins, hg.net_weights, hg.vertex_weights,
                                                 np.ascontiguousarray(rep, dtype=np.int64))
    return Hypergraph(vw.size, off, pins, vw, nw, validate=False), mapping


@COARSENERS.register("none")
def no_coarsening(hg: Hypergraph, constraints: Constraints, cfg: CoarseningConfig, communities: np.ndarray,
                  rng: np.random.Generator) -> list[Level]:
    """No hierarchy."""
    return []


@COARSENERS.register("ml_style")
def ml_style(hg: Hypergraph, constraints: Constraints, cfg: CoarseningConfig, communities: np.ndarray,
             rng: np.random.Generator) -> list[Level]:
    """Heavy-edge clustering passes until t·k vertices or a level shrinks less than ``min_shrink``."""
    limit = contraction_limit(cfg, constraints.k)
    max_w = max_coarse_weight(hg, constraints, cfg)
    levels: list[Level] = []
    cur, fixed = hg, np.array(constraints.fixed, dtype=np.int64)
    comm = np.array(communities if cfg.use_communities else np.zeros(hg.num_vertices), dtype=np.int64)
    while cur.num_vertices > limit:
        n = cur.num_vertices
        target = max(limit, int(math.ceil(n / cfg.max_shrink)))
        rep = cluster_pass(*_rating_args(cur), comm, fixed, max_w, cfg.max_net_size,
                           cfg.heavy_node_penalty == "multiplicative", target, int(rng.integers(0, 2**31 - 1)))
        coarse, mapping = contract(cur, rep)
        if coarse.num_vertices == n:
            break
        c_fixed = np.full(coarse.num_vertices, -1, dtype=np.int64)
        np.maximum.at(c_fixed, mapping, fixed)
        c_comm = np.zeros(coarse.num_vertices, dtype=np.int64)
        c_comm[mapping] = comm
        levels.append(Level(coarse, mapping, c_fixed, c_comm))
        cur, fixed, comm = coarse, c_fixed, c_comm
        if n / coarse.num_vertices < cfg.min_shrink:
            break
    return levels


def _rating_args(hg: Hypergraph) -> tuple:
    noff, pins, voff, vnets, vw, nw = hg.arrays()
    return noff, pins, voff, vnets, nw, vw
