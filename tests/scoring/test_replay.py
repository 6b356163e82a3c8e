"""`mpx.scoring.replay`: the choices `mpx evaluate` and an experiment's scaling cells share — quantum specs,
leave-one-workload-out, the default catalog — and the score-these-scalers loop."""

from __future__ import annotations

import numpy as np
import pytest

from mpx import scalers
from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.pmu import preset
from mpx.multiplex import resolve_quantum
from mpx.datasets.specs import resolve_trace
from mpx.scoring.replay import default_catalog, other_workloads, score_scalers
from mpx.trace import Trace


def _trace(unit: str = "ns") -> Trace:
    rng = np.random.default_rng(0)
    edges = np.cumsum(np.r_[0.0, rng.integers(90, 110, 300)]).astype(float)
    return Trace(["a", "b", "c", "d"], rng.poisson(500, (300, 4)).astype(float), edges, unit, {"workload": "w"})


def test_quantum_specs_of_the_cli_and_of_a_config_agree():
    tr = _trace()
    median = float(np.median(np.diff(tr.edges)))
    assert resolve_quantum(None, tr)[0] == resolve_quantum({"quantum_intervals": 1}, tr)[0] == median
    assert resolve_quantum("250", tr)[0] == resolve_quantum({"quantum": 250}, tr)[0] == 250.0
    assert resolve_quantum("4ms", tr)[0] == resolve_quantum({"quantum_ms": 4}, tr)[0] == 4e6
    assert resolve_quantum({"quantum_ms": 4, "clock_hz": 1e9}, _trace("cycles"))[0] == pytest.approx(4e6)
    with pytest.raises(ConfigError, match="clock_hz"):
        resolve_quantum({"quantum_ms": 4}, _trace("cycles"))
    for bad in ("abc", "-3", "xms"):
        with pytest.raises(ConfigError, match="--quantum"):
            resolve_quantum(bad, tr)


def test_leave_one_workload_out_keeps_order_and_drops_the_scored_workload():
    runs = [("a1", "a"), ("b1", "b"), ("a2", "a"), ("c1", "c")]
    assert other_workloads(runs, "a", lambda r: r[1]) == [("b1", "b"), ("c1", "c")]
    assert other_workloads(runs, "z", lambda r: r[1]) == runs


def test_default_catalog_has_the_most_computable_metrics():
    cat, n = default_catalog(["Ir", "Dr", "Dw", "D1mr", "D1mw", "Bc", "Bcm"])
    assert cat is not None and n > 0 and cat.name == "callgrind"
    assert default_catalog(["nothing-known"]) == (None, 0)


def test_resolve_trace_names_what_it_accepts(tmp_path):
    with pytest.raises(ConfigError, match="neither an existing trace file nor a shipped dataset"):
        resolve_trace("no-such-thing")
    p = tmp_path / "t.npz"
    _trace().save(p)
    assert resolve_trace(str(p)) == _trace()


def test_score_scalers_skips_what_cannot_run_and_propagates_bugs_unless_asked():
    tr = _trace()
    obs = multiplex(tr, Problem(tuple(tr.events), preset("generic-2")), "perf", quantum=100.0, read_every=4)
    res = list(score_scalers(obs, tr, [("linear", {}), ("papi_sw", {})]))
    assert [r.status for r in res] == ["done", "skipped"]
    assert res[0].scores.summary["window_mape"] >= 0 and res[0].seconds >= 0 and res[0].reason is None
    assert res[1].reason.startswith("ConfigError") and res[1].scaler is not None

    learned = [n for n in scalers.REGISTRY.builtin if scalers.REGISTRY.tags(n).learned]
    if learned:
        (r,) = score_scalers(obs, tr, [(learned[0], {})], no_train="give --train")
        assert r.status == "skipped" and str(r.error).endswith("give --train")

    class Broken(scalers.get_class("linear")):
        def estimate(self, obs):
            raise RuntimeError("a bug")

    scalers.register("broken_probe", Broken)
    try:
        with pytest.raises(RuntimeError, match="a bug"):
            list(score_scalers(obs, tr, [("broken_probe", {})]))
        (r,) = score_scalers(obs, tr, [("broken_probe", {})], catch_errors=True)
        assert r.status == "error" and r.reason == "RuntimeError: a bug"
    finally:
        scalers.unregister("broken_probe")


def test_gem5_datasets_resolve_by_name_and_train_on_the_other_gem5_ones():
    from mpx.datasets import shipped as datasets
    from mpx.scoring.replay import training_traces

    if "gem5-chase" not in datasets.names(None):
        pytest.skip("the gem5 datasets are not in this checkout's manifest")
    assert resolve_trace("gem5-chase").meta.get("workload")
    traces, how = training_traces(None, "gem5-chase", None)
    assert len(traces) == len(datasets.names("gem5")) - 1 and "gem5-chase" not in how
    assert all(t.n_events > 1000 for t in traces)  # gem5 traces, not the 18-event callgrind ones
