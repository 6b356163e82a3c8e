"""The pre-flight check of `mpx.problem.fit` on hand-worked cases: what fits, what the watchdog and SMT
change, the bounds on the fewest groups, and perf's greedy failing where a matching exists."""

from __future__ import annotations

import json

from mpx.pmu import PMU, preset
from mpx.problem import Problem
from mpx.problem.fit import check_fit, pmu_variants


def test_fixed_events_take_no_programmable_counter():
    c = check_fit(Problem(("cycles", "instructions", "a", "b", "c", "d"), preset("skylake")))
    assert c.fixed == ("cycles", "instructions") and c.programmable == ("a", "b", "c", "d")
    assert c.fits and c.fits_perf and c.min_groups == c.packed_groups == 1


def test_the_watchdog_moves_cycles_onto_a_programmable_counter():
    """Skylake with HT on: 4 programmable counters. Four events and cycles fit; with the watchdog holding
    the fixed cycle counter, cycles needs a fifth programmable counter: two groups."""
    events = ("cycles", "instructions", "a", "b", "c", "d")
    c = check_fit(Problem(events, preset("skylake").with_nmi_watchdog()))
    assert "cycles" in c.programmable and not c.fits
    assert c.min_groups == c.packed_groups == c.exact_groups == 2


def test_smt_off_doubles_skylake_counters():
    labels = [label for label, _ in pmu_variants(preset("skylake"))]
    assert labels == ["skylake (SMT on), watchdog off", "skylake (SMT on), watchdog on",
                      "skylake-htoff (SMT off), watchdog off", "skylake-htoff (SMT off), watchdog on"]
    events = tuple(f"e{i}" for i in range(7))
    on, off = (check_fit(Problem(events, p)) for p in (preset("skylake"), preset("skylake-htoff")))
    assert on.counters == {"cpu": 4} and off.counters == {"cpu": 8}
    assert (on.fits, on.min_groups) == (False, 2) and (off.fits, off.min_groups) == (True, 1)
    # a core without SMT has no sibling: only the watchdog varies
    assert [label for label, _ in pmu_variants(preset("neoverse-v2"))] == [
        "neoverse-v2, watchdog off", "neoverse-v2, watchdog on"]


def _masked_pmu() -> PMU:
    """Three generic counters; A only on 0, B on 1-2, C on 0-1 (the hand case of `PMU.assign`)."""
    return PMU.from_dict({"name": "masked", "units": {"cpu": {"generic": 3, "fixed": {}, "masks": {
        "A": ["gp0"], "B": ["gp1", "gp2"], "C": ["gp0", "gp1"]}}}})


def test_perf_greedy_fails_where_a_matching_exists():
    c = check_fit(Problem(("A", "B", "C"), _masked_pmu()))
    assert c.fits and not c.fits_perf


def test_masks_can_need_more_groups_than_the_count_bound():
    """Four events that all allow only counter 0: ⌈4/3⌉ = 2 by count, but 4 groups by the masks."""
    pmu = PMU.from_dict({"name": "narrow", "units": {"cpu": {"generic": 3, "fixed": {}, "masks": {
        e: ["gp0"] for e in "wxyz"}}}})
    c = check_fit(Problem(("w", "x", "y", "z"), pmu))
    assert not c.fits and c.min_groups == 2 and c.packed_groups == 4 and c.exact_groups is None


def test_cli_check_answers_for_the_presets(capsys):
    from mpx.cli import main

    assert main(["schedule", "--check", "--pmu", "skylake", "--events",
                 "cycles,instructions,a,b,c,d", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [v["fits"] for v in out["variants"]] == [True, False, True, True]
    assert out["shares"] and {r["scheduler"] for r in out["shares"]} >= {"perf", "hypergraph"}
    assert main(["schedule", "--check", "--pmu", "neoverse-v2", "--metrics", "tma"]) == 0
    text = capsys.readouterr().out
    assert "neoverse-v2, watchdog on" in text and "least counted event" in text
    assert max(len(line) for line in text.splitlines()) <= 120
