"""Every command ends with one clear line for what a user or the machine causes (issue 16): Ctrl-C, a
permission refused, a full or read-only disk, a file that is not a results store, bad reader options;
an unknown exception is a bug and says so before its traceback."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys

import pytest
from tests.conftest import REPO, SHARED

from mpx.cli import main


def fail_with(monkeypatch, command: str, exc: BaseException) -> None:
    import importlib

    mod = importlib.import_module(f"mpx.cli.{command}")

    def run(args):
        raise exc

    monkeypatch.setattr(mod, "run", run)


def one_line(capsys, prefix: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(prefix) and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_ctrl_c_in_run_says_the_finished_cells_are_kept(monkeypatch, capsys):
    fail_with(monkeypatch, "run", KeyboardInterrupt())
    assert main(["run", "experiments/quickstart.toml"]) == 130
    err = one_line(capsys, "mpx run: interrupted;")
    assert "finished cells are kept" in err and "resume" in err


def test_ctrl_c_elsewhere(monkeypatch, capsys):
    fail_with(monkeypatch, "trace", KeyboardInterrupt())
    assert main(["trace", "info", "x.npz"]) == 130
    assert "kept" in one_line(capsys, "mpx trace: interrupted;")


@pytest.mark.parametrize("exc, words", [
    (PermissionError(errno.EACCES, "Permission denied", "/ro/results"), "permission denied: /ro/results"),
    (IsADirectoryError(errno.EISDIR, "Is a directory", "/tmp/d"), "is a directory (a file was expected): /tmp/d"),
    (OSError(errno.ENOSPC, "No space left on device", "/full/series.csv"), "disk full: /full/series.csv"),
    (OSError(errno.EROFS, "Read-only file system", "/mnt/ro/x"), "read-only file system: /mnt/ro/x"),
    (sqlite3.OperationalError("database or disk is full"), "disk full while writing the results store"),
    (sqlite3.OperationalError("attempt to write a readonly database"), "cannot write the results store"),
])
def test_os_errors_are_one_line_naming_the_path(monkeypatch, capsys, exc, words):
    fail_with(monkeypatch, "run", exc)
    assert main(["run", "experiments/quickstart.toml"]) == 1
    assert words in one_line(capsys, "mpx run: error:")


def test_report_on_a_file_that_is_not_sqlite(tmp_path, capsys):
    bad = tmp_path / "results.sqlite"
    bad.write_bytes(b"this is not SQLite at all\n" * 10)
    assert main(["report", str(bad)]) == 1
    err = one_line(capsys, "mpx report: error:")
    assert str(bad) in err and "not a results store" in err
    assert bad.read_bytes() == b"this is not SQLite at all\n" * 10


@pytest.mark.skipif(not (SHARED / "data" / "gem5" / "muneeb_single.txt").exists(), reason="../shared absent")
@pytest.mark.parametrize("option, words", [
    ("mode=bogus", "mode must be 'auto', 'delta', 'cumulative'"),
    ("foo=1", "unknown option 'foo' for the gem5 reader; it takes mode, dumps"),
    ("novalue", "is not KEY=VALUE"),
])
def test_bad_reader_options(capsys, option, words):
    assert main(["trace", "info", str(SHARED / "data" / "gem5" / "muneeb_single.txt"), "-O", option]) == 1
    assert words in one_line(capsys, "mpx trace: error:")


def test_native_reader_takes_no_option(tmp_path, capsys):
    import numpy as np

    from mpx.trace import Trace

    src = tmp_path / "t.npz"
    Trace(["a"], np.array([[1]]), [0, 5], "cycles", {}).save(src)
    assert main(["trace", "info", str(src), "-O", "mode=delta"]) == 1
    assert "unknown option 'mode' for the mpx reader; it takes no options" in one_line(capsys, "mpx trace: error:")


def test_an_unknown_exception_says_it_is_a_bug_then_shows_the_traceback():
    code = ("import sys, mpx.cli, mpx.cli.trace as t; t.run = lambda args: 1 / 0;"
            "sys.exit(mpx.cli.main(['trace', 'info', 'x.npz']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    first = out.stderr.splitlines()[0]
    assert first.startswith("mpx trace: internal error (a bug in mpx: please report it")
    assert "Traceback" in out.stderr and "ZeroDivisionError" in out.stderr


def test_trace_plot_to_a_file_that_is_not_a_picture(capsys, tmp_path):
    assert main(["trace", "plot", str(REPO / "datasets" / "traces" / "xz.npz"), "-o", str(tmp_path / "p.txt"), "--events", "Ir"]) != 0
    err = one_line(capsys, "mpx trace: error: -o ")
    assert "'.txt' is not a picture format" in err and ".png" in err
    assert not (tmp_path / "p.txt").exists()


def test_unknown_metric_names_close_matches_readably(capsys, tmp_path):
    assert main(["trace", "plot", str(REPO / "datasets" / "traces" / "xz.npz"), "-o", str(tmp_path / "p.png"), "--metrics",
                 "d1_mis_ratio", "--catalog", "callgrind"]) != 0
    err = one_line(capsys, "mpx trace: error: ")
    assert "no metric 'd1_mis_ratio' in catalog 'callgrind'; did you mean d1_miss_ratio," in err
    assert "[" not in err and '"' not in err
