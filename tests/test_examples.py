"""The end-to-end examples of examples/ run as written and give the numbers they describe."""

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_reestimate_perf_stat(capsys):
    out = _load("reestimate_perf_stat").main()
    # linear scaling of the read view is perf's own scaling: the same numbers where perf printed one
    both = np.isfinite(out["perf"]) & np.isfinite(out["linear"])
    assert both.sum() > 20 and np.allclose(out["linear"][both], out["perf"][both], rtol=1e-6)
    assert not np.allclose(out["dcam"][both], out["perf"][both])
    assert "cycles (running 39 % of the time)" in capsys.readouterr().out


def test_score_gem5():
    out = _load("score_gem5").main("gem5-phases")
    assert set(out) == {"linear", "dcam", "bayesperf"} and all(0 < v < 5 for v in out.values())


def test_the_gem5_catalogs_event_count_is_the_same_everywhere():
    """Issue 27: the example said 46 events, experiments/README.md and the config 39; 46 is what the
    experiment and `mpx evaluate` multiplex."""
    import re

    from mpx.experiment.hardware import build_problem

    problem, _ = build_problem({"pmu": "gem5-o3-g4", "counters": "preset", "metrics": "gem5"})
    n = problem.n_events
    repo = EXAMPLES.parent
    assert f"which stats are events ({n}:" in (EXAMPLES / "score_gem5.py").read_text()
    assert f"the `gem5` catalog's {n} events" in (repo / "experiments" / "README.md").read_text()
    assert f"the `gem5` catalog's {n} events" in (repo / "README.md").read_text()
    assert re.search(rf'metrics = "gem5" +# {n} events', (repo / "experiments" / "gem5_quickstart.toml").read_text())
