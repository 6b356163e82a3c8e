"""The results store's schema: the tables mpx itself keeps in a store (`OWN_TABLES`, created by
`mpx.experiment.store.ResultsStore`; a row table's columns grow with its rows instead), the schemas mpx has
written (`KEEPS`, `SCHEMA`) and the check that a store's own tables are still as mpx creates them."""

from __future__ import annotations

import sqlite3
from functools import lru_cache

from mpx.experiment.checksum import CHECKSUMS, RUN_CHECKSUMS

__all__ = ["KEEPS", "OWN_TABLES", "SCHEMA", "UNCHECKED", "changed_definition"]

#: the cells a migration to `SCHEMA` found without a checksum (written before checksums existed)
UNCHECKED = "unchecked_cells"

#: the store's own tables as mpx creates them (every schema: a row table's columns grow with its rows instead)
OWN_TABLES = {
    "cells": "cells (key TEXT PRIMARY KEY, experiment TEXT, kind TEXT, dataset TEXT, dataset_checksum TEXT, "
             "code_version TEXT, scheduler TEXT, seed INTEGER, status TEXT, reason TEXT, config TEXT, "
             "cell_seconds REAL, host TEXT, pid INTEGER, finished REAL)",
    "runs": "runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, experiment TEXT, config_path TEXT, config TEXT, "
            "code_version TEXT, cells TEXT, n_cells INTEGER, jobs TEXT, started REAL, finished REAL, status TEXT)",
    "row_tables": "row_tables (name TEXT PRIMARY KEY, keys TEXT)",
    CHECKSUMS: f"{CHECKSUMS} (cell_key TEXT PRIMARY KEY, sha256 TEXT)",
    UNCHECKED: f"{UNCHECKED} (cell_key TEXT PRIMARY KEY)",
    RUN_CHECKSUMS: f"{RUN_CHECKSUMS} (run_id INTEGER PRIMARY KEY, sha256 TEXT)",
}


def _layout(conn: sqlite3.Connection, table: str) -> tuple[tuple, ...]:
    """A table's columns as SQLite reads its definition: (name, type, primary-key position)."""
    return tuple((r[1], r[2], r[5]) for r in conn.execute(f"PRAGMA table_info(\"{table}\")"))


@lru_cache(maxsize=1)
def _own_layouts() -> dict[str, tuple[tuple, ...]]:
    """`_layout` of each of `OWN_TABLES` as mpx creates it (shared: not to be changed)."""
    mem = sqlite3.connect(":memory:")
    for definition in OWN_TABLES.values():
        mem.execute(f"CREATE TABLE {definition}")
    return {t: _layout(mem, t) for t in OWN_TABLES}


#: the schemas mpx has written (SQLite's user_version) → the tables besides ``cells`` and ``runs`` each keeps: 0 for
#: every store before the number was recorded (with or without row_tables and cell_checksums); 3 adds UNCHECKED (its
#: stores of 2026-11-29 04:18-05:04 have no RUN_CHECKSUMS, the later ones have it); 4 keeps RUN_CHECKSUMS
KEEPS = {0: (), 3: ("row_tables", CHECKSUMS, UNCHECKED), 4: ("row_tables", CHECKSUMS, UNCHECKED, RUN_CHECKSUMS)}
SCHEMA = max(KEEPS)


def changed_definition(conn: sqlite3.Connection, have: set[str]) -> str | None:
    """What differs between the own tables of the store on ``conn`` (those in ``have``) and how mpx creates them
    (None: nothing): a flipped byte in a definition renames or retypes a column, or drops a primary key, and SQLite
    reads on."""
    for table, want in _own_layouts().items():
        got = _layout(conn, table) if table in have else want
        if got != want:
            diff = next((f"column {w[0]!r} reads {g}" for g, w in zip(got, want) if g != w),
                        f"{len(got)} columns, not {len(want)}")
            return f"table {table} is not as mpx creates it ({diff})"
    return None
