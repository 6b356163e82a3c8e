"""Canonical form of a results store's tables, for the refactor golden test.

A table is reduced to the rows that carry numbers: the columns that legitimately differ between two runs of
the same code are dropped (wall-clock timings, the code version and the cell key that hashes it, free-text
reasons), every row is identified by its dataset, scheduler and seed (joined from ``cells`` for tables that
only carry the key), floats are written with ``repr`` (exact round trip), and rows are sorted. Two runs that
compute the same numbers give byte-identical canonical CSVs, whatever order the cells finished in.

    python tests/golden/digest.py            # re-record tests/golden/reference/ (only after a deliberate change)
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference"
CONFIGS = ("quickstart", "schedule", "partition")
#: tables small enough to keep as compressed CSV (a failing test then names the differing rows)
KEEP_CSV = ("scores", "schedule", "partition")
DROP = {"cell_key", "code_version", "reason", "estimate_seconds", "event_windows_per_s", "mux_seconds",
        "cell_seconds", "partition_seconds"}
#: columns added after the reference was recorded, by changes that add numbers without moving any (each
#: tested on its own); since the re-recording of issue 12: the events' median true read-window count (issue 28,
#: the floor of the floored headline)
ADDED: set[str] = {"median_true"}
#: scalers registered after the reference was recorded (their rows are new, the others' unchanged)
ADDED_SCALERS: set[str] = set()


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return str(v)


def canonical_tables(db: str | Path) -> dict[str, str]:
    """table name -> canonical CSV text, for every non-empty row table of the store at ``db``."""
    con = sqlite3.connect(str(db))
    try:
        ident = {k: (d, s, str(seed)) for k, d, s, seed in
                 con.execute("select key, dataset, scheduler, seed from cells")}
        out = {}
        for table in ("scores", "events", "metrics", "schedule", "series", "partition"):
            cur = con.execute(f"select * from {table}")
            cols = [c[0] for c in cur.description]
            keep = [i for i, c in enumerate(cols) if c not in DROP and c not in ADDED]
            rows = []
            sc = cols.index("scaler") if "scaler" in cols else None
            for r in cur.fetchall():
                if sc is not None and r[sc] in ADDED_SCALERS:
                    continue
                rows.append([*ident.get(r[cols.index("cell_key")], ("?", "?", "?")), *(_cell(r[i]) for i in keep)])
            if not rows:
                continue
            rows.sort()
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["cell_dataset", "cell_scheduler", "cell_seed", *(cols[i] for i in keep)])
            w.writerows(rows)
            out[table] = buf.getvalue()
        return out
    finally:
        con.close()


def digests(tables: dict[str, str]) -> dict[str, dict]:
    return {t: {"rows": text.count("\n") - 1, "sha256": hashlib.sha256(text.encode()).hexdigest()}
            for t, text in tables.items()}


def record(name: str, db: str | Path) -> None:
    """Write the reference of experiment ``name`` from the store at ``db``."""
    tables = canonical_tables(db)
    REFERENCE.mkdir(exist_ok=True)
    (REFERENCE / f"{name}.json").write_text(json.dumps(digests(tables), indent=1, sort_keys=True) + "\n")
    for t in KEEP_CSV:
        if t in tables:
            with gzip.GzipFile(REFERENCE / f"{name}.{t}.csv.gz", "wb", mtime=0) as fh:
                fh.write(tables[t].encode())


if __name__ == "__main__":
    import os
    import subprocess
    import tempfile

    root = HERE.parents[1]
    configs = {"quickstart": root / "experiments" / "quickstart.toml", "schedule": HERE / "schedule.toml",
               "partition": HERE / "partition.toml"}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sys.argv[1:] or CONFIGS:
            out = Path(tmp) / name
            subprocess.run([sys.executable, "-m", "mpx", "run", str(configs[name]), "--out", str(out), "--jobs", "1"],
                           check=True, env={**os.environ, "MPX_CODE_VERSION": "golden"}, stdout=subprocess.DEVNULL)
            record(name, out / "results.sqlite")
            print(name, json.dumps(digests(canonical_tables(out / "results.sqlite"))))
