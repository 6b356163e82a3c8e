"""Refinement phase: local search on a k-way partition of one level (KaHyPar ``partition/refinement``).

Interface: a refiner is ``fn(state: PartitionState, cfg: RefinementConfig, rng) -> dict`` that improves
``state`` in place (never exceeding a block's maximum weight, never moving a fixed vertex) and returns what
it did. Registered policies: ``fm`` (k-way FM for km1), ``label_propagation``, ``swap`` (pairwise exchanges, for
tight caps), ``none`` (do nothing).
`refine` runs ``cfg.algorithms`` in order on one shared gain cache.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from mpx.partition._kernels import init_state, km1_of, rebalance
from mpx.partition.context import Constraints, RefinementConfig
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.refinement.fm import fm_kernel
from mpx.partition.refinement.label_propagation import lp_kernel
from mpx.partition.refinement.swap import swap_kernel
from mpx.partition.registry import PhasePolicies

REFINERS = PhasePolicies("refinement")


class PartitionState:
    """A k-way partition of ``hg`` with Φ(e, b), block weights and the km1 gain cache, kept exact by moves."""

    def __init__(self, hg: Hypergraph, part: np.ndarray, constraints: Constraints) -> None:
        self.hg = hg
        self.k = constraints.k
        self.part = np.array(part, dtype=np.int64)
        self.maxw = np.array(constraints.max_block_weights, dtype=np.int64)
        self.movable = np.ascontiguousarray(constraints.fixed < 0)
        noff, pins, voff, vnets, vw, nw = hg.arrays()
        self.phi, self.blockw, self.benefit, self.inc, self.total = init_state(
            self.k, noff, pins, voff, vnets, nw, vw, self.part)

    def kernel_args(self) -> tuple:
        """Arguments shared by the refinement kernels, in their order."""
        noff, pins, voff, vnets, vw, nw = self.hg.arrays()
        return (self.k, noff, pins, voff, vnets, nw, vw, self.part, self.maxw, self.movable, self.phi,
                self.blockw, self.benefit, self.inc, self.total)

    def km1(self) -> int:
        return int(km1_of(self.k, self.hg.net_weights, self.phi))

    def feasible(self) -> bool:
        return bool(np.all(self.blockw <= self.maxw))

    def rebalance(self) -> tuple[int, bool]:
        """Repair overloaded blocks by best-gain moves into blocks with room; (km1 gain, now feasible)."""
        if self.feasible():
            return 0, True
        gain, ok = rebalance(*self.kernel_args())
        return int(gain), bool(ok)


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


@REFINERS.register("none")
def no_refinement(state: PartitionState, cfg: RefinementConfig, rng: np.random.Generator) -> dict:
    """Leave the partition as it is."""
    return {"algorithm": "none"}


@REFINERS.register("fm")
def fm_refinement(state: PartitionState, cfg: RefinementConfig, rng: np.random.Generator) -> dict:
    """k-way FM for km1 (see `mpx.partition.refinement.fm`)."""
    gain, moves, passes = fm_kernel(*state.kernel_args(), cfg.fm_max_passes, cfg.fm_stop == "adaptive",
                                    float(cfg.fm_alpha), cfg.fm_max_fruitless, bool(cfg.fm_allow_overload),
                                    _seed(rng))
    return {"algorithm": "fm", "improvement": int(gain), "moves": int(moves), "passes": int(passes)}


@REFINERS.register("label_propagation")
def lp_refinement(state: PartitionState, cfg: RefinementConfig, rng: np.random.Generator) -> dict:
    """Label propagation for km1 (see `mpx.partition.refinement.label_propagation`)."""
    gain, moves, rounds = lp_kernel(*state.kernel_args(), cfg.lp_max_rounds, _seed(rng))
    return {"algorithm": "label_propagation", "improvement": int(gain), "moves": int(moves), "rounds": int(rounds)}


@REFINERS.register("swap")
def swap_refinement(state: PartitionState, cfg: RefinementConfig, rng: np.random.Generator) -> dict:
    """Greedy pairwise swaps for km1 (see `mpx.partition.refinement.swap`)."""
    gain, applied, passes = swap_kernel(*state.kernel_args(), cfg.fm_max_passes, _seed(rng))
    return {"algorithm": "swap", "improvement": int(gain), "moves": int(applied), "passes": int(passes)}


def refine(state: PartitionState, cfg: RefinementConfig, rng: np.random.Generator, key: str = "refinement") -> list[dict]:
    """Run every refiner of ``cfg.algorithms`` in order; returns their reports."""
    fns: list[Callable] = [REFINERS.get(name, f"{key}.algorithms") for name in cfg.algorithms]
    return [fn(state, cfg, rng) for fn in fns]
