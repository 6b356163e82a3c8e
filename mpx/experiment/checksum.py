"""The checksum of a results-store cell: SHA-256 of its rows as stored (`mpx.experiment.store`).

Part of the store's format: `canonical_value` and `row_text` say how each stored value and row is hashed;
`cell_checksum` hashes one cell, `all_checksums` every cell of a store in one read of each table, and
`LEGACY_DIGESTS` names the digests of the first checksummed stores, which a store still verifies.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable

__all__ = ["CHECKSUMS", "LEGACY_DIGESTS", "RUN_CHECKSUMS", "RUN_COLUMNS", "all_checksums", "canonical_value",
           "cell_checksum", "digest", "row_text", "run_checksum"]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


#: the table of per-cell checksums (`cell_checksum`), written with each cell in its transaction
CHECKSUMS = "cell_checksums"


def canonical_value(v: Any) -> str:
    """One stored value as text that tells every SQLite value apart (floats exactly, as hex)."""
    if isinstance(v, float):
        return "f" + v.hex()
    if isinstance(v, bytes):
        return "b" + v.hex()
    return ("i" if isinstance(v, int) else "s") + str(v)


def row_text(names: list[str], row: tuple, _hex: Any = float.hex) -> str:
    """One stored row as the text its cell's checksum is computed from: ``name=<canonical_value>`` for every
    non-NULL column in table order (columns are only ever appended, so a column added later for other cells
    reads NULL here and changes nothing), joined by 0x1f. The common types inline `canonical_value` (the same
    text): a results store checksums millions of values."""
    parts = []
    for n, v in zip(names, row):
        if v is None:
            continue
        t = type(v)
        if t is float:
            parts.append(n + "=f" + _hex(v))
        elif t is int:
            parts.append(n + "=i" + str(v))
        elif t is str:
            parts.append(n + "=s" + v)
        else:
            parts.append(n + "=" + canonical_value(v))
    return "\x1f".join(parts)


def digest(parts: dict[str, list[str]], every: Iterable[str] | None = None) -> str:
    """The checksum of one cell's row texts by table. ``every``: the row tables in file order, each hashed even
    when the cell has no row in it (the digest of the first checksummed stores, schema 0)."""
    import hashlib

    h = hashlib.sha256()
    # the tables holding rows of the cell: a table declared later (empty for it) leaves its checksum as it was
    order = sorted(t for t, rows in parts.items() if t != "cells" and rows) if every is None else every
    for table in ("cells", *order):
        rows = sorted(parts.get(table, ()))
        h.update(f"{table}\x1e{len(rows)}\x1e".encode())
        for r in rows:
            h.update(r.encode("utf-8", "surrogatepass") + b"\x1d")
    return h.hexdigest()


def cell_checksum(conn: sqlite3.Connection, key: str, tables: Iterable[str]) -> str:
    """SHA-256 of one cell's rows as stored: its ``cells`` row and its rows of every row table of ``tables``
    that holds some, each row as its non-NULL columns, rows sorted."""
    parts: dict[str, list[str]] = {}
    for table, col in [("cells", "key"), *((t, "cell_key") for t in tables)]:
        cur = conn.execute(f"SELECT * FROM {table} WHERE {_q(col)} = ?", (key,))
        names = [d[0] for d in cur.description]
        parts[table] = [row_text(names, r) for r in cur.fetchall()]
    return digest(parts)


def all_checksums(conn: sqlite3.Connection, tables: Iterable[str], legacy: str | None = None) -> dict[str, str]:
    """`cell_checksum` of every cell of the store, reading each table once (what `ResultsStore.verify` uses).
    ``legacy``: one of the digests schema-0 stores were written with (`LEGACY_DIGESTS`)."""
    tables = list(tables)
    by_cell: dict[str, dict[str, list[str]]] = {}
    for table, col in [("cells", "key"), *((t, "cell_key") for t in tables)]:
        cur = conn.execute(f"SELECT * FROM {table}")
        names = [d[0] for d in cur.description]
        at = names.index(col)
        if legacy == "sorted columns":
            order = sorted(range(len(names)), key=names.__getitem__)
            text = (lambda r, order=order, names=names: row_text([names[i] for i in order], tuple(r[i] for i in order)))
        else:
            text = (lambda r, names=names: row_text(names, r))
        for r in cur:
            by_cell.setdefault(r[at], {}).setdefault(table, []).append(text(r))
    every = tables if legacy else None
    return {k: digest(parts, every) for k, parts in by_cell.items() if k is not None}


#: the digests of the first checksummed stores (schema 0, 2026-11-27): every row table hashed, each row's columns
#: sorted by name or in table order; a schema-0 cell matching one of them is intact, and migrated to the current one
LEGACY_DIGESTS = ("sorted columns", "table order")


#: the checksum of each ``runs`` row as `begin_run` wrote it (`run_checksum` of `RUN_COLUMNS`): a run's list of
#: cells says what a report reads
RUN_CHECKSUMS = "run_checksums"
RUN_COLUMNS = ("run_id", "experiment", "config_path", "config", "code_version", "cells", "n_cells", "jobs", "started")


def run_checksum(row: tuple) -> str:
    """SHA-256 of a ``runs`` row's `RUN_COLUMNS` (not its status and end: those change when the run ends)."""
    import hashlib

    return hashlib.sha256(row_text(list(RUN_COLUMNS), tuple(row)).encode("utf-8", "surrogatepass")).hexdigest()
