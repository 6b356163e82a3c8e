"""Helpers the subcommands share: warnings as one line (issue 17: guards must be seen, not tracebacks)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np

from mpx.cli.common import show_warnings_as_one_line
from mpx.errors import MpxWarning
from mpx.trace import Trace


def test_mpx_warnings_print_as_one_line(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        show_warnings_as_one_line()
        warnings.warn(MpxWarning("only 2 read window(s) to score"))
        warnings.warn(UserWarning("someone else's"))
    # other warnings go to the handler that was there before (here pytest's recorder)
    assert capsys.readouterr().err == "mpx: warning: only 2 read window(s) to score\n"


def test_evaluate_on_a_short_trace_warns_and_a_too_long_quantum_is_an_error(tmp_path):
    # issue 17: 13 intervals scored 2 read windows without a word; --quantum 1e12 printed 0.00 %
    t = Trace(["a", "b", "c"], np.arange(39.0).reshape(13, 3) + 1, np.arange(14.0), "us", {"workload": "w"})
    path = tmp_path / "t.npz"
    t.save(path)
    cmd = [sys.executable, "-m", "mpx", "evaluate", str(path), "--pmu", "generic-2", "--scaler", "linear",
           "--read-every", "5"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        "mpx: warning: only 3 read window(s) to score (13 trace intervals over 13 us, quantum 1 us, a read every "
        "5 quanta); fewer than 20 make scores noise: record more intervals or use a shorter quantum or read window"]
    out = subprocess.run(cmd + ["--quantum", "1e12"], capture_output=True, text=True)
    assert out.returncode == 1 and out.stderr.startswith("mpx evaluate: error: the quantum (1e+12 us) is longer "
                                                         "than the trace (13 us, 13 intervals)")
