"""A toy trace reader, one file and a ``register()`` call (the module is the reader). The format: a first
line ``# toy-trace``, a header ``end,<event>,...`` and one line per interval: its end time in µs (the
first interval starts at 0) and each event's count in it."""

from __future__ import annotations

import os
import sys

import numpy as np

from mpx import readers
from mpx.errors import FormatError
from mpx.trace import Trace

NAME = "toy"
MAGIC = "# toy-trace"


def sniff(path: str | os.PathLike, head: str) -> bool:
    """Mine when the first line is the magic line."""
    return head.startswith(MAGIC)


def read(path: str | os.PathLike) -> Trace:
    """The trace in ``path``."""
    lines = [ln.strip() for ln in open(path, encoding="utf-8") if ln.strip()]
    if not lines or lines[0] != MAGIC or len(lines) < 3:
        raise FormatError(path, 1, f"not a toy trace (first line {MAGIC!r}, a header, one line per interval)")
    events = tuple(lines[1].split(",")[1:])
    rows = np.array([[float(x) for x in ln.split(",")] for ln in lines[2:]])
    edges = np.concatenate([[0.0], rows[:, 0]])
    return Trace(events, rows[:, 1:], edges, "us", meta={"workload": os.path.basename(str(path)), "source": str(path)})


def write(path: str | os.PathLike, trace: Trace) -> None:
    """``trace`` in this format (for the tests)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(MAGIC + "\n" + ",".join(("end", *trace.events)) + "\n")
        for end, row in zip(trace.edges[1:], trace.counts):
            fh.write(",".join([repr(float(end)), *(repr(float(c)) for c in row)]) + "\n")


def register() -> None:
    readers.register(NAME, sys.modules[__name__])
