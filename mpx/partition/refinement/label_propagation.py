"""Label-propagation refinement for km1: cheap greedy moves before FM (Mt-KaHyPar's LP refiner).

Each round visits the active vertices in random order and moves a vertex to its best adjacent block with
room when the km1 gain is positive, or zero while making the blocks more even. The first round activates
every vertex; later rounds only those whose gain-cache entries a move changed. Every move is applied to the
exact gain cache, so the reported improvement is the true km1 decrease and no move ever exceeds a cap.
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit
from mpx.partition._kernels import best_target, do_move


@njit
def lp_kernel(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit, inc, total,
              max_rounds, seed):
    """Run label propagation in place; returns (km1 improvement, moves, rounds)."""
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = part.shape[0]
    active = movable.copy()
    next_active = np.zeros(n, np.bool_)
    stamp = np.zeros(n, np.int64)
    affected = np.empty(n, np.int64)
    stamp_val = 0
    gain_sum = 0
    moves = 0
    rounds = 0
    for _ in range(max_rounds):
        rounds += 1
        moved = 0
        perm = np.random.permutation(n)
        for i in range(n):
            v = perm[i]
            if not active[v]:
                continue
            b, g = best_target(v, k, part, vw, blockw, maxw, benefit, inc, total, True)
            if b < 0:
                continue
            a = part[v]
            if g > 0 or (g == 0 and blockw[b] + vw[v] < blockw[a]):
                stamp_val += 1
                n_aff = do_move(v, a, b, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit,
                                inc, stamp, stamp_val, affected, 0)
                gain_sum += g
                moved += 1
                for j in range(n_aff):
                    u = affected[j]
                    if movable[u]:
                        next_active[u] = True
        moves += moved
        if moved == 0:
            break
        active[:] = next_active
        next_active[:] = False
    return gain_sum, moves, rounds
