"""The results store: one SQLite file that loses nothing, plus CSV (and Parquet) exports.

``ResultsStore(path)`` holds the tables written by `mpx.experiment.run_cell`. Which row tables a store
has is its schema, declared by the experiment kinds (`mpx.experiment.kinds.CellKind.tables`: name → key
columns) through `ResultsStore.declare` and kept in the file; `write` refuses a table nobody declared. The
store's own tables are ``cells`` and ``runs``; the built-in kinds declare the others:

- ``cells``: one row per finished cell — its key (hash of config + dataset checksum + code version),
  experiment, dataset, status (``done``, ``skipped`` with the reason, ``error``), the full cell config as
  JSON, host, pid, finish time, seconds;
- ``scores``: one row per cell and scaler (the summary of `mpx.scoring.score.score` with provenance columns:
  cell key, dataset checksum, code version, seed, workload, scheduler, scaler and their parameters,
  PMU, counters, events, quantum, read window, noise; ``estimate_seconds``: the scaler's wall time);
- ``events`` / ``metrics``: per cell, scaler and event / metric; ``schedule``: the scheduler's figures
  (utilization, sampling and co-scheduling ratios) per cell; ``series``: per-window truth, estimate and
  std of the events a config asks for (``[output] series_events``), for timeline figures;
- ``partition``: one row per partition cell (``kind = "partition"``): instance, family, size, k, ε, cap,
  seed, tool and its version, status (``done``, ``skipped`` when the tool is not installed, ``failed``
  when it refused or crashed, with the reason), km1 / cut / imbalance / largest block recomputed by mpx
  from the returned blocks, the tool's own km1, feasibility, ``partition_seconds`` and the published
  reference km1 when the config gives one (in ``cells``, the ``scheduler`` column of a partition cell
  holds its tool);
- ``alignment``: one row per alignment cell, road (multiplex, multiplex_runs, alignment, floor) and method
  (``kind = "alignment"``, `mpx.experiment.alignment`): the scalers' measures on the reference run, the
  EMD, run count and measurement cost;
- ``runs``: every ``mpx run`` (config, the cells of its grid, start, end). Readers (`mpx report`, the
  figures) take the cells of the latest run of each experiment unless told otherwise;
- ``cell_checksums``: per cell, the SHA-256 of its rows as stored (`cell_checksum`), written in the cell's
  transaction and checked on the first table read (`ResultsStore.verify`; `mpx report --verify`): SQLite
  keeps no page checksums, so a flipped byte inside a record would otherwise read back as another value.
  Readers open the store read-only (`open_store`): an empty file or a malformed page is a `FormatError`
  and nothing is written into the file.

Schema (`SCHEMA`, kept as SQLite's ``user_version``; `KEEPS` lists every schema mpx has written): stores written
before it was recorded are schema 0, with or without ``row_tables`` and ``cell_checksums``; they are read as they are
and migrated by the first writer (their row tables' keys filled in when declared, their cells without a checksum
listed in ``unchecked_cells``, cells checksummed by an older digest re-checksummed). Schema 3 stores are read with
or without ``run_checksums`` (the first ones had none; a writer adds them: schema 4). From schema 3 on a missing
cell checksum (row or table) is damage, and from schema 4 on a missing run checksum too. A writer checks the whole store before it writes anything (`mpx run` never writes into a store it
would refuse to read) and refuses a 0-byte file like a reader.

Exports (`ResultsStore.export`) write each CSV or Parquet file under a temporary name and rename it
(`write_atomic`): a reader never sees half a file.

Durability: only the parent process writes, and each finished cell is written in **one transaction**
(SQLite's rollback journal: a ``kill -9`` at any moment leaves either the whole cell or none of it).
A rerun skips cells whose key is stored as ``done`` or ``skipped`` (``error`` cells are retried). Rows
do not depend on the order cells finish in, so 1 worker, N workers and a Dask cluster store the same
rows; only the wall-clock columns (`mpx.experiment.TIMING_COLUMNS`) differ between runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from mpx.errors import ConfigError, FormatError
from mpx.experiment.latex import to_latex
from mpx.experiment.reuse import as_asked
from mpx.experiment.checksum import (CHECKSUMS, LEGACY_DIGESTS, RUN_CHECKSUMS, RUN_COLUMNS, all_checksums,
                                     canonical_value, cell_checksum, digest, row_text, run_checksum)
from mpx.experiment.schema import KEEPS, OWN_TABLES, SCHEMA, UNCHECKED, changed_definition

__all__ = ["SCHEMA", "ResultsStore", "canonical_value", "open_store", "row_text", "to_latex"]

_CELL_COLUMNS = ("key", "experiment", "kind", "dataset", "dataset_checksum", "code_version", "scheduler", "seed",
                 "status", "reason", "config", "cell_seconds", "host", "pid", "finished")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class ResultsStore:
    """A SQLite results file (created on first use). Use as a context manager or call `close`."""

    def __init__(self, path: str | os.PathLike, read_only: bool = False, checked: Iterable[str] = ()) -> None:
        """``checked``: cells whose checksums the caller has just checked or written (`written`): a reader
        started beside the writer (`mpx run` draws its figures in another process) does not check them
        again."""
        self.path = Path(path)
        self.read_only = read_only
        self._columns: dict[str, list[str]] = {}
        self._tables: dict[str, tuple[str, ...]] | None = None
        self._lock: Any = None  # the run lock's file while a run is open (`begin_run`)
        self._verified = False
        self._written: set[str] = set(checked)  # cells written here (checksummed from their rows read back)
        self._relabel: set[str] = set()  # cells of a schema-0 store checksummed by a legacy digest
        _check_not_empty(self.path)  # a zero-length file is a destroyed store, for a writer as for a reader
        if read_only:  # a reader (mpx report, figures) never writes: not even a schema into a damaged file
            self.conn = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None,
                                        timeout=60)
        else:
            existed = self.path.is_file()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=60)
        # a flipped byte inside a text value: read (it fails its checksum, one line), not a UnicodeDecodeError
        self.conn.text_factory = _text
        try:
            self.schema = self._check_schema(new=not read_only and not existed)
            if read_only:
                return
            if existed:  # a writer never writes into a store it would refuse to read (issue 40 items 2, 3)
                self._check_readable()
            self.conn.execute("PRAGMA synchronous=FULL")
            self._init()
        except FormatError:
            self.conn.close()
            raise
        except UnicodeDecodeError:  # SQLite's own message quoting a damaged schema
            self.conn.close()
            raise FormatError(self.path, None, "damaged results store (its schema is not UTF-8 text)") from None
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            if not is_damage(exc):
                raise  # locked, read-only, disk full: not the file's fault
            raise FormatError(self.path, None, f"not a results store (not an SQLite database: {exc})") from None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._unlock_runs()
        self.conn.close()

    # -- schema ------------------------------------------------------------------------------------

    def _have(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _check_schema(self, new: bool) -> int:
        """The file's schema (SQLite's ``user_version``, `SCHEMA`); refuses, in one line, a file that is not a
        results store, one written by a newer mpx, and a current one without the tables its schema keeps."""
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        have = self._have()
        if new and not have:
            return version
        if not {"cells", "runs"} <= have:
            raise FormatError(self.path, None, "not a results store (no cells or runs table)")
        if version > SCHEMA:
            raise FormatError(self.path, None, f"a results store of schema {version}, written by a newer mpx "
                              f"(this one reads schemas 0 to {SCHEMA}); update mpx to read it")
        if version not in KEEPS:
            raise FormatError(self.path, None, f"damaged results store: its schema number reads {version}, which no "
                              f"mpx wrote (schemas {', '.join(map(str, KEEPS))})")
        if version == 0 and {UNCHECKED, RUN_CHECKSUMS} & have:  # tables no mpx of schema 0 wrote
            raise FormatError(self.path, None, f"damaged results store: it has the tables of schema {SCHEMA} but "
                              f"its schema number reads {version}")
        lost = [t for t in KEEPS[version] if t not in have]
        if lost:
            raise FormatError(self.path, None, f"damaged results store: schema {version} keeps the table(s) "
                              f"{', '.join(lost)}, and they are missing")
        changed = changed_definition(self.conn, have)
        if changed:
            raise FormatError(self.path, None, f"damaged results store: {changed}")
        return version

    def _check_readable(self) -> None:
        """SQLite's own check of every page, then the cells' checksums: `mpx run` refuses a damaged store the
        way `mpx report` does, before writing anything into it."""
        bad = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)")]
        if bad != ["ok"]:
            raise FormatError(self.path, None, f"damaged results store ({bad[0]}), left as it is")
        problems = self.problems(expected=False)
        if problems:
            key = min(problems)
            raise FormatError(self.path, None, f"{len(problems)} damaged cell(s) (first: {key}: {problems[key]}): "
                              "the store was changed outside mpx or damaged, left as it is; `mpx report --verify` "
                              "lists them")

    def schema_name(self) -> str:
        """The store's schema in words (what a message about an older store names)."""
        if self.schema >= 3:
            return f"schema {self.schema}"
        have = self._have()
        lacks = [t for t in ("row_tables", CHECKSUMS) if t not in have]
        return "schema 0 (an mpx before 2026-11-29" + (f": no {' and no '.join(lacks)}" if lacks else "") + ")"

    def _init(self) -> None:
        """Create the store's tables, or migrate a store of an older schema to `SCHEMA` (one transaction):
        its row tables are recorded with their keys unknown until an experiment kind declares them, and its
        cells without a checksum are listed as written before checksums (`unchecked`), so that from now on a
        missing checksum is damage."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES['cells']}")
        c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES['runs']}")
        version = int(c.execute("PRAGMA user_version").fetchone()[0])
        if version < 3:
            c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES['row_tables']}")
            for t in self._legacy_tables():  # keys NULL: unknown until declared (`declare` fills them in)
                c.execute("INSERT OR IGNORE INTO row_tables (name, keys) VALUES (?, NULL)", (t,))
            c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES[CHECKSUMS]}")
            c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES[UNCHECKED]}")
            c.execute(f"INSERT OR IGNORE INTO {UNCHECKED} SELECT key FROM cells WHERE key NOT IN "
                      f"(SELECT cell_key FROM {CHECKSUMS})")
            tables = [t for (t,) in c.execute("SELECT name FROM row_tables ORDER BY rowid")]
            for k in sorted(self._relabel):  # checked under the digest they were written with (`LEGACY_DIGESTS`)
                c.execute(f"UPDATE {CHECKSUMS} SET sha256 = ? WHERE cell_key = ?", (cell_checksum(c, k, tables), k))
        if version < SCHEMA:  # schema 3 written by an mpx of 2026-11-29 04:18-05:04 had no run checksums
            c.execute(f"CREATE TABLE IF NOT EXISTS {OWN_TABLES[RUN_CHECKSUMS]}")
            for row in c.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs").fetchall():  # as they are now
                c.execute(f"INSERT OR IGNORE INTO {RUN_CHECKSUMS} VALUES (?, ?)", (row[0], run_checksum(row)))
            c.execute(f"PRAGMA user_version = {SCHEMA}")
        c.execute("COMMIT")
        self.schema = SCHEMA
        self._tables = None

    def _legacy_tables(self) -> list[str]:
        """The row tables of a store without ``row_tables``: every table but the store's own."""
        return [t for (t,) in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
            f"('cells', 'runs', 'row_tables', 'sqlite_sequence', '{CHECKSUMS}', '{UNCHECKED}', '{RUN_CHECKSUMS}') "
            "ORDER BY rowid")]

    def _legacy_order(self) -> list[str]:
        """The row tables in the order a schema-0 store created them (its checksums hashed them in that order)."""
        return [t for t in self._legacy_tables() if t in self.tables()]

    def tables(self) -> dict[str, tuple[str, ...]]:
        """The declared row tables: name → the columns rows are sorted by (``cell_key`` first)."""
        if self._tables is None:
            if "row_tables" in self._have():
                self._tables = {n: tuple(_json_list(self.path, k, f"the sort keys of table {n!r}")) if k
                                else ("cell_key",)
                                for n, k in self.conn.execute("SELECT name, keys FROM row_tables ORDER BY rowid")}
            else:  # a store of schema 0 read as it is (read-only)
                self._tables = {n: ("cell_key",) for n in self._legacy_tables()}
        return dict(self._tables)

    def declare(self, tables: dict[str, tuple[str, ...]]) -> None:
        """Declare row tables (name → key columns, without ``cell_key``), creating those the store lacks. A
        table declared before with other keys is a `ConfigError`."""
        have = self.tables()
        unknown = {n for (n,) in self.conn.execute("SELECT name FROM row_tables WHERE keys IS NULL")}
        for name, keys in tables.items():
            keys = ("cell_key", *(k for k in keys if k != "cell_key"))
            if name in have and name not in unknown and have[name] != keys:
                raise ConfigError(f"{self.path}: table {name!r} is declared with keys {have[name][1:]}, "
                                  f"not {keys[1:]}")
            if name == "cells" or name == "runs" or name == "row_tables" or not name.isidentifier():
                raise ConfigError(f"{self.path}: {name!r} cannot be a row table")
        new = {n: k for n, k in tables.items() if n not in have or n in unknown}
        if not new:
            return
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for name, keys in new.items():
                keys = ("cell_key", *(k for k in keys if k != "cell_key"))
                c.execute("INSERT OR IGNORE INTO row_tables (name, keys) VALUES (?, ?)", (name, json.dumps(keys)))
                c.execute("UPDATE row_tables SET keys = ? WHERE name = ?", (json.dumps(keys), name))
                c.execute(f"CREATE TABLE IF NOT EXISTS {_q(name)} (cell_key TEXT)")
                c.execute(f"CREATE INDEX IF NOT EXISTS {_q(name + '_cell')} ON {_q(name)}(cell_key)")
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise
        finally:
            self._tables = None

    def _table_columns(self, table: str) -> list[str]:
        if table not in self._columns:
            self._columns[table] = [r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")]
        return self._columns[table]

    def _ensure_columns(self, table: str, keys: Iterable[str]) -> None:
        have = self._table_columns(table)
        known = set(have)
        for k in keys:
            if k not in known:
                self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {_q(k)}")
                have.append(k)
                known.add(k)

    @property
    def written(self) -> frozenset[str]:
        """The cells this store wrote (or was told were checked): their checksums are not checked again."""
        return frozenset(self._written)

    # -- writing -----------------------------------------------------------------------------------

    def write(self, result: dict[str, Any]) -> None:
        """Store one finished cell (`mpx.experiment.run_cell`'s result) in one transaction."""
        cell = dict(result["cell"])
        cell.update(host=socket.gethostname(), pid=os.getpid(), finished=time.time())
        key = cell["key"]
        tables = self.tables()
        undeclared = sorted(set(result) - {"cell"} - set(tables))
        if undeclared:
            raise ConfigError(f"cell {key}: rows for undeclared table(s) {undeclared}; an experiment kind declares "
                              f"its tables (CellKind.tables); this store has {', '.join(tables) or 'none'}")
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for t in tables:
                rows = [dict(r, cell_key=key) for r in result.get(t, [])]
                c.execute(f"DELETE FROM {t} WHERE cell_key = ?", (key,))
                if not rows:
                    continue
                cols = list(dict.fromkeys(k for r in rows for k in r))
                self._ensure_columns(t, cols)
                sql = f"INSERT INTO {t} ({', '.join(map(_q, cols))}) VALUES ({', '.join('?' * len(cols))})"
                c.executemany(sql, [tuple(map(r.get, cols)) for r in rows])
            c.execute(f"INSERT OR REPLACE INTO cells ({', '.join(_CELL_COLUMNS)}) VALUES "
                      f"({', '.join('?' * len(_CELL_COLUMNS))})", tuple(cell.get(k) for k in _CELL_COLUMNS))
            c.execute(f"INSERT OR REPLACE INTO {CHECKSUMS} (cell_key, sha256) VALUES (?, ?)",
                      (key, cell_checksum(c, key, tables)))  # of the rows as stored, read back in this transaction
            c.execute("COMMIT")
            self._written.add(key)
        except BaseException:
            if c.in_transaction:  # SQLite rolls back by itself on some errors (disk full): keep their message
                c.execute("ROLLBACK")
            self._columns.clear()
            raise

    def begin_run(self, experiment: str, config_path: str | None, config: dict, code_version: str,
                  keys: list[str], jobs: str) -> int:
        """Start a run: take the store's run lock (`ConfigError` when another run holds it: two runs on one
        store would compute every cell twice), mark the runs a kill left ``running`` as ``interrupted`` (the
        lock proves none of them is alive), and record this one."""
        self._lock_runs()
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        c.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'running'")
        cur = c.execute("INSERT INTO runs (experiment, config_path, config, code_version, cells, n_cells, jobs, "
                        "started, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running')",
                        (experiment, config_path, json.dumps(config, sort_keys=True, default=repr), code_version,
                         json.dumps(keys), len(keys), jobs, time.time()))
        row = c.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", (cur.lastrowid,)).fetchone()
        c.execute(f"INSERT OR REPLACE INTO {RUN_CHECKSUMS} VALUES (?, ?)", (row[0], run_checksum(row)))
        c.execute("COMMIT")
        return int(cur.lastrowid)

    def end_run(self, run_id: int, status: str = "finished") -> None:
        self.conn.execute("UPDATE runs SET finished = ?, status = ? WHERE run_id = ?", (time.time(), status, run_id))
        self._unlock_runs()

    def _lock_runs(self) -> None:
        """An exclusive advisory lock on ``<store>.lock`` held until `end_run` or `close` (the operating
        system drops it when the process dies, so a killed run never leaves it behind)."""
        import fcntl

        if self._lock is not None:
            return
        fh = open(self.path.with_name(self.path.name + ".lock"), "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            fh.close()
            raise ConfigError(f"{self.path}: another mpx run is writing to this store ({holder}); wait for it to "
                              "finish or give another --out") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} on {socket.gethostname()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}")
        fh.flush()
        self._lock = fh

    def _unlock_runs(self) -> None:
        fh = self._lock
        if fh is not None:
            fh.close()  # closing the file releases the lock
            self._lock = None

    # -- reading -----------------------------------------------------------------------------------

    def finished_keys(self) -> set[str]:
        """Keys of cells that need no recomputation (``done`` or ``skipped``)."""
        return {r[0] for r in self.conn.execute("SELECT key FROM cells WHERE status IN ('done', 'skipped')")}

    def runs(self) -> Any:
        import pandas as pd

        return pd.read_sql_query("SELECT run_id, experiment, config_path, code_version, n_cells, jobs, started, "
                                 "finished, status FROM runs ORDER BY run_id", self.conn)

    def run_cells(self, experiment: str | None = None, run_id: int | None = None) -> list[str] | None:
        """Cell keys of run ``run_id``, or of the latest run of ``experiment`` (of every experiment when None); None
        (every cell) when the store has no run."""
        asked = self.asked_by(experiment, run_id)
        return None if asked is None else [k for keys in asked.values() for k in keys]

    def asked_by(self, experiment: str | None = None, run_id: int | None = None) -> dict[str, list[str]] | None:
        """Experiment name → the cell keys its run asked for: run ``run_id``'s, or the latest run of ``experiment``
        (of every experiment when None); None when the store has no run."""
        if run_id is not None:
            r = self.conn.execute("SELECT experiment, cells FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if r is None:
                raise ConfigError(f"{self.path}: no run {run_id}")
            return {r[0]: _json_list(self.path, r[1], run_id)}
        rows = self.conn.execute("SELECT run_id, experiment, cells FROM runs ORDER BY run_id").fetchall()
        if not rows:
            return None
        latest: dict[str, list[str]] = {}
        for rid, exp, cells in rows:
            latest[exp] = _json_list(self.path, cells, rid)
        if experiment is not None:
            if experiment not in latest:
                raise ConfigError(f"{self.path}: no run of experiment {experiment!r}; runs: {sorted(latest)}")
            return {experiment: latest[experiment]}
        return latest

    def run_config(self, experiment: str | None = None, run_id: int | None = None) -> dict | None:
        """The config (as stored by `begin_run`) of run ``run_id``, or of the latest run of ``experiment``
        (of any experiment when None); None when the store has no such run."""
        if run_id is not None:
            r = self.conn.execute("SELECT config FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        elif experiment is not None:
            r = self.conn.execute("SELECT config FROM runs WHERE experiment = ? ORDER BY run_id DESC LIMIT 1",
                                  (experiment,)).fetchone()
        else:
            r = self.conn.execute("SELECT config FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
        if not (r and r[0]):
            return None
        try:
            config = json.loads(r[0])
        except (ValueError, RecursionError):
            config = None
        if not isinstance(config, dict):
            raise FormatError(self.path, None, "damaged results store: a run's config is not a JSON object")
        return config

    def experiments(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT experiment FROM runs ORDER BY run_id")]

    def table(self, name: str, experiment: str | None = None, run_id: int | None = None,
              keys: Iterable[str] | None = None) -> Any:
        """One table as a DataFrame, restricted to the cells of the latest run of each experiment (or of
        ``experiment`` / ``run_id`` / the given cell ``keys``), sorted deterministically. Rows read by run name
        the experiment whose run asked for their cell (`as_asked`)."""
        import pandas as pd

        tables = self.tables()
        if name != "cells" and name not in tables:
            raise ConfigError(f"no table {name!r}; tables: cells, {', '.join(tables)}")
        if not self._verified:  # checked once, on the first read, for the cells this store did not just write
            damaged = self.problems(skip=self._written, expected=False)
            if damaged:
                first = min(damaged)
                raise FormatError(self.path, None, f"{len(damaged)} damaged cell(s) (first: {first}: "
                                  f"{damaged[first]}): the store was changed outside mpx or damaged; "
                                  "`mpx report --verify` lists them")
        asked = self.asked_by(experiment, run_id) if keys is None else None
        col = "key" if name == "cells" else "cell_key"
        try:
            df = pd.read_sql_query(f"SELECT * FROM {name}", self.conn)
        except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:  # pandas wraps SQLite's errors
            cause = exc if isinstance(exc, sqlite3.DatabaseError) else exc.__cause__ or exc
            if not is_damage(cause):
                raise cause from None
            raise FormatError(self.path, None, f"damaged results store ({cause})") from None
        if keys is not None:
            df = df[df[col].isin(set(keys))]
        elif asked is not None:
            df = as_asked(df, col, asked)
        order = ("key",) if name == "cells" else tables[name]
        order = [c for c in order if c in df.columns]
        return df.sort_values(order, kind="mergesort").reset_index(drop=True) if order else df

    def export(self, out_dir: str | os.PathLike, experiment: str | None = None, run_id: int | None = None,
               parquet: bool | None = None) -> list[Path]:
        """Write every non-empty table as CSV (and Parquet when pyarrow is installed, or ``parquet``
        True) into ``out_dir``; returns the files written."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        if parquet is None:
            try:
                import pyarrow  # noqa: F401

                parquet = True
            except ImportError:
                parquet = False
        written = []
        for name in ("cells", *self.tables()):
            df = self.table(name, experiment, run_id)
            if df.empty:
                continue
            p = out / f"{name}.csv"
            write_atomic(p, lambda tmp, df=df: df.to_csv(tmp, index=False))
            written.append(p)
            if parquet:
                q = out / f"{name}.parquet"
                write_atomic(q, lambda tmp, df=df: df.to_parquet(tmp, index=False))
                written.append(q)
        return written


    def verify(self, skip: Iterable[str] = ()) -> list[str]:
        """Keys of the damaged cells (`problems`), sorted; ``skip``: cells whose checksums are not checked
        (`table` skips those this store wrote itself: `mpx run` reads back a store of thousands of rows it has
        just checksummed)."""
        return sorted(self.problems(skip))

    def problems(self, skip: Iterable[str] = (), expected: bool = True) -> dict[str, str]:
        """Damaged cells → what is wrong: rows that no longer match the checksum written with them (SQLite keeps
        no page checksums: a flipped byte in a record reads back as another value); in a store of the current
        schema, a cell without its checksum (only the cells a migration found without one are `unchecked`);
        with ``expected``, a cell a finished run lists that is not stored. A store SQLite itself cannot read
        raises `FormatError` (one line)."""
        try:
            have = self._have()
            out: dict[str, str] = {}
            skip = set(skip)
            if expected:
                stored = {r[0] for r in self.conn.execute("SELECT key FROM cells")}
                for run_id, cells in self.conn.execute("SELECT run_id, cells FROM runs WHERE status = 'finished' "
                                                       "ORDER BY run_id"):
                    for k in _json_list(self.path, cells, run_id):
                        if k not in stored:
                            out.setdefault(k, f"run {run_id} finished with it, and it is not stored")
            if CHECKSUMS in have:
                sums = {k: d for k, d in self.conn.execute(f"SELECT cell_key, sha256 FROM {CHECKSUMS}")}
                check = {k: d for k, d in sums.items() if k not in skip}
                now = all_checksums(self.conn, self.tables()) if check else {}
                bad = {k for k, d in check.items() if now.get(k, digest({})) != d}
                for legacy in LEGACY_DIGESTS if bad and self.schema < 3 else ():
                    then = all_checksums(self.conn, self._legacy_order(), legacy)
                    matched = {k for k in bad if then.get(k) == check[k]}
                    self._relabel |= matched
                    bad -= matched
                for k in bad:
                    out[k] = "its rows no longer match the checksum written with them"
                if RUN_CHECKSUMS in have:  # schema 4; schema 3 had it from 2026-11-29 05:04 on
                    run_sums = dict(self.conn.execute(f"SELECT run_id, sha256 FROM {RUN_CHECKSUMS}"))
                    for row in self.conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs"):
                        if run_sums.get(row[0]) != run_checksum(row):
                            out[f"run {row[0]}"] = ("its row (the cells a report reads) no longer matches the "
                                                    "checksum written with it" if row[0] in run_sums else
                                                    "its checksum is missing")
                if self.schema >= 3:
                    legacy = {r[0] for r in self.conn.execute(f"SELECT cell_key FROM {UNCHECKED}")}
                    for (k,) in self.conn.execute("SELECT key FROM cells"):
                        if k not in sums and k not in legacy and k not in skip:
                            out[k] = "its checksum is missing (this store checksums every cell it writes)"
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise FormatError(self.path, None, f"damaged results store ({str(exc)[:200]})") from None
        self._verified = True
        return out

    def unchecked(self) -> int:
        """How many stored cells carry no checksum because they were written before checksums existed."""
        have = self._have()
        if self.schema >= 3:
            return int(self.conn.execute(f"SELECT COUNT(*) FROM cells WHERE key IN (SELECT cell_key FROM {UNCHECKED}) "
                                         f"AND key NOT IN (SELECT cell_key FROM {CHECKSUMS})").fetchone()[0])
        n = self.conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
        if CHECKSUMS not in have:
            return int(n)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM cells WHERE key NOT IN (SELECT cell_key FROM {CHECKSUMS})")
                   .fetchone()[0])


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def _json_list(path: Path, text: Any, what: int | str) -> list[str]:
    """A list of names the store keeps as JSON text (a run's cells: ``what`` its id; a row table's sort keys)."""
    try:
        keys = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        keys = None
    if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
        return keys
    of = f"run {what}'s list of cells" if isinstance(what, int) else what
    raise FormatError(path, None, f"damaged results store: {of} is not a JSON list")



def is_damage(exc: BaseException) -> bool:
    """Whether an SQLite error says the file is damaged (malformed, not a database, a format it does not know, a
    table or column gone), not that the disk or another process is in the way (locked, read-only, full)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and (not isinstance(exc, sqlite3.OperationalError) or any(
        w in text for w in ("malformed", "not a database", "unsupported file format", "no such ")))


@contextlib.contextmanager
def damage_as_error(path: str | os.PathLike) -> Iterator[None]:
    """Turn SQLite's "malformed" errors while reading the store at ``path`` into one `FormatError` naming it
    (a locked, read-only or full disk stays an ``OperationalError``: not the file's fault)."""
    try:
        yield
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        if not is_damage(exc) and not isinstance(exc, UnicodeDecodeError):
            raise
        raise FormatError(path, None, f"damaged results store ({str(exc)[:200]})") from None


def _check_not_empty(path: Path) -> None:
    """A zero-length file is a destroyed store (SQLite would take it as a new, empty database)."""
    if path.is_file() and path.stat().st_size == 0:
        raise FormatError(path, None, "empty file (0 bytes): a destroyed results store, left as it is")


def write_atomic(path: Path, write: Any) -> None:
    """``write(tmp)`` into a fresh temporary file beside ``path``, then rename it over ``path``: a full
    disk or a kill leaves the old file (or none), never a part of the new one, and two exports to one
    folder each replace whole files (a full disk once left ``series.csv`` at 69,632 of 396,394
    bytes). The temporary file is removed when ``write`` fails."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600: the file gets a new file's permissions
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def open_store(path: str | os.PathLike, read_only: bool = True) -> ResultsStore:
    """A store from a results file or from a folder holding ``results.sqlite`` (``mpx run --out``); read-only
    by default (`mpx report`, figures): nothing is written into it, an empty or damaged file is a
    `FormatError`, and the cells' checksums are checked on the first read (`ResultsStore.verify`)."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.sqlite"
    if not p.is_file():
        raise ConfigError(f"no results store at {path} (expected a results.sqlite file or a folder holding one)")
    return ResultsStore(p, read_only=read_only)
