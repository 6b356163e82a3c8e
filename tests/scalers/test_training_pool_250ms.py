"""A 250 ms gem5 recording's learned scalers train, by default, on the steady-state 50 ms collection too, never on
its own program at another length (issue 36: the steady-state collection is the default for gem5 training)."""

from __future__ import annotations

from mpx.datasets import shipped
from mpx.scoring import replay as scoring_scalers


def test_a_250ms_recording_trains_on_the_other_steady_state_programs(monkeypatch):
    monkeypatch.setattr(scoring_scalers.datasets, "load", lambda name: name)  # names only: no trace is read
    long250 = shipped.names("gem5", "gem5-long-250ms")
    if not long250:
        import pytest

        pytest.skip("no 250 ms gem5 recording in the manifest yet")
    scored = long250[0]
    program = shipped.entry(scored)["recipe"]["program"]
    names, text = scoring_scalers.training_traces(None, scored, None)
    steady = shipped.names("gem5", "gem5-long")
    same = [n for n in steady if shipped.entry(n)["recipe"]["program"] == program]
    assert same and not set(same) & set(names)  # the same program at 50 ms is the scored workload
    assert set(steady) - set(same) <= set(names) and scored not in names
    assert set(long250) - {scored} <= set(names)


def test_a_50ms_recording_still_trains_on_its_own_collection(monkeypatch):
    monkeypatch.setattr(scoring_scalers.datasets, "load", lambda name: name)
    steady = shipped.names("gem5", "gem5-long")
    names, _ = scoring_scalers.training_traces(None, steady[0], None)
    assert sorted(names) == sorted(steady[1:])
