"""Contracting a clustering: the coarse hypergraph of one level.

Pins are mapped to their cluster, duplicates inside a net removed, nets left with a single pin dropped (they
can never be cut, so km1 does not see them) and parallel nets — identical pin sets — merged into one net
carrying the summed weight (KaHyPar's single-pin and parallel-net removal during contraction). Hence the
km1 of any coarse partition equals the km1 of its projection onto the finer level.
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit


@njit
def contract_kernel(net_off, pins, nw, vw, rep):
    """Contract clusters given by representatives ``rep``; returns (mapping, c_off, c_pins, c_nw, c_vw)."""
    n = vw.shape[0]
    m = net_off.shape[0] - 1
    mapping = np.empty(n, np.int64)
    cid = np.full(n, -1, np.int64)
    cn = 0
    for v in range(n):
        r = rep[v]
        if cid[r] < 0:
            cid[r] = cn
            cn += 1
        mapping[v] = cid[r]
    c_vw = np.zeros(cn, np.int64)
    for v in range(n):
        c_vw[mapping[v]] += vw[v]
    # map pins, dedupe inside each net, keep nets with >= 2 distinct pins
    stamp = np.full(cn, -1, np.int64)
    tmp_off = np.zeros(m + 1, np.int64)
    tmp_pins = np.empty(pins.shape[0], np.int64)
    tmp_src = np.empty(m, np.int64)
    kept = 0
    w = 0
    for e in range(m):
        start = w
        for p in range(net_off[e], net_off[e + 1]):
            c = mapping[pins[p]]
            if stamp[c] != e:
                stamp[c] = e
                tmp_pins[w] = c
                w += 1
        if w - start >= 2:
            tmp_pins[start:w] = np.sort(tmp_pins[start:w])
            tmp_src[kept] = e
            kept += 1
            tmp_off[kept] = w
        else:
            w = start
    # parallel nets: hash the sorted pin lists, compare candidates with equal hash exactly
    h = np.empty(kept, np.int64)
    for i in range(kept):
        x = np.int64(tmp_off[i + 1] - tmp_off[i])
        for p in range(tmp_off[i], tmp_off[i + 1]):
            x = x * np.int64(1000003) + tmp_pins[p] + np.int64(7919)
        h[i] = x
    order = np.argsort(h)
    weight = np.zeros(kept, np.int64)
    for i in range(kept):
        weight[i] = nw[tmp_src[i]]
    alive = np.ones(kept, np.bool_)
    i = 0
    while i < kept:
        j = i
        while j + 1 < kept and h[order[j + 1]] == h[order[i]]:
            j += 1
        for a in range(i, j + 1):
            ea = order[a]
            if not alive[ea]:
                continue
            for b in range(a + 1, j + 1):
                eb = order[b]
                if not alive[eb]:
                    continue
                sa = tmp_off[ea + 1] - tmp_off[ea]
                if sa != tmp_off[eb + 1] - tmp_off[eb]:
                    continue
                same = True
                for t in range(sa):
                    if tmp_pins[tmp_off[ea] + t] != tmp_pins[tmp_off[eb] + t]:
                        same = False
                        break
                if same:
                    # keep the net that comes first in the original order: deterministic output
                    lo = ea if ea < eb else eb
                    hi = eb if ea < eb else ea
                    weight[lo] += weight[hi]
                    alive[hi] = False
                    if hi == ea:
                        break
        i = j + 1
    c_m = 0
    c_p = 0
    for e in range(kept):
        if alive[e]:
            c_m += 1
            c_p += tmp_off[e + 1] - tmp_off[e]
    c_off = np.zeros(c_m + 1, np.int64)
    c_pins = np.empty(c_p, np.int64)
    c_nw = np.empty(c_m, np.int64)
    j = 0
    w = 0
    for e in range(kept):
        if alive[e]:
            s = tmp_off[e + 1] - tmp_off[e]
            c_pins[w:w + s] = tmp_pins[tmp_off[e]:tmp_off[e + 1]]
            w += s
            c_nw[j] = weight[e]
            j += 1
            c_off[j] = w
    return mapping, c_off, c_pins, c_nw, c_vw
