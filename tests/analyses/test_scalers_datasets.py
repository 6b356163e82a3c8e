"""`experiments/analyses/scalers_datasets.py` runs end to end with a learned scaler (it used to crash on
``fusion``: estimate before fit), and its learned scalers are fitted leave-one-workload-out."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from mpx.datasets import shipped as datasets
from mpx.errors import ConfigError
from mpx.scalers.fusion import FusionScaler

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "analyses" / "scalers_datasets.py"


@pytest.fixture(scope="module")
def analysis():
    spec = importlib.util.spec_from_file_location("scalers_datasets", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_training_set_is_every_other_shipped_workload(analysis):
    got = [t.meta["workload"] for t in analysis.training_set("sqlite", datasets.load)]
    assert got == [n for n in datasets.names("callgrind") if n != "sqlite"]


def test_runs_a_learned_scaler_trained_on_other_workloads(analysis, capsys, monkeypatch):
    seen = []
    fit = FusionScaler.fit

    def spy(self, traces, *a, **k):
        seen.append([t.meta["workload"] for t in traces])
        return fit(self, traces, *a, **k)

    monkeypatch.setattr(FusionScaler, "fit", spy)
    analysis.main(["--datasets", "xz", "--scalers", "linear,fusion"])
    out = capsys.readouterr().out
    assert seen and all("xz" not in s and len(s) == len(datasets.names("callgrind")) - 1 for s in seen)
    row = re.search(r"^\| fusion \| (\S+) \|", out, re.M)
    assert row and row.group(1).endswith("%"), out  # scored, not n/a
    assert "skipped" not in out


def test_unknown_scaler_or_dataset_is_a_clear_error(analysis):
    with pytest.raises(ConfigError, match="unknown scaler"):
        analysis.main(["--datasets", "xz", "--scalers", "linaer"])
    with pytest.raises(ConfigError, match="not shipped"):
        analysis.main(["--datasets", "gem5-xz"])
