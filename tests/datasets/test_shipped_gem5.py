"""The shipped gem5 datasets (datasets/gem5/recipes.json, recorded with `mpx record --simulator gem5`):
what the manifest says is what the files hold, the hardware is explicit, the time axis is the period."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mpx.datasets import shipped as ds
from mpx.datasets.specs import spec_head
from mpx.recording.gem5 import HOST_STATS, standard_events

GEM5 = ds.names("gem5")
RECIPES = {d["name"]: d for d in ds.recipes() if ds.collection(d) == ds.MAIN}  # the 5 ms set

pytestmark = pytest.mark.skipif(not GEM5, reason="no gem5 dataset recorded in datasets/manifest.json yet "
                                "(datasets/gem5/record_all.sh)")


def test_recipes_are_gem5_and_distinct():
    assert len(RECIPES) >= 8
    assert len({d["behaviour"] for d in RECIPES.values()}) == len(RECIPES)
    for d in RECIPES.values():
        assert ds.is_gem5(d["recipe"]) and d["name"].startswith("gem5-")
        assert d["recipe"]["max_dumps"] >= 1000
    assert len(GEM5) >= 8, "at least 8 gem5 datasets are shipped (datasets/gem5/record_all.sh)"
    assert len({ds.entry(n)["behaviour"] for n in GEM5}) == len(GEM5)
    for n in GEM5:  # a recorded dataset was recorded from its recipe
        assert ds.entry(n)["recipe"] == RECIPES[n]["recipe"]


@pytest.mark.parametrize("name", GEM5)
def test_gem5_dataset_matches_manifest_and_recipe(name: str):
    e = ds.entry(name)
    trace = ds.load(name)
    info, recipe, m = e["trace"], e["recipe"], trace.meta
    assert list(trace.events) == info["events"] and trace.checksum() == info["content_sha256"]
    head = spec_head({"kind": "shipped", "name": name})  # without the counts: the same (a cell key holds it)
    assert (head.checksum, head.events, head.time_unit, head.meta) == (
        trace.checksum(), trace.events, trace.time_unit, trace.meta)
    np.testing.assert_array_equal(head.edges, trace.edges)
    assert trace.n_intervals == info["intervals"] == recipe["max_dumps"] >= 1000
    assert len(trace.events) >= 100 and trace.time_unit == "ticks"
    # every interval is one period of simulated time
    np.testing.assert_array_equal(trace.durations, np.full(trace.n_intervals, recipe["period_ps"]))
    assert m["recording"]["period_ps"] == recipe["period_ps"] and m["simulator"] == "gem5"
    # every hardware parameter is in the trace and the manifest
    assert m["hardware"] == e["hardware"]
    for key in ("clock", "core", "caches", "tlb", "memory"):
        assert key in m["hardware"]
    assert m["hardware"]["core"]["renameWidth"] and m["hardware"]["caches"]["l2"]["size"]
    # no host-dependent values; the standard events are all there
    assert not set(HOST_STATS) & (set(trace.events) | set(trace.aux_names))
    assert set(standard_events()) <= set(trace.events)
    assert "/mpx-gem5-" not in json.dumps(m)
    # the program ran: instructions retired in every interval after the first
    insts = trace["system.cpu.commitStats0.numInsts"]
    assert (insts[1:] > 0).all()


LONG = ds.names("gem5", "gem5-long")


@pytest.mark.parametrize("name", LONG or [pytest.param("none", marks=pytest.mark.skip(
    reason="no gem5-long dataset recorded yet (datasets/gem5/record_long.sh)"))])
def test_long_steady_state_dataset_records_what_was_skipped(name: str):
    """A gem5-long dataset: the recipe's fast-forward and warm-up are in the trace's metadata and the
    manifest, its first interval starts where the warm-up ended, the intervals are the recipe's period, and
    the fast-forward CPU's stats are not among the events."""
    e, trace = ds.entry(name), ds.load(name)
    recipe, sk = e["recipe"], trace.meta["recording"]["skipped"]
    assert sk["fast_forward_insts"] == recipe["fast_forward_insts"] > 0
    assert sk["warmup_insts"] == recipe["warmup_insts"]
    assert e["recording"]["skipped"] == sk
    assert trace.edges[0] == sk["ticks_before_first_interval"] > sk["fast_forward_ticks"] > 0
    assert trace.n_intervals == recipe["max_dumps"]
    np.testing.assert_array_equal(trace.durations, recipe["period_ps"])
    assert not [x for x in trace.events if "ff_cpu" in x]
    assert set(standard_events()) <= set(trace.events)
