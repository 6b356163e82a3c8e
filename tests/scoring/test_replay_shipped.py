"""Every shipped dataset x every PMU preset x every scaler, with `mpx evaluate`'s defaults (issue 27): no
scaler raises (LinAlgError, MemoryError, ...) nor warns of an overflow; a scaler may only be skipped with
a stated reason (e.g. papi_sw's minimum slice). A short slice of each dataset keeps it to seconds per
dataset; the fast test takes one callgrind and one gem5 dataset on two presets, the slow one all.
The full-length runs are measured with ``mpx evaluate NAME --pmu gem5-o3-g4`` (README, issue 27)."""

from __future__ import annotations

import functools
import hashlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from mpx import pmu, scalers

from mpx.datasets import shipped as datasets
from mpx.errors import MpxError
from mpx.multiplex import multiplex, resolve_quantum
from mpx.observation import Observation
from mpx.problem import Problem
from mpx.scoring.replay import default_catalog, default_events, memory_refusal, score_scalers

N_INTERVALS = 200  # of each dataset: 20 read windows of 10 quanta (fewer: mpx warns)


def presets() -> list[str]:
    return [p if p != "generic-N" else "generic-4" for p in pmu.presets()]


@functools.lru_cache(maxsize=None)
def _slice(name: str):
    """The first `N_INTERVALS` of a shipped dataset, read once per test process (a trace is read-only): each
    of the 96 observations read its dataset and three training datasets again (0.4 s of 1.2 s per check)."""
    return datasets.load(name).interval_slice(0, N_INTERVALS)


def observe(name: str, preset: str) -> Observation:
    """The observation `mpx evaluate NAME --pmu PRESET` scores, on a slice."""
    trace = _slice(name)
    p = pmu.resolve_pmu(preset)
    events, _ = default_events(trace, p)
    quantum, _ = resolve_quantum(None, trace)
    return multiplex(trace, Problem(events, p), "perf", quantum=quantum, read_every=10, seed=0)


def seen_by_scalers(obs: Observation) -> str:
    """A digest of what a scaler reads of an observation: its events, quantum and read views (no scaler reads the
    PMU or the schedule: `test_scalers_read_no_pmu`), so two presets with the same digest give the same scores."""
    h = hashlib.sha256(repr((obs.events, obs.quantum, obs.read_every, obs.time_unit)).encode())
    for a in (obs.quanta.edges, obs.quanta.running, obs.quanta.counts, obs.reads.edges, obs.reads.raw,
              obs.reads.enabled, obs.reads.running):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def run_one(name: str, preset: str, obs: Observation | None = None) -> dict[str, str]:
    """`mpx evaluate NAME --pmu PRESET` on a slice, every scaler: name -> 'done' or the skip reason."""
    trace = _slice(name)
    obs = obs if obs is not None else observe(name, preset)
    catalog, _ = default_catalog(obs.events)
    sim = next(s for s in datasets.SIMULATORS if name in datasets.names(s, None))
    same = datasets.names(sim, datasets.collection(datasets.entry(name)))  # train within the dataset's collection
    train = [_slice(n) for n in same if n != name][:3]
    specs = [(n, {"relations": catalog} if scalers.get_class(n).needs_relations and catalog is not None else {})
             for n in scalers.REGISTRY.builtin]
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow in expm1, a division by zero: a failure
        for res in score_scalers(obs, trace, specs, catalog, train=train):
            out[res.name] = "done" if res.status == "done" else res.reason
            if res.status == "done":
                assert all(v is None or np.isfinite(v) for v in res.scores.summary.values())
    return out


def check(name: str, preset: str, obs: Observation | None = None) -> None:
    got = run_one(name, preset, obs)
    assert set(got) == set(scalers.REGISTRY.builtin)
    bad = {n: why for n, why in got.items() if why != "done" and not why.startswith(("ConfigError", "ScalerError"))}
    assert not bad, f"{name} on {preset}: {bad}"
    singular = {n: why for n, why in got.items() if "singular" in why or "memory" in why.lower()}
    assert not singular, f"{name} on {preset}: {singular}"
    assert got["linear"] == "done" and got["fusion"] == "done" and got["bayesperf"] == "done"


@pytest.mark.parametrize("name,preset", [("xz", "skylake"), ("gem5-phases", "gem5-o3-g4")])
def test_evaluate_defaults_on_a_shipped_dataset(name, preset):
    check(name, preset)


@pytest.mark.slow(seconds=5)
@pytest.mark.parametrize("name", datasets.names("callgrind") + datasets.names("gem5"))  # the main collections
def test_evaluate_defaults_on_every_shipped_dataset_and_preset(name):
    """Every preset, each distinct observation scored once (96 of the 171 dataset x preset pairs: e.g. skylake's
    fixed counters count none of a callgrind trace's events, so it multiplexes them as generic-4 does)."""
    done: set[str] = set()
    for preset in presets():
        obs = observe(name, preset)
        key = seen_by_scalers(obs)
        if key not in done:
            done.add(key)
            check(name, preset, obs)


def test_scalers_read_no_pmu():
    """What `seen_by_scalers` relies on: no scaler module reads the observation's problem, PMU, groups or schedule."""
    import mpx.scalers as pkg

    root = Path(pkg.__file__).parent
    offenders = [str(f.relative_to(root)) for f in root.rglob("*.py")
                 if re.search(r"(?<!mpx)\.(problem|pmu|groups|schedule)\b", f.read_text())]
    assert not offenders, offenders


def test_gem5_traces_default_to_the_catalog_events_and_memory_is_checked():
    trace = _slice("gem5-xz")
    p = pmu.resolve_pmu("gem5-o3-g4")
    events, text = default_events(trace, p)
    assert 30 <= len(events) < 100 and "gem5 catalog" in text
    assert default_events(_slice("xz"), p)[0] == tuple(_slice("xz").events)
    obs = multiplex(trace, Problem(tuple(trace.events), p), "perf", quantum=resolve_quantum(None, trace)[0],
                    read_every=10)
    fusion = scalers.get("fusion")
    # every stat: E x E matrices per quantum, 2 * 200 * 1525^2 * 8 B = 7.4 GB
    assert fusion.memory_bytes(len(trace.events), N_INTERVALS, 20) > 7e9
    why = memory_refusal(fusion, obs, available=2 * 10**9)
    assert why is not None and "fusion would need about" in why and "--events" in why
    assert memory_refusal(scalers.get("linear"), obs, available=2 * 10**9) is None


def test_library_and_cli_refuse_a_scaler_that_does_not_fit_and_say_why(capsys, monkeypatch):
    import mpx.scoring.replay
    from mpx.cli import main

    monkeypatch.setattr(mpx.scoring.replay, "available_memory", lambda: 10**9)  # 1 GB: fusion on every stat does not fit
    trace = _slice("gem5-xz")
    p = pmu.resolve_pmu("gem5-o3-g4")
    obs = multiplex(trace, Problem(tuple(trace.events), p), "perf", quantum=resolve_quantum(None, trace)[0],
                    read_every=10)
    res = list(score_scalers(obs, trace, [("linear", {}), ("fusion", {})], train=[_slice("gem5-sort")]))
    assert [r.status for r in res] == ["done", "skipped"] and "would need about" in res[1].reason
    assert main(["evaluate", "gem5-phases", "--pmu", "gem5-o3-g4", "--scaler", "fusion", "--scaler", "linear",
                 "--events", "all"]) == 0
    out = capsys.readouterr().out
    assert "not scored fusion" in out and "would need about" in out and "--ignore-memory" in out
    assert "events: every event of the trace (--events all)" in out
