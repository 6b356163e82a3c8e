"""TinTin's scheduler as the authors' kernel runs it (layout="kernel"), on hand cases derived from the
kernel's code (../shared/peers/tintin/kernel/, WUSTL-CSPL/tintin-kernel 7906262e)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.schedulers.tintin import TintinScheduler, kernel_elastic, water_fill
from mpx.trace import Trace


def test_elastic_hand_case_with_the_kernels_minimum():
    """tintin_elastic.c:320-406 with n = 5, m = 2, H = 10, u_min = one quantum (:329): u_max = ⌈5/2⌉·10 = 30,
    u_bound = 60, u_sum = 150; elasticities 4, 1, 1, 1, 1 (e_sum 8). The first: (150 − 60)·4/8 = 45 > 29 →
    u_min = 1 (delta 1, u_sum 120, e_sum 4); each other: (120 − 60 + 1)·1/4 = 15.25 → 30 − 15.25 = 14.75."""
    u = kernel_elastic([4, 1, 1, 1, 1], 2, 10.0, 1.0)
    assert u == pytest.approx([1, 14.75, 14.75, 14.75, 14.75])
    assert u.sum() == pytest.approx(60.0)


def test_elastic_special_cases():
    assert kernel_elastic([1, 2], 6, 10.0, 1.0) == pytest.approx([10, 10])            # n <= m: u_max (:332-338)
    assert kernel_elastic([np.inf] * 4, 2, 10.0, 1.0) == pytest.approx([10] * 4)       # e_sum 0: u_bound/n (:376-383)
    u = kernel_elastic([np.inf, 2.0, 1.0], 2, 10.0, 1.0)                               # V = 0: compressed to u_min
    assert u[0] == pytest.approx(1.0)


@pytest.mark.parametrize("n,m,seed", [(5, 2, 0), (24, 6, 1), (24, 4, 2)])
def test_elastic_equals_water_filling_on_the_same_inputs(n, m, seed):
    """The one-pass algorithm solves min Σ (1/e_i)(1 − U_i)² s.t. Σ U_i <= m, u_min <= U_i <= 1 (shares of
    u_max): the same budgets as water filling given the same weights and minimum."""
    rng = np.random.default_rng(seed)
    e = rng.lognormal(0, 1.5, n)
    hyper, umin = 10.0, 1.0
    u_max = -(-n // m) * hyper
    k = kernel_elastic(e, m, hyper, umin) / u_max
    w = water_fill(1 / e, m, umin / u_max)
    assert k == pytest.approx(w, abs=1e-9)


def _trace(n_q, n_e=1, seed=0):
    rng = np.random.default_rng(seed)
    names = [f"e{j}" for j in range(n_e)]
    return Trace(names, rng.poisson(100.0, (n_q, n_e)).astype(float) + 1, np.arange(n_q + 1.0), "intervals")


def test_merged_run_burns_k_k_plus_1_over_2():
    """One event on one counter, budget ⌈1/6⌉·10 = 10 quanta (tintin_elastic.c:320-338), ticks every quantum:
    merged, the ticks at 1, 2, 3 charge 1 + 2 + 3 = 6 (issue 24's reading of core.c: the measurement's time
    so far at every tick), leaving 4; unmerged 3, leaving 7."""
    tr = _trace(4)
    p = Problem(tr.events, "generic-1")
    s = TintinScheduler(warmup=0, tick="quantum")
    multiplex(tr, p, s, quantum=1.0, read_every=4)
    assert s.remaining_[0] == pytest.approx(4.0)
    s2 = TintinScheduler(warmup=0, tick="quantum", merge=False)
    multiplex(tr, p, s2, quantum=1.0, read_every=4)
    assert s2.remaining_[0] == pytest.approx(7.0)


def test_resolve_only_when_every_budget_is_spent():
    """tintin_scheduler.c:237, 258: the budget of 10 is spent after 4 merged quanta (1+2+3+4), so the
    elastic problem is solved at quantum 0 and again at quantum 4; every hyperperiod: at 0 only (6 quanta)."""
    tr = _trace(6)
    p = Problem(tr.events, "generic-1")
    s = TintinScheduler(warmup=0, tick="quantum")
    multiplex(tr, p, s, quantum=1.0, read_every=6)
    assert s.resolves_ == 2
    s2 = TintinScheduler(warmup=0, tick="quantum", resolve="hyperperiod")
    multiplex(tr, p, s2, quantum=1.0, read_every=6)
    assert s2.resolves_ == 1


def test_warm_up_least_monitored_first_every_quantum():
    """tintin_scheduler.c:229-255: while an event has < warmup·H on a counter, priority = time on counters
    (ties in opening order). core.c:1198-1200 forwards the timer one quantum at every tick, so with H = 2,
    warmup = 1, one counter, three events take turns quantum by quantum and the warm-up ends at quantum 6;
    tick="next_schedule" follows the returned hyperperiod (tintin_scheduler.c:249-255): two quanta each."""
    tr = _trace(10, 3)
    p = Problem(tr.events, "generic-1")
    s = TintinScheduler(hyperperiod=2, warmup=1.0, m=1)
    obs = multiplex(tr, p, s, quantum=1.0, read_every=2)
    assert [int(np.flatnonzero(r)[0]) for r in obs.quanta.running[:6]] == [0, 1, 2, 0, 1, 2]
    assert s.warm_up_quanta_ == 6
    s2 = TintinScheduler(hyperperiod=2, warmup=1.0, m=1, tick="next_schedule")
    obs2 = multiplex(tr, p, s2, quantum=1.0, read_every=2)
    assert [int(np.flatnonzero(r)[0]) for r in obs2.quanta.running[:6]] == [0, 0, 1, 1, 2, 2]
    assert s2.warm_up_quanta_ == 6


def _fixed(counts):
    counts = np.asarray(counts, dtype=float)
    return Trace([f"e{j}" for j in range(counts.shape[1])], counts, np.arange(counts.shape[0] + 1.0), "intervals")


def test_layout_with_a_variable_event_recorded_before_the_solve():
    """Two events on one counter, m = 1, H = 2 quanta, u_min = one quantum, warm-up 1 H (2 quanta each).
    The warm-up runs e0, e1, e0, e1 (one quantum per tick). e0 counts 10 every quantum (V = 0, elasticity
    U64_MAX, tintin_elastic.c:79-80); e1 counts 10 then 30 in its pieces (quanta 1, 3): Welford
    (tintin_uncertainty.c:199-218) gives V = (1·0·10 + 1·10·20)/2 = 100. The piece of quantum 3 is stored at
    the tick of quantum 4 before the solve (core.c:2479-2487, 4534). tintin_elastic.c:31-36: u_max = 2·2 = 4,
    u_bound = 4, u_sum = 8; e0 first (the larger elasticity): compressed to u_min = 1 (delta 1, u_sum 4);
    e1: (4 − 4 + 1)·e1/e1 = 1 → 3. Layout by remaining budget (tintin_scheduler.c:139-155): e1 at quantum 4,
    back to back with its piece of quantum 3, so merged (core.c:2401): charged 2 (core.c:2416) → 1; at 5 the
    tie 1:1 goes to the larger σ (e1: √V·(5 − 3) > e0's 0), merged again, charged 3 → 0; at 6 e0 (1 → 0);
    at 7 every budget is spent and the problem is solved again (tintin_scheduler.c:237, 258)."""
    c = np.array([[10, 10], [10, 10], [10, 10], [10, 30], [10, 20], [10, 20], [10, 20], [10, 20]])
    tr = _fixed(c)
    p = Problem(tr.events, "generic-1")
    s = TintinScheduler(hyperperiod=2, warmup=1.0, m=1, u_min=0.5)
    obs = multiplex(tr, p, s, quantum=1.0, read_every=8)
    on = [int(np.flatnonzero(r)[0]) for r in obs.quanta.running]
    assert on[:7] == [0, 1, 0, 1, 1, 1, 0]
    assert s.warm_up_quanta_ == 4
    assert s.resolves_ == 2


def test_welford_per_piece_of_back_to_back_quanta():
    """core.c:2423: a merged reading still updates Welford with the piece's own count and time, so five
    counts 10, 20, 30, 40, 50 on five consecutive quanta (one merged measurement) give their time-weighted
    population variance, 200, not the variance of one measurement (0)."""
    tr = _fixed(np.array([[10.0], [20], [30], [40], [50], [60]]))
    p = Problem(tr.events, "generic-1")
    s = TintinScheduler(warmup=0)
    multiplex(tr, p, s, quantum=1.0, read_every=6)
    # the decision at quantum 5 has stored the pieces of quanta 0..4; the last tick (quantum 5) is never stored
    assert s.variance_[0] == pytest.approx(np.var([10.0, 20, 30, 40, 50]))


def test_layout_stops_at_the_first_event_that_does_not_fit(monkeypatch):
    """perf's flexible sched-in (Linux 5.15 merge_sched_in: can_add_hw = 0 after a failure): in priority
    order a, b, c with {a, b} impossible together, b fails and c is not tried although {a, c} fits."""
    tr = _trace(2, 3)
    p = Problem(tr.events, "generic-2")
    real = Problem.fits
    monkeypatch.setattr(Problem, "fits", lambda self, ev, *a, **k: not {"e0", "e1"} <= set(ev) and real(self, ev, *a, **k))
    obs = multiplex(tr, p, TintinScheduler(warmup=1.0), quantum=1.0, read_every=2)
    assert obs.quanta.running[0].tolist() == [True, False, False]


def test_default_m_is_the_kernels_six_and_the_pmu_bounds_the_layout():
    """NUM_HPCS = 6 (tintin_event.h:14) gives budgets for 6 counters (⌈8/6⌉·H = 20 quanta each, none
    compressed with V = 0: u_bound/n = 15); the layout still fills only the PMU's 4."""
    tr = _trace(40, 8)
    p = Problem(tr.events, "generic-4")
    s = TintinScheduler(warmup=0)
    obs = multiplex(tr, p, s, quantum=1.0, read_every=10)
    assert obs.quanta.running.sum(axis=1).max() == 4
    assert s.utilization_.max() <= 1.0
    s4 = TintinScheduler(warmup=0, m=None)
    multiplex(tr, p, s4, quantum=1.0, read_every=10)
    assert s4.resolves_ >= 1


def test_warm_up_longer_than_the_trace_never_reaches_elastic():
    """gem5's 1,000-quanta traces: 20 hyperperiods of 10 quanta per event on 4 counters is 200 quanta per
    event, so with many events the warm-up alone outlasts the run; a shortened warm-up reaches it."""
    tr = _trace(100, 8)
    p = Problem(tr.events, "generic-4")
    s = TintinScheduler()
    multiplex(tr, p, s, quantum=1.0, read_every=10)
    assert s.warm_up_quanta_ is None and s.resolves_ == 0
    s2 = TintinScheduler(warmup=2.0)
    multiplex(tr, p, s2, quantum=1.0, read_every=10)
    assert s2.warm_up_quanta_ is not None and s2.resolves_ >= 1


def test_uncertainty_first_hand_case():
    """tintin_schedule_uncertainty_first (tintin_scheduler.c:183-217), one counter, every quantum: σ = 0 for
    all until an event has two pieces with different rates, ties to the least monitored: e0, e1, e2, then e0
    (all monitored 1). e0's pieces 10 and 30 give V = 100 and σ = 10·(4 − 2) = 20 > 0 at quantum 4 while e1
    and e2 (one piece each) stay at σ = 0: e0 keeps the counter (the paper's "event starvation")."""
    c = np.array([[10, 10, 10], [10, 10, 10], [10, 10, 10], [30, 10, 10], [20, 10, 10], [20, 10, 10]])
    tr = _fixed(c)
    p = Problem(tr.events, "generic-1")
    obs = multiplex(tr, p, TintinScheduler(policy="uncertainty_first", m=1), quantum=1.0, read_every=6)
    assert [int(np.flatnonzero(r)[0]) for r in obs.quanta.running] == [0, 1, 2, 0, 0, 0]
    obs2 = multiplex(tr, p, TintinScheduler(policy="uncertainty_first", m=1, hyperperiod=2, tick="next_schedule"),
                     quantum=1.0, read_every=6)
    assert [int(np.flatnonzero(r)[0]) for r in obs2.quanta.running] == [0, 0, 1, 1, 2, 2]

    # the warm-up the code intended (tintin_scheduler.c:189-197): 4 ticks of priority (i + ticks) % 3 first
    obs3 = multiplex(tr, p, TintinScheduler(policy="uncertainty_first", m=1, uf_warmup=4), quantum=1.0, read_every=6)
    assert [int(np.flatnonzero(r)[0]) for r in obs3.quanta.running][:4] == [0, 2, 1, 0]
