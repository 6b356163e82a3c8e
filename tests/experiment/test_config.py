"""`mpx.experiment.config`: suites of configs run into one store."""

from __future__ import annotations

import pytest


def test_a_suite_names_its_configs_and_runs_them_into_one_store(tmp_path, capsys):
    from mpx.cli import main
    from mpx.experiment.config import load_suite
    from mpx.errors import ConfigError
    from mpx.experiment.store import ResultsStore
    from tests._exp_helpers import write_config

    a, b = write_config(tmp_path, name="one"), write_config(tmp_path, name="two")
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "both"\nconfigs = ["one.toml", "two.toml"]\n')
    assert load_suite(suite) == ("both", [a, b]) and load_suite(a) is None
    assert main(["run", str(suite), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    with ResultsStore(tmp_path / "r" / "results.sqlite") as st:
        assert sorted(st.experiments()) == ["one", "two"]
    for bad, message in (('[suite]\nname = "x"\nconfigs = ["nope.toml"]\n', "no such file"),
                         ('[suite]\nname = "x"\nconfigs = []\n', "non-empty list"),
                         ('[suite]\nname = "x"\nconfigs = ["one.toml"]\n[data]\n', r"one table \[suite\]")):
        suite.write_text(bad)
        with pytest.raises(ConfigError, match=message):
            load_suite(suite)


def test_a_scalers_relations_file_is_read_relative_to_the_config(tmp_path, monkeypatch):
    """experiments/premise/*.toml name their relations catalog relative to themselves, as [hardware] metrics
    is; built-in names and relation expressions stay as written."""
    from mpx.experiment import load_config
    from tests._exp_helpers import write_config

    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "rel.toml").write_text('[catalog]\nname = "rel"\n[relations.r]\nexpr = "Dr + Dw <= Ir"\n')
    cfg = write_config(tmp_path, extra='params.bayesperf = { relations = "cat/rel.toml" }')
    cfg.write_text(cfg.read_text().replace('use = ["linear", "dira"]', 'use = ["linear", "bayesperf"]'))
    monkeypatch.chdir(tmp_path.parent)  # not the config's folder
    cells = load_config(cfg).cells()
    spec = next(s for s in cells[0]["scalers"] if s["name"] == "bayesperf")
    assert spec["params"]["relations"] == str((tmp_path / "cat" / "rel.toml").resolve())
    cfg.write_text(cfg.read_text().replace('"cat/rel.toml"', '"callgrind"'))
    spec = next(s for s in load_config(cfg).cells()[0]["scalers"] if s["name"] == "bayesperf")
    assert spec["params"]["relations"] == "callgrind"
