"""mpx with other packages installed, as a user gets it: the example plugin package (``examples/plugin``: a
scaler, a scheduler and a figure through the ``mpx.*`` entry points) and a careless one
(``tests/plugins/broken_package``: an entry point whose module does not exist, a scaler whose constructor needs
an argument), pip-installed into a fresh virtual environment beside an editable mpx. The plugins work in
``mpx evaluate``, ``run``, ``report`` and ``figs`` with no edit to mpx; the defaults still run (the broken
entry point is one warning line); the quickstart keeps its 180 cells and their keys; mpx's own tests that
iterate plugins see the built-ins only.

The environment reuses this interpreter's packages (``--system-site-packages``) and installs with
``--no-deps --no-build-isolation``: no network, no long install."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"mpx_example_plugin": REPO / "examples" / "plugin",
            "mpx_broken_plugin": Path(__file__).parent / "broken_package"}

pytestmark = [pytest.mark.slow(seconds=11), pytest.mark.skipif(
    importlib.util.find_spec("wheel") is None and importlib.util.find_spec("setuptools.command.bdist_wheel") is None,
    reason="pip's editable install with this setuptools needs the wheel package: pip install -e '.[test]'")]


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """(python of the environment, its environment variables, a scratch folder)."""
    root = tmp_path_factory.mktemp("installed")
    env_dir = root / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env_dir)], check=True, timeout=300)
    py = env_dir / "bin" / "python"
    if sys.prefix != sys.base_prefix:  # run from a virtual environment (CI's): its packages, not the base's
        lib = next((env_dir / "lib").glob("python*")) / "site-packages"
        (lib / "_parent_site.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({"MPX_CODE_VERSION": "test", "MPX_PROGRESS": "0", "PIP_NO_INDEX": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    sources = [REPO]
    for name, src in PACKAGES.items():  # a copy, so the build leaves nothing in the repository's examples
        dst = root / "src" / src.name
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
        sources.append(dst)
    for src in sources:
        res = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q", "-e",
                              str(src)], env=env, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
    return py, env, root


def _mpx(venv, *argv: str, ok: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess:
    py, env, _ = venv
    res = subprocess.run([str(py), "-m", "mpx", *argv], env=env, cwd=cwd or REPO, capture_output=True, text=True,
                         timeout=900)
    if ok:
        assert res.returncode == 0, res.stdout + res.stderr
    assert "Traceback" not in res.stderr, res.stderr
    return res


def test_the_environment_has_this_mpx_and_both_packages(venv):
    py, env, _ = venv
    code = ("import mpx, mpx_example_plugin, mpx_broken_plugin; from mpx import scalers, schedulers, figures; "
            "print(mpx.__file__); print(scalers.available()[-3:], schedulers.available()[-1], figures.available()[-1])")
    res = subprocess.run([str(py), "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    where, names = res.stdout.splitlines()
    assert Path(where).resolve() == (REPO / "mpx" / "__init__.py").resolve()
    assert names == "['broken', 'example_carry', 'needy'] example_reverse example_coverage"


def test_default_evaluate_runs_beside_a_broken_package(venv):
    res = _mpx(venv, "evaluate", "sqlite", "--pmu", "generic-4")
    warnings = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("mpx: warning: scaler 'broken'"), res.stderr
    assert "mpx_broken_plugin.no_such_module:Nothing" in warnings[0]
    rows = {ln.split()[0] for ln in res.stdout.splitlines() if ln.strip()}
    assert {"linear", "fusion", "example_carry"} <= rows
    assert "not scored needy: scaler 'needy' cannot be built with no parameters" in " ".join(res.stdout.split())
    named = _mpx(venv, "evaluate", "sqlite", "--pmu", "generic-4", "--scaler", "broken", ok=False)
    assert named.returncode == 1 and "failed to load" in named.stderr  # named, it is the error


def test_the_plugins_in_evaluate(venv):
    res = _mpx(venv, "evaluate", "sqlite", "--pmu", "generic-4", "--scheduler", "example_reverse",
               "--scaler", "example_carry", "--scaler", "linear", "--json")
    rows = json.loads(res.stdout)
    assert [r["scaler"] for r in rows] == ["example_carry", "linear"]
    assert rows[0]["setup"]["scheduler"] == "example_reverse" and rows[0]["causal"] is True
    assert 0 <= rows[0]["wape_all"] < 1 and rows[0]["coverage_all"] >= rows[1]["coverage_all"]


def test_the_plugins_in_run_report_and_figs(venv):
    _, _, root = venv
    cfg = root / "plugins.toml"
    cfg.write_text(textwrap.dedent("""
        [experiment]
        name = "plugins"
        [data]
        datasets = ["sqlite", "awk"]
        [hardware]
        pmu = "generic-N"
        counters = 4
        metrics = "callgrind"
        [multiplex]
        quantum_intervals = 1
        read_every = 10
        [schedulers]
        use = ["example_reverse", "perf"]
        [scalers]
        use = ["example_carry", "linear", "needy"]
        params.needy = { factor = 1.0 }
        [output]
        figures = ["example_coverage"]
    """))
    out = root / "r"
    _mpx(venv, "run", str(cfg), "--out", str(out), "--no-progress", "--jobs", "1")
    assert (out / "figures" / "example_coverage.pdf").read_bytes().startswith(b"%PDF")
    report = _mpx(venv, "report", str(out)).stdout
    assert "example_carry" in report and "example_reverse" in report and "needy" in report
    figs = _mpx(venv, "figs", str(out), "example_coverage", "--out", str(root / "figs")).stdout
    assert (root / "figs" / "example_coverage.png").is_file(), figs


def test_the_quickstart_keeps_its_180_cells_and_keys(venv, monkeypatch):
    py, env, _ = venv
    code = ("import json; from mpx.experiment import load_config; "
            "print(json.dumps(sorted(c['key'] for c in load_config('experiments/quickstart.toml').cells())))")
    res = subprocess.run([str(py), "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    installed = json.loads(res.stdout)
    monkeypatch.setenv("MPX_CODE_VERSION", "test")
    from mpx.experiment import load_config

    here = sorted(c["key"] for c in load_config(REPO / "experiments" / "quickstart.toml").cells())
    assert len(installed) == 180 and installed == here


def test_mpx_tests_that_iterate_plugins_see_the_builtins(venv):
    """Tests that failed with the example installed (the toys last, the figures' README, a fixed colour per
    scaler), the registry's, and the whole conformance suite's collection; and the plugin's own tests."""
    py, env, _ = venv
    tests = ["tests/plugins/test_plugins.py::test_toys_come_after_the_builtins",
             "tests/figures/test_figures.py::test_paper_figs_readme_matches_the_registry",
             "tests/figures/test_figures.py::test_a_method_keeps_its_look_in_every_figure",
             "tests/test_registry.py", "tests/cli/test_schedule.py::test_json_has_one_object_per_registered_scheduler"]
    res = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    collect = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
                              "tests/conformance/test_all.py"], env=env, cwd=REPO, capture_output=True, text=True,
                             timeout=600)
    from mpx.conformance.suites import SUITES, cases

    assert f"{len(cases()) + len(SUITES)} tests collected" in collect.stdout, collect.stdout[-500:]
    assert "example_carry" not in collect.stdout and "needy" not in collect.stdout
    _, _, root = venv
    own = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], env=env,
                         cwd=root / "src" / "plugin", capture_output=True, text=True, timeout=600)
    assert own.returncode == 0 and " passed" in own.stdout, own.stdout[-3000:]
