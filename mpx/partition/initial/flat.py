"""Flat initial partitioning algorithms of the portfolio (KaHyPar ``partition/initial_partitioning``).

Each takes ``(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed)`` and returns a block for every
vertex, fixed vertices in their block. They aim at the caps but may overload a block when packing is tight;
the pool repairs that with `rebalance` and refines every result with FM before comparing.

* ``random``: each free vertex, in random order, to a random block with room.
* ``bin_packing``: heaviest first, each to the block with the most remaining room (worst fit; KaHyPar's
  ``i-bp-algorithm=worst_fit``).
* ``bfs``: blocks grown one after the other by breadth-first search from a random seed up to their share
  c(V)·cap_b/Σcap of the weight; the last block takes the rest.
* ``greedy_growing``: greedy hypergraph growing (Çatalyürek & Aykanat, PaToH; KaHyPar ``greedy_sequential``):
  blocks grown one after the other from a random seed, always adding the vertex with the largest km1 gain.
* ``label_propagation``: one random seed per block, then rounds in which every unassigned vertex joins the
  block most of its nets already touch (KaHyPar's ``lp`` initial partitioner).
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit
from mpx.partition._kernels import do_move, heap_pop, heap_push, heap_update, init_state


@njit
def _shares(vw, maxw, fixed):
    total = 0
    for v in range(vw.shape[0]):
        total += vw[v]
    capsum = 0
    for b in range(maxw.shape[0]):
        capsum += maxw[b]
    target = np.empty(maxw.shape[0], np.float64)
    for b in range(maxw.shape[0]):
        target[b] = total * (maxw[b] / max(capsum, 1))
    return target


@njit
def _place_fixed(k, vw, fixed):
    n = vw.shape[0]
    part = np.full(n, -1, np.int64)
    blockw = np.zeros(k, np.int64)
    for v in range(n):
        if fixed[v] >= 0:
            part[v] = fixed[v]
            blockw[fixed[v]] += vw[v]
    return part, blockw


@njit
def _roomiest(k, blockw, maxw):
    best = 0
    for b in range(1, k):
        if maxw[b] - blockw[b] > maxw[best] - blockw[best]:
            best = b
    return best


@njit
def ip_random(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    part, blockw = _place_fixed(k, vw, fixed)
    perm = np.random.permutation(n)
    for i in range(n):
        v = perm[i]
        if part[v] >= 0:
            continue
        choice = -1
        seen = 0
        for b in range(k):
            if blockw[b] + vw[v] <= maxw[b]:
                seen += 1
                if np.random.randint(0, seen) == 0:
                    choice = b
        if choice < 0:
            choice = _roomiest(k, blockw, maxw)
        part[v] = choice
        blockw[choice] += vw[v]
    return part


@njit
def ip_bin_packing(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    part, blockw = _place_fixed(k, vw, fixed)
    key = np.empty(n, np.float64)
    for v in range(n):
        key[v] = -vw[v] - np.random.random() * 0.5
    order = np.argsort(key)
    tie = np.random.permutation(k)
    for i in range(n):
        v = order[i]
        if part[v] >= 0:
            continue
        best = tie[0]
        for t in range(1, k):
            b = tie[t]
            if maxw[b] - blockw[b] > maxw[best] - blockw[best]:
                best = b
        part[v] = best
        blockw[best] += vw[v]
    return part


@njit
def _random_free(part, perm, start, queued, b):
    """The first vertex of ``perm`` at or after ``start`` that is unassigned and not yet queued for block b
    (and the position after it), or (-1, n)."""
    n = perm.shape[0]
    while start < n and (part[perm[start]] >= 0 or queued[perm[start]] == b):
        start += 1
    if start >= n:
        return -1, n
    return perm[start], start + 1


@njit
def ip_bfs(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    part, blockw = _place_fixed(k, vw, fixed)
    target = _shares(vw, maxw, fixed)
    perm = np.random.permutation(n)
    queue = np.empty(n, np.int64)
    queued = np.zeros(n, np.int64) - 1
    net_seen = np.zeros(net_off.shape[0] - 1, np.int64) - 1
    for b in range(k - 1):
        qh = 0
        qt = 0
        cursor = 0
        for v in range(n):  # the block's fixed vertices seed its search
            if part[v] == b:
                queue[qt] = v
                qt += 1
                queued[v] = b
        while blockw[b] < target[b]:
            if qh == qt:
                s, cursor = _random_free(part, perm, cursor, queued, b)
                if s < 0:
                    break
                queue[qt] = s
                qt += 1
                queued[s] = b
            v = queue[qh]
            qh += 1
            if part[v] < 0:
                if blockw[b] + vw[v] > maxw[b]:
                    continue
                part[v] = b
                blockw[b] += vw[v]
            for q in range(v_off[v], v_off[v + 1]):
                e = v_nets[q]
                if net_seen[e] == b:
                    continue
                net_seen[e] = b
                for p in range(net_off[e], net_off[e + 1]):
                    u = pins[p]
                    if part[u] < 0 and queued[u] != b:
                        queued[u] = b
                        queue[qt] = u
                        qt += 1
    for v in range(n):
        if part[v] < 0:
            part[v] = k - 1
    return part


@njit
def ip_greedy_growing(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    rest = k - 1
    part = np.empty(n, np.int64)
    for v in range(n):
        part[v] = fixed[v] if fixed[v] >= 0 else rest
    target = _shares(vw, maxw, fixed)
    phi, blockw, benefit, inc, total = init_state(k, net_off, pins, v_off, v_nets, nw, vw, part)
    hv = np.empty(n, np.int64)
    hk = np.empty(n, np.int64)
    hpos = np.full(n, -1, np.int64)
    stamp = np.zeros(n, np.int64)
    affected = np.empty(n, np.int64)
    perm = np.random.permutation(n)
    stamp_val = 0
    for b in range(k - 1):
        size = 0
        for v in range(n):  # start next to the block's fixed vertices, if any
            if part[v] == rest and fixed[v] < 0 and inc[v * k + b] > 0:
                size = heap_push(hv, hk, hpos, 0, size, v, benefit[v] - total[v] + inc[v * k + b])
        cursor = 0
        while blockw[b] < target[b]:
            if size == 0:
                s = -1
                while cursor < n:
                    u = perm[cursor]
                    cursor += 1
                    if part[u] == rest and fixed[u] < 0:
                        s = u
                        break
                if s < 0:
                    break
                size = heap_push(hv, hk, hpos, 0, size, s, benefit[s] - total[s] + inc[s * k + b])
            v = hv[0]
            size = heap_pop(hv, hk, hpos, 0, size)
            if blockw[b] + vw[v] > maxw[b]:
                continue
            stamp_val += 1
            n_aff = do_move(v, rest, b, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
                            stamp, stamp_val, affected, 0)
            for i in range(n_aff):
                u = affected[i]
                if part[u] != rest or fixed[u] >= 0:
                    continue
                g = benefit[u] - total[u] + inc[u * k + b]
                if hpos[u] >= 0:
                    heap_update(hv, hk, hpos, 0, size, u, g)
                elif inc[u * k + b] > 0:
                    size = heap_push(hv, hk, hpos, 0, size, u, g)
        while size > 0:
            size -= 1
            hpos[hv[size]] = -1
    return part


@njit
def ip_label_propagation(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    m = net_off.shape[0] - 1
    part, blockw = _place_fixed(k, vw, fixed)
    phi = np.zeros(m * k, np.int64)
    for v in range(n):
        if part[v] >= 0:
            for q in range(v_off[v], v_off[v + 1]):
                phi[v_nets[q] * k + part[v]] += 1
    has = np.zeros(k, np.bool_)
    for v in range(n):
        if part[v] >= 0:
            has[part[v]] = True
    perm = np.random.permutation(n)
    cursor = 0
    for b in range(k):
        if has[b]:
            continue
        while cursor < n and part[perm[cursor]] >= 0:
            cursor += 1
        if cursor >= n:
            break
        v = perm[cursor]
        part[v] = b
        blockw[b] += vw[v]
        for q in range(v_off[v], v_off[v + 1]):
            phi[v_nets[q] * k + b] += 1
    score = np.zeros(k, np.float64)
    for _ in range(min(n, 200)):
        assigned = 0
        perm = np.random.permutation(n)
        for i in range(n):
            v = perm[i]
            if part[v] >= 0:
                continue
            for b in range(k):
                score[b] = 0.0
            for q in range(v_off[v], v_off[v + 1]):
                e = v_nets[q]
                size = net_off[e + 1] - net_off[e]
                if size < 2:
                    continue
                for b in range(k):
                    if phi[e * k + b] > 0:
                        score[b] += nw[e] * phi[e * k + b] / (size - 1.0)
            best = -1
            ties = 0
            for b in range(k):
                if score[b] <= 0.0 or blockw[b] + vw[v] > maxw[b]:
                    continue
                if best < 0 or score[b] > score[best]:
                    best = b
                    ties = 1
                elif score[b] == score[best]:
                    ties += 1
                    if np.random.randint(0, ties) == 0:
                        best = b
            if best >= 0:
                part[v] = best
                blockw[best] += vw[v]
                for q in range(v_off[v], v_off[v + 1]):
                    phi[v_nets[q] * k + best] += 1
                assigned += 1
        if assigned == 0:
            break
    for v in range(n):
        if part[v] < 0:
            b = _roomiest(k, blockw, maxw)
            part[v] = b
            blockw[b] += vw[v]
    return part


@njit
def ip_first_fit(k, net_off, pins, v_off, v_nets, nw, vw, maxw, fixed, seed):
    """Vertices in index order, each into the first block with room (no optimisation at all)."""
    n = vw.shape[0]
    part, blockw = _place_fixed(k, vw, fixed)
    for v in range(n):
        if part[v] >= 0:
            continue
        b = 0
        while b < k and blockw[b] + vw[v] > maxw[b]:
            b += 1
        if b == k:
            b = _roomiest(k, blockw, maxw)
        part[v] = b
        blockw[b] += vw[v]
    return part
