"""Issue 29, item 5: a full disk or a SIGKILL while `mpx trace convert` saves leaves no partial
``OUT.npz.tmp`` behind, and the one-line error names the file."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.trace import Trace

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "datasets" / "traces" / "awk.npz"


def full_disk_after(monkeypatch, n_members: int) -> None:
    """Make the n-th zip member written raise ENOSPC, as a full disk does (an OSError without a name)."""
    real = zipfile.ZipFile.writestr
    calls = {"n": 0}

    def writestr(self, *a, **k):
        calls["n"] += 1
        if calls["n"] > n_members:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)


def test_full_disk_during_save_leaves_nothing_and_names_the_file(tmp_path, monkeypatch):
    tr = Trace.load(SRC)
    out = tmp_path / "OUT.npz"
    full_disk_after(monkeypatch, 2)
    with pytest.raises(OSError) as info:
        tr.save(out)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(out)
    assert list(tmp_path.iterdir()) == []


def test_trace_convert_on_a_full_disk_is_one_line_naming_the_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "OUT.npz"
    full_disk_after(monkeypatch, 1)
    assert main(["trace", "convert", str(SRC), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "disk full" in err[0] and str(out) in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_an_old_file_survives_a_failed_save(tmp_path, monkeypatch):
    out = tmp_path / "OUT.npz"
    Trace.load(SRC).save(out)
    before = out.read_bytes()
    full_disk_after(monkeypatch, 1)
    with pytest.raises(OSError):
        Trace.load(SRC).save(out)
    assert out.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["OUT.npz"]


SAVER = textwrap.dedent("""
    import sys
    import numpy as np
    from mpx.trace import Trace
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 2**40, size=(20000, 200)).astype(np.float64)
    tr = Trace([f"e{i}" for i in range(200)], counts, np.arange(20001, dtype=np.float64), "instructions")
    print("saving", flush=True)
    tr.save(sys.argv[1])
    print("saved", flush=True)
""")


@pytest.mark.parametrize("delay", [0.3, 1.0])
def test_sigkill_during_save_leaves_nothing(tmp_path, delay):
    """A SIGKILL during the save left ``OUT.npz.tmp`` (2 of 2): the file is unnamed until complete."""
    out = tmp_path / "OUT.npz"
    proc = subprocess.Popen([sys.executable, "-c", SAVER, str(out)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.stdout.readline().strip() == "saving"
    time.sleep(delay)  # the save of ~30 MB takes several seconds: the kill lands inside it
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    left = list(tmp_path.iterdir())
    assert left == [] or (left == [out] and Trace.load(out).counts.shape == (20000, 200)), left
