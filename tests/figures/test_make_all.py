"""``python paper_figs/make_all.py --dry-run``: the documented way to regenerate every thesis figure plans
every experiment, suites (a ``[suite]`` file such as experiments/claims.toml) included (issue 27)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mpx.figures import available, get

REPO = Path(__file__).resolve().parents[2]


def test_make_all_dry_run_plans_every_figure_and_suite(tmp_path):
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
    assert sorted(drawn) == sorted(available())  # every figure drawn once
    # the claims figure draws from a suite: run into results/<suite name>, as `mpx run` does
    claims = [r for r in runs if r[2].endswith("claims.toml")]
    assert len(claims) == 1 and claims[0][4] == str(tmp_path / "results" / "claims")
    assert get("claims").experiment.endswith("claims.toml")
    assert not (tmp_path / "results").exists()  # a dry run writes nothing
