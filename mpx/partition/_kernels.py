"""Shared numba kernels: the km1 gain cache, moves that keep it exact, an addressable max-heap, rebalancing.

State of a k-way partition (Mt-KaHyPar's km1 gain cache, Gottesbüren et al., "Scalable High-Quality
Hypergraph Partitioning", ACM TALG 2024, section 6):

* ``phi[e*k + b]``: Φ(e, b), the number of pins of net e in block b;
* ``benefit[v]``: Σ ω(e) over the nets of v in which v is the only pin of its block (what leaving gains);
* ``inc[v*k + b]``: Σ ω(e) over the nets of v that touch block b;
* ``total[v]``: Σ ω(e) over the nets of v.

The km1 gain of moving v to block b is ``benefit[v] − (total[v] − inc[v*k + b])``. A move updates
Φ and the cache through four threshold rules (Φ(e,from) dropping to 0 or 1, Φ(e,to) rising to 1 or 2),
so it costs O(Σ|e|) over the nets of the moved vertex only where a threshold is crossed.
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit


@njit
def init_state(k, net_off, pins, v_off, v_nets, nw, vw, part):
    """Φ, block weights, benefit, inc and total of partition ``part``."""
    n = part.shape[0]
    m = net_off.shape[0] - 1
    phi = np.zeros(m * k, np.int64)
    for e in range(m):
        for p in range(net_off[e], net_off[e + 1]):
            phi[e * k + part[pins[p]]] += 1
    blockw = np.zeros(k, np.int64)
    for v in range(n):
        blockw[part[v]] += vw[v]
    benefit = np.zeros(n, np.int64)
    inc = np.zeros(n * k, np.int64)
    total = np.zeros(n, np.int64)
    for v in range(n):
        a = part[v]
        for q in range(v_off[v], v_off[v + 1]):
            e = v_nets[q]
            w = nw[e]
            total[v] += w
            if phi[e * k + a] == 1:
                benefit[v] += w
            for b in range(k):
                if phi[e * k + b] > 0:
                    inc[v * k + b] += w
    return phi, blockw, benefit, inc, total


@njit
def km1_of(k, nw, phi):
    """km1 from the pin counts Φ."""
    m = nw.shape[0]
    s = 0
    for e in range(m):
        lam = 0
        for b in range(k):
            if phi[e * k + b] > 0:
                lam += 1
        if lam > 1:
            s += nw[e] * (lam - 1)
    return s


@njit(inline=True)
def do_move(v, a, b, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
            stamp, stamp_val, affected, n_aff):
    """Move v from block a to b, keeping Φ and the gain cache exact.

    Vertices whose gains changed are appended to ``affected`` (deduplicated by ``stamp == stamp_val``) and
    the new count returned; pass ``stamp_val < 0`` to skip that bookkeeping (rollback).
    """
    part[v] = b
    blockw[a] -= vw[v]
    blockw[b] += vw[v]
    track = stamp_val >= 0
    bv = 0
    for q in range(v_off[v], v_off[v + 1]):
        e = v_nets[q]
        w = nw[e]
        phi[e * k + a] -= 1
        pa = phi[e * k + a]
        phi[e * k + b] += 1
        pb = phi[e * k + b]
        if pb == 1:
            bv += w
        s = net_off[e]
        t = net_off[e + 1]
        if pa == 0:
            for p in range(s, t):
                u = pins[p]
                inc[u * k + a] -= w
                if track and stamp[u] != stamp_val:
                    stamp[u] = stamp_val
                    affected[n_aff] = u
                    n_aff += 1
        elif pa == 1:
            for p in range(s, t):
                u = pins[p]
                if part[u] == a:
                    benefit[u] += w
                    if track and stamp[u] != stamp_val:
                        stamp[u] = stamp_val
                        affected[n_aff] = u
                        n_aff += 1
                    break
        if pb == 1:
            for p in range(s, t):
                u = pins[p]
                inc[u * k + b] += w
                if track and stamp[u] != stamp_val:
                    stamp[u] = stamp_val
                    affected[n_aff] = u
                    n_aff += 1
        elif pb == 2:
            for p in range(s, t):
                u = pins[p]
                if u != v and part[u] == b:
                    benefit[u] -= w
                    if track and stamp[u] != stamp_val:
                        stamp[u] = stamp_val
                        affected[n_aff] = u
                        n_aff += 1
                    break
    benefit[v] = bv
    return n_aff


@njit(inline=True)
def best_target(v, k, part, vw, blockw, maxw, benefit, inc, total, need_room):
    """The adjacent block with the largest km1 gain for v (ties: most remaining room); (-1, 0) if none.

    With ``need_room`` only blocks that can take v without exceeding their maximum weight count.
    """
    a = part[v]
    best = -1
    bg = 0
    broom = 0
    base = benefit[v] - total[v]
    for b in range(k):
        if b == a or inc[v * k + b] == 0:
            continue
        room = maxw[b] - blockw[b] - vw[v]
        if need_room and room < 0:
            continue
        g = base + inc[v * k + b]
        if best < 0 or g > bg or (g == bg and room > broom):
            best = b
            bg = g
            broom = room
    return best, bg


# --- addressable binary max-heaps over vertices ------------------------------------------------------
# A heap lives in hv[o:o+size] / hk[o:o+size] (vertex, key); hpos[v] is v's position relative to o, or -1.
# The offset lets several heaps share one array without slicing (a slice costs reference counting).

@njit(inline=True)
def heap_sift_up(hv, hk, hpos, o, i):
    v = hv[o + i]
    key = hk[o + i]
    while i > 0:
        parent = (i - 1) >> 1
        if hk[o + parent] >= key:
            break
        hv[o + i] = hv[o + parent]
        hk[o + i] = hk[o + parent]
        hpos[hv[o + i]] = i
        i = parent
    hv[o + i] = v
    hk[o + i] = key
    hpos[v] = i


@njit(inline=True)
def heap_sift_down(hv, hk, hpos, o, size, i):
    v = hv[o + i]
    key = hk[o + i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[o + c + 1] > hk[o + c]:
            c += 1
        if hk[o + c] <= key:
            break
        hv[o + i] = hv[o + c]
        hk[o + i] = hk[o + c]
        hpos[hv[o + i]] = i
        i = c
    hv[o + i] = v
    hk[o + i] = key
    hpos[v] = i


@njit(inline=True)
def heap_push(hv, hk, hpos, o, size, v, key):
    hv[o + size] = v
    hk[o + size] = key
    hpos[v] = size
    heap_sift_up(hv, hk, hpos, o, size)
    return size + 1


@njit(inline=True)
def heap_pop(hv, hk, hpos, o, size):
    """Remove the top; returns the new size (the vertex was ``hv[o]`` before the call)."""
    hpos[hv[o]] = -1
    size -= 1
    if size > 0:
        hv[o] = hv[o + size]
        hk[o] = hk[o + size]
        hpos[hv[o]] = 0
        heap_sift_down(hv, hk, hpos, o, size, 0)
    return size


@njit(inline=True)
def heap_update(hv, hk, hpos, o, size, v, key):
    i = hpos[v]
    old = hk[o + i]
    hk[o + i] = key
    if key > old:
        heap_sift_up(hv, hk, hpos, o, i)
    elif key < old:
        heap_sift_down(hv, hk, hpos, o, size, i)


@njit(inline=True)
def heap_remove(hv, hk, hpos, o, size, v):
    i = hpos[v]
    hpos[v] = -1
    size -= 1
    if i != size:
        moved = hv[o + size]
        hv[o + i] = moved
        hk[o + i] = hk[o + size]
        hpos[moved] = i
        heap_sift_up(hv, hk, hpos, o, i)
        heap_sift_down(hv, hk, hpos, o, size, hpos[moved])
    return size


# --- block member lists (doubly linked) -------------------------------------------------------------

@njit
def build_members(k, part):
    n = part.shape[0]
    head = np.full(k, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    prv = np.full(n, -1, np.int64)
    for v in range(n - 1, -1, -1):
        b = part[v]
        nxt[v] = head[b]
        if head[b] >= 0:
            prv[head[b]] = v
        head[b] = v
    return head, nxt, prv


@njit
def members_move(v, a, b, head, nxt, prv):
    if prv[v] >= 0:
        nxt[prv[v]] = nxt[v]
    else:
        head[a] = nxt[v]
    if nxt[v] >= 0:
        prv[nxt[v]] = prv[v]
    prv[v] = -1
    nxt[v] = head[b]
    if head[b] >= 0:
        prv[head[b]] = v
    head[b] = v


@njit
def rebalance(k, net_off, pins, v_off, v_nets, nw, vw, part, maxw, movable, phi, blockw, benefit, inc, total):
    """Move vertices out of overloaded blocks, each time the best-gain move into a block with room.

    Returns the summed km1 gain (≤ 0 typically) and whether every block now respects its maximum weight.
    Used after initial partitioning and as a safety net; FM itself never creates a lasting overload.
    """
    n = part.shape[0]
    head, nxt, prv = build_members(k, part)
    dummy = np.zeros(1, np.int64)
    gain_sum = 0
    guard = 0
    while guard <= 4 * n + k:
        guard += 1
        a = -1
        worst = 0
        for b in range(k):
            over = blockw[b] - maxw[b]
            if over > worst:
                worst = over
                a = b
        if a < 0:
            return gain_sum, True
        best_u = -1
        best_b = -1
        bg = 0
        bfit = False
        u = head[a]
        while u >= 0:
            if movable[u]:
                base = benefit[u] - total[u]
                for b in range(k):
                    if b == a or blockw[b] + vw[u] > maxw[b]:
                        continue
                    g = base + inc[u * k + b]
                    # prefer moves that remove the whole overload with a light vertex, then the gain
                    fit = vw[u] >= worst
                    if best_u < 0 or (fit and not bfit) or (fit == bfit and g > bg):
                        best_u = u
                        best_b = b
                        bg = g
                        bfit = fit
            u = nxt[u]
        if best_u < 0:
            return gain_sum, False
        do_move(best_u, a, best_b, k, net_off, pins, v_off, v_nets, nw, vw, part, phi, blockw, benefit, inc,
                dummy, -1, dummy, 0)
        members_move(best_u, a, best_b, head, nxt, prv)
        gain_sum += bg
    return gain_sum, False
