"""Pairwise swap refinement for km1: exchange two vertices of different blocks when that lowers km1.

Under tight caps (event grouping: every group full, C·k = n) no single move is feasible, and FM reaches
swaps only through an overload-then-repair pair whose first half must look good on its own. This refiner
evaluates swaps directly, as the classic Kernighan–Lin exchange does (Kernighan & Lin, "An efficient
heuristic procedure for partitioning graphs", Bell Syst. Tech. J. 1970), but greedily (first the best swap
partner of each vertex, applied at once when it gains): for u in block A and v in block B,

    gain(u ↔ v) = g(u → B) + g(v → A) − Σ_{e ∋ u, v} ω(e)·([Φ(e, A) = 1] + [Φ(e, B) = 1]),

from the km1 gain cache (a net holding both keeps its pin counts in A and B, so it contributes nothing;
the two single-move gains each counted it once when u or v was alone on its side). Partners are the
vertices of blocks adjacent to u (inc[u, B] > 0); plain moves into blocks with room are taken too when
they gain. Passes repeat while they improve, at most ``fm_max_passes``. Never exceeds a cap, never moves a
fixed vertex.
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit
from mpx.partition._kernels import build_members, do_move, members_move


@njit
def swap_kernel(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit, inc, total,
                max_passes, seed):
    """Greedy swap passes in place; returns (km1 improvement, swaps + moves applied, passes run)."""
    if seed >= 0:
        np.random.seed(seed)
    n = part.shape[0]
    m = net_off.shape[0] - 1
    head, nxt, prv = build_members(k, part)
    mark = np.zeros(m, np.int64)
    tok = 0
    dummy = np.zeros(1, np.int64)
    gain_sum = 0
    applied = 0
    passes = 0
    for _ in range(max_passes):
        passes += 1
        improved = 0
        perm = np.random.permutation(n)
        for i in range(n):
            u = perm[i]
            if not movable[u]:
                continue
            a = part[u]
            tok += 1
            for q in range(v_off[u], v_off[u + 1]):
                mark[v_nets[q]] = tok
            base_u = benefit[u] - total[u]
            best = 0
            bv = -1
            bb = -1
            for b in range(k):
                if b == a or inc[u * k + b] == 0:
                    continue
                gu = base_u + inc[u * k + b]
                if blockw[b] + vw[u] <= maxw[b] and gu > best:
                    best = gu
                    bv = -1
                    bb = b
                v = head[b]
                while v >= 0:
                    if movable[v] and blockw[a] - vw[u] + vw[v] <= maxw[a] and blockw[b] - vw[v] + vw[u] <= maxw[b]:
                        g = gu + benefit[v] - total[v] + inc[v * k + a]
                        for q in range(v_off[v], v_off[v + 1]):
                            e = v_nets[q]
                            if mark[e] == tok:
                                if phi[e * k + a] == 1:
                                    g -= nw[e]
                                if phi[e * k + b] == 1:
                                    g -= nw[e]
                        if g > best:
                            best = g
                            bv = v
                            bb = b
                    v = nxt[v]
            if bb < 0:
                continue
            do_move(u, a, bb, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
                    dummy, -1, dummy, 0)
            members_move(u, a, bb, head, nxt, prv)
            if bv >= 0:
                do_move(bv, bb, a, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
                        dummy, -1, dummy, 0)
                members_move(bv, bb, a, head, nxt, prv)
            gain_sum += best
            improved += best
            applied += 1
        if improved <= 0:
            break
    return gain_sum, applied, passes
