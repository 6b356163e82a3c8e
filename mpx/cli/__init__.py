"""The ``mpx`` command: one module per subcommand, each with ``add_parser(subparsers)`` and ``run(args)``.

Subcommand modules import only argparse at import time; the heavy work (numpy, readers) is imported
inside ``run`` so that ``mpx --help`` answers at once. Subcommands parse and print: the choices and the
work are the library's; argument helpers several subcommands share live in `mpx.cli.common` (subcommand
modules never import each other).

``main`` installs its interrupt handling before it imports anything more, and imports only the subcommand module
it runs (``mpx --version`` imports none).

Every command ends with one clear line for what a user or the machine can cause (`error_line`): an
`mpx.errors.MpxError` (bad input, named), a missing file, a permission refused, a read-only or full disk
(any ``OSError`` with an errno, naming the path), a file that is not a results store, and Ctrl-C
(exit 130; ``mpx run`` keeps its finished cells and a rerun resumes). Anything else is a bug: one line
says so, then the traceback.
"""

from __future__ import annotations

import errno
import importlib
import sys

from mpx import __version__

TYPE_CHECKING = False  # typing is not imported: main's first milliseconds are not covered by its handler
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

#: subcommand modules, in the order ``mpx --help`` lists them
COMMANDS = ("trace", "record", "datasets", "synth", "schedule", "partition", "run", "report", "figs", "site", "evaluate",
            "estimate", "bench")


def build_parser(only: str | None = "*") -> tuple[argparse.ArgumentParser, dict]:
    """The ``mpx`` parser with the subcommand ``only`` (its module alone is imported), every subcommand
    (``"*"``: ``mpx --help`` lists them all), or none (None: ``mpx --version``)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="mpx",
        description="Score performance-counter multiplexing (schedulers and scalers) against simulator ground truth.",
    )
    parser.add_argument("--version", action="version", version=f"mpx {__version__}")
    modules = {}
    if only is None:
        return parser, modules
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only == "*" else (only,):
        mod = importlib.import_module(f"mpx.cli.{name}")
        mod.add_parser(sub)
        modules[name] = mod
    return parser, modules


def command_of(argv: list[str]) -> str | None:
    """Which subcommand parser ``argv`` needs: its command when it names one, None for ``--version`` alone,
    ``"*"`` otherwise (help, no command, an unknown one: argparse lists them all)."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in COMMANDS else "*"
        if a not in ("--version",):
            return "*"
    return None if argv else "*"


def main(argv: list[str] | None = None) -> int:
    """Run one ``mpx`` command. The interrupt handling comes first: a Ctrl-C while the command's module is
    imported or its arguments parsed is one line too (Python's own KeyboardInterrupt before the handler is
    installed included)."""
    previous, name, whole_process, unraisable = None, "", argv is None, sys.unraisablehook
    try:
        previous = _note_interrupts()
        argv = sys.argv[1:] if argv is None else list(argv)
        command = command_of(argv)
        name = command if command not in (None, "*") else ""
        return _main(argv, command)
    except KeyboardInterrupt as exc:
        return _interrupted_line(name, str(exc))
    finally:
        import signal

        for sig, handler in (previous or {}).items():
            # the command line's process ends here: a Ctrl-C in its exit would kill it silently (exit -2) after
            # the command finished, so it is ignored; a caller in Python gets its handlers back
            signal.signal(sig, signal.SIG_IGN if whole_process else handler)
        if not whole_process:  # and its unraisable hook, and no note of a Ctrl-C its next progress bar would raise
            sys.unraisablehook = unraisable
            from mpx.util.progress import request_interrupt

            request_interrupt(False)


def _main(argv: list[str], command: str | None) -> int:
    parser, modules = build_parser(command)
    args = parser.parse_args(argv)
    from mpx.util.progress import interrupt_requested

    if not args.command:
        parser.print_help()
        return 2
    if interrupt_requested():  # noted where raising was not possible (a callback of the import system)
        return _interrupted_line(args.command)
    from mpx.cli.common import show_warnings_as_one_line

    show_warnings_as_one_line()  # every command, mpx run included: an MpxWarning is one line
    try:
        code = int(modules[args.command].run(args) or 0)
        return _interrupted_line(args.command) if interrupt_requested() else code  # a Ctrl-C swallowed on the way
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:
        return _interrupted_line(args.command, str(exc))  # e.g. mpx run: how many cells were stored
    except Exception as exc:
        if interrupted(exc):
            return _interrupted_line(args.command)
        line = error_line(exc)
        if line is None:
            print(f"mpx {args.command}: internal error (a bug in mpx: please report it with the traceback "
                  "below)", file=sys.stderr)
            raise
        print(f"mpx {args.command}: error: {line}", file=sys.stderr)
        return 1


def _note_interrupts() -> dict | None:
    """Install a SIGINT handler that also notes the interrupt (`mpx.util.progress.request_interrupt`) where Python's
    own is installed (not where SIGINT is ignored), and the same for SIGTERM where it has its default action;
    returns the previous handlers (signal → handler), None when none was set."""
    import signal

    from mpx.util.progress import request_interrupt

    request_interrupt(False)
    _TERMINATED[0] = False
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:
            return None

        def on_sigint(signum: int, frame: object) -> None:
            request_interrupt()
            if in_a_callback(frame):
                return  # raised there, it is printed as "Exception ignored"; the noted interrupt is raised later
            raise KeyboardInterrupt

        def on_sigterm(signum: int, frame: object) -> None:
            _TERMINATED[0] = True
            on_sigint(signum, frame)

        handlers = {signal.SIGINT: previous}
        note_unraisable_interrupts()
        signal.signal(signal.SIGINT, on_sigint)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # `kill PID`, a batch system's end: like Ctrl-C
            handlers[signal.SIGTERM] = signal.SIG_DFL
            signal.signal(signal.SIGTERM, on_sigterm)
        return handlers
    except ValueError:  # not the main thread
        return None


_TERMINATED = [False]  # the interrupt was a SIGTERM (the line says so, exit 143)


def note_unraisable_interrupts() -> None:
    """A KeyboardInterrupt raised in a callback `CALLBACKS` does not list (a ``__del__``, a weakref or ctypes
    callback) cannot reach the command: Python prints "Exception ignored ..." and goes on. It is noted instead,
    and raised at the next safe point like one noted by the handler. Once a Ctrl-C has been noted, the
    destructors of objects it cut off halfway fail too (llvmlite's ``PassBuilder.__del__``: AttributeError,
    1 of 30 Ctrl-Cs in ``mpx partition``'s first seconds beside a busy loop): those are dropped, the command's
    one line says what happened. Any other unraisable error is printed as before."""
    from mpx.util.progress import interrupt_requested, request_interrupt

    previous = sys.unraisablehook

    def hook(unraisable: object, noted: Callable[[], bool] = interrupt_requested,
             note: Callable[[], None] = request_interrupt) -> None:  # bound now: it may run in the exit's teardown
        if isinstance(getattr(unraisable, "exc_value", None), KeyboardInterrupt):
            note()
        elif not noted():
            previous(unraisable)

    sys.unraisablehook = hook


#: Python functions that C code calls back (code name, a part of its file's path): an exception raised in them
#: does not reach the command; it is printed as "Exception ignored ..." and the work goes on. The import
#: system's weakref callback, and llvmlite's object cache, which numba calls while it loads or writes kernels
#: (a Ctrl-C there printed its traceback: 1 of 50 Ctrl-Cs in `mpx partition`'s first seconds, full suite)
CALLBACKS = (("cb", "importlib"), ("_raw_object_cache_notify", "llvmlite"),
             ("_raw_object_cache_getbuffer", "llvmlite"))


def in_a_callback(frame: object) -> bool:
    """Is ``frame`` (where a signal handler interrupted Python) inside one of the `CALLBACKS`?"""
    for _ in range(64):
        code = getattr(frame, "f_code", None)
        if code is None:
            return False
        if any(code.co_name == name and part in code.co_filename for name, part in CALLBACKS):
            return True
        frame = getattr(frame, "f_back", None)
    return False


def _interrupted_line(command: str, detail: str = "") -> int:
    """Print the one line of a Ctrl-C and return 130; further SIGINTs are ignored from here on.

    A KeyboardInterrupt that passed through code run by ``exec`` (a numba kernel's dispatch) sets CPython's
    ``_Py_UnhandledKeyboardInterrupt`` even though it is caught here, and the interpreter then kills itself
    with SIGINT after finalising (exit -2 after the line; 4 of 16 Ctrl-Cs of ``mpx partition``, found by
    tests/cli/test_interrupts.py): it was handled, so the flag is cleared."""
    import ctypes
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from mpx.util.progress import close_all, request_interrupt

    close_all()  # the bar a Ctrl-C left drawn: the line starts on a clean line
    request_interrupt()  # from here on the command was interrupted, however the note was kept (`interrupts_deferred`)
    try:
        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (AttributeError, ValueError, OSError):  # another interpreter, or a CPython that keeps it elsewhere
        pass
    what = f" ({detail})" if detail else ""
    word = "terminated (SIGTERM)" if _TERMINATED[0] else "interrupted"
    print(f"mpx{' ' + command if command else ''}: {word}{what}; {KEPT.get(command, KEPT[''])}", file=sys.stderr)
    return 143 if _TERMINATED[0] else 130


#: what Ctrl-C leaves behind, by command ('' for the others)
KEPT = {
    "run": "the finished cells are kept in the results store; rerun the same command to resume from them",
    "record": "nothing was written: the program was stopped and its temporary folder removed",
    "partition": "nothing was written",
    "datasets": "datasets rebuilt before the interrupt are kept; the one being rebuilt is unchanged",
    "": "files written before the interrupt are kept",
}

_OS_ERRORS = {
    errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied", errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory (a file was expected)", errno.ENOTDIR: "not a directory",
}


#: the exceptions C code raises in place of a KeyboardInterrupt raised in Python code it called (`interrupted`)
WRAPPERS = (SystemError, ImportError)


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C in disguise: C code that calls Python wraps the KeyboardInterrupt raised there.
    A SIGINT inside a numba-compiled kernel surfaces as ``SystemError: CPUDispatcher(...) returned a result with
    an exception set`` (found by tests/cli/test_interrupts.py in ``mpx partition``); one inside a pybind11
    extension's initialisation as ``ImportError: initialization failed`` (scipy's HiGHS, imported by
    ``scipy.stats``: ``mpx report``'s first seconds, one CI run). The KeyboardInterrupt is their cause; any
    exception raised *from* one (Python's ``raise ... from``, C's equivalent) is one too, at any depth."""
    for _ in range(50):  # numba may wrap it several times (_numba_unpickle)
        if exc is None:
            return False
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or (exc.__context__ if isinstance(exc, WRAPPERS) else None)
    return False


def error_line(exc: BaseException) -> str | None:
    """The one line a user sees for ``exc``, or None when it is a bug (the traceback is then shown)."""
    import sqlite3

    from mpx.errors import MpxError

    if isinstance(exc, (MpxError, FileNotFoundError)):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno is not None:
        what = _OS_ERRORS.get(exc.errno, exc.strerror or str(exc))
        where = exc.filename if exc.filename is not None else None
        return f"{what}: {where}" if where is not None else f"{what} ({exc})"
    if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
        return f"disk full while writing the results store ({exc})"
    if isinstance(exc, sqlite3.OperationalError) and ("readonly" in str(exc) or "unable to open" in str(exc)):
        return f"cannot write the results store: {exc} (a read-only folder?)"
    return None


if __name__ == "__main__":
    sys.exit(main())
