"""Multilevel hypergraph partitioning for km1 (connectivity − 1), in the style of KaHyPar.

    from mpx.partition import Hypergraph, partition, read_hmetis
    hg = read_hmetis("ISPD98_ibm01.hgr")
    res = partition(hg, k=8, epsilon=0.03, seed=0)      # or max_block_weights=[C] * k, fixed=[...]
    res.km1, res.imbalance, res.blocks, res.phases

Phases (each a module or package with a small interface, a do-nothing policy and a registry, selected by
name from one `Context`): `community` (Louvain), `coarsening` (heavy-edge ``ml_style``), `initial`
(recursive bisection over a portfolio: greedy growing, BFS, label propagation, random, bin packing),
`refinement` (label propagation, k-way FM with gain cache, pairwise swaps for tight caps). `multilevel` wires
them; `api.partition` validates the request, runs ``repetitions`` cycles and ``vcycles`` V-cycles, and
guarantees the caps. `mpx.grouping.partitioned` builds event groups on top. See ``experiments/analyses/partition_quality.py`` for
measured quality.
"""

from __future__ import annotations

from mpx.partition.api import PartitionResult, partition
from mpx.partition.context import (CoarseningConfig, CommunityConfig, Constraints, Context, InitialConfig,
                                   RefinementConfig, build_constraints, max_block_weight)
from mpx.partition.hmetis import read_hmetis, write_hmetis
from mpx.partition.hypergraph import Hypergraph, block_weights, connectivity, cut, imbalance, km1

__all__ = [
    "Hypergraph", "read_hmetis", "write_hmetis", "partition", "PartitionResult", "Context", "CommunityConfig",
    "CoarseningConfig", "InitialConfig", "RefinementConfig", "Constraints", "build_constraints",
    "max_block_weight", "km1", "cut", "imbalance", "block_weights", "connectivity",
]
