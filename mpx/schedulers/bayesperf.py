"""BayesPerf's scheduler: consecutive configurations linked through the relation graph.

Source: Banerjee, Jha, Kalbarczyk, Iyer, "BayesPerf: Minimizing Performance Monitoring Errors Using
Bayesian Statistics", ASPLOS 2021 (no public code). The paper's estimator is a factor graph — event
variables, one factor per relation among events (vendor metric formulas, TMA identities) — unrolled
along the sequence of scheduled configurations; inference over the most recent slices only carries
information from one configuration to the next if they are tied together in that graph. Its scheduler
therefore (i) makes consecutive configurations overlap in their *Markov blankets* and (ii) where two
configurations that must follow each other do not, inserts the shortest chain of intermediate
configurations, found with Dijkstra's algorithm.

**mpx's reading** (the paper gives the idea, not an algorithm to the letter):

- *Relation graph*: events are adjacent when they appear together in a metric's hyperedge or in a
  relation (`Problem.relations <mpx.problem.Problem>`; `~mpx.problem.Problem.from_catalog` takes
  them from the catalog). Free events (fixed-counter, software) are left out:
  they are observed in every quantum, so they neither need information nor relay it (observing a
  variable separates the graph there).
- *Reach* of a configuration C: its events plus their neighbours (C and its Markov blanket), free
  events removed. C and D are **linked** when their reaches intersect: some event is informed by both
  slices, so the posterior after D still depends on what C measured.
- *Base configurations*: the problem's groups packed first fit (`~mpx.schedulers.round_robin`, weak
  groups and errors as perf stat opens them). They are ordered greedily: from the first, go to the first
  unused configuration linked to the current one, else to the first unused one.
- *Bridges*: for every consecutive pair of the cycle (last → first included) that is not linked, the
  shortest chain through the graph of candidate configurations — the base configurations and
  single-event configurations (beside the pinned groups) — whose consecutive members are linked
  (`scipy.sparse.csgraph.dijkstra`, one quantum per hop) is inserted. Pairs in different components of
  the relation graph cannot be linked and stay adjacent (noted).

Each configuration in the resulting cycle runs one quantum.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from mpx.errors import ConfigError
from mpx.params import StrOptions
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.schedulers.perf import ASSIGNMENTS
from mpx.schedulers.round_robin import pack_round_robin

__all__ = ["BayesPerfScheduler", "relation_adjacency"]


def relation_adjacency(problem: Problem) -> np.ndarray:
    """``[E, E]`` boolean adjacency of events sharing a metric or a relation (free events excluded,
    no self loops). Relations are ``problem.relations`` (event tuples, checked by `Problem`)."""
    n = problem.n_events
    adj = np.zeros((n, n), dtype=bool)
    free = problem.free_mask
    edges = [m.events for m in problem.metrics] + list(problem.relations)
    for h in edges:
        ix = np.array([problem.index(e) for e in h], dtype=np.intp)
        ix = ix[~free[ix]]
        if ix.size > 1:
            adj[np.ix_(ix, ix)] = True
    np.fill_diagonal(adj, False)
    return adj


class BayesPerfScheduler(StaticScheduler):
    """BayesPerf's Markov-blanket-overlap schedule; see the module docstring.

    Parameters
    ----------
    assignment:
        ``"matching"`` or ``"perf"``: how a configuration is checked against the PMU.
    """

    name: ClassVar[str] = "bayesperf"
    uses_metrics: ClassVar[bool] = True
    source: ClassVar[str] = ("Banerjee, Jha, Kalbarczyk, Iyer, ASPLOS 2021 (BayesPerf): Markov-blanket "
                             "overlap of consecutive configurations, Dijkstra bridges (mpx's reading)")

    param_constraints: ClassVar[dict] = {"assignment": StrOptions(ASSIGNMENTS)}

    def __init__(self, assignment: str = "matching") -> None:
        self.assignment = assignment

    def _schedule(self, problem: Problem) -> Schedule:
        base = pack_round_robin(problem, packing="first_fit", assignment=self.assignment)
        errors = dict(base.errors)
        notes = list(base.notes)
        free = problem.free_mask
        configs = np.array(base.configs, dtype=bool) & ~free
        k = configs.shape[0]
        adj = relation_adjacency(problem)
        pinned = np.zeros(problem.n_events, dtype=bool)
        for g in problem.groups:
            if g.pinned:
                pinned |= problem.mask(g.events)
        pinned &= configs.all(axis=0) if k else pinned
        # candidates: base configurations, then single events beside the pinned groups
        singles = []
        err = problem.mask(errors)
        for i, e in enumerate(problem.events):
            if free[i] or pinned[i] or err[i]:
                continue
            row = pinned.copy()
            row[i] = True
            if problem.fits([problem.events[j] for j in np.flatnonzero(row)], method=self.assignment):
                singles.append(row)
        cand = np.vstack([configs] + singles) if singles else configs
        reach = (cand | ((cand.astype(np.int32) @ adj.astype(np.int32)) > 0)) & ~free
        linked = (reach.astype(np.int32) @ reach.T.astype(np.int32)) > 0
        np.fill_diagonal(linked, False)

        # greedy order of the base configurations
        order, used = [0], {0}
        while len(order) < k:
            cur = order[-1]
            nxt = next((j for j in range(k) if j not in used and linked[cur, j]), None)
            if nxt is None:
                nxt = next(j for j in range(k) if j not in used)
            order.append(nxt)
            used.add(nxt)
        seq: list[int] = []
        bridges = unlinked = 0
        graph = csr_matrix(linked.astype(np.float64))
        pairs = list(zip(order, order[1:] + order[:1])) if k > 1 else []
        for a, b in pairs:
            seq.append(a)
            if linked[a, b]:
                continue
            dist, pred = dijkstra(graph, indices=a, return_predecessors=True, unweighted=True)
            if not np.isfinite(dist[b]):
                unlinked += 1
                continue
            chain = []
            j = pred[b]
            while j != a and j >= 0:
                chain.append(int(j))
                j = pred[j]
            seq.extend(reversed(chain))
            bridges += len(chain)
        if k <= 1:
            seq = [0] if k else []
        if not seq:
            raise ConfigError("bayesperf: no configuration to run")
        used_c = list(dict.fromkeys(seq))
        cycle = [used_c.index(c) for c in seq]
        names = [[problem.events[j] for j in np.flatnonzero(cand[c])] for c in used_c]
        notes.append(f"BayesPerf ordering: {k} base configurations, {bridges} bridge quanta inserted")
        if unlinked:
            notes.append(f"{unlinked} consecutive pair(s) share no relation path (independent parts of the "
                         "relation graph): left adjacent")
        return Schedule.from_configs(problem, names, cycle=cycle, groups=base.groups, errors=errors, notes=notes)
