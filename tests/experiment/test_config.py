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
