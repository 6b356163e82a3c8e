"""Canonical form of a results store's tables, and its comparison with a tolerance, for the golden test.

A table is reduced to the rows that carry numbers: the columns that legitimately differ between two runs of
the same code are dropped (wall-clock timings, the code version and the cell key that hashes it, free-text
reasons), every row is identified by its dataset, scheduler and seed (joined from ``cells`` for tables that
only carry the key), and rows are sorted by their exact columns. Columns are *exact* (text, integers, the
pattern of NaNs) or *float*.

Floats are compared with a tolerance (`RTOL` relative, `ATOL` absolute): another machine's BLAS, CPU or
libm moves the last bits of a float (the quickstart differed by 2.5e-14 relative on a fresh machine), and a
byte digest cannot survive that. The small tables (`KEEP_CSV`) are kept whole, as compressed CSV, and
compared value by value (a failure names the rows). The large ones keep a fingerprint: the row count, a
sha256 of the exact columns, and per float column weighted sums of the values and of their log-magnitudes,
each compared within the error that `RTOL` allows every value: a single value moving by more than about
3·RTOL·rows relative (1e-4 in the largest table, 42,420 rows), or many values each by more than `RTOL`,
changes the fingerprint; a moved integer, text or NaN always does.

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

import numpy as np

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference"
CONFIGS = {"quickstart": HERE.parents[1] / "experiments" / "quickstart.toml", "schedule": HERE / "schedule.toml",
           "partition": HERE / "partition.toml"}
#: the plugins the reference was recorded with, in place of ``use = "builtin"`` (or ``"all"``): a plugin added
#: later (a registered test plugin, an installed one, a new built-in) must not change the reference's grid
PINNED = {
    "schedulers": ["arm_topdown", "bayesperf", "fusion_aware", "hperf", "hypergraph", "likwid", "optimal", "perf",
                   "round_robin", "tintin"],
    "scalers": ["bayesperf", "bayesperf_smooth", "cam", "counterminer", "dcam", "dira", "fusion", "fusion_smooth",
                "linear", "papi", "papi_cumulative", "papi_sw", "tam", "tam_paper", "tintin"],
}
#: tables small enough to keep as compressed CSV, compared value by value
KEEP_CSV = ("scores", "schedule", "partition")
DROP = {"cell_key", "code_version", "reason", "estimate_seconds", "event_windows_per_s", "mux_seconds",
        "cell_seconds", "partition_seconds"}
#: columns added after the reference was recorded, by changes that add numbers without moving any (each
#: tested on its own); since the re-recording of issue 12: the events' median true read-window count (issue 28,
#: the floor of the floored headline); the level-1 verdict confusion as text (issue 26, None on callgrind); the
#: contested windows and the constant verdict (issue 34, None on callgrind)
ADDED: set[str] = {"median_true", "verdict_l1_confusion", "verdict_contested_share", "verdict_l1_contested",
                   "verdict_const_l1", "verdict_const_l1_contested"}
#: scalers registered after the reference was recorded (their rows are new, the others' unchanged)
ADDED_SCALERS: set[str] = set()
#: the tolerance of a float: relative to the value, with an absolute floor for values that are 0 in exact
#: arithmetic (a sum of terms that cancel)
RTOL, ATOL = 1e-9, 1e-12


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
            header = ["cell_dataset", "cell_scheduler", "cell_seed", *(cols[i] for i in keep)]
            out[table] = _write_csv(header, _sorted_rows(header, rows))
        return out
    finally:
        con.close()


def _write_csv(header: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _is_float_text(s: str) -> bool:
    """A float the canonical form wrote (``repr`` of a float or ``nan``), as opposed to an integer or text."""
    if s == "nan" or s in ("inf", "-inf"):
        return True
    if not any(c in s for c in ".eE"):
        return False
    try:
        float(s)
    except ValueError:
        return False
    return True


def _float_columns(header: list[str], rows: list[list[str]]) -> list[int]:
    """Columns whose every non-empty value is a float (and at least one is)."""
    out = []
    for j in range(len(header)):
        vals = [r[j] for r in rows if r[j] != ""]
        if vals and all(_is_float_text(v) for v in vals) and any(v != "nan" for v in vals):
            out.append(j)
    return out


def _sorted_rows(header: list[str], rows: list[list[str]]) -> list[list[str]]:
    """Rows sorted by their exact columns, ties broken by the float columns rounded to 6 digits: an order
    that last-bit differences in a float cannot change."""
    fcols = set(_float_columns(header, rows))

    def key(r: list[str]) -> tuple:
        exact = tuple(r[j] for j in range(len(r)) if j not in fcols)
        approx = tuple("" if r[j] in ("", "nan") else f"{float(r[j]):.6g}" for j in sorted(fcols))
        return exact, approx
    return sorted(rows, key=key)


def parse(text: str) -> tuple[list[str], list[list[str]]]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    return header, list(reader)


def _split(header: list[str], rows: list[list[str]]) -> tuple[list[int], list[list[str]], np.ndarray]:
    """(float column indices, exact part of every row, float part as an array with NaN for empty)."""
    fcols = _float_columns(header, rows)
    fset = set(fcols)
    exact = [[(r[j] if r[j] in ("", "nan", "inf", "-inf") else "") if j in fset else r[j]
              for j in range(len(header))] for r in rows]
    values = np.array([[float(r[j]) if r[j] != "" else np.nan for j in fcols] for r in rows],
                      dtype=float).reshape(len(rows), len(fcols))
    return fcols, exact, values


def _weights(n: int) -> np.ndarray:
    """Deterministic weights in [1, 2): a value's position matters, so a swap of two values is seen."""
    return 1.0 + np.modf(np.arange(1, n + 1) * 0.6180339887498949)[0]


def fingerprint(text: str) -> dict:
    """The fingerprint of a canonical table (see the module docstring)."""
    header, rows = parse(text)
    fcols, exact, values = _split(header, rows)
    w = _weights(len(rows))
    cols = {}
    for k, j in enumerate(fcols):
        x = values[:, k]
        ok = np.isfinite(x)
        nz = ok & (x != 0)
        cols[header[j]] = {
            "sum": float(np.sum(w[ok] * x[ok])), "abs": float(np.sum(w[ok] * np.abs(x[ok]))),
            "log": float(np.sum(w[nz] * np.log(np.abs(x[nz])))), "n_log": int(nz.sum()),
            "weight": float(np.sum(w[nz]))}
    exact_text = _write_csv(header, exact)
    return {"rows": len(rows), "columns": header, "exact_sha256": hashlib.sha256(exact_text.encode()).hexdigest(),
            "floats": cols}


def compare_fingerprint(got: dict, want: dict) -> list[str]:
    """What differs between two fingerprints, beyond the tolerance; empty when they match."""
    problems = []
    for key in ("rows", "columns", "exact_sha256"):
        if got[key] != want[key]:
            problems.append(f"{key} differs" + (f": {got[key]} (reference {want[key]})" if key == "rows" else ""))
    for col, ref in want["floats"].items():
        now = got["floats"].get(col)
        if now is None:
            problems.append(f"float column {col} missing")
            continue
        # each value may move by RTOL relative (ATOL absolute): the weighted sum by at most RTOL * abs + ATOL
        # per row, the log sum by RTOL per nonzero value (log(1 + r) <= r)
        if abs(now["sum"] - ref["sum"]) > RTOL * ref["abs"] + ATOL * got["rows"] * 2:
            problems.append(f"{col}: weighted sum {now['sum']!r} (reference {ref['sum']!r})")
        if now["n_log"] != ref["n_log"] or abs(now["log"] - ref["log"]) > 2 * RTOL * ref["weight"] + 1e-12:
            problems.append(f"{col}: log-magnitude sum {now['log']!r} over {now['n_log']} values "
                            f"(reference {ref['log']!r} over {ref['n_log']})")
    extra = sorted(set(got["floats"]) - set(want["floats"]))
    if extra:
        problems.append(f"float columns not in the reference: {extra}")
    return problems


def compare_tables(got_text: str, want_text: str, limit: int = 12) -> list[str]:
    """Value-by-value differences between two canonical tables beyond the tolerance (at most ``limit``)."""
    gh, grows = parse(got_text)
    wh, wrows = parse(want_text)
    if gh != wh:
        return [f"columns differ: {gh} (reference {wh})"]
    if len(grows) != len(wrows):
        return [f"{len(grows)} rows (reference {len(wrows)})"]
    fset = set(_float_columns(wh, wrows)) | set(_float_columns(gh, grows))
    out = []
    for i, (g, r) in enumerate(zip(grows, wrows)):
        for j, (a, b) in enumerate(zip(g, r)):
            if a == b:
                continue
            if j in fset and a not in ("", "nan") and b not in ("", "nan"):
                x, y = float(a), float(b)
                if abs(x - y) <= RTOL * abs(y) + ATOL:
                    continue
            out.append(f"row {i + 1} ({', '.join(r[:3])}) {wh[j]}: {a} (reference {b})")
            if len(out) >= limit:
                return out
    return out


def compare(name: str, got: dict[str, str]) -> list[str]:
    """Every table of experiment ``name`` against its reference: a list of differences, empty when equal."""
    want = json.loads((REFERENCE / f"{name}.json").read_text())
    if sorted(got) != sorted(want):
        return [f"tables {sorted(got)} (reference {sorted(want)})"]
    problems = []
    for table, ref in want.items():
        kept = REFERENCE / f"{name}.{table}.csv.gz"
        if kept.exists():
            diff = compare_tables(got[table], gzip.decompress(kept.read_bytes()).decode())
        else:
            diff = compare_fingerprint(fingerprint(got[table]), ref)
        problems += [f"{name}.{table}: {d}" for d in diff]
    return problems


def pinned_config(path: Path):
    """The config at ``path`` with every ``use = "builtin"`` or ``"all"`` replaced by the `PINNED` list."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    from mpx.experiment.config import Experiment

    raw = tomllib.loads(Path(path).read_text())
    for section, names in PINNED.items():
        if raw.get(section, {}).get("use") in ("builtin", "all"):
            raw[section]["use"] = list(names)
    return Experiment(raw, Path(path))


def run_reference(name: str, db: str | Path) -> None:
    """Run experiment ``name`` with its pinned plugins into the store at ``db``, one process (the recording
    and the test run it the same way; set ``MPX_CODE_VERSION=golden`` first)."""
    from mpx.experiment import run_experiment
    from mpx.experiment.store import ResultsStore

    with ResultsStore(db) as store:
        run_experiment(pinned_config(CONFIGS[name]), store, jobs=1, progress=False)


def record(name: str, db: str | Path) -> None:
    """Write the reference of experiment ``name`` from the store at ``db``."""
    tables = canonical_tables(db)
    REFERENCE.mkdir(exist_ok=True)
    for old in REFERENCE.glob(f"{name}.*"):
        old.unlink()
    index = {}
    for t, text in tables.items():
        if t in KEEP_CSV:
            index[t] = {"rows": text.count("\n") - 1, "kept": f"{name}.{t}.csv.gz"}
            with gzip.GzipFile(REFERENCE / f"{name}.{t}.csv.gz", "wb", mtime=0) as fh:
                fh.write(text.encode())
        else:
            index[t] = fingerprint(text)
    (REFERENCE / f"{name}.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    import os
    import tempfile

    os.environ["MPX_CODE_VERSION"] = "golden"
    with tempfile.TemporaryDirectory() as tmp:
        for name in sys.argv[1:] or CONFIGS:
            db = Path(tmp) / f"{name}.sqlite"
            run_reference(name, db)
            record(name, db)
            print(name, "recorded:", ", ".join(f"{t} {v.count(chr(10)) - 1} rows"
                                              for t, v in canonical_tables(db).items()))
