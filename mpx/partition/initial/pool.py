"""The flat portfolio: every algorithm `runs` times, each result repaired and refined, best feasible kept.

KaHyPar's pool initial partitioner (``i-algo=pool``): the candidates are compared by feasibility first
(least total overload), then km1, then the weight of the heaviest block relative to its cap.
"""

from __future__ import annotations

import math

import numpy as np

from mpx.util.jit import njit
from mpx.partition._kernels import init_state, km1_of, rebalance
from mpx.partition.context import Constraints, Context, InitialConfig
from mpx.partition.hypergraph import Hypergraph
from mpx.partition.initial.flat import (ip_bfs, ip_bin_packing, ip_first_fit, ip_greedy_growing,
                                        ip_label_propagation, ip_random)
from mpx.partition.refinement import PartitionState, refine
from mpx.partition.refinement.fm import fm_kernel
from mpx.partition.refinement.label_propagation import lp_kernel
from mpx.partition.registry import PhasePolicies

INITIAL = PhasePolicies("initial partitioning")
POOL = PhasePolicies("initial pool")
POOL.register("greedy_growing")(ip_greedy_growing)
POOL.register("bfs")(ip_bfs)
POOL.register("label_propagation")(ip_label_propagation)
POOL.register("random")(ip_random)
POOL.register("bin_packing")(ip_bin_packing)


#: built-in pool algorithms and refiners the compiled portfolio loop can dispatch to by index
_FAST_ALGOS = ("greedy_growing", "bfs", "label_propagation", "random", "bin_packing")
_FAST_REFINERS = ("none", "label_propagation", "fm")


@njit
def pool_kernel(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, algos, refiners, runs, fm_passes,
                fm_adaptive, fm_alpha, fm_fruitless, fm_overload, lp_rounds, seed):
    """The whole portfolio in one compiled loop (no Python overhead per run, which dominates on the
    many tiny bisections of event-grouping instances). Returns (best blocks, overload, km1, winner, runs)."""
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    movable = np.empty(n, np.bool_)
    for v in range(n):
        movable[v] = fixed[v] < 0
    best = np.zeros(n, np.int64)
    b_over = -1
    b_km1 = 0
    b_ratio = 0.0
    b_algo = -1
    count = 0
    # -1: one seeded stream for the whole portfolio. Typed int64, not the literal -1: a literal argument
    # compiles a second specialisation of each callee beside the int64 one Python calls (fm_kernel: ~45 s)
    s = np.int64(-1)
    for _ in range(runs):
        for a in range(algos.shape[0]):
            code = algos[a]
            if code == 0:
                part = ip_greedy_growing(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, s)
            elif code == 1:
                part = ip_bfs(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, s)
            elif code == 2:
                part = ip_label_propagation(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, s)
            elif code == 3:
                part = ip_random(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, s)
            else:
                part = ip_bin_packing(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, s)
            phi, blockw, benefit, inc, total = init_state(k, net_off, pins, v_off, v_nets, nw, vw, part)
            over = 0
            for b in range(k):
                if blockw[b] > maxw[b]:
                    over += 1
            if over > 0:
                rebalance(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit,
                          inc, total)
            for r in range(refiners.shape[0]):
                if refiners[r] == 1:
                    lp_kernel(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit,
                              inc, total, lp_rounds, s)
                elif refiners[r] == 2:
                    fm_kernel(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit,
                              inc, total, fm_passes, fm_adaptive, fm_alpha, fm_fruitless, fm_overload, s)
            over = 0
            ratio = 0.0
            for b in range(k):
                if blockw[b] > maxw[b]:
                    over += blockw[b] - maxw[b]
                x = blockw[b] / max(maxw[b], 1)
                if x > ratio:
                    ratio = x
            q = km1_of(k, nw, phi)
            count += 1
            if (b_over < 0 or over < b_over or (over == b_over and (q < b_km1 or (q == b_km1 and ratio < b_ratio)))):
                best[:] = part
                b_over = over
                b_km1 = q
                b_ratio = ratio
                b_algo = code
    return best, b_over, b_km1, b_algo, count


def kernel_args(hg: Hypergraph, constraints: Constraints) -> tuple:
    """The flat initial partitioners' leading arguments (k, the hypergraph's CSR arrays, caps, fixed
    blocks): every algorithm of `POOL` is ``fn(*kernel_args(hg, constraints), seed)``."""
    noff, pins, voff, vnets, vw, nw = hg.arrays()
    return (constraints.k, noff, pins, voff, vnets, nw, vw,
            np.array(constraints.max_block_weights, dtype=np.int64), np.array(constraints.fixed, dtype=np.int64))


def quality_key(state: PartitionState) -> tuple:
    """Sort key of a candidate partition: (total overload, km1, heaviest block / its cap)."""
    over = int(np.maximum(state.blockw - state.maxw, 0).sum())
    ratio = float(np.max(state.blockw / np.maximum(state.maxw, 1))) if state.k else 0.0
    return (over, state.km1(), ratio)


def pool_runs(cfg: InitialConfig, n: int) -> int:
    """Runs per algorithm on ``n`` vertices: ``cfg.runs``, scaled down in proportion below
    ``cfg.full_runs_size`` vertices but never below ``cfg.min_runs`` — tiny sub-problems of recursive
    bisection (16 events into 2 groups) find the same optimum in a few runs."""
    if cfg.full_runs_size <= 0 or n >= cfg.full_runs_size:
        return int(cfg.runs)
    return int(max(cfg.min_runs, min(cfg.runs, math.ceil(cfg.runs * n / cfg.full_runs_size))))


def run_pool(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Run the portfolio of ``ctx.initial``; the best partition and a report (winner, its km1, runs)."""
    cfg = ctx.initial
    algos = [(name, POOL.get(name, "initial.pool")) for name in cfg.pool]
    rcfg = cfg.refinement
    nruns = pool_runs(cfg, hg.num_vertices)
    if all(name in _FAST_ALGOS for name in cfg.pool) and all(name in _FAST_REFINERS for name in rcfg.algorithms):
        part, over, q, code, runs = pool_kernel(
            *kernel_args(hg, constraints), np.array([_FAST_ALGOS.index(a) for a in cfg.pool], dtype=np.int64),
            np.array([_FAST_REFINERS.index(r) for r in rcfg.algorithms], dtype=np.int64), nruns,
            int(rcfg.fm_max_passes), rcfg.fm_stop == "adaptive", float(rcfg.fm_alpha), int(rcfg.fm_max_fruitless),
            bool(rcfg.fm_allow_overload), int(rcfg.lp_max_rounds), int(rng.integers(0, 2**31 - 1)))
        return part, {"algorithm": "pool", "runs": int(runs), "best": _FAST_ALGOS[code], "km1": int(q),
                      "overload": int(over)}
    args = kernel_args(hg, constraints)
    best_key, best_part, best_name = None, None, None
    runs = 0
    for _ in range(nruns):
        for name, algo in algos:
            part = algo(*args, int(rng.integers(0, 2**31 - 1)))
            state = PartitionState(hg, part, constraints)
            state.rebalance()
            refine(state, cfg.refinement, rng, key="initial.refinement")
            key = quality_key(state)
            runs += 1
            if best_key is None or key < best_key:
                best_key, best_part, best_name = key, state.part.copy(), name
    return best_part, {"algorithm": "pool", "runs": runs, "best": best_name, "km1": best_key[1],
                       "overload": best_key[0]}


@INITIAL.register("pool")
def pool(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator,
         communities: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """The flat portfolio, directly k-way."""
    return run_pool(hg, constraints, ctx, rng)


@INITIAL.register("none")
def first_fit(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator,
              communities: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """First fit in vertex order: a feasible-as-possible start without any optimisation."""
    return ip_first_fit(*kernel_args(hg, constraints), 0), {"algorithm": "none"}


@INITIAL.register("portfolio")
def portfolio(hg: Hypergraph, constraints: Constraints, ctx: Context, rng: np.random.Generator,
              communities: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """Recursive bisection and, on hypergraphs of at most ``initial.direct_max_vertices`` vertices, also the
    flat portfolio directly k-way; the better partition (feasibility first, then km1) is kept.

    Recursive bisection fixes each split before seeing the next, which on small inputs — an event hypergraph
    never gets coarsened — misses optima a direct k-way start finds (measured on brute-forced instances:
    see tests/partition/test_api.py); on large ones it is the stronger of the two.
    """
    part, info = INITIAL.get("recursive_bisection", "initial.algorithm")(hg, constraints, ctx, rng, communities)
    if hg.num_vertices > ctx.initial.direct_max_vertices:
        return part, {**info, "algorithm": "portfolio", "winner": "recursive_bisection"}
    direct, dinfo = run_pool(hg, constraints, ctx, rng)
    cand = [(quality_key(PartitionState(hg, p, constraints)), i, p) for i, p in enumerate((part, direct))]
    best = min(cand, key=lambda c: (c[0], c[1]))
    return best[2], {"algorithm": "portfolio", "winner": ("recursive_bisection", "pool")[best[1]],
                     "recursive_bisection": info, "pool": dinfo}
