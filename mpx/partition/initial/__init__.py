"""Initial partitioning phase: a k-way partition of the coarsest hypergraph (KaHyPar ``initial_partitioning``).

Interface: an initial partitioner is ``fn(hg, constraints, ctx, rng, communities) -> (blocks, report)``.
Registered policies: ``recursive_bisection`` (default; every bisection multilevel with a flat portfolio
at its bottom, as KaHyPar's ``i-mode=recursive``), ``pool`` (the flat portfolio run directly k-way) and
``none`` (first fit in vertex order, no optimisation). The flat algorithms of the portfolio are in `POOL`.
"""

from __future__ import annotations

from mpx.partition.initial.pool import POOL, INITIAL, run_pool  # noqa: F401  (registers pool and none)
from mpx.partition.initial import recursive_bisection  # noqa: F401  (registers recursive_bisection)

__all__ = ["INITIAL", "POOL", "run_pool"]
