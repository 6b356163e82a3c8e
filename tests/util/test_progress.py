"""Progress bars (issue 17 item 3, `mpx.util.progress`): off when stderr is not a terminal (no stray output in
pipes, logs and tests), on when forced with ``MPX_PROGRESS=1``, always on stderr, never on stdout."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mpx.util import progress

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("env, tty, wanted, on", [
    ("", True, None, True), ("", False, None, False), ("1", False, None, True), ("always", False, None, True),
    ("0", True, None, False), ("never", True, None, False), ("", True, False, False), ("1", True, False, False),
])
def test_the_rule(monkeypatch, env, tty, wanted, on):
    monkeypatch.setenv("MPX_PROGRESS", env)
    monkeypatch.setattr(sys, "stderr", _Tty(tty))
    assert progress.enabled(wanted) is on
    assert progress.bar(total=3, wanted=wanted).disable is (not on)


def _mpx(args, tmp_path, **env):
    full = {k: v for k, v in os.environ.items() if k != "MPX_PROGRESS"}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "mpx", *args], capture_output=True, text=True, cwd=tmp_path,
                          env=full, timeout=300)


def _gem5_file(tmp_path):
    lines = []
    for k in range(200):
        lines += [BEGIN, "simTicks 1000 # Number of ticks simulated (Tick)",
                  f"finalTick {1000 * (k + 1)} # Number of ticks from beginning of simulation (Tick)",
                  *(f"system.cpu.s{i} {k + i} # a count (Count)" for i in range(50)), "", END, ""]
    path = tmp_path / "stats.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _hgr(tmp_path):
    nets = [f"{i % 60 + 1} {(i + 1) % 60 + 1} {(i + 7) % 60 + 1}" for i in range(120)]
    path = tmp_path / "small.hgr"
    path.write_text(f"{len(nets)} 60\n" + "\n".join(nets) + "\n")
    return path


@pytest.mark.parametrize("command", ["trace", "partition"])
def test_no_bar_when_stderr_is_not_a_terminal_and_a_bar_when_forced(tmp_path, command):
    args = (["trace", "info", str(_gem5_file(tmp_path))] if command == "trace"
            else ["partition", str(_hgr(tmp_path)), "-k", "4"])
    quiet = _mpx(args, tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""  # captured: not a terminal, nothing but the command's own output
    forced = _mpx(args, tmp_path, MPX_PROGRESS="1")
    assert forced.returncode == 0, forced.stderr
    same = lambda out: [ln for ln in out.splitlines() if not ln.startswith("seconds")]  # noqa: E731
    assert same(forced.stdout) == same(quiet.stdout)  # bars never touch stdout
    shown = "reading stats.txt" if command == "trace" else "partitioning k=4"
    assert shown in forced.stderr


def test_interrupts_deferred_notes_a_ctrl_c_and_restores_the_handler():
    """Inside `interrupts_deferred` a SIGINT raises nothing (it is noted, and the command's handler still runs, its
    KeyboardInterrupt caught); the block's end raises it, and after it the handler and the note are as before."""
    import os
    import signal

    from mpx.util.progress import interrupt_requested, interrupts_deferred, request_interrupt

    calls = []

    def handler(signum, frame):
        calls.append(signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, handler)
    try:
        request_interrupt(False)
        with pytest.raises(KeyboardInterrupt):
            with interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):  # the handler runs at the next bytecode boundary
                    if calls:
                        break
                assert interrupt_requested() and calls == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is handler and not interrupt_requested()
        with interrupts_deferred():  # nothing noted: nothing raised
            pass
    finally:
        signal.signal(signal.SIGINT, before)
        request_interrupt(False)
