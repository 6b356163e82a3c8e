"""What the tests need from the machine (valgrind, gem5) and which processes are still running: shared by the
tests that record and those that stop mpx (Ctrl-C, SIGKILL) and check what it left running."""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
from pathlib import Path

from mpx.errors import MpxError
from mpx.recording.callgrind import RecordError, find_valgrind
from mpx.recording.gem5 import find_gem5

try:
    find_valgrind()
    HAVE_VALGRIND = True
except MpxError:
    HAVE_VALGRIND = False


def unpack_shared_gem5(shared: Path) -> str | None:
    """The prebuilt gem5 of ``../shared/tools/gem5`` (xz), unpacked once into this user's cache (0.5 s), when no
    gem5 is set or on ``PATH``: then the recording tests run wherever ``../shared`` is, CI included. None when
    there is none to unpack or it cannot be unpacked (the recording tests then skip, saying why)."""
    if os.environ.get("MPX_GEM5"):
        return None  # the user's choice stands, even a wrong one
    try:
        find_gem5()
        return None
    except RecordError:
        pass
    packed = sorted((shared / "tools" / "gem5").glob("gem5.fast-*.xz"))
    if not packed:
        return None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mpx" / "test-gem5"
    binary = cache / packed[-1].name.removesuffix(".xz")
    if not binary.exists():
        part = binary.with_name(f".{binary.name}.{os.getpid()}")
        try:
            cache.mkdir(parents=True, exist_ok=True)
            with lzma.open(packed[-1]) as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            part.chmod(0o755)
            os.replace(part, binary)  # whole or not at all: test processes unpack side by side
        except (OSError, lzma.LZMAError):  # a read-only or full cache, a damaged file: the tests skip
            with contextlib.suppress(OSError):
                part.unlink()
            return None
    return str(binary)


def have_gem5() -> bool:
    """Whether a gem5 binary is found (``$MPX_GEM5`` or ``gem5.fast`` on ``PATH``)."""
    try:
        find_gem5()
        return True
    except RecordError:
        return False


def running(token: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds ``token``."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{name}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmd and state not in "ZX":
            pids.append(int(name))
    return pids


class TableStore:
    """The two calls the ledger and the study scripts make on a results store (`experiments`, `table`), over
    hand-made tables keyed by (table name, experiment)."""

    def __init__(self, tables):
        self.tables = tables

    def experiments(self):
        return sorted({exp for _, exp in self.tables})

    def table(self, name, experiment=None, run_id=None):
        import pandas as pd

        return self.tables.get((name, experiment), pd.DataFrame()).copy()
