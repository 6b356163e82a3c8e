"""Progress bars on long work: one rule for every command.

Bars are drawn by tqdm on **stderr**, so that stdout stays clean for the tables and ``--json``. They are
on when stderr is a terminal and off otherwise (a pipe, a file, a test, a CI log get no stray output).
``MPX_PROGRESS`` overrides that: ``1`` (or ``on``/``always``) draws them anyway, e.g. to see progress
in a log file, and then from the start; ``0`` (or ``off``/``never``) never draws them. A command's
``--no-progress`` flag (``mpx run``) turns them off too. On a terminal a bar appears only after ``DELAY``
seconds, so quick work prints nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tqdm import tqdm

#: seconds of work before a bar is drawn
DELAY = 1.0

ON = ("1", "on", "always", "yes", "true")
OFF = ("0", "off", "never", "no", "false")


def enabled(wanted: bool | None = None) -> bool:
    """Are bars drawn? ``wanted`` False (a ``--no-progress`` flag) says no; else ``MPX_PROGRESS``, else
    whether stderr is a terminal."""
    if wanted is False:
        return False
    env = os.environ.get("MPX_PROGRESS", "").strip().lower()
    if env in ON:
        return True
    if env in OFF:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stderr
        return False


_interrupt = [False]  # set by the command's SIGINT handler (`mpx.cli.main`)


def request_interrupt(flag: bool = True) -> None:
    """Note (or, with False, forget) a Ctrl-C: the next bar update raises KeyboardInterrupt. A SIGINT that
    lands in a ctypes callback (llvmlite writing numba's cache) is swallowed there ("Exception ignored"):
    the work went on to the end and exited 0 (2 of 30 Ctrl-Cs of ``mpx partition``)."""
    _interrupt[0] = flag


def interrupt_requested() -> bool:
    return _interrupt[0]


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM (where Python handles them) are only noted: their handler runs with
    its KeyboardInterrupt caught, and the block's code polls `interrupt_requested` where stopping is safe; one
    noted and not acted on is raised when the block ends, and the note does not outlive the block. For code that
    drives threads: a KeyboardInterrupt raised between a lock's acquire and the ``with`` that releases it (a
    `concurrent.futures` pool's queue) leaves the lock held, and the pool's thread, which Python's exit joins,
    waits for it forever. Outside the main thread nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    before, noted = interrupt_requested(), [False]

    def note(signum: int, frame: Any) -> None:
        noted[0] = True
        request_interrupt()
        try:
            saved[signum](signum, None)  # the command's own handler: what it notes (a SIGTERM), not its raise
        except KeyboardInterrupt:
            pass

    mine = [sig for sig, h in saved.items() if callable(h)]
    for sig in mine:
        signal.signal(sig, note)
    try:
        yield
    finally:
        for sig in mine:
            signal.signal(sig, saved[sig])
        if noted[0]:
            request_interrupt(before)
    if noted[0]:
        raise KeyboardInterrupt


def close_all() -> None:
    """Close (and so clear) every bar still drawn: a line printed after a Ctrl-C starts on a clean line."""
    tqdm = sys.modules.get("tqdm.std")  # no bar was ever made when tqdm is not imported (the command's start)
    for b in list(getattr(getattr(tqdm, "tqdm", None), "_instances", ())):
        try:
            b.close()
        except Exception:  # noqa: BLE001 - a bar half torn down by the interrupt: nothing more to clear
            pass


def _bar_class() -> type:
    """tqdm's bar that raises KeyboardInterrupt at the update after a noted Ctrl-C (tqdm is imported here, not
    with this module: the command's SIGINT handler imports it first thing)."""
    global _Bar
    if _Bar is None:
        from tqdm import tqdm

        class Bar(tqdm):
            def update(self, n: float | None = 1) -> Any:
                if _interrupt[0]:
                    raise KeyboardInterrupt
                return super().update(n)

        _Bar = Bar
    return _Bar


_Bar: type | None = None


def bar(total: float | None = None, desc: str = "", unit: str = "it", wanted: bool | None = None,
        **options: Any) -> tqdm:
    """A tqdm bar on stderr following the rule of this module (``options`` go to tqdm, e.g.
    ``unit_scale=True`` for bytes)."""
    cls = _bar_class()
    cls.__mro__[1].monitor_interval = 0  # tqdm's: no monitor thread: a program forked meanwhile must not inherit a live thread
    on = enabled(wanted)
    forced = os.environ.get("MPX_PROGRESS", "").strip().lower() in ON
    options.setdefault("delay", 0 if forced or not on else DELAY)
    return cls(total=total, desc=desc, unit=unit, disable=not on, file=sys.stderr, dynamic_ncols=True,
               leave=False, **options)
