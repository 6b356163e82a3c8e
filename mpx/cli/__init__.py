"""The ``mpx`` command: one module per subcommand, each with ``add_parser(subparsers)`` and ``run(args)``.

Subcommand modules import only argparse at import time; the heavy work (numpy, readers) is imported
inside ``run`` so that ``mpx --help`` answers at once. Subcommands parse and print: the choices and the
work are the library's; argument helpers several subcommands share live in `mpx.cli.common` (subcommand
modules never import each other).

Every command ends with one clear line for what a user or the machine can cause (`error_line`): an
`mpx.errors.MpxError` (bad input, named), a missing file, a permission refused, a read-only or full disk
(any ``OSError`` with an errno, naming the path), a file that is not a results store, and Ctrl-C
(exit 130; ``mpx run`` keeps its finished cells and a rerun resumes). Anything else is a bug: one line
says so, then the traceback.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys

from mpx import __version__

#: subcommand modules, in the order ``mpx --help`` lists them
COMMANDS = ("trace", "record", "datasets", "synth", "schedule", "partition", "run", "report", "figs", "site", "evaluate",
            "estimate", "bench")


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(
        prog="mpx",
        description="Score performance-counter multiplexing (schedulers and scalers) against simulator ground truth.",
    )
    parser.add_argument("--version", action="version", version=f"mpx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {}
    for name in COMMANDS:
        mod = importlib.import_module(f"mpx.cli.{name}")
        mod.add_parser(sub)
        modules[name] = mod
    return parser, modules


def main(argv: list[str] | None = None) -> int:
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    from mpx.cli.common import show_warnings_as_one_line

    show_warnings_as_one_line()  # every command, mpx run included: an MpxWarning is one line
    previous = _note_interrupts()
    try:
        code = int(modules[args.command].run(args) or 0)
        from mpx.util.progress import interrupt_requested

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
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGINT, previous)


def _note_interrupts() -> object | None:
    """Install a SIGINT handler that also notes the interrupt (`mpx.util.progress.request_interrupt`) where Python's
    own is installed (not where SIGINT is ignored); returns the previous handler, None when none was set."""
    import signal

    from mpx.util.progress import request_interrupt

    request_interrupt(False)
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:
            return None

        def on_sigint(signum: int, frame: object) -> None:
            request_interrupt()
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, on_sigint)
        return previous
    except ValueError:  # not the main thread
        return None


def _interrupted_line(command: str, detail: str = "") -> int:
    """Print the one line of a Ctrl-C and return 130; further SIGINTs are ignored from here on.

    A KeyboardInterrupt that passed through code run by ``exec`` (a numba kernel's dispatch) sets CPython's
    ``_Py_UnhandledKeyboardInterrupt`` even though it is caught here, and the interpreter then kills itself
    with SIGINT after finalising (exit -2 after the line; 4 of 16 Ctrl-Cs of ``mpx partition``, found by
    tests/test_interrupts.py): it was handled, so the flag is cleared."""
    import ctypes
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from mpx.util.progress import close_all

    close_all()  # the bar a Ctrl-C left drawn: the line starts on a clean line
    try:
        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (AttributeError, ValueError, OSError):  # another interpreter, or a CPython that keeps it elsewhere
        pass
    what = f" ({detail})" if detail else ""
    print(f"mpx {command}: interrupted{what}; {KEPT.get(command, KEPT[''])}", file=sys.stderr)
    return 130


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


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C in disguise: a SIGINT that lands inside a numba-compiled kernel surfaces
    as ``SystemError: CPUDispatcher(...) returned a result with an exception set``, the KeyboardInterrupt
    as its cause (found by tests/test_interrupts.py in ``mpx partition``)."""
    seen = 0
    while isinstance(exc, SystemError) and seen < 50:  # numba may wrap it several times (_numba_unpickle)
        nxt = exc.__cause__ or exc.__context__
        if isinstance(nxt, KeyboardInterrupt):
            return True
        exc, seen = nxt, seen + 1
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
