"""TinTin, the paper's appendix variant (layout="mcnaughton"): water-filling against a direct convex solve, McNaughton's packing on the reference example,
Welford from observations only, and more counter time for the events that vary more."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, minimize

from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.schedulers.tintin import TintinScheduler, mcnaughton, quantize, water_fill
from mpx.trace import Trace


def _direct(a, m, u_min):
    """The convex program solved directly (scipy trust-constr): min Σ a_i (1 - U_i)^2, Σ U_i <= m,
    u_min <= U <= 1."""
    a = np.asarray(a, float)
    x0 = np.full(a.size, min(1.0, m / a.size))
    res = minimize(lambda u: float(np.sum(a * (1 - u) ** 2)), x0, jac=lambda u: -2 * a * (1 - u),
                   hess=lambda u: np.diag(2 * a), method="trust-constr",
                   bounds=Bounds(np.full(a.size, u_min), np.ones(a.size)),
                   constraints=[LinearConstraint(np.ones((1, a.size)), -np.inf, m)],
                   options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 5000})
    assert res.status in (1, 2), res.message
    return res.x


def test_water_filling_closed_form_case():
    # λ = 0.6: U = 1 - 0.6/a = 0.4, 0.7, 0.8 and clip(1 - 6) = 0.1 -> sum 2
    assert water_fill([1, 2, 3, 0.1], 2, 0.1) == pytest.approx([0.4, 0.7, 0.8, 0.1])


@settings(max_examples=25, deadline=None)
@given(
    a=st.lists(st.floats(0.01, 100.0), min_size=3, max_size=9),
    m=st.integers(1, 4),
    u_min=st.sampled_from([0.0, 0.05, 0.1]),
)
def test_water_filling_matches_a_direct_convex_solve(a, m, u_min):
    if m >= len(a) or len(a) * u_min > m:
        return
    u = water_fill(a, m, u_min)
    ref = _direct(a, m, u_min)
    obj = lambda x: float(np.sum(np.asarray(a) * (1 - x) ** 2))  # noqa: E731
    assert u.sum() <= m + 1e-9 and np.all(u >= u_min - 1e-12) and np.all(u <= 1 + 1e-12)
    assert obj(u) <= obj(ref) + 1e-7 * max(1.0, obj(ref))  # at least as good as the generic solver
    assert u == pytest.approx(ref, abs=2e-4)


def test_water_filling_edge_cases():
    assert water_fill([1, 2], 3, 0.1) == pytest.approx([1, 1])  # room for everyone
    assert water_fill([1, 2, 3], 0.2, 0.1) == pytest.approx([0.2 / 3] * 3)  # U_min infeasible: equal shares
    # events that never vary (a = 0) stay at U_min while the others need the counters, then share the rest
    assert water_fill([0, 5, 5], 2, 0.1) == pytest.approx([0.1, 0.95, 0.95])
    assert water_fill([0, 0, 5], 2, 0.1) == pytest.approx([0.5, 0.5, 1.0])


def test_mcnaughton_reference_example():
    # 0.6, 0.5, 0.4 on 2 counters: 1 on c1 [0, .6); 2 on c1 [.6, 1) and c2 [0, .1); 3 on c2 [.1, .5)
    pieces = mcnaughton([0.6, 0.5, 0.4], 2)
    assert [(i, c) for i, c, _, _ in pieces] == [(0, 0), (1, 0), (1, 1), (2, 1)]
    assert [x for _, _, s, e in pieces for x in (s, e)] == pytest.approx([0, 0.6, 0.6, 1.0, 0, 0.1, 0.1, 0.5])


@settings(max_examples=60, deadline=None)
@given(k=st.lists(st.integers(0, 10), min_size=1, max_size=12), m=st.integers(1, 4))
def test_mcnaughton_never_overlaps_an_item_with_itself(k, m):
    if sum(k) > m * 10:
        return
    pieces = mcnaughton(k, m, 10)
    got = np.zeros(len(k))
    busy = np.zeros((m, 10), dtype=int)
    for i, c, s, e in pieces:
        got[i] += e - s
        busy[c, int(s):int(e)] += 1
    assert np.allclose(got, k) and busy.max() <= 1
    for i in range(len(k)):  # the two pieces of an item are disjoint in time
        spans = [(s, e) for j, _, s, e in pieces if j == i]
        if len(spans) == 2:
            (s1, e1), (s2, e2) = spans
            assert e2 <= s1 or e1 <= s2


def test_quantize_keeps_the_total_and_one_slot_each():
    k = quantize([0.6, 0.5, 0.4, 0.5], 10, 20)
    assert k.tolist() == [6, 5, 4, 5]
    k = quantize([0.05, 0.05, 0.95, 0.95], 10, 20)
    assert k.sum() == 20 and k.min() >= 1 and k.max() <= 10


# -- the online scheduler -----------------------------------------------------------------------------------


def _trace(n=400, seed=1):
    rng = np.random.default_rng(seed)
    steady = rng.poisson(1000.0, n).astype(float)  # variance of the rate: ~1000 on a mean of 1000
    bursty = np.where(rng.random(n) < 0.2, 20000.0, 500.0) + rng.poisson(50.0, n)  # varies a lot
    also_steady = rng.poisson(5000.0, n).astype(float)
    counts = np.column_stack([steady, bursty, also_steady, rng.poisson(800.0, n)])
    return Trace(["steady", "bursty", "steady2", "steady3"], counts, np.arange(n + 1.0), "intervals")


def test_the_event_that_varies_most_gets_the_most_counter_time():
    p = Problem(["steady", "bursty", "steady2", "steady3"], "generic-2")
    obs = multiplex(_trace(), p, TintinScheduler(hyperperiod=10, u_min=0.1, layout="mcnaughton"), quantum=1.0, read_every=10)
    share = obs.quanta.running[40:].mean(axis=0)  # after the first hyperperiods
    assert share[p.index("bursty")] == pytest.approx(1.0, abs=0.02)
    assert share[p.index("bursty")] > share[p.index("steady")]
    assert obs.quanta.running.sum(axis=1).max() <= 2
    # every event keeps at least U_min of each hyperperiod
    run = obs.quanta.running.reshape(-1, 10, 4)
    assert (run.sum(axis=1) >= 1).all()


def test_user_weights_shift_counter_time():
    tr = _trace()
    base = Problem(tr.events, "generic-2")
    heavy = Problem(tr.events, "generic-2", weights={"steady": 1e6})
    s0 = multiplex(tr, base, TintinScheduler(layout="mcnaughton"), quantum=1.0, read_every=10).quanta.running[40:].mean(axis=0)
    s1 = multiplex(tr, heavy, TintinScheduler(layout="mcnaughton"), quantum=1.0, read_every=10).quanta.running[40:].mean(axis=0)
    assert s1[0] > s0[0]


def test_welford_statistics_come_from_observed_quanta_only():
    tr = _trace(n=100)
    p = Problem(tr.events, "generic-2")
    sched = TintinScheduler(hyperperiod=5, layout="mcnaughton")
    obs = multiplex(tr, p, sched, quantum=1.0, read_every=5)
    # the last decision used quanta 0..94 (the last hyperperiod was decided before it ran)
    run = obs.quanta.running[:95]
    for j in range(4):
        rates = tr.counts[:95, j][run[:, j]]
        assert sched._count[j] == rates.size
        assert sched._mean[j] == pytest.approx(rates.mean())
        assert sched._m2[j] / (rates.size - 1) == pytest.approx(rates.var(ddof=1))


def test_parameters_are_checked_at_start():
    p = Problem(["a", "b", "c"], "generic-2")
    tr = Trace(["a", "b", "c"], np.ones((10, 3)), np.arange(11.0), "intervals")
    with pytest.raises(Exception, match="hyperperiod"):
        multiplex(tr, p, TintinScheduler(hyperperiod=0), quantum=1.0, read_every=1)
