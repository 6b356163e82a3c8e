"""Running a long program so that nothing outlives mpx: ``mpx record``'s valgrind and gem5.

A killed ``mpx record`` used to leave valgrind running and its temporary folder behind: ``SIGKILL`` runs no
cleanup in the process it kills. So the cleanup does not live there:

- the program runs in a **process group of its own** (a new session: a terminal's Ctrl-C reaches mpx, which
  then stops the group) and, on Linux, with ``PR_SET_PDEATHSIG`` = ``SIGKILL``: the kernel kills it when
  mpx dies, however mpx dies (as `mpx.experiment.runner.die_with_parent` does for pool workers);
- a **janitor**, a tiny separate process started first, creates the temporary folder and holds the read
  end of a pipe from mpx. When mpx ends — normally, by an exception, Ctrl-C or ``SIGKILL`` — the pipe
  closes; the janitor then kills the program's process group (children included), waits for it to be
  gone and removes the folder. It ignores the terminal's signals and needs nothing but the standard library.

`Supervised` ties the three together, with a timeout and a progress callback.

Not followed: a process the program moves into a session (and so a process group) of its own with
``setsid`` — a daemon — is outside the group the janitor kills and survives a ``SIGKILL`` of mpx (children
that merely ignore ``SIGTERM``/``SIGHUP`` do not: the group gets ``SIGKILL``). Following it would take a
cgroup or a child subreaper above mpx; the README says so where it promises that nothing is left behind.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

__all__ = ["Janitor", "Supervised", "group_alive"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

def group_alive(pgid: int) -> bool:
    """Is a process of group ``pgid`` still running (zombies waiting to be reaped do not count)?"""
    try:
        names = os.listdir("/proc")
    except OSError:
        try:
            os.killpg(pgid, 0)
            return True
        except OSError:
            return False
    for n in names:
        if n.isdigit():
            try:
                with open(f"/proc/{n}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                return True
    return False


def janitor_main(prefix: str) -> None:
    """The janitor's whole life (run as ``python -S -E supervise.py PREFIX``: standard library only)."""
    import shutil
    import tempfile

    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        print(folder, flush=True)
    except OSError:  # mpx is gone already (a Ctrl-C while it waited for this line): nothing to watch
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(0)  # not sys.exit: flushing stdout at exit would fail on the broken pipe again
    groups = []
    for line in sys.stdin:  # until mpx closes the pipe or dies
        word, _, value = line.partition(" ")
        if word == "group":
            groups.append(int(value))
    for g in groups:
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 10
    while any(group_alive(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.02)
    shutil.rmtree(folder, ignore_errors=True)


class Janitor:
    """The separate process that owns a temporary folder (see the module docstring). ``folder`` is the
    path it created (under ``$TMPDIR``, named ``prefix`` + random)."""

    def __init__(self, prefix: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", "-E", __file__, prefix], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, start_new_session=True, close_fds=True)
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.pipe: IO[str] = self.proc.stdin
        line = self.proc.stdout.readline().strip()
        self.proc.stdout.close()
        if not line:
            self.proc.wait()
            raise OSError(f"could not create a temporary folder (the janitor exited with {self.proc.returncode})")
        self.folder = line

    def watch(self, pgid: int) -> None:
        """Kill process group ``pgid`` (if still there) before removing the folder."""
        self.pipe.write(f"group {pgid}\n")
        self.pipe.flush()

    def close(self) -> None:
        """Let the janitor clean up now, and wait for it."""
        try:
            self.pipe.close()
        except OSError:
            pass
        self.proc.wait()


def child_setup(parent: int, more: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn``: die with ``parent`` (Linux), then ``more()``."""

    def setup() -> None:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the parent died before prctl took effect
                os._exit(1)
        if more is not None:
            more()

    return setup


class Supervised:
    """Run ``cmd`` with a janitor-owned temporary folder (``prefix``), in its own process group, dying
    with mpx. Use as a context manager: `folder` exists inside; on leaving (any way) the program is
    stopped and the folder removed."""

    def __init__(self, prefix: str) -> None:
        self.janitor = Janitor(prefix)
        self.folder = self.janitor.folder
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Supervised:
        return self

    def start(self, cmd: Sequence[str], preexec: Callable[[], None] | None = None, **popen: Any) -> None:
        self.proc = subprocess.Popen(list(cmd), start_new_session=True, preexec_fn=child_setup(os.getpid(), preexec),
                                     **popen)
        self.janitor.watch(self.proc.pid)

    def wait(self, timeout: float | None = None, tick: Callable[[], None] | None = None,
             every: float = 0.5) -> int | None:
        """The program's exit status, or None when ``timeout`` seconds passed first (the program is then
        stopped). ``tick()`` is called every ``every`` seconds meanwhile (e.g. to move a progress bar)."""
        assert self.proc is not None
        t0 = time.monotonic()
        while True:
            left = None if timeout is None else timeout - (time.monotonic() - t0)
            if left is not None and left <= 0:
                self.stop()
                return None
            try:
                return self.proc.wait(timeout=every if left is None else min(every, left))
            except subprocess.TimeoutExpired:
                if tick is not None:
                    tick()

    def stop(self) -> None:
        """Kill the program's process group and reap the program."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.stop()
            elif self.proc is not None:  # the program is gone; children it left in its group are not
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
        finally:
            self.janitor.close()


if __name__ == "__main__":
    janitor_main(sys.argv[1])
