"""Initial partitioning phase: a k-way partition of the coarsest hypergraph (KaHyPar ``initial_partitioning``).

Interface: an initial partitioner is ``fn(hg, constraints, ctx, rng, communities) -> (blocks, report)``.
Registered policies: ``pool`` (the flat portfolio run directly k-way), ``none`` (first fit in vertex
order, no optimisation), ``portfolio`` (the better of recursive bisection and pool) and
``recursive_bisection`` — every bisection multilevel with a flat portfolio at its bottom, as KaHyPar's
``i-mode=recursive``; it is registered by `mpx.partition.recursive_bisection`, beside the multilevel
driver it calls (imported with `mpx.partition`). The flat algorithms of the portfolio are in `POOL`.
"""

from __future__ import annotations

from mpx.partition.initial.pool import INITIAL, POOL, run_pool  # registers pool, none and portfolio

__all__ = ["INITIAL", "POOL", "run_pool"]
