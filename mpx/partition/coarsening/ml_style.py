"""Heavy-edge clustering, many clusters per level (KaHyPar's ``c-type=ml_style``, Mt-KaHyPar's coarsener).

One pass visits the vertices in random order; a vertex that is still a singleton rates the clusters of its
neighbours with heavy-edge, r(u, C) = Σ_{e ∋ u, e ∩ C ≠ ∅} ω(e)/(|e| − 1) (nets larger than ``max_net_size``
ignored), optionally divided by c(u)·c(C), and joins the best one whose weight stays within the maximum
coarse vertex weight, that lies in the same community and is not fixed to another block (ties prefer a
still-unclustered neighbour: ``best_prefer_unmatched``). The pass stops once the vertex count reaches its
target, so a level shrinks by at most ``max_shrink``.
"""

from __future__ import annotations

import numpy as np

from mpx.util.jit import njit


@njit
def cluster_pass(net_off, pins, v_off, v_nets, nw, vw, community, fixed, max_weight, max_net_size, penalty,
                 target_n, seed):
    """One clustering pass; returns the representative of every vertex's cluster."""
    if seed >= 0:  # -1: continue the caller's stream (seeding costs ~6 µs)
        np.random.seed(seed)
    n = vw.shape[0]
    rep = np.arange(n)
    cw = vw.copy()
    cfixed = fixed.copy()
    matched = np.zeros(n, np.bool_)
    rating = np.zeros(n, np.float64)
    touched = np.empty(n, np.int64)
    num = n
    perm = np.random.permutation(n)
    for i in range(n):
        if num <= target_n:
            break
        u = perm[i]
        if matched[u]:
            continue
        nt = 0
        for q in range(v_off[u], v_off[u + 1]):
            e = v_nets[q]
            size = net_off[e + 1] - net_off[e]
            if size < 2 or size > max_net_size:
                continue
            s = nw[e] / (size - 1.0)
            for p in range(net_off[e], net_off[e + 1]):
                v = pins[p]
                if v == u:
                    continue
                r = rep[v]
                if rating[r] == 0.0:
                    touched[nt] = r
                    nt += 1
                rating[r] += s
        best = -1
        bscore = 0.0
        ties = 0
        for t in range(nt):
            r = touched[t]
            score = rating[r]
            rating[r] = 0.0
            if r == u or community[r] != community[u]:
                continue
            if cw[r] + vw[u] > max_weight:
                continue
            if cfixed[u] >= 0 and cfixed[r] >= 0 and cfixed[u] != cfixed[r]:
                continue
            if penalty:
                score /= max(vw[u], 1) * max(cw[r], 1)
            if score <= 0.0:
                continue
            if best < 0 or score > bscore:
                best = r
                bscore = score
                ties = 1
            elif score == bscore:
                if matched[best] and not matched[r]:
                    best = r
                    ties = 1
                elif matched[best] == matched[r]:
                    ties += 1
                    if np.random.randint(0, ties) == 0:
                        best = r
        if best >= 0:
            rep[u] = best
            cw[best] += vw[u]
            if cfixed[u] >= 0:
                cfixed[best] = cfixed[u]
            matched[u] = True
            matched[best] = True
            num -= 1
    return rep
