"""`mpx.datasets.specs`: the one rule from a name to a Trace, shared by `mpx evaluate`, `mpx trace` and the
experiments' ``[data]`` specs."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.datasets.specs import load_spec, resolve_trace, spec_of
from mpx.datasets.synthetic import synth
from mpx.errors import ConfigError
from mpx.experiment.inputs import load_dataset
from mpx.trace import Trace


def _trace() -> Trace:
    rng = np.random.default_rng(1)
    return Trace(["a", "b"], rng.poisson(50, (40, 2)).astype(float), np.arange(41.0) * 100, "ns", {"workload": "w"})


def test_a_path_and_a_shipped_name_are_specs_and_anything_else_is_refused(tmp_path):
    p = tmp_path / "t.npz"
    _trace().save(p)
    assert spec_of(str(p)) == {"kind": "file", "name": "t.npz", "path": str(p)}
    assert resolve_trace(str(p)) == _trace()
    with pytest.raises(ConfigError, match="neither an existing trace file nor a shipped dataset"):
        spec_of("no-such-thing")


def test_a_config_spec_and_a_command_line_name_give_the_same_trace(tmp_path):
    p = tmp_path / "t.npz"
    _trace().save(p)
    spec = {"kind": "file", "name": "t.npz", "path": str(p.resolve())}
    assert load_dataset(spec) == resolve_trace(str(p)) == load_spec(spec)
    syn = {"kind": "synthetic", "preset": "tma", "intervals": 30, "seed": 3, "name": "s"}
    assert load_spec(syn) == synth("tma", intervals=30, seed=3)


def test_a_slice_is_applied_and_one_past_the_end_is_refused(tmp_path):
    p = tmp_path / "t.npz"
    _trace().save(p)
    spec = {"kind": "file", "name": "t.npz", "path": str(p), "slice": [5, 15]}
    assert load_spec(spec) == _trace().interval_slice(5, 15)
    with pytest.raises(ConfigError, match="has only 40 intervals"):
        load_spec({**spec, "slice": [40, 50]})
    with pytest.raises(ConfigError, match="unknown dataset kind"):
        load_spec({"kind": "url", "name": "x"})
