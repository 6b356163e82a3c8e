"""k-way Fiduccia–Mattheyses refinement for km1 with a gain cache, best-prefix rollback and adaptive stopping.

A pass (Fiduccia & Mattheyses 1982; k-way km1 variant of KaHyPar, Akhremtsev, Heuer, Sanders, Schlag,
ALENEX 2017) starts from the border vertices in a max-heap keyed by their best km1 gain to an adjacent
block, moves the top vertex, locks it, updates the gains of the vertices whose gain-cache entries changed,
and finally rolls back to the best prefix (largest cumulative gain; ties: the lighter heaviest block).
Passes repeat while they improve. Stopping inside a pass: KaHyPar's adaptive random-walk rule
(``fm_stop_policy.h``: stop after p > β = ln n steps without improvement once p ≥ σ²/μ² · (α/2 − 1/4))
or a fixed number of fruitless moves.

Balance: a move must keep its target block within its maximum weight, with one exception when
``allow_overload`` is set: the top vertex may overload its target, after which the next move is forced to be
the best move out of that block into a block with room, so the pair acts as a swap. Only prefixes without
an overloaded block count as candidates for the best prefix, so the result always respects the caps.
Swaps matter when the caps leave no slack (event groups: C·k = n), where no single move is feasible.
"""

from __future__ import annotations

import math

import numpy as np

from mpx.util.jit import njit
from mpx.partition._kernels import best_target, do_move, heap_pop, heap_push, heap_remove, heap_update


@njit
def _heaviest_ratio(blockw, maxw):
    r = 0.0
    for b in range(blockw.shape[0]):
        x = blockw[b] / max(maxw[b], 1)
        if x > r:
            r = x
    return r


@njit
def _feasible_gain(u, ov, k, vw, blockw, maxw, benefit, inc, total):
    """Best km1 gain of moving u out of block ``ov`` into any block with room (adjacent or not)."""
    tgt = -1
    g = 0
    base = benefit[u] - total[u]
    for b in range(k):
        if b == ov or blockw[b] + vw[u] > maxw[b]:
            continue
        gu = base + inc[u * k + b]
        if tgt < 0 or gu > g:
            tgt = b
            g = gu
    return tgt, g


@njit
def fm_kernel(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit, inc, total,
              max_passes, adaptive, alpha, max_fruitless, allow_overload, seed):
    """Run FM passes in place; returns (km1 improvement, moves kept, passes run).

    One addressable max-heap per block holds the unlocked border vertices of that block, keyed by their best
    gain (to an adjacent block; with room unless ``allow_overload``). A vertex never changes block while it
    is unlocked, so heap b only ever holds vertices that were in b when the pass began: all k heaps share
    one array of n slots, split by the block sizes at the start of the pass.
    """
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = part.shape[0]
    need_room = not allow_overload
    locked = np.zeros(n, np.bool_)
    hv = np.empty(n, np.int64)
    hk = np.empty(n, np.int64)
    hpos = np.full(n, -1, np.int64)
    hoff = np.zeros(k + 1, np.int64)
    hsize = np.zeros(k, np.int64)
    stamp = np.zeros(n, np.int64)
    stamp_val = 0
    affected = np.empty(n, np.int64)
    popped = np.empty(n, np.int64)
    popped_key = np.empty(n, np.int64)
    log_v = np.empty(n, np.int64)
    log_from = np.empty(n, np.int64)
    log_to = np.empty(n, np.int64)
    beta = math.log(max(n, 2))
    factor = alpha / 2.0 - 0.25
    total_gain = 0
    total_moves = 0
    passes = 0
    for _ in range(max_passes):
        passes += 1
        hoff[:] = 0
        for v in range(n):
            hoff[part[v] + 1] += 1
        for b in range(k):
            hoff[b + 1] += hoff[b]
            hsize[b] = 0
        perm = np.random.permutation(n)
        for i in range(n):
            v = perm[i]
            locked[v] = not movable[v]
            if locked[v]:
                continue
            b, g = best_target(v, k, part, vw, blockw, maxw, benefit, inc, total, need_room)
            if b >= 0:
                a = part[v]
                o = hoff[a]
                hsize[a] = heap_push(hv, hk, hpos, o, hsize[a], v, g)
        cur = 0
        best = 0
        best_idx = 0
        best_ratio = _heaviest_ratio(blockw, maxw)
        nmoves = 0
        steps = 0
        mean = 0.0
        ss = 0.0
        ov = -1
        while True:
            if ov >= 0:
                # forced repair of the overloaded block: its best move into a block with room. Heap keys
                # bound the feasible gains from above, so pop until the top cannot beat the best found.
                o = hoff[ov]
                v = -1
                tgt = -1
                g = 0
                npop = 0
                while hsize[ov] > 0 and (v < 0 or hk[o] > g):
                    u = hv[o]
                    popped[npop] = u
                    popped_key[npop] = hk[o]
                    npop += 1
                    hsize[ov] = heap_pop(hv, hk, hpos, o, hsize[ov])
                    b, gu = _feasible_gain(u, ov, k, vw, blockw, maxw, benefit, inc, total)
                    if b >= 0 and (v < 0 or gu > g):
                        v = u
                        tgt = b
                        g = gu
                for i in range(npop):
                    if popped[i] != v:
                        hsize[ov] = heap_push(hv, hk, hpos, o, hsize[ov], popped[i], popped_key[i])
                if v < 0:
                    # no border vertex can leave: any unlocked vertex of the block will do
                    for u in range(n):
                        if part[u] == ov and not locked[u]:
                            b, gu = _feasible_gain(u, ov, k, vw, blockw, maxw, benefit, inc, total)
                            if b >= 0 and (v < 0 or gu > g):
                                v = u
                                tgt = b
                                g = gu
                    if v < 0:
                        break
                    if hpos[v] >= 0:
                        hsize[ov] = heap_remove(hv, hk, hpos, o, hsize[ov], v)
            else:
                src = -1
                for b in range(k):
                    if hsize[b] > 0 and (src < 0 or hk[hoff[b]] > hk[hoff[src]]):
                        src = b
                if src < 0:
                    break
                o = hoff[src]
                v = hv[o]
                key = hk[o]
                hsize[src] = heap_pop(hv, hk, hpos, o, hsize[src])
                tgt, g = best_target(v, k, part, vw, blockw, maxw, benefit, inc, total, need_room)
                if tgt < 0:
                    continue
                if g < key:
                    # stale key (room changed since it was computed): requeue with the true gain
                    hsize[src] = heap_push(hv, hk, hpos, o, hsize[src], v, g)
                    continue
            a = part[v]
            locked[v] = True
            stamp_val += 1
            n_aff = do_move(v, a, tgt, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
                            stamp, stamp_val, affected, 0)
            log_v[nmoves] = v
            log_from[nmoves] = a
            log_to[nmoves] = tgt
            nmoves += 1
            cur += g
            if blockw[a] > maxw[a]:
                ov = a
            elif blockw[tgt] > maxw[tgt]:
                ov = tgt
            else:
                ov = -1
            improved = False
            if ov < 0 and cur >= best:
                ratio = _heaviest_ratio(blockw, maxw)
                if cur > best or ratio < best_ratio:
                    best = cur
                    best_idx = nmoves
                    best_ratio = ratio
                    improved = True
            if improved:
                steps = 0
                mean = 0.0
                ss = 0.0
            else:
                steps += 1
                d = g - mean
                mean += d / steps
                ss += d * (g - mean)
            for i in range(n_aff):
                u = affected[i]
                if locked[u]:
                    continue
                b, gu = best_target(u, k, part, vw, blockw, maxw, benefit, inc, total, need_room)
                bu = part[u]
                o = hoff[bu]
                if b < 0:
                    if hpos[u] >= 0:
                        hsize[bu] = heap_remove(hv, hk, hpos, o, hsize[bu], u)
                elif hpos[u] >= 0:
                    heap_update(hv, hk, hpos, o, hsize[bu], u, gu)
                else:
                    hsize[bu] = heap_push(hv, hk, hpos, o, hsize[bu], u, gu)
            if ov < 0 and steps > 0:
                if adaptive:
                    if steps > beta:
                        if mean == 0.0:
                            break
                        var = ss / (steps - 1) if steps > 1 else 0.0
                        if steps >= var / (mean * mean) * factor:
                            break
                elif steps >= max_fruitless:
                    break
        for i in range(nmoves - 1, best_idx - 1, -1):
            do_move(log_v[i], log_to[i], log_from[i], k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw,
                    benefit, inc, stamp, -1, affected, 0)
        for b in range(k):
            o = hoff[b]
            for i in range(hsize[b]):
                hpos[hv[o + i]] = -1
        total_gain += best
        total_moves += best_idx
        if best <= 0:
            break
    return total_gain, total_moves, passes
