"""LIKWID group switching: one event set per -T step, never multiplexed inside, too-big sets refused, every counter of a group stopped with it."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.problem import EventGroup, Problem
from mpx.scoring.schedules import schedule_scores
from mpx.schedulers.likwid import LikwidScheduler


def _problem(pmu="generic-4"):
    groups = [EventGroup(("a", "b"), name="BRANCH"), EventGroup(("c", "d", "e"), name="L2"),
              EventGroup(("f",), name="FLOPS")]
    return Problem(["a", "b", "c", "d", "e", "f"], pmu, groups=groups)


def running_sets(s, p, n):
    return [{e for e, on in zip(p.events, row) if on} for row in s.running(n)]


def test_one_group_per_quantum_in_order():
    p = _problem()
    s = LikwidScheduler().schedule(p)
    assert running_sets(s, p, 6) == [{"a", "b"}, {"c", "d", "e"}, {"f"}] * 2
    assert s.period == 3 and not s.errors


def test_groups_parameter_is_likwid_g_options():
    p = _problem()
    s = LikwidScheduler(groups=["L2", "BRANCH", "L2"]).schedule(p)
    assert running_sets(s, p, 3) == [{"c", "d", "e"}, {"a", "b"}, {"c", "d", "e"}]
    assert s.errors == {"f": "in no selected LIKWID group: never measured"}
    with pytest.raises(ConfigError, match="no group"):
        LikwidScheduler(groups=["TLB"]).schedule(p)


def test_a_group_too_big_is_an_error_not_multiplexed():
    with pytest.raises(ConfigError, match="group L2 needs 3 programmable counters"):
        LikwidScheduler().schedule(_problem("generic-2"))


def test_fixed_counter_events_ride_along():
    p = Problem(["INST_RETIRED.ANY", "a", "b", "c", "d"], "skylake",
                groups=[EventGroup(("INST_RETIRED.ANY", "a", "b", "c", "d"), name="G")])
    s = LikwidScheduler().schedule(p)  # 4 generic + fixed counter 0: fits
    assert s.running(2).all()


# -- real LIKWID group files ----------------------------------------------------------------------------


def _likwid(shared, arch, pmu):
    from mpx.metrics import load_catalog
    from mpx.problem import Problem

    return Problem.from_catalog(load_catalog(shared("data", "metrics", "likwid", arch)), pmu)


def test_skylake_groups_switch_round_robin(shared):
    p = _likwid(shared, "skylake", "skylake-htoff")
    s = LikwidScheduler().schedule(p)
    assert s.period == len(p.groups) == 29
    run = s.running(29)
    for q, g in enumerate(p.groups):  # quantum q runs exactly group q's programmable events
        busy = {e for e in g.events if e not in p.free}
        assert {e for e, on in zip(p.events, run[q]) if on and e not in p.free} == busy
    # LIKWID puts INSTR_RETIRED_ANY on FIXC0, the energy counters on RAPL: counted all the time
    assert {"INSTR_RETIRED_ANY", "PWR_PKG_ENERGY"} <= p.free


def test_port_usage_needs_hyperthreading_off(shared):
    # PORT_USAGE.txt says REQUIRE_NOHT: it uses PMC0-PMC7, which only exist with HT off
    p = _likwid(shared, "skylake", "skylake")
    with pytest.raises(ConfigError, match="PORT_USAGE"):
        LikwidScheduler().schedule(p)


def test_neoverse_n1_groups(shared):
    p = _likwid(shared, "arm8_n1", "neoverse-n1")
    s = LikwidScheduler().schedule(p)
    sc = schedule_scores(s, p)
    assert sc.n_quanta == 8
    assert np.allclose(sc.sampling_ratio[~sc.free], [
        np.mean([e in g.events for g in p.groups]) for e in np.array(p.events)[~sc.free]
    ])


# -- issue 15, item 1: a switch stops every counter of the old group; -T in seconds ----------------------


def test_uncore_and_energy_counters_stop_with_their_group(shared):
    """likwid-perfctr -g MEM -g FLOPS_DP: __perfmon_switchActiveGroupThread (src/perfmon.c) calls
    perfmon_stopCounters on the old group before perfmon_setupCounters of the new one, so the MEM group's
    box counters (DRAM_READS on MBOX*) count half the time, and the bandwidth metrics are co-scheduled
    half the time (mpx said 1.0 for both before)."""
    p = _likwid(shared, "skylake", "skylake-htoff")
    s = LikwidScheduler(groups=["MEM", "FLOPS_DP"]).schedule(p)
    sc = schedule_scores(s, p)
    ratio = dict(zip(sc.events, sc.sampling_ratio))
    assert ratio["DRAM_READS"] == ratio["DRAM_WRITES"] == 0.5
    assert ratio["INSTR_RETIRED_ANY"] == 1.0  # FIXC0 is in both groups
    assert ratio["PWR_PKG_ENERGY"] == 0.0 and "PWR_PKG_ENERGY" in s.errors  # ENERGY not selected: never measured
    cosched = dict(zip(sc.metrics, sc.coschedule_ratio))
    assert cosched["MEM/Memory bandwidth [MBytes/s]"] == 0.5 and cosched["MEM/CPI"] == 1.0


def _trace(unit: str, n: int, step: float):
    from mpx.trace import Trace

    edges = np.arange(n + 1, dtype=float) * step
    return Trace(["a", "b", "c", "d", "e", "f"], np.ones((n, 6)), edges, time_unit=unit)


def test_switch_interval_is_minus_T_in_seconds():
    """-T: 2 s by default (likwid-perfctr.lua:182 'duration = 2.E06' us); a 0.5 s quantum on a seconds
    axis → each group runs 4 quanta; a cycles axis has no seconds: quantum_seconds is required."""
    from mpx.multiplex import multiplex

    p = _problem()
    obs = multiplex(_trace("s", 24, 0.5), p, LikwidScheduler(), quantum=0.5, read_every=4)
    first = [{e for e, on in zip(p.events, row) if on} for row in obs.quanta.running]
    assert first == ([{"a", "b"}] * 4 + [{"c", "d", "e"}] * 4 + [{"f"}] * 4) * 2
    assert LikwidScheduler(switch_interval=0.05).quanta_per_step(4.0, "ms") == 12  # -T 50ms, 4 ms quanta
    with pytest.raises(ConfigError, match="quantum_seconds"):
        multiplex(_trace("cycles", 24, 1e6), p, LikwidScheduler(), quantum=1e6, read_every=4)
    obs = multiplex(_trace("cycles", 24, 1e6), p, LikwidScheduler(quantum_seconds=1.0), quantum=1e6, read_every=4)
    assert obs.quanta.running[:2, :2].all() and not obs.quanta.running[2, :2].any()
