"""The results store: one SQLite file that loses nothing, plus CSV (and Parquet) exports.

``ResultsStore(path)`` holds the tables written by `mpx.experiment.run_cell`:

- ``cells``: one row per finished cell — its key (hash of config + dataset checksum + code version),
  experiment, dataset, status (``done``, ``skipped`` with the reason, ``error``), the full cell config as
  JSON, host, pid, finish time, seconds;
- ``scores``: one row per cell and scaler (the summary of `mpx.evaluate.score` with provenance columns:
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
  figures) take the cells of the latest run of each experiment unless told otherwise.

Exports (`ResultsStore.export`) write each CSV or Parquet file under a temporary name and rename it
(`write_atomic`): a reader never sees half a file.

Durability: only the parent process writes, and each finished cell is written in **one transaction**
(SQLite's rollback journal: a ``kill -9`` at any moment leaves either the whole cell or none of it).
A rerun skips cells whose key is stored as ``done`` or ``skipped`` (``error`` cells are retried). Rows
do not depend on the order cells finish in, so 1 worker, N workers and a Dask cluster store the same
rows; only the wall-clock columns (`mpx.experiment.TIMING_COLUMNS`) differ between runs.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable

from mpx.errors import ConfigError, FormatError

__all__ = ["ResultsStore", "TABLES", "open_store", "to_latex"]

#: row tables a cell writes, with the columns they are sorted by on export
TABLES: dict[str, tuple[str, ...]] = {
    "scores": ("cell_key", "scaler"),
    "events": ("cell_key", "scaler", "event"),
    "metrics": ("cell_key", "scaler", "metric"),
    "schedule": ("cell_key",),
    "series": ("cell_key", "scaler", "event", "window"),
    "partition": ("cell_key",),
    "alignment": ("cell_key", "road", "method", "anchor"),
}

_CELL_COLUMNS = ("key", "experiment", "kind", "dataset", "dataset_checksum", "code_version", "scheduler", "seed",
                 "status", "reason", "config", "cell_seconds", "host", "pid", "finished")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class ResultsStore:
    """A SQLite results file (created on first use). Use as a context manager or call `close`."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=60)
        self._columns: dict[str, list[str]] = {}
        self._lock: Any = None  # the run lock's file while a run is open (`begin_run`)
        try:
            self.conn.execute("PRAGMA synchronous=FULL")
            self._init()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            if isinstance(exc, sqlite3.OperationalError):  # locked, read-only, disk full: not the file's fault
                raise
            raise FormatError(self.path, None, f"not a results store (not an SQLite database: {exc})") from None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._unlock_runs()
        self.conn.close()

    # -- schema ------------------------------------------------------------------------------------

    def _init(self) -> None:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        c.execute("CREATE TABLE IF NOT EXISTS cells (key TEXT PRIMARY KEY, experiment TEXT, kind TEXT, dataset TEXT, "
                  "dataset_checksum TEXT, code_version TEXT, scheduler TEXT, seed INTEGER, status TEXT, reason TEXT, "
                  "config TEXT, cell_seconds REAL, host TEXT, pid INTEGER, finished REAL)")
        c.execute("CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, experiment TEXT, "
                  "config_path TEXT, config TEXT, code_version TEXT, cells TEXT, n_cells INTEGER, jobs TEXT, "
                  "started REAL, finished REAL, status TEXT)")
        for t in TABLES:
            c.execute(f"CREATE TABLE IF NOT EXISTS {t} (cell_key TEXT)")
            c.execute(f"CREATE INDEX IF NOT EXISTS {t}_cell ON {t}(cell_key)")
        c.execute("COMMIT")

    def _table_columns(self, table: str) -> list[str]:
        if table not in self._columns:
            self._columns[table] = [r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")]
        return self._columns[table]

    def _ensure_columns(self, table: str, rows: list[dict]) -> None:
        have = self._table_columns(table)
        for r in rows:
            for k in r:
                if k not in have:
                    self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {_q(k)}")
                    have.append(k)

    # -- writing -----------------------------------------------------------------------------------

    def write(self, result: dict[str, Any]) -> None:
        """Store one finished cell (`mpx.experiment.run_cell`'s result) in one transaction."""
        cell = dict(result["cell"])
        cell.update(host=socket.gethostname(), pid=os.getpid(), finished=time.time())
        key = cell["key"]
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for t in TABLES:
                rows = [dict(r, cell_key=key) for r in result.get(t, [])]
                c.execute(f"DELETE FROM {t} WHERE cell_key = ?", (key,))
                if not rows:
                    continue
                self._ensure_columns(t, rows)
                cols = list(dict.fromkeys(k for r in rows for k in r))
                sql = f"INSERT INTO {t} ({', '.join(map(_q, cols))}) VALUES ({', '.join('?' * len(cols))})"
                c.executemany(sql, [tuple(r.get(k) for k in cols) for r in rows])
            c.execute(f"INSERT OR REPLACE INTO cells ({', '.join(_CELL_COLUMNS)}) VALUES "
                      f"({', '.join('?' * len(_CELL_COLUMNS))})", tuple(cell.get(k) for k in _CELL_COLUMNS))
            c.execute("COMMIT")
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
        """Cell keys of run ``run_id``, or of the latest run of ``experiment``; None (every cell) when the
        store has no run."""
        if run_id is not None:
            r = self.conn.execute("SELECT cells FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if r is None:
                raise ConfigError(f"{self.path}: no run {run_id}")
            return json.loads(r[0])
        rows = self.conn.execute("SELECT experiment, cells FROM runs ORDER BY run_id").fetchall()
        if not rows:
            return None
        latest: dict[str, list[str]] = {}
        for exp, cells in rows:
            latest[exp] = json.loads(cells)
        if experiment is not None:
            if experiment not in latest:
                raise ConfigError(f"{self.path}: no run of experiment {experiment!r}; runs: {sorted(latest)}")
            return latest[experiment]
        return [k for keys in latest.values() for k in keys]

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
        return json.loads(r[0]) if r and r[0] else None

    def experiments(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT experiment FROM runs ORDER BY run_id")]

    def table(self, name: str, experiment: str | None = None, run_id: int | None = None,
              keys: Iterable[str] | None = None) -> Any:
        """One table as a DataFrame, restricted to the cells of the latest run of each experiment (or of
        ``experiment`` / ``run_id`` / the given cell ``keys``), sorted deterministically."""
        import pandas as pd

        if name != "cells" and name not in TABLES:
            raise ConfigError(f"no table {name!r}; tables: cells, {', '.join(TABLES)}")
        keys = list(keys) if keys is not None else self.run_cells(experiment, run_id)
        col = "key" if name == "cells" else "cell_key"
        df = pd.read_sql_query(f"SELECT * FROM {name}", self.conn)
        if keys is not None:
            df = df[df[col].isin(set(keys))]
        order = ("key",) if name == "cells" else TABLES[name]
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
        for name in ("cells", *TABLES):
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


def write_atomic(path: Path, write: Any) -> None:
    """``write(tmp)`` into a fresh temporary file beside ``path``, then rename it over ``path``: a full
    disk or a kill leaves the old file (or none), never a part of the new one, and two exports to one
    folder each replace whole files (issue 16: a full disk left ``series.csv`` at 69,632 of 396,394
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


def open_store(path: str | os.PathLike) -> ResultsStore:
    """A store from a results file or from a folder holding ``results.sqlite`` (``mpx run --out``)."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.sqlite"
    if not p.is_file():
        raise ConfigError(f"no results store at {path} (expected a results.sqlite file or a folder holding one)")
    return ResultsStore(p)


def _tex(x: Any) -> str:
    s = str(x)
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        s = s.replace(a, b) if a != "\\" else s.replace(a, "\0")
    return s.replace("\0", r"\textbackslash{}")


def to_latex(df: Any, caption: str, label: str) -> str:
    """A booktabs table (no jinja2 needed): index as the first column(s), NaN as an em dash; a text column
    with values over 40 characters is a wrapping paragraph column (kept whole)."""
    import math

    import numpy as np

    idx_names = [n or "" for n in df.index.names]
    head = [*idx_names, *map(str, df.columns)]
    # a text column with long values (skip reasons are sentences) is a paragraph column that wraps
    spec = "".join(r"p{0.45\linewidth}" if df[c].map(lambda v: isinstance(v, str) and len(v) > 40).any() else "r"
                   for c in df.columns)
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             r"\begin{tabular}{" + "l" * len(idx_names) + spec + "}", r"\toprule",
             " & ".join(_tex(h) for h in head) + r" \\", r"\midrule"]
    for idx, *row in df.itertuples(index=True, name=None):  # per-column types kept (iterrows makes ints floats)
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = []
        for v in row:
            if isinstance(v, (bool, np.bool_)):
                cells.append(_tex(v))
            elif isinstance(v, (int, np.integer)):
                cells.append(f"{int(v):,}")
            elif isinstance(v, (float, np.floating)):
                cells.append("---" if not math.isfinite(v) else f"{v:.2f}" if abs(v) < 1e4 else f"{v:,.0f}")
            else:
                cells.append(_tex(v))
        lines.append(" & ".join([*(_tex(i) for i in idx), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(caption)}}}", rf"\label{{{label}}}",
              r"\end{table}"]
    return "\n".join(lines)
