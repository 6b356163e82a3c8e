"""What the tests need from the machine (valgrind, gem5) and which processes are still running: shared by the
tests that record and those that stop mpx (Ctrl-C, SIGKILL) and check what it left running."""

from __future__ import annotations

import os

from mpx.errors import MpxError
from mpx.recording.callgrind import RecordError, find_valgrind
from mpx.recording.gem5 import find_gem5

try:
    find_valgrind()
    HAVE_VALGRIND = True
except MpxError:
    HAVE_VALGRIND = False


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
