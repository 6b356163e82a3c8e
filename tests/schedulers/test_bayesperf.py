"""BayesPerf's scheduler: Markov-blanket overlap of consecutive configurations, Dijkstra bridges."""

from __future__ import annotations

import numpy as np

from mpx.problem import EventGroup, Problem
from mpx.schedulers.bayesperf import BayesPerfScheduler, relation_adjacency


def names(s, p):
    return [{p.events[j] for j in np.flatnonzero(s.configs[c] & ~p.free_mask)} for c in s.cycle]


def reach(p, adj, events):
    row = p.mask(events) & ~p.free_mask
    return row | (adj[row].any(axis=0) & ~p.free_mask)


def linked(p, adj, e1, e2):
    return bool((reach(p, adj, e1) & reach(p, adj, e2)).any())


def test_adjacency_from_metrics_and_relations_without_free_events():
    p = Problem(["cycles", "a", "b", "c", "d"], "skylake",
                metrics=[("m1", ["cycles", "a", "b"]), ("m2", ["cycles", "c"])],
                relations=[["c", "d"]])
    adj = relation_adjacency(p)
    pairs = {(p.events[i], p.events[j]) for i, j in zip(*np.nonzero(adj)) if i < j}
    # cycles is on a fixed counter: observed always, it links nothing (a-c are not neighbours through it)
    assert pairs == {("a", "b"), ("c", "d")}


def test_unlinked_neighbours_get_the_shortest_bridge():
    # configurations (first fit on 2 counters): C0 = {a,b}, C1 = {c,d}, C2 = {p,q}
    # relations a-p and q-c: C0~C2 and C1~C2 are linked, C0~C1 is not.
    # Greedy order C0 -> C2 -> C1; closing the cycle C1 -> C0 needs one bridge: C2.
    p = Problem(["a", "b", "c", "d", "p", "q"], "generic-2",
                groups=[EventGroup(("a", "b")), EventGroup(("c", "d")), EventGroup(("p", "q"))],
                relations=[["a", "p"], ["q", "c"]])
    s = BayesPerfScheduler().schedule(p)
    assert names(s, p) == [{"a", "b"}, {"p", "q"}, {"c", "d"}, {"p", "q"}]
    assert any("1 bridge" in n for n in s.notes)
    adj = relation_adjacency(p)
    seq = names(s, p)
    for x, y in zip(seq, seq[1:] + seq[:1]):
        assert linked(p, adj, x, y)


def test_independent_parts_cannot_be_bridged_and_say_so():
    p = Problem(["a", "b", "c", "d"], "generic-2", groups=[("a", "b"), ("c", "d")],
                metrics=[("m1", ["a", "b"]), ("m2", ["c", "d"])])
    s = BayesPerfScheduler().schedule(p)
    assert names(s, p) == [{"a", "b"}, {"c", "d"}]
    assert any("share no relation path" in n for n in s.notes)


def test_greedy_order_follows_links():
    # base configurations {a}, {b}, {c} on one counter, one relation a-c: reach(a) = reach(c) = {a,c},
    # reach(b) = {b}. From {a} the first linked unused configuration is {c}, then {b}, which nothing
    # reaches: c -> b and b -> a stay unlinked (noted), no bridge can exist.
    p = Problem(["a", "b", "c"], "generic-1", relations=[["a", "c"]])
    s = BayesPerfScheduler().schedule(p)
    assert names(s, p) == [{"a"}, {"c"}, {"b"}]
    assert any("2 consecutive pair(s) share no relation path" in n for n in s.notes)


def test_neoverse_n1_cycle_is_linked_throughout(shared):
    from mpx.metrics import load_catalog

    p = Problem.from_catalog(load_catalog(shared("data", "metrics", "arm-telemetry", "neoverse-n1.json")), "neoverse-n1")
    s = BayesPerfScheduler().schedule(p)
    adj = relation_adjacency(p)
    seq = names(s, p)
    assert all(linked(p, adj, x, y) for x, y in zip(seq, seq[1:] + seq[:1]))
    assert set().union(*seq) | set(p.free) == set(p.events)  # every event measured
