"""The project's exception types.

Every error a user can provoke with bad input is one of these, so callers (and the CLI) can catch
``MpxError`` and print one clear line instead of a stack trace from deep inside.
"""

from __future__ import annotations

from os import PathLike


class MpxError(Exception):
    """Base class of every error mpx raises on purpose."""


class FormatError(MpxError, ValueError):
    """An input file is malformed: names the file, the line (1-based, when known) and what is wrong."""

    def __init__(self, path: str | PathLike | None, line: int | None, message: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.message = message
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class TraceError(MpxError, ValueError):
    """A Trace violates its contract (shapes, monotone edges, non-negative finite counts, names)."""


class ConfigError(MpxError, ValueError):
    """A configuration or hardware description is incomplete or inconsistent; names the key."""


class MpxWarning(UserWarning):
    """A run that works but whose result means little (too few read windows to score, a catalog written
    for another PMU, a dumper dropped unclosed): the message names the input and what to change. The
    command line prints it as one line (`mpx.cli.common.show_warnings_as_one_line`)."""


class UnknownNameError(ConfigError, KeyError):
    """A name (a dataset, ...) that is not known: a user error that callers may still catch as KeyError."""

    __str__ = Exception.__str__  # KeyError would quote the message
