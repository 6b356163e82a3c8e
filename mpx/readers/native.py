"""The native mpx trace format (written by `Trace.save`)."""

from __future__ import annotations

import os
import zipfile

from mpx.trace import Trace

NAME = "mpx"


def sniff(path: str | os.PathLike, head: str) -> bool:
    return os.path.isfile(path) and zipfile.is_zipfile(path)


def read(path: str | os.PathLike) -> Trace:
    return Trace.load(path)
