"""mpx.datasets.synthetic: labelled, deterministic synthetic ground truth with measurable properties."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.datasets.synthetic import (
    PRESETS,
    Burst,
    Derived,
    Event,
    Factor,
    Phase,
    Split,
    SynthSpec,
    check_identities,
    generate,
    identities,
    preset,
    spec_from_dict,
    synth,
)
from mpx.trace import Trace, load_trace


@pytest.fixture(scope="module")
def traces() -> dict[str, Trace]:
    return {name: synth(name, seed=7) for name in PRESETS}


# -- labelling, determinism, integrity ----------------------------------------------------------------------


def test_labelled_as_synthetic(traces):
    for name, t in traces.items():
        assert t.meta["synthetic"] is True
        assert t.meta["simulator"] == "mpx.datasets.synthetic"
        assert t.meta["workload"] == name
        gen = t.meta["generator"]
        assert gen["seed"] == 7 and gen["spec"]["name"] == name
        assert "SYNTHETIC" in t.summary()


def test_deterministic_per_seed():
    for name in PRESETS:
        a, b = synth(name, intervals=300, seed=11), synth(name, intervals=300, seed=11)
        assert a == b and a.checksum() == b.checksum()
        assert not np.array_equal(a.counts, synth(name, intervals=300, seed=12).counts)


def test_regenerated_from_its_meta(traces):
    for t in traces.values():
        spec = spec_from_dict(t.meta["generator"]["spec"])
        assert generate(spec, seed=t.meta["generator"]["seed"]) == t


def test_counts_are_nonnegative_integers(traces):
    for t in traces.values():
        assert (t.counts >= 0).all() and np.array_equal(t.counts, np.rint(t.counts))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_identities_hold_exactly_in_every_interval(seed):
    for name in PRESETS:
        t = synth(name, intervals=400, seed=seed)
        ids = identities(preset(name))
        assert check_identities(t) == [] and check_identities(t, ids) == []
        for lhs, terms in ids:
            np.testing.assert_array_equal(t[lhs], sum(c * t[e] for c, e in terms))


def test_tma_identities_of_the_seed(traces):
    """tma-profiling.md: total = issued + frontend + backend; backend = memory + core; memory = L1 + ext;
    frontend = latency + bandwidth; bad speculation = issued - retired; total = 4 x cycles."""
    t = traces["tma"]
    eq = np.testing.assert_array_equal
    eq(t["slots_total"], t["slots_issued"] + t["slots_frontend_bound"] + t["slots_backend_bound"])
    eq(t["slots_backend_bound"], t["slots_mem_bound_lsu"] + t["slots_core_bound"])
    eq(t["slots_mem_bound_lsu"], t["slots_mem_l1_bound"] + t["slots_mem_ext_bound"])
    eq(t["slots_frontend_bound"], t["slots_fetch_latency"] + t["slots_fetch_bandwidth"])
    eq(t["slots_bad_speculation"], t["slots_issued"] - t["commit_num"])
    eq(t["slots_core_bound"], t["slots_core_bound_rob"] + t["slots_core_bound_iq"])
    eq(t["slots_total"], 4 * t["cycles"])
    assert (t["cycles"] == 10_000).all()
    assert t.meta["identities"][0] == ["slots_total", [[4.0, "cycles"]]]
    # the memory phase is memory-bound: a larger ext-memory share than the compute phase
    phase = t["synth::phase"]
    share = t["slots_mem_ext_bound"] / t["slots_total"]
    assert share[phase == 1].mean() > 2 * share[phase == 0].mean()


def test_identity_violation_is_reported():
    t = synth("tma", intervals=20, seed=0)
    bad = check_identities(t, [("slots_total", [(3.0, "cycles")])])
    assert bad == [("slots_total", 0, 10_000.0)]


# -- the asked properties, measured -------------------------------------------------------------------------


def test_phases_have_their_rates():
    spec = SynthSpec(
        name="p", nodes=(Event("a", rate=100), Event("b", rate=1000)),
        phases=(Phase(300, {"a": 1}), Phase(300, {"a": 5, "b": 0.1}), Phase(300, {"a": 0.2})),
        intervals=900,
    )
    t = generate(spec, seed=1)
    a, b = t["a"], t["b"]
    for k, (ra, rb) in enumerate([(100, 1000), (500, 100), (20, 1000)]):
        seg = slice(300 * k, 300 * (k + 1))
        assert a[seg].mean() == pytest.approx(ra, rel=0.05)
        assert b[seg].mean() == pytest.approx(rb, rel=0.05)
    assert t["synth::phase"].tolist() == [0] * 300 + [1] * 300 + [2] * 300


def test_phase_transitions_abrupt_and_smooth():
    base = dict(name="p", intervals=60)
    abrupt = generate(SynthSpec(**base, nodes=(Event("x", rate=100, noise=False),),
                                phases=(Phase(30, {"x": 1}), Phase(30, {"x": 3}))), seed=0)["x"]
    assert abrupt.tolist() == [100] * 30 + [300] * 30
    smooth = generate(SynthSpec(**base, nodes=(Event("x", rate=100, noise=False),),
                                phases=(Phase(30, {"x": 1}), Phase(30, {"x": 3}, transition=9))), seed=0)["x"]
    ramp = smooth[30:39]
    assert smooth[:30].tolist() == [100] * 30 and smooth[39:].tolist() == [300] * 21
    assert (np.diff(np.r_[100, ramp, 300]) > 0).all()  # strictly between the levels, increasing
    assert ramp.tolist() == [100 + 200 * k / 10 for k in range(1, 10)]


def test_phases_repeat_when_shorter_than_the_trace():
    t = generate(SynthSpec(name="p", nodes=(Event("x", rate=10, noise=False),),
                           phases=(Phase(2, {"x": 1}), Phase(3, {"x": 2})), intervals=12), seed=0)
    assert t["x"].tolist() == [10, 10, 20, 20, 20] * 2 + [10, 10]


def test_bursts_have_the_asked_statistics():
    onset, duration, amp = 0.02, 5.0, 10.0
    spec = SynthSpec(name="b", nodes=(Event("x", rate=200), Event("y", rate=50), Event("z", rate=200)),
                     bursts=(Burst("s", ("x", "y"), onset=onset, duration=duration, amplitude=amp),),
                     intervals=20_000)
    t = generate(spec, seed=3)
    on = t["synth::burst::s"].astype(bool)
    # stationary fraction of time in a burst: D / (D + 1/onset)
    assert on.mean() == pytest.approx(duration / (duration + 1 / onset), rel=0.15)
    # mean burst length
    starts = np.flatnonzero(np.diff(np.r_[0, on.astype(int)]) == 1)
    assert on.sum() / len(starts) == pytest.approx(duration, rel=0.15)
    for name, rate in (("x", 200), ("y", 50)):
        assert t[name][on].mean() == pytest.approx(rate * amp, rel=0.05)
        assert t[name][~on].mean() == pytest.approx(rate, rel=0.05)
    assert t["z"][on].mean() == pytest.approx(200, rel=0.05)  # not a target


def test_rare_events_are_mostly_zero(traces):
    t = traces["bursty"]
    assert (t["rare_1pct"] == 0).mean() >= 0.97
    assert (t["rare_5pct"] == 0).mean() >= 0.90
    assert t["rare_1pct"].sum() > 0 and t["rare_5pct"].sum() > 0  # rare, not absent
    assert (traces["tma"]["exceptions"] == 0).mean() >= 0.9


def test_correlated_events_share_factors(traces):
    t = traces["correlated"]
    c = np.corrcoef(np.log1p(t.counts.T))
    idx = {e: i for i, e in enumerate(t.events)}
    assert c[idx["f0_ev0"], idx["f0_ev1"]] > 0.7
    assert c[idx["f2_ev0"], idx["f2_ev2"]] > 0.7
    assert abs(c[idx["f0_ev0"], idx["f1_ev0"]]) < 0.15
    assert abs(c[idx["indep0"], idx["indep1"]]) < 0.15
    # the factor term preserves the mean rate
    assert t["f0_ev0"].mean() == pytest.approx(1000, rel=0.15)


def test_dispersion_and_noise_free_events():
    t = generate(SynthSpec(name="d", nodes=(Event("p", rate=1000), Event("nb", rate=1000, dispersion=0.2),
                                            Event("clock", rate=1234.4, noise=False)), intervals=5000), seed=2)
    assert t["p"].var() / t["p"].mean() == pytest.approx(1.0, rel=0.1)  # Poisson
    # gamma-Poisson: var = mean + d * mean^2
    assert t["nb"].var() == pytest.approx(1000 + 0.2 * 1000**2, rel=0.1)
    assert (t["clock"] == 1234).all()


def test_split_shares_follow_weights():
    t = generate(SynthSpec(name="s", nodes=(Event("n", rate=10_000, noise=False),
                                            Split("n", {"a": 3, "b": 1})), intervals=500), seed=0)
    assert (t["a"] + t["b"] == 10_000).all()
    assert t["a"].sum() / t["n"].sum() == pytest.approx(0.75, abs=0.002)


# -- validation -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nodes,extra,match",
    [
        ((Event("a", rate=-1),), {}, "rate"),
        ((Event("a", rate=1), Event("a", rate=1)), {}, "defined twice"),
        ((Split("nope", {"a": 1, "b": 1}),), {}, "no earlier event"),
        ((Event("n", rate=1), Split("n", {"a": 1})), {}, ">= 2 parts"),
        ((Event("n", rate=1), Split("n", {"a": 0, "b": 0})), {}, "all weights are 0"),
        ((Event("a", rate=1), Derived("d", ((1.5, "a"),))), {}, "integer"),
        ((Event("a", rate=1), Derived("d", ((1, "zz"),))), {}, "no earlier event"),
        ((Event("a", rate=5), Event("b", rate=50), Derived("d", ((1, "a"), (-1, "b")))), {}, "negative"),
        ((Event("a", rate=1, loadings={"f": 1}),), {}, "unknown factor"),
        ((Event("a", rate=1, occurrence=0),), {}, "occurrence"),
        ((Event("a", rate=1),), {"phases": (Phase(0),)}, "length"),
        ((Event("a", rate=1),), {"phases": (Phase(3, {"zz": 2}),)}, "not an event"),
        ((Event("a", rate=1),), {"bursts": (Burst("b", ("a",), onset=0, duration=2, amplitude=2),)}, "onset"),
        ((Event("a", rate=1),), {"bursts": (Burst("b", ("a",), onset=0.1, duration=0.5, amplitude=2),)}, "duration"),
        ((Event("a", rate=1),), {"factors": (Factor("f", 0.1, rho=1.0),)}, "rho"),
        ((Event("a", rate=1),), {"time_unit": "weeks"}, "time_unit"),
        ((Event("a", rate=1),), {"intervals": 0}, "intervals"),
    ],
)
def test_invalid_specs_are_config_errors(nodes, extra, match):
    with pytest.raises(ConfigError, match=match):
        generate(SynthSpec(name="bad", nodes=nodes, intervals=extra.pop("intervals", 50), **extra), seed=0)


def test_unknown_preset_and_bad_seed():
    with pytest.raises(ConfigError, match="known: tma"):
        preset("nope")
    with pytest.raises(ConfigError, match="seed"):
        synth("tma", intervals=5, seed=-1)


# -- the command ----------------------------------------------------------------------------------------------


def _cli(argv):
    from mpx.cli import synth as cmd

    parser = argparse.ArgumentParser(prog="mpx")
    cmd.add_parser(parser.add_subparsers(dest="command"))
    return cmd.run(parser.parse_args(argv))


def test_cli_writes_the_native_trace(tmp_path, capsys):
    out = tmp_path / "tma.npz"
    assert _cli(["synth", "tma", "-o", str(out), "--intervals", "50", "--seed", "3"]) == 0
    assert "7 exact identities" in capsys.readouterr().out
    assert load_trace(out) == synth("tma", intervals=50, seed=3)


def test_cli_list_and_errors(tmp_path, capsys):
    assert _cli(["synth", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in PRESETS)
    with pytest.raises(ConfigError):
        _cli(["synth", "tma"])
    with pytest.raises(ConfigError):
        _cli(["synth", "tma", "-o", str(tmp_path / "x.npz"), "--intervals", "0"])
