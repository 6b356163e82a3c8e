"""Event grouping by hypergraph partitioning (`mpx.grouping.partitioned`): hand-worked catalogs against brute force,
caps and counter masks never violated (property test), determinism, repair, replication."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import ConfigError
from mpx.grouping.partitioned import event_hypergraph, group_events, repair_blocks, replicate
from mpx.pmu import PMU
from mpx.problem import EventGroup, Problem


def _pmu(generic: int, masks: dict[str, list[str]] | None = None, reserved: list[str] | None = None) -> PMU:
    return PMU.from_dict({"name": "test", "default_unit": "cpu", "reserved": reserved or [],
                          "units": {"cpu": {"generic": generic, "fixed": {"fixed0": ["cycles"]},
                                            "masks": masks or {}}}}, source="<test>")


def _brute_km1(n: int, nets: list[tuple[int, ...]], weights: list[int], cap: int, k: int) -> int:
    best = None
    for assign in itertools.product(range(k), repeat=n):
        if max(np.bincount(assign, minlength=k)) > cap:
            continue
        q = sum(w * (len({assign[v] for v in e}) - 1) for e, w in zip(nets, weights))
        best = q if best is None else min(best, q)
    return best


# -- hand-worked catalogs ---------------------------------------------------------------------------


def test_two_metric_clusters_end_up_in_their_own_groups():
    # IPC-like metrics over a, b, c and over d, e, f; 3 counters: the optimum puts each triple in a group
    metrics = [("m1", ["a", "b", "cycles"]), ("m2", ["b", "c"]), ("m3", ["a", "c"]),
               ("m4", ["d", "e"]), ("m5", ["e", "f"]), ("m6", ["d", "f", "cycles"])]
    p = Problem(("a", "d", "b", "e", "c", "f", "cycles"), _pmu(3), metrics=metrics)
    g = group_events(p, k=2, replicate_events=False)
    assert sorted(sorted(x) for x in g.groups) == [["a", "b", "c"], ["d", "e", "f"]]
    assert g.units[0].km1 == 0
    assert g.coschedule == {m: 0.5 for m, _ in metrics}  # each metric in one of two groups; cycles is free
    assert "cycles" not in g.units[0].events  # fixed-counter events are not vertices


@pytest.mark.parametrize("seed", [0, 1])
def test_small_catalog_reaches_the_brute_force_optimum(seed):
    # 7 events, 2 counters -> k = 4 blocks; overlapping metrics with weights; optimum found by enumeration
    events = [f"e{i}" for i in range(7)]
    metric_sets = [(0, 1), (1, 2), (2, 3, 4), (4, 5), (5, 6), (0, 6), (3, 5), (1, 4, 6)]
    weights = {e: w for e, w in zip(events, [1, 2, 1, 3, 1, 2, 1])}
    metrics = [(f"m{j}", [events[i] for i in s]) for j, s in enumerate(metric_sets)]
    p = Problem(tuple(events), _pmu(2), metrics=metrics, weights=weights)
    g = group_events(p, k=4, seed=seed, replicate_events=False)
    hg, parts, wint = event_hypergraph(events, [m.events for m in p.metrics],
                                       [np.mean([weights[e] for e in m.events]) for m in p.metrics])
    nets = [tuple(hg.net(e).tolist()) for e in range(hg.num_nets)]
    opt = _brute_km1(7, nets, hg.net_weights.tolist(), cap=2, k=4)
    assert g.units[0].km1 == opt
    assert all(len(b) <= 2 for b in g.groups)


def test_k_search_stops_when_it_no_longer_pays():
    # 4 events, 2 counters, one metric over 3 events (never co-scheduled) and two pairs that fit k = 2
    p = Problem(("a", "b", "c", "d"), _pmu(2), metrics=[("x", ["a", "b"]), ("y", ["c", "d"])])
    g = group_events(p)
    u = g.units[0]
    assert u.k == 2 and [t["k"] for t in u.tried] == [2, 3]  # k = 3 tried, did not pay, search stopped
    assert g.mean_coschedule_ratio == 0.5


def test_replication_fills_spare_counters_with_cut_metrics():
    # 5 events, 3 counters -> 2 groups with one spare counter; the best partition cuts one metric
    metrics = [("m1", ["a", "b", "c"]), ("m2", ["c", "d"]), ("m3", ["d", "e"])]
    p = Problem(("a", "b", "c", "d", "e"), _pmu(3), metrics=metrics)
    plain = group_events(p, k=2, replicate_events=False)
    rep = group_events(p, k=2)
    assert all(len(x) <= 3 for x in rep.groups)
    assert sum(len(x) for x in plain.groups) == 5 and sum(len(x) for x in rep.groups) == 6
    assert rep.mean_coschedule_ratio > plain.mean_coschedule_ratio
    assert plain.units[0].km1 == 1 and sorted(plain.coschedule.values()) == [0.0, 0.5, 0.5]
    assert sorted(rep.coschedule.values()) == [0.5, 0.5, 0.5]  # the copy completes the cut metric


def test_replicate_unit():
    # blocks {0,1} and {2,3}, cap 3; metric (1, 2) is cut: one copy completes it; then the fill pass
    groups = replicate([[0, 1], [2, 3]], 3, lambda vs: True, [(1, 2), (0, 1)], np.array([5, 1]), 4)
    assert [len(g) for g in groups] == [3, 3]
    assert any({1, 2} <= set(g) for g in groups)
    nofill = replicate([[0, 1], [2, 3]], 3, lambda vs: True, [(0, 1)], np.array([1]), 4, fill=False)
    assert nofill == [[0, 1], [2, 3]]  # the only metric is complete; copying it needs 2 > 1 spare counters
    # a replica that does not fit the counters is never added
    blocked = replicate([[0, 1], [2, 3]], 3, lambda vs: not (0 in vs and 2 in vs), [(0, 2)], np.array([1]), 4)
    assert all(not (0 in g and 2 in g) for g in blocked)


def test_repair_moves_events_that_share_a_single_counter():
    # x0 and x1 may only use gp0: a block with both is infeasible whatever its size
    fits = lambda vs: sum(1 for v in vs if v in (0, 1)) <= 1  # noqa: E731
    blocks, moves = repair_blocks([[0, 1, 2], [3, 4]], 3, fits, [(0, 1), (1, 2), (3, 4)], np.array([1, 5, 1]),
                                  lambda v: 1 if v < 2 else 3)
    assert moves == 1 and all(fits(b) for b in blocks)
    assert [1, 2] == sorted(blocks[0])  # x0 leaves (the lighter metric), x1 stays with 2
    assert sorted(blocks[1]) == [0, 3, 4]


def test_counter_masks_force_a_repair_in_group_events():
    # the heavy metric wants x0, x1 together, but both only fit gp0: they must land in different groups
    pmu = _pmu(3, masks={"x0": ["gp0"], "x1": ["gp0"]})
    metrics = [("hot", ["x0", "x1", "a"]), ("m", ["b", "c"]), ("n", ["c", "d"])]
    p = Problem(("x0", "x1", "a", "b", "c", "d"), pmu, metrics=metrics, weights={"x0": 10, "x1": 10, "a": 10})
    g = group_events(p, k=2, replicate_events=False)
    assert g.units[0].repaired >= 1
    assert all(p.fits(grp) for grp in g.groups)
    assert not any({"x0", "x1"} <= set(grp) for grp in g.groups)
    assert {e for grp in g.groups for e in grp} == {"x0", "x1", "a", "b", "c", "d"}


def test_pinned_events_run_in_every_group_and_take_a_counter():
    p = Problem(("p", "a", "b", "c", "d"), _pmu(3), groups=[EventGroup(("p",), pinned=True)],
                metrics=[("m1", ["a", "b"]), ("m2", ["c", "d"])])
    g = group_events(p, replicate_events=False)
    assert g.pinned == ("p",) and all(grp[0] == "p" and len(grp) <= 3 for grp in g.groups)
    assert g.units[0].cap == 2


def test_errors_and_bad_parameters():
    pmu = _pmu(2, masks={"never": ["gp1"]}, reserved=["cpu/gp1"])
    p = Problem(("a", "b", "never"), pmu, metrics=[("m", ["a", "never"])])
    g = group_events(p)
    assert "never" in g.errors and g.coschedule["m"] == 0.0
    assert all("never" not in grp for grp in g.groups)
    with pytest.raises(ConfigError, match="k = 1 blocks"):
        group_events(Problem(("a", "b", "c"), _pmu(2)), k=1)
    with pytest.raises(ConfigError, match="k must be"):
        group_events(p, k=0)
    with pytest.raises(ConfigError, match="counters"):
        group_events(p, counters=0)


def test_deterministic_for_a_seed():
    rng = np.random.default_rng(3)
    events = [f"e{i}" for i in range(40)]
    metrics = [(f"m{j}", [events[i] for i in rng.choice(40, size=int(rng.integers(2, 5)), replace=False)])
               for j in range(50)]
    p = Problem(tuple(events), _pmu(4), metrics=metrics)
    a, b = group_events(p, seed=7), group_events(p, seed=7)
    assert a.groups == b.groups and a.coschedule == b.coschedule


# -- property: caps and counter masks are never violated --------------------------------------------


@st.composite
def _catalogs(draw):
    generic = draw(st.integers(2, 4))
    n = draw(st.integers(1, 14))
    events = [f"e{i}" for i in range(n)]
    masks = {}
    for e in events:
        if draw(st.booleans()) and draw(st.booleans()):
            sub = draw(st.lists(st.integers(0, generic - 1), min_size=1, max_size=generic, unique=True))
            masks[e] = [f"gp{i}" for i in sorted(sub)]
    metrics = []
    for j in range(draw(st.integers(0, 12))):
        evs = draw(st.lists(st.sampled_from(events + ["cycles"]), min_size=1, max_size=5, unique=True))
        metrics.append((f"m{j}", evs))
    weights = draw(st.lists(st.integers(1, 5), min_size=n + 1, max_size=n + 1))
    return Problem(tuple(events) + ("cycles",), _pmu(generic, masks), metrics=metrics,
                   weights=dict(zip(events + ["cycles"], weights))), generic


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_catalogs(), st.integers(0, 3), st.booleans())
def test_groups_never_exceed_caps_or_masks(case, seed, rep):
    p, generic = case
    g = group_events(p, seed=seed, replicate_events=rep)
    counted = {e for grp in g.groups for e in grp}
    for grp in g.groups:
        assert len(grp) <= generic and len(set(grp)) == len(grp)
        assert p.fits(grp)
        assert "cycles" not in grp
    assert counted | set(g.errors) == set(p.events) - {"cycles"}  # every event counted somewhere
    n = len(p.events) - 1
    assert all(u.k >= math.ceil(len(u.events) / u.cap) for u in g.units)
    for m in p.metrics:
        expect = sum(1 for grp in g.groups if set(m.events) - {"cycles"} <= set(grp)) / len(g.groups)
        assert g.coschedule[m.name] == pytest.approx(expect)
    assert n >= 1


# -- the command ------------------------------------------------------------------------------------


def test_cli_partition_metrics(tmp_path, capsys):
    import json

    from mpx.cli import main

    cat = tmp_path / "cat.json"
    cat.write_text(json.dumps([
        {"MetricName": "m1", "MetricExpr": "a / b"}, {"MetricName": "m2", "MetricExpr": "c / d"},
        {"MetricName": "m3", "MetricExpr": "(a + e) / cycles"}]))
    assert main(["partition", "--metrics", str(cat), "--pmu", "generic-2"]) == 0
    out = capsys.readouterr().out
    assert "G0:" in out and "co-scheduling" in out
    assert main(["partition", "--metrics", str(cat), "--pmu", "generic-2", "--json", "--seed", "1"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert all(len(g) <= 2 for g in d["groups"]) and d["k"] >= 3
    assert main(["partition", "--metrics", str(cat)]) == 1
    assert "needs both" in capsys.readouterr().err
    assert main(["partition", "--metrics", str(cat), "--pmu", "generic-2", "--cap", "3"]) == 1
    assert main(["partition"]) == 1
