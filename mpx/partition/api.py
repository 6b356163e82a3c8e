"""The entry point: `partition` a hypergraph into k blocks minimising km1 under balance or per-block caps."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mpx.errors import ConfigError
from mpx.partition.context import Constraints, Context, InitialConfig, build_constraints
from mpx.partition.hypergraph import Hypergraph, block_weights, cut, imbalance, km1
from mpx.partition.initial.pool import run_pool
from mpx.partition.multilevel import multilevel
from mpx.partition.recursive_bisection import recursive_bisection  # noqa: F401  (registers the initial policy)
from mpx.partition.refinement import PartitionState, refine


@dataclass
class PartitionResult:
    """A partition and how it was obtained.

    ``blocks[v]`` is the block of vertex v. ``km1``, ``cut``, ``imbalance`` and ``block_weights`` are
    recomputed from ``blocks`` with the plain objective functions (not taken from the gain cache).
    ``phases`` reports every phase: communities, coarsening levels, the initial partitioning (which
    algorithm won, how many runs), km1 before/after refinement on each level, V-cycles, the final check.
    """

    blocks: np.ndarray
    k: int
    km1: int
    cut: int
    imbalance: float
    block_weights: np.ndarray
    max_block_weights: np.ndarray
    seconds: float
    seed: int
    phases: dict = field(repr=False)
    context: Context = field(repr=False)

    def groups(self) -> list[list[int]]:
        """The vertices of every block, in block order."""
        order = np.argsort(self.blocks, kind="stable")
        bounds = np.searchsorted(self.blocks[order], np.arange(self.k + 1))
        return [order[bounds[b]: bounds[b + 1]].tolist() for b in range(self.k)]

    def summary(self) -> str:
        return (f"k={self.k} km1={self.km1} cut={self.cut} imbalance={self.imbalance:.4f} "
                f"max block {int(self.block_weights.max()) if self.k else 0}/"
                f"{int(self.max_block_weights.max()) if self.k else 0} seconds={self.seconds:.3f}")

    def to_dict(self, include_blocks: bool = False) -> dict:
        """JSON-ready form (the blocks only when asked: they can be long)."""
        d = {"k": self.k, "km1": self.km1, "cut": self.cut, "imbalance": self.imbalance,
             "block_weights": self.block_weights.tolist(), "max_block_weights": self.max_block_weights.tolist(),
             "seconds": self.seconds, "seed": self.seed, "phases": self.phases, "context": self.context.to_dict()}
        if include_blocks:
            d["blocks"] = self.blocks.tolist()
        return d


def partition(
    hypergraph: Hypergraph,
    k: int,
    epsilon: float = 0.03,
    seed: int = 0,
    max_block_weights: list[int] | np.ndarray | None = None,
    fixed: list[int] | np.ndarray | None = None,
    context: Context | None = None,
    on_phase: Callable[[str], object] | None = None,
) -> PartitionResult:
    """Partition ``hypergraph`` into ``k`` blocks minimising km1 = Σ ω(e)(λ(e) − 1).

    Balance: every block weighs at most ⌊(1 + ε)⌈c(V)/k⌉⌋, or at most ``max_block_weights[b]`` when that
    is given (then ε is not used). ``fixed[v]`` pins vertex v to a block (−1 = free). ``context`` chooses
    the phase policies and their parameters; the arguments k, ε, seed and caps override its own fields.
    Deterministic for a given seed. ``k`` above the number of vertices is refused before any work (k = 1
    is always allowed, also for an empty hypergraph). An infeasible request (caps summing below c(V), a vertex heavier than
    every cap, fixed vertices overfilling their block, or caps no partition found can respect) raises
    `ConfigError`; a returned partition never exceeds a cap. ``on_phase(name)`` is called as each phase
    of each cycle starts (``"coarsening"``, ``"initial partitioning"``, ``"refinement level 3"``, ...: what
    ``mpx partition`` shows in its progress bar).
    """
    t0 = time.perf_counter()
    if not isinstance(hypergraph, Hypergraph):
        raise ConfigError(f"partition() needs a Hypergraph, got {type(hypergraph).__name__}")
    base = context if context is not None else Context()
    if not isinstance(base, Context):
        raise ConfigError(f"context must be a mpx.partition.Context, got {type(base).__name__}")
    hg = hypergraph
    if not isinstance(k, bool) and isinstance(k, (int, np.integer)) and k > max(1, hg.num_vertices):
        raise ConfigError(f"k = {k} blocks is more than the {hg.num_vertices} vertices of the hypergraph: "
                          "some blocks would stay empty; give k <= the number of vertices")
    ctx = base.replace(k=k, epsilon=epsilon, seed=seed, max_block_weights=None)
    ctx.validate()
    constraints = build_constraints(hg.total_weight, hg.vertex_weights, k, epsilon, max_block_weights, fixed)
    if max_block_weights is not None:
        ctx = ctx.replace(max_block_weights=tuple(int(x) for x in constraints.max_block_weights))
    rng = np.random.default_rng(seed)
    phases: dict = {}
    if hg.num_vertices == 0 or k == 1:
        part = np.zeros(hg.num_vertices, dtype=np.int64)
    else:
        part, phases = multilevel(hg, constraints, ctx, rng, on_phase=on_phase)
        if ctx.repetitions > 1:
            caps = constraints.max_block_weights
            feasible = lambda p: bool(np.all(block_weights(hg, p, k) <= caps))  # noqa: E731
            best_q = (not feasible(part), km1(hg, part, k))
            reps = [{"km1": best_q[1], "feasible": not best_q[0]}]
            for _ in range(ctx.repetitions - 1):
                cand, rep = multilevel(hg, constraints, ctx, rng, on_phase=on_phase)
                q = (not feasible(cand), km1(hg, cand, k))
                reps.append({"km1": q[1], "feasible": not q[0]})
                if q < best_q:
                    part, phases, best_q = cand, rep, q
            phases["repetitions"] = reps
        if ctx.vcycles:
            phases["vcycles"] = []
            best = km1(hg, part, k)
            for _ in range(ctx.vcycles):
                t = time.perf_counter()
                cand, rep = multilevel(hg, constraints, ctx, rng, start=part, on_phase=on_phase)
                q = km1(hg, cand, k)
                ok = bool(np.all(block_weights(hg, cand, k) <= constraints.max_block_weights))
                kept = ok and q <= best
                if kept:
                    part, best = cand, q
                phases["vcycles"].append({"km1": q, "kept": kept, "seconds": time.perf_counter() - t})
    part = _ensure_feasible(hg, part, constraints, ctx, rng, phases)
    if not np.array_equal(part[constraints.fixed >= 0], constraints.fixed[constraints.fixed >= 0]):
        raise RuntimeError("internal error: a fixed vertex left its block")  # a bug, not a user error
    bw = block_weights(hg, part, k)
    return PartitionResult(blocks=part, k=int(k), km1=km1(hg, part, k), cut=cut(hg, part, k),
                           imbalance=imbalance(hg, part, k), block_weights=bw,
                           max_block_weights=np.array(constraints.max_block_weights), seconds=time.perf_counter() - t0,
                           seed=int(seed), phases=phases, context=ctx)


def _ensure_feasible(hg: Hypergraph, part: np.ndarray, constraints: Constraints, ctx: Context,
                     rng: np.random.Generator, phases: dict) -> np.ndarray:
    """Return ``part`` when it respects every cap; otherwise repair it, or raise `ConfigError`.

    Repair: rebalancing moves, then a flat bin-packing/random portfolio with FM on the whole hypergraph.
    Only when that fails too is the request declared infeasible (bin packing is NP-hard, so "failed to
    find" is all that can be said).
    """
    bw = block_weights(hg, part, constraints.k)
    if np.all(bw <= constraints.max_block_weights):
        return part
    state = PartitionState(hg, part, constraints)
    _, ok = state.rebalance()
    if ok:
        refine(state, ctx.refinement, rng)
        phases["final"] = {"repair": "rebalance", "km1": state.km1()}
        return state.part
    flat = ctx.replace(initial=InitialConfig(algorithm="pool", pool=("bin_packing", "random"), runs=8,
                                             refinement=ctx.refinement))
    cand, rep = run_pool(hg, constraints, flat, rng)
    if rep["overload"] == 0:
        phases["final"] = {"repair": "flat bin packing", **rep}
        return cand
    over = block_weights(hg, cand, constraints.k) - constraints.max_block_weights
    b = int(np.argmax(over))
    raise ConfigError(f"infeasible: found no partition within the block caps (best attempt overfills block {b} "
                      f"by {int(over[b])}; caps {constraints.max_block_weights.tolist()[:8]}"
                      f"{'…' if constraints.k > 8 else ''}, vertex weights up to {int(hg.vertex_weights.max())})")
