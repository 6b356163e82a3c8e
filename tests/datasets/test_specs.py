"""`mpx.datasets.specs`: the one rule from a name to a Trace, shared by `mpx evaluate`, `mpx trace` and the
experiments' ``[data]`` specs."""

from __future__ import annotations

import os

import numpy as np
import pytest

from mpx.datasets import shipped
from mpx.datasets.specs import TraceHead, load_spec, resolve_trace, spec_head, spec_of
from mpx.datasets.synthetic import synth
from mpx.errors import ConfigError
from mpx.experiment.inputs import dataset_head, load_dataset
from mpx.trace import Trace

SHIPPED = shipped.names(None)  # each one's head is compared with its trace in tests/datasets/test_shipped*.py


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


def _head_of(trace: Trace) -> tuple:
    return trace.checksum(), tuple(trace.events), trace.time_unit, trace.meta, trace.edges.tolist()


def _as_tuple(head: TraceHead) -> tuple:
    return head.checksum, tuple(head.events), head.time_unit, head.meta, np.asarray(head.edges).tolist()


def test_a_sliced_or_other_spec_is_loaded_for_its_head(tmp_path):
    name = SHIPPED[0]
    sliced = {"kind": "shipped", "name": name, "slice": [3, 9]}
    assert _as_tuple(spec_head(sliced)) == _head_of(shipped.load(name).interval_slice(3, 9))
    syn = {"kind": "synthetic", "preset": "tma", "intervals": 30, "seed": 3, "name": "s"}
    assert _as_tuple(spec_head(syn)) == _head_of(synth("tma", intervals=30, seed=3))


def test_a_dataset_file_written_anew_gets_a_new_head(tmp_path):
    """`dataset_head` remembers heads per process, by the spec and the file's size and time of change."""
    p = tmp_path / "t.npz"
    first = _trace()
    first.save(p)
    spec = {"kind": "file", "name": "t.npz", "path": str(p)}
    assert dataset_head(spec).checksum == first.checksum()
    second = first.select(["a"])
    second.save(p)
    os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 1_000_000_000))  # a coarse clock may not tick
    assert dataset_head(spec).checksum == second.checksum() != first.checksum()
