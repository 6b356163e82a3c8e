"""``mpx record`` leaves nothing behind (issue 16): a ``SIGKILL`` at a random point, Ctrl-C and ``--timeout``
each end with no valgrind process and no temporary folder (the folder lives under the ``TMPDIR`` the test
sets, so it can be looked for). Before `mpx.recording.supervise`, a killed record left valgrind running and its
``mpx-record-*`` folder behind."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid

import pytest

from mpx.recording.supervise import group_alive
from tests._tools import HAVE_VALGRIND, running

pytestmark = pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind is not installed")


def _start(tmp_path, token: str, loops: int, *extra: str) -> tuple[subprocess.Popen, str]:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmpdir))
    env.pop("MPX_PROGRESS", None)
    script = f": {token}; i=0; while [ $i -lt {loops} ]; do i=$((i+1)); done"
    # a shell that starts jobs in the background (CI under nohup, `cmd &`) hands them SIGINT ignored, and
    # Python then installs no KeyboardInterrupt handler: give mpx the disposition a terminal user's has
    proc = subprocess.Popen([sys.executable, "-m", "mpx", "record", "-o", str(tmp_path / "out.npz"), *extra, "--",
                             "/bin/sh", "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc, str(tmpdir)


def _wait_until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _clean(token: str, tmpdir: str) -> bool:
    return not running(token) and not os.listdir(tmpdir)


def test_sigkill_at_random_points_leaves_no_process_and_no_folder(tmp_path):
    rng = random.Random(16)
    for trial in range(4):
        token = f"mpxkill{uuid.uuid4().hex}"
        proc, tmpdir = _start(tmp_path, token, 10**7)  # runs until stopped: the signal always finds it running
        if trial == 0:  # while mpx starts: before or around the janitor and valgrind
            time.sleep(rng.uniform(0.05, 0.6))
        else:  # while valgrind runs: its folder exists and it holds the program
            assert _wait_until(lambda: running(token) and os.listdir(tmpdir), 30), proc.communicate()
            time.sleep(rng.uniform(0.0, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert _wait_until(lambda: _clean(token, tmpdir), 20), (trial, running(token), os.listdir(tmpdir))
        assert not (tmp_path / "out.npz").exists()


def test_ctrl_c_says_what_was_kept_and_leaves_nothing(tmp_path):
    token = f"mpxint{uuid.uuid4().hex}"
    proc, tmpdir = _start(tmp_path, token, 10**7)  # runs until stopped: the signal always finds it running
    assert _wait_until(lambda: running(token) and os.listdir(tmpdir), 30)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == ("mpx record: interrupted; nothing was written: the program was stopped "
                                            "and its temporary folder removed")
    assert _wait_until(lambda: _clean(token, tmpdir), 20)


def test_timeout_stops_a_program_that_runs_too_long(tmp_path):
    token = f"mpxtimeout{uuid.uuid4().hex}"
    t0 = time.monotonic()
    proc, tmpdir = _start(tmp_path, token, 10**7, "--timeout", "1.5")
    pids: set[int] = set()
    while proc.poll() is None:  # the processes holding the token (valgrind runs the program in its own pid)
        pids |= set(running(token))
        time.sleep(0.05)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and time.monotonic() - t0 < 60
    assert "still running under valgrind after the timeout of 1.5 s: stopped, nothing written" in err
    assert _wait_until(lambda: _clean(token, tmpdir), 20)
    assert not (tmp_path / "out.npz").exists()
    # valgrind's gdbserver FIFOs (vgdb-pipe-*-PID-*) are not left in /tmp either (issue 27)
    assert pids
    left = [n for n in os.listdir("/tmp") if n.startswith("vgdb-pipe") and any(f"-{p}-" in n for p in pids)]
    assert not left, left


def test_a_bad_timeout_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mpx", "record", "-o", str(tmp_path / "o.npz"), "--timeout", "0",
                           "--", "/bin/true"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1 and "timeout: 0.0 must be a positive number of seconds" in proc.stderr


def test_group_alive_sees_a_group_until_it_is_gone():
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    assert group_alive(child.pid)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    assert not group_alive(child.pid)
