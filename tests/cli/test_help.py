"""Every subcommand's help reads as written (issue 17: `mpx evaluate --help` showed `90%%`)."""

from __future__ import annotations

import pytest

from mpx.cli import COMMANDS, main


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_doubled_percent_signs(command, capsys):
    # argparse %-formats help strings (where %% is right) but prints descriptions as given
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out and "%(" not in out
