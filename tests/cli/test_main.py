"""The `mpx` command: fast help (no heavy imports), clear one-line errors instead of stack traces."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from mpx.cli import COMMANDS, main
from mpx.trace import Trace


def test_help_imports_nothing_heavy():
    code = (
        "import sys; from mpx.cli import build_parser; build_parser();"
        "heavy = [m for m in ('numpy', 'scipy', 'pandas', 'matplotlib', 'sklearn', 'pgmpy') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"`mpx --help` imports heavy modules: {out.stdout}"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert command in capsys.readouterr().out


def test_trace_info_and_convert(tmp_path, capsys):
    t = Trace(["a", "b"], np.array([[1, 2], [3, 4]]), [0, 5, 10], "cycles", {"workload": "w"})
    src = tmp_path / "t.npz"
    t.save(src)
    assert main(["trace", "info", str(src)]) == 0
    out = capsys.readouterr().out
    assert "2 events x 2 intervals" in out and "b" in out
    dst = tmp_path / "u.npz"
    assert main(["trace", "convert", str(src), "-o", str(dst)]) == 0
    assert Trace.load(dst) == t


def test_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not any known format\n")
    assert main(["trace", "info", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpx trace: error:") and "unknown format" in err and "Traceback" not in err
    assert main(["trace", "info", str(tmp_path / "missing")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_a_key_error_is_a_bug_not_a_user_error(monkeypatch):
    """Only MpxError (and a missing file) print one line: a KeyError from inside a command is a bug and
    keeps its traceback."""
    import mpx.cli.trace as trace_cmd

    def broken(args):
        return {}["missing"]

    monkeypatch.setattr(trace_cmd, "run", broken)
    with pytest.raises(KeyError, match="missing"):
        main(["trace", "info", "whatever.npz"])
    code = ("import sys, mpx.cli, mpx.cli.trace as t; t.run = lambda args: {}['missing'];"
            "sys.exit(mpx.cli.main(['trace', 'info', 'x.npz']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0 and "Traceback" in out.stderr and "KeyError" in out.stderr
    assert "mpx trace: error:" not in out.stderr


def test_unknown_dataset_is_a_one_line_error(capsys):
    assert main(["datasets", "show", "no-such-dataset"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpx datasets: error:") and "no-such-dataset" in err and "\n" not in err.strip()
