"""The gem5 catalogs against the shipped gem5 datasets: every relation of ``gem5`` is marked [exact] and
holds in every interval of every dataset; every relation of ``gem5_near`` is marked [approximate N%] and
holds at the rate datasets/gem5/relations.json measured (per dataset); the metrics evaluate on every trace."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from mpx.datasets import shipped as ds
from mpx.metrics import builtin, evaluate_trace, vector_total_relations
from mpx.recording.gem5 import HARDWARE, standard_events

CATALOG = builtin("gem5")
NEAR = builtin("gem5_near")
RELATIONS = list(CATALOG.relations) + list(NEAR.relations)
GEM5 = ds.names("gem5")
RATES = ds.root() / "gem5" / "relations.json"
MEASURED = json.loads(RATES.read_text()) if RATES.is_file() else {"datasets": {}, "relations": {}}
need_data = pytest.mark.skipif(not GEM5, reason="no gem5 dataset recorded in datasets/manifest.json yet "
                               "(datasets/gem5/record_all.sh)")


def status(description: str) -> tuple[str, float]:
    m = re.match(r"\[(exact|approximate) ?([0-9.]+)?%?\]", description)
    assert m, f"relation description must start with [exact] or [approximate N%]: {description!r}"
    return m.group(1), (float(m.group(2)) / 100 if m.group(2) else 1.0)


def test_catalog_shape():
    # perf-like names, TMA level 1 and 2, IPC/CPI, MPKI and miss ratios, DRAM bandwidth
    for name in ("cycles", "instructions", "branches", "branch_misses", "L1_dcache_misses", "LLC_misses",
                 "dTLB_load_misses", "ipc", "cpi", "tma_retiring", "tma_bad_speculation", "tma_frontend_bound",
                 "tma_backend_bound", "tma_memory_bound", "tma_core_bound", "tma_fetch_latency",
                 "tma_fetch_bandwidth", "tma_branch_mispredicts", "l1d_mpki", "l2_mpki", "dtlb_mpki",
                 "branch_mpki", "l1d_miss_ratio", "dram_bw"):
        assert name in CATALOG.metrics
    assert len(CATALOG.relations) >= 20
    assert all(status(r.description)[0] == "exact" for r in CATALOG.relations)
    assert all(status(r.description)[0] == "approximate" for r in NEAR.relations)
    assert len({r.name for r in RELATIONS}) == len(RELATIONS)
    # every event the catalog names is a standard gem5 event (present in every gem5 trace)
    assert CATALOG.used_events <= set(standard_events())
    assert {e for r in RELATIONS for e in r.events} <= set(standard_events())
    # the literals are the recorded machine's
    assert CATALOG.literals["width"] == HARDWARE["core"]["renameWidth"] == HARDWARE["core"]["commitWidth"]
    assert CATALOG.literals["line_bytes"] == HARDWARE["cache_line_bytes"]
    assert CATALOG.literals["clock_hz"] == 3.0e9 and HARDWARE["clock"] == "3GHz"
    # cycles and instructions sit on fixed counters, like a real PMU
    assert CATALOG.events["system.cpu.numCycles"].fixed_counter is not None
    assert CATALOG.events["system.cpu.commitStats0.numInsts"].fixed_counter is not None


@need_data
@pytest.mark.parametrize("name", GEM5)
def test_relations_hold_at_their_measured_rate(name: str):
    trace = ds.load(name)
    counts = {e: trace.counts[:, i] for i, e in enumerate(trace.events)}
    per = MEASURED["datasets"].get(name)
    assert per is not None, f"{name} not measured: run datasets/gem5/measure_relations.py --write"
    for r in RELATIONS:
        kind, _ = status(r.description)
        held = r.holds(counts)
        if kind == "exact":
            bad = np.flatnonzero(~held)
            assert not bad.size, f"{r.name} is marked exact but fails in interval {bad[:5]} of {name}"
        else:
            assert held.mean() == pytest.approx(per["rates"][r.name], abs=1e-6), r.name
    # gem5's vector identities: ::total = sum of the parts, in every interval
    for r in vector_total_relations(trace.events):
        assert r.holds(counts, rtol=1e-12).all(), r.name


@need_data
def test_approximate_rates_in_the_catalog_are_the_measured_ones():
    rates = MEASURED["relations"]
    assert set(rates) == {r.name for r in RELATIONS}
    for r in RELATIONS:
        kind, rate = status(r.description)
        assert r.name in rates
        assert rates[r.name]["status"] == kind
        if kind == "approximate":
            assert rate == pytest.approx(rates[r.name]["rate"], abs=0.0006)  # printed with one decimal in %
    assert set(MEASURED["datasets"]) == set(GEM5), "relations.json is stale: run measure_relations.py --write"


@need_data
@pytest.mark.parametrize("name", GEM5)
def test_metrics_evaluate_and_tma_level1_adds_up(name: str):
    trace = ds.load(name)
    v = evaluate_trace(CATALOG, trace)
    ok = v["cycles"] > 0
    assert ok.all()
    tma = v["tma_retiring"] + v["tma_bad_speculation"] + v["tma_frontend_bound"] + v["tma_backend_bound"]
    # the four level-1 fractions add up to 1 wherever the slot identity holds (measured rate)
    adds_up = np.abs(tma - 1) < 1e-9
    assert adds_up.mean() == pytest.approx(MEASURED["datasets"][name]["rates"]["tma_slots"], abs=1e-6)
    assert np.allclose(v["tma_fetch_latency"] + v["tma_fetch_bandwidth"], v["tma_frontend_bound"])
    assert np.allclose(v["tma_memory_bound"] + v["tma_core_bound"], v["tma_backend_bound"])
    assert (v["tma_memory_bound"] >= 0).all() and (v["tma_retiring"] <= 1).all()
    assert (v["ipc"] >= 0).all() and np.nanmax(v["dram_bw"]) < 19.2 * 1.01  # DDR4-2400 x64 peak


@pytest.mark.parametrize("name,generic", [("gem5-o3-g4", 4), ("gem5-o3-g8", 8)])
def test_gem5_pmu_presets_put_cycles_and_instructions_on_fixed_counters(name: str, generic: int):
    from mpx.pmu import preset

    pmu = preset(name)
    fixed = ["system.cpu.numCycles", "system.cpu.commitStats0.numInsts"]
    assert all(pmu.is_fixed(e) for e in fixed)
    others = ["system.cpu.dcache.demandMisses::total", "system.cpu.rename.blockCycles", "system.cpu.iew.idleCycles",
              "system.cpu.branchPred.mispredicted_0::total", "system.cpu.mmu.dtb.rdMisses",
              "system.cpu.icache.demandMisses::total", "system.cpu.l2cache.demandMisses::total",
              "system.mem_ctrl.dram.bytesRead::total", "system.cpu.rename.renamedInsts"]
    assert pmu.fits(fixed + others[:generic])
    assert not pmu.fits(fixed + others[: generic + 1])


@need_data
def test_no_default_event_is_zero_in_every_dataset():
    # an event that never counts in any shipped dataset takes counter time and decides nothing (issue 28):
    # the default problem of the catalog holds none (itb.rdAccesses / rdMisses were, until the iTLB names
    # pointed at the stats gem5 counts instruction fetches under)
    from mpx.pmu import preset
    from mpx.problem import Problem

    events = list(Problem.from_catalog(CATALOG, preset("gem5-o3-g4")).events)
    zero = set(events)
    for name in GEM5:
        t = ds.load(name, verify=False)
        idx = {e: i for i, e in enumerate(t.events)}
        totals = t.counts[:, [idx[e] for e in events]].sum(axis=0)
        zero &= {e for e, s in zip(events, totals) if not s > 0}
    assert not zero, f"catalog events zero in every gem5 dataset: {sorted(zero)}"
