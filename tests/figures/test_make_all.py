"""``python paper_figs/make_all.py --dry-run``: the documented way to regenerate every thesis figure plans
every experiment, suites (a ``[suite]`` file such as experiments/claims.toml) included (issue 27)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpx.figures import REGISTRY, get
from tests.conftest import SHARED

REPO = Path(__file__).resolve().parents[2]


def test_make_all_dry_run_plans_every_figure_and_suite(tmp_path):
    if not SHARED.is_dir():
        pytest.skip(f"partitioner.toml reads {SHARED}, which is absent (make_all skips its figure with the reason)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run([sys.executable, str(REPO / "paper_figs" / "make_all.py"), "--dry-run",
                          "--results", str(tmp_path / "results"), "--out", str(tmp_path / "figs")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stdout.splitlines()
    runs = [ln.split() for ln in lines if ln.startswith("mpx run ")]
    figs = [ln.split() for ln in lines if ln.startswith("mpx figs ")]
    drawn = [n for f in figs for n in f[3:f.index("--out")]]
    assert sorted(drawn) == sorted(REGISTRY.builtin)  # every shipped figure drawn once
    # the claims figure draws from a suite: run into results/<suite name>, as `mpx run` does
    claims = [r for r in runs if r[2].endswith("claims.toml")]
    assert len(claims) == 1 and claims[0][4] == str(tmp_path / "results" / "claims")
    assert get("claims").experiment.endswith("claims.toml")
    assert not (tmp_path / "results").exists()  # a dry run writes nothing


def _make_all():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_all", REPO / "paper_figs" / "make_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_missing_recording_is_planned_before_its_run(tmp_path, monkeypatch):
    """In a fresh clone `make_all.py` stopped at experiments/headline.toml: its held-out traces are recorded on
    the machine (git-ignored), and nothing recorded them. Now the recording is a step before the run."""
    ma = _make_all()
    (tmp_path / "experiments").mkdir()
    cfg = tmp_path / "experiments" / "exp.toml"
    cfg.write_text('[data]\ndatasets = ["sort"]\nheldout = ["../rec/traces/*.npz"]\n')
    monkeypatch.setattr(ma, "REPO", tmp_path)
    monkeypatch.setattr(ma, "PREREQUISITES", {"rec/traces": ["sh", "rec/record.sh"]})
    assert ma.prerequisites(cfg) == [["sh", "rec/record.sh"]]
    (tmp_path / "rec" / "traces").mkdir(parents=True)
    (tmp_path / "rec" / "traces" / "a.npz").write_bytes(b"")
    assert ma.prerequisites(cfg) == []


def test_a_failed_step_skips_what_needs_it_and_the_rest_is_drawn(monkeypatch, capsys):
    ma = _make_all()
    steps = [["run", "a.toml", "--out", "A", "--no-figures", "--no-progress"], ["figs", "A", "fa", "--out", "o"],
             ["figs", "B", "fb", "--out", "o"]]
    monkeypatch.setattr(ma, "plan", lambda *a: steps)
    called = []
    monkeypatch.setattr(ma, "mpx", lambda cmd: called.append(cmd[0] + " " + cmd[1]) or (1 if cmd[0] == "run" else 0))
    assert ma.main(["--results", "r"]) == 1
    assert called == ["run a.toml", "figs B"]
    out, err = capsys.readouterr()
    assert "skipped (a step it needs failed): mpx figs A fa" in out
    assert "2 step(s) failed or skipped" in err and "mpx run a.toml" in err


def test_a_foreign_figure_is_skipped_with_a_line(monkeypatch, capsys):
    """A figure of another package names no config of this repository (or none at all): it is not planned,
    one line says so, and naming it makes the script fail; the shipped figures are planned as before."""
    from mpx import figures
    from mpx.figures import Figure

    ma = _make_all()
    monkeypatch.setattr(ma, "plan", lambda *a: [])  # nothing is run: the dry run's plan is tested above
    figures.register("third_party", Figure("third_party", "a figure of another package", None, lambda s, e: None))
    figures.register("elsewhere", Figure("elsewhere", "another", "/nonexistent/exp.toml", lambda s, e: None))
    try:
        assert ma.foreign(["third_party", "elsewhere", "headline"]) == {
            "third_party": "it names no experiment", "elsewhere": "its experiment '/nonexistent/exp.toml' is not a "
                                                                  "config file"}
        assert ma.main(["--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "skipped figure third_party (not regenerated here: it names no experiment)" in out
        assert "skipped figure elsewhere" in out and "skipped figure headline" not in out
        assert ma.main(["--dry-run", "third_party"]) == 1
    finally:
        figures.unregister("third_party")
        figures.unregister("elsewhere")
    real = _make_all()
    assert real.config_of("headline") == REPO / "experiments" / "headline.toml"
