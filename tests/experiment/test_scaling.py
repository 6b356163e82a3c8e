"""Experiment configs: validation errors naming the key, grid expansion, cell keys, run_cell, and
leave-one-workload-out training of learned scalers."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.experiment import Experiment, cell_key, load_config, run_cell
from tests._exp_helpers import SMALL, write_config


@pytest.fixture(autouse=True)
def pinned_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


def raw(**edits):
    """The small config as a dict, with ``section.key`` edits (None deletes)."""
    import tomllib

    cfg = tomllib.loads(SMALL.format(name="t", extra="", mux_extra=""))
    for path, v in edits.items():
        sec, _, key = path.partition("__")
        if v is None:
            cfg[sec].pop(key) if key else cfg.pop(sec)
        else:
            cfg.setdefault(sec, {})[key] = v
    return cfg


@pytest.mark.parametrize("edits, words", [
    ({"schedulers__use": ["perf", "nosuch"]}, ["[schedulers]", "nosuch", "available"]),
    ({"scalers__use": ["linear", "nosuch"]}, ["[scalers]", "nosuch"]),
    ({"hardware__pmu": None}, ["[hardware]", "pmu", "required"]),
    ({"hardware__counters": None}, ["[hardware]", "counters", "no defaults"]),
    ({"hardware": None}, ["[hardware]", "required"]),
    ({"multiplex__quantum_intervals": None}, ["[multiplex]", "quantum"]),
    ({"multiplex__quantum": 5.0}, ["exactly one"]),
    ({"multiplex__read_every": None}, ["read_every", "required"]),
    ({"multiplex__read_every": 0}, ["read_every", ">= 1"]),
    ({"hardware__counters": 0}, ["counters", "positive"]),
    ({"hardware__pmu": "nosuch-pmu"}, ["nosuch-pmu"]),
    ({"data__datasets": ["nosuch"]}, ["[data]", "nosuch", "shipped"]),
    ({"data__intervals": [5, 2]}, ["[data] intervals"]),
    ({"experiment__name": None}, ["[experiment] name"]),
    ({"experiment__kind": "other"}, ["kind"]),
    ({"bogus__x": 1}, ["unknown section [bogus]"]),
    ({"hardware__cores": 4}, ["unknown key", "cores", "[hardware]"]),
    ({"scalers__params": {"linear": {"nosuch": 1}}}, ["[scalers.params.linear]", "nosuch"]),
    ({"schedulers__params": {"nosuch": {}}}, ["[schedulers.params.nosuch]"]),
    ({"sweep__hardware.counters": 4}, ["[sweep]", "list"]),
    ({"sweep__hardware.counters": [2, -1]}, ["counters", "positive"]),
    ({"sweep__output.figures": [["a"]]}, ["[sweep]", "can be swept"]),
    ({"sweep__multiplex.read_evry": [5, 18]}, ["[sweep]", "multiplex.read_evry", "names no config key", "read_every"]),
    ({"sweep__hardware": [1, 2]}, ["[sweep]", "'hardware'", "names no config key"]),
    ({"sweep__nosuch.x": [1, 2]}, ["[sweep]", "nosuch.x", "names no config key"]),
    ({"hardware__events": ["Ir", "nosuch"]}, ["nosuch"]),
])
def test_validation_errors_name_the_key(edits, words):
    with pytest.raises(ConfigError) as err:
        Experiment(raw(**edits)).cells()
    msg = str(err.value)
    for w in words:
        assert w in msg, (w, msg)


def test_config_file_errors(tmp_path):
    from mpx.errors import FormatError

    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[experiment\nname = 1\n")
    with pytest.raises(FormatError, match="bad.toml"):
        load_config(bad)


def test_grid_expansion_and_keys(tmp_path):
    p = write_config(tmp_path, extra='[sweep]\n"hardware.counters" = [2, 3]\n"multiplex.read_every" = [5, 10]\n',
                     mux_extra="seeds = [0, 1]")
    cells = load_config(p).cells()
    # 3 datasets x 2 seeds x 2 schedulers x 2 counters x 2 read windows
    assert len(cells) == 3 * 2 * 2 * 2 * 2
    keys = [c["key"] for c in cells]
    assert len(set(keys)) == len(keys)
    assert load_config(p).cells() == cells  # deterministic
    c = dict(cells[0])
    assert cell_key(c) == c["key"]
    assert cell_key({**c, "experiment": "renamed"}) == c["key"]  # the name does not change results
    for change in ({"dataset_checksum": "x"}, {"code_version": "other"}, {"seed": 99},
                   {"scalers": c["scalers"][:1]}):
        assert cell_key({**c, **change}) != c["key"], change


def test_code_version_changes_every_key(tmp_path, monkeypatch):
    p = write_config(tmp_path)
    a = {c["key"] for c in load_config(p).cells()}
    monkeypatch.setenv("MPX_CODE_VERSION", "test2")
    b = {c["key"] for c in load_config(p).cells()}
    assert not a & b


def test_run_cell_rows_and_provenance(tmp_path):
    cells = load_config(write_config(tmp_path)).cells()
    out = run_cell(cells[0])
    assert out["cell"]["status"] == "done"
    assert {r["scaler"] for r in out["scores"]} == {"linear", "dira"}
    for r in out["scores"]:
        for k in ("cell_key", "dataset_checksum", "code_version", "seed", "workload", "scheduler", "scaler",
                  "counters", "quantum", "read_window"):
            assert r[k] is not None, k
        assert r["code_version"] == "test" and r["counters"] == 2 and r["n_events"] == 6
        assert 0 <= r["window_mape"] < 10
    assert len(out["events"]) == 2 * 6
    assert {r["event_class"] for r in out["events"]} <= {"steady", "variable", "bursty", "zero"}
    assert out["schedule"][0]["utilization"] == pytest.approx(1.0)
    again = run_cell(cells[0])
    assert [{k: v for k, v in r.items() if k not in ("estimate_seconds", "event_windows_per_s")}
            for r in again["scores"]] == [{k: v for k, v in r.items() if k not in ("estimate_seconds",
                                                                                    "event_windows_per_s")}
                                          for r in out["scores"]]


def test_scheduler_that_cannot_run_is_a_skipped_cell(tmp_path):
    p = write_config(tmp_path)
    text = p.read_text().replace('use = ["perf", "round_robin"]', 'use = ["likwid"]')
    # callgrind's CEst_bus group needs 10 counters together: LIKWID never multiplexes inside a group
    p.write_text(text.replace('events = ["Ir", "Dr", "Dw", "D1mr", "Bc", "Bcm"]', 'metrics = "callgrind"'))
    out = run_cell(load_config(p).cells()[0])
    assert out["cell"]["status"] == "skipped" and "likwid" in out["cell"]["reason"]
    assert not out.get("scores")


def test_scaler_that_cannot_run_is_a_skipped_row(tmp_path):
    p = write_config(tmp_path)
    p.write_text(p.read_text().replace('use = ["linear", "dira"]', 'use = ["linear", "papi_sw"]'))
    out = run_cell(load_config(p).cells()[0])
    rows = {r["scaler"]: r for r in out["scores"]}
    assert rows["linear"]["status"] == "done"
    assert rows["papi_sw"]["status"] == "skipped" and "cycles" in rows["papi_sw"]["reason"]


# -- leave-one-workload-out ---------------------------------------------------------------------------

FITTED: list[list[str]] = []


def _probe_class():
    from mpx.scalers.linear import LinearScaler

    class LooProbe(LinearScaler):
        """A learned scaler that records what it was trained on (perf's linear estimate otherwise)."""

        name = "loo_probe"
        learned = True

        def _fit(self, items):
            FITTED.append(sorted(str(t.meta.get("workload")) for t in items))
            self.n_train_ = len(items)

    return LooProbe


def test_learned_scalers_train_on_other_workloads(tmp_path):
    from mpx import scalers

    scalers.register("loo_probe", _probe_class())
    try:
        p = write_config(tmp_path)
        p.write_text(p.read_text().replace('use = ["linear", "dira"]', 'use = ["loo_probe"]')
                     .replace('use = ["perf", "round_robin"]', 'use = ["perf"]'))
        cells = load_config(p).cells()
        FITTED.clear()
        for c in cells:
            assert [t["dataset"]["name"] for t in c["train"]] == sorted(
                {"sqlite", "xz", "awk"} - {c["dataset"]["name"]}, key=["sqlite", "xz", "awk"].index)
            out = run_cell(c)
            assert out["scores"][0]["status"] == "done", out["scores"][0]
            assert FITTED[-1] == sorted({"sqlite", "xz", "awk"} - {out["scores"][0]["workload"]})
        assert len(FITTED) == 3
        one = p.read_text().replace('datasets = ["sqlite", "xz", "awk"]', 'datasets = ["sqlite"]')
        p.write_text(one)
        with pytest.raises(ConfigError, match="leave-one-workload-out"):
            load_config(p).cells()
    finally:
        scalers.unregister("loo_probe")


def test_synthetic_and_file_datasets(tmp_path):
    from mpx.datasets.synthetic import synth

    synth("phases", intervals=200, seed=3).save(tmp_path / "ph.npz")
    cfg = """
[experiment]
name = "files"
[data]
files = ["*.npz"]
synthetic = [{preset = "phases", intervals = 200, seed = 1}]
[hardware]
pmu = "generic-N"
counters = 3
events = ["ev0", "ev1", "ev2", "ev3", "ev4", "ev5"]
[multiplex]
quantum = 100000.0
read_every = 4
[schedulers]
use = ["perf"]
[scalers]
use = ["linear"]
"""
    (tmp_path / "f.toml").write_text(cfg)
    cells = load_config(tmp_path / "f.toml").cells()
    assert [c["dataset"]["kind"] for c in cells] == ["file", "synthetic"]
    for c in cells:
        out = run_cell(c)
        assert out["cell"]["status"] == "done"
        assert np.isfinite(out["scores"][0]["window_mape"])


def test_quantum_in_ms_needs_the_clock(tmp_path):
    cfg = """
[experiment]
name = "ms"
[data]
synthetic = [{preset = "phases", intervals = 100}]
[hardware]
pmu = "generic-N"
counters = 2
events = ["ev0", "ev1", "ev2"]
[multiplex]
quantum_ms = 4
read_every = 5
[schedulers]
use = ["perf"]
[scalers]
use = ["linear"]
"""
    (tmp_path / "ms.toml").write_text(cfg)
    with pytest.raises(ConfigError, match="clock_hz"):
        load_config(tmp_path / "ms.toml").cells()
    (tmp_path / "ms.toml").write_text(cfg.replace("quantum_ms = 4", "quantum_ms = 4\nclock_hz = 1e9"))
    cells = load_config(tmp_path / "ms.toml").cells()
    assert run_cell(cells[0])["scores"][0]["quantum"] == pytest.approx(4e6)


def test_jit_schedulers_are_warmed_aside_and_their_cells_run_last():
    from mpx import scalers, schedulers
    from mpx.experiment.runner import warm_up_aside

    jit = [n for n in schedulers.REGISTRY.builtin if schedulers.REGISTRY.tags(n).jit]
    assert "hypergraph" in jit
    for n in jit:  # the hook compiles (or loads from numba's cache) without error
        schedulers.get_class(n).warm_up()
    for n in scalers.REGISTRY.builtin:
        if scalers.REGISTRY.tags(n).jit:
            scalers.get_class(n).warm_up()
    cells = [{"kind": "scaling", "scheduler": {"name": n, "params": {}}, "i": i}
             for i, n in enumerate(["hypergraph", "perf", "hypergraph", "round_robin"])]
    order, proc = warm_up_aside(cells)
    try:
        assert [c["i"] for c in order] == [1, 3, 0, 2] and proc is not None
    finally:
        proc.kill()
        proc.wait()
    only = [c for c in cells if c["scheduler"]["name"] == "perf"]
    assert warm_up_aside(only) == (only, None)


def test_heldout_traces_are_scored_but_never_trained_on(tmp_path):
    from mpx import scalers
    from mpx.datasets import shipped as datasets

    scalers.register("loo_probe", _probe_class())
    try:
        datasets.load("openssl").save(tmp_path / "new.npz")
        p = write_config(tmp_path)
        p.write_text(p.read_text().replace('use = ["linear", "dira"]', 'use = ["loo_probe"]')
                     .replace('use = ["perf", "round_robin"]', 'use = ["perf"]')
                     .replace('datasets = ["sqlite", "xz", "awk"]', 'datasets = ["sqlite", "xz", "awk"]\nheldout = ["new.npz"]'))
        cells = load_config(p).cells()
        assert [c["dataset"]["name"] for c in cells] == ["sqlite", "xz", "awk", "new.npz"]
        for c in cells:
            names = [t["dataset"]["name"] for t in c["train"]]
            assert "new.npz" not in names
            assert names == [n for n in ("sqlite", "xz", "awk") if n != c["dataset"]["name"]]
        FITTED.clear()
        out = run_cell(cells[-1])
        row = out["scores"][0]
        assert row["status"] == "done" and row["heldout"] == 1
        assert FITTED[-1] == ["awk", "sqlite", "xz"]
        assert run_cell(cells[0])["scores"][0]["heldout"] == 0
        # held-out traces alone cannot train anything
        p.write_text(p.read_text().replace('datasets = ["sqlite", "xz", "awk"]', 'datasets = ["sqlite"]'))
        with pytest.raises(ConfigError, match="leave-one-workload-out"):
            load_config(p).cells()
        p.write_text(p.read_text().replace('heldout = ["new.npz"]', 'heldout = ["nosuch*.npz"]'))
        with pytest.raises(ConfigError, match=r"\[data\] heldout"):
            load_config(p).cells()
    finally:
        scalers.unregister("loo_probe")


def test_a_new_cell_kind_is_one_class_and_one_registry_entry(tmp_path):
    """A kind declares its sections, validates them, expands cells and runs one; config checks, keys,
    the runner and the store need nothing else."""
    from mpx.experiment import kinds, run_experiment
    from mpx.experiment.grid import finish_cell
    from mpx.experiment.store import ResultsStore

    class Echo(kinds.CellKind):
        name = "echo"
        sections = {"echo": frozenset({"n"})}

        def validate(self, exp):
            n = exp.raw.get("echo", {}).get("n")
            if not isinstance(n, int) or n < 1:
                raise ConfigError(f"{exp.where}: [echo] n must be a positive integer, got {n!r}")

        def cells(self, exp):
            return [finish_cell({"kind": "echo", "dataset": {"name": f"d{i}"}, "dataset_checksum": "-",
                                 "scheduler": {"name": "none", "params": {}}, "seed": i, "code_version": "test"},
                                exp.name) for i in range(exp.raw["echo"]["n"])]

        def run(self, cell):
            return {"schedule": [{"cell_key": cell["key"], "value": cell["seed"] * 2}]}

    kinds.REGISTRY.register("echo", Echo)
    try:
        assert "echo" in kinds.kind_names()
        raw = {"experiment": {"name": "e", "kind": "echo"}, "echo": {"n": 3}}
        with pytest.raises(ConfigError, match=r"\[echo\] n"):
            Experiment({**raw, "echo": {"n": 0}})
        with pytest.raises(ConfigError, match="unknown key"):
            Experiment({**raw, "echo": {"n": 1, "m": 2}})
        exp = Experiment(raw)
        with ResultsStore(tmp_path / "r.sqlite") as st:
            counts = run_experiment(exp, st, progress=False)
            assert counts["computed"] == 3 and counts["errors"] == 0
            assert sorted(st.table("schedule")["value"]) == [0, 2, 4]
    finally:
        kinds.REGISTRY.unregister("echo")
    with pytest.raises(ConfigError, match="kind must be one of"):
        Experiment({"experiment": {"name": "e", "kind": "echo"}})


def test_static_schedules_are_cached_explicitly_not_patched_on_the_scheduler():
    from mpx import schedulers
    from mpx.experiment import build_problem
    from mpx.experiment.schedule_cache import ScheduleCache
    from mpx.schedulers.base import StaticScheduler

    hw = {"pmu": "generic-N", "counters": 2, "events": ["Ir", "Dr", "Dw", "D1mr", "Bc"]}
    problem, _ = build_problem(hw)
    assert issubclass(schedulers.get_class("round_robin"), StaticScheduler)
    cache = ScheduleCache()
    spec = {"name": "round_robin", "params": {}}
    a, b = schedulers.get("round_robin"), schedulers.get("round_robin")
    sa, sb = cache.schedule(spec, hw, a, problem), cache.schedule(spec, hw, b, problem)
    assert sa is sb and len(cache) == 1
    assert "schedule" not in vars(a) and not hasattr(a, "schedule_")  # a clone computed it: nothing patched
    direct = schedulers.get("round_robin").schedule(problem)
    assert (direct.configs == sa.configs).all()
    assert cache.schedule({"name": "tintin", "params": {}}, hw, schedulers.get("tintin"), problem) is None


def test_multiplex_runs_a_given_schedule_like_its_own():
    from mpx import schedulers
    from mpx.conformance.scalers import generic_trace
    from mpx.multiplex import multiplex
    from mpx.problem import Problem

    trace = generic_trace()
    problem = Problem.from_perf_events("a,b,c,d,e", "generic-2")
    own = multiplex(trace, problem, "round_robin", 10.0, 2)
    given = multiplex(trace, problem, schedulers.get("round_robin"), 10.0, 2,
                      schedule=schedulers.get("round_robin").schedule(problem))
    assert np.array_equal(own.quanta.running, given.quanta.running)
    with pytest.raises(ConfigError, match="static scheduler"):
        multiplex(trace, problem, "tintin", 10.0, 2, schedule=given.schedule)


def test_the_training_set_is_loaded_by_the_cell_not_called_back_from_scoring():
    """issue 37: scoring took a closure that called `load_dataset` back up a floor; the cell now loads its
    training workloads and hands scoring the traces (or why there are none)."""
    from mpx.experiment.scaling import training_set

    spec = {"kind": "synthetic", "name": "tma", "preset": "tma", "intervals": 50, "seed": 3}
    traces, _ = training_set({"train": [{"dataset": spec, "checksum": "-"}]})
    assert len(traces) == 1 and traces[0].n_intervals == 50
    assert training_set({"train": []})[0] == []
    none, why = training_set({"train": [{"dataset": {"kind": "nosuch", "name": "x"}, "checksum": "-"}]})
    assert none == [] and why.startswith("its training datasets did not load") and "nosuch" in why
