"""Counter placement: which counter each event of one quantum goes on — the one home of both rules.

Every item (an event, or one instance of an event opened twice) has the counters it may use. Two
rules place them:

- `place_greedy`, perf's (x86 ``perf_assign_events``): items in increasing order of *weight* (ties in
  the given order), each on the first free counter of its list, no backtracking. It can fail where a
  placement exists (see `mpx.pmu.PMU.assign` for an example).
- `place_matching`, exact: a maximum bipartite matching items → counters
  (`scipy.sparse.csgraph.maximum_bipartite_matching`); it fails only when no placement exists.

`mpx.pmu.PMU.assign` and `mpx.problem.Problem.fits` (events listed twice, fixed-counter fallback) both
place through these two functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from mpx.pmu.units import Counter

__all__ = ["place_greedy", "place_matching"]


def place_greedy(allowed: Sequence[Sequence[Counter]], weights: Sequence[int]) -> list[Counter] | None:
    """perf's weight-ordered greedy placement: the counter of each item (in input order), or None when
    an item finds every counter of its list taken. ``weights``: the items' constraint weights."""
    used: set[Counter] = set()
    out: list[Counter | None] = [None] * len(allowed)
    for i in sorted(range(len(allowed)), key=lambda i: weights[i]):  # stable: ties keep list order
        for c in allowed[i]:
            if c not in used:
                used.add(c)
                out[i] = c
                break
        else:
            return None
    return out  # type: ignore[return-value]


def place_matching(allowed: Sequence[Sequence[Counter]]) -> list[Counter] | None:
    """An exact placement by maximum bipartite matching (counters in `Counter.sort_key` order, items in
    input order): the counter of each item, or None when no placement exists."""
    cols = sorted({c for a in allowed for c in a}, key=lambda c: c.sort_key)
    if len(cols) < len(allowed) or any(not a for a in allowed):
        return None
    if not allowed:
        return []
    col_of = {c: j for j, c in enumerate(cols)}
    rows = [r for r, a in enumerate(allowed) for _ in a]
    colidx = [col_of[c] for a in allowed for c in a]
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, colidx)), shape=(len(allowed), len(cols)))
    match = maximum_bipartite_matching(graph, perm_type="column")
    if (match < 0).any():
        return None
    return [cols[j] for j in match.tolist()]
