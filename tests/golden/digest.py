"""Canonical form of a results store's tables, and its comparison with a tolerance, for the golden test.

A table is reduced to the rows that carry numbers: the columns that legitimately differ between two runs of
the same code are dropped (wall-clock timings, the code version and the cell key that hashes it, free-text
reasons), every row is identified by its dataset, scheduler and seed (joined from ``cells`` for tables that
only carry the key), and rows are sorted by their exact columns. Columns are *exact* (text, integers, the
pattern of NaNs) or *float*.

Every table is kept whole and compared value by value (a failure names the row and column): the small ones
(`KEEP_CSV`) as gzip'd CSV with every float's ``repr``, the large ones (`KEEP_ROUNDED`: the per-event,
per-metric and per-window tables) as xz'd CSV with floats rounded to `DIGITS` significant digits (their
rounding, 5e-13 relative, is far inside the tolerance; full ``repr`` would triple the files). A float passes
when ``|got - ref| <= RTOL * |ref| + RTOL * scale`` with ``scale`` the column's `column_scale` in the
reference: another machine's BLAS, CPU or libm moves the last bits of a float (the quickstart differed by
2.5e-14 relative on a fresh machine), and a value that is 0 in exact arithmetic (an estimate equal to the
truth, a difference of equal sums) comes out as 0 on one machine and 1e-17 on another: such values are
compared absolutely, at the resolution of their column. (Until issue 39 the large tables kept a fingerprint
summing log-magnitudes, which turned that 1e-17 into a difference of tens and failed on an AMD machine.)

    python tests/golden/digest.py              # re-record every reference (only after a deliberate change)
    python tests/golden/digest.py quickstart   # re-record one (quickstart, schedule, partition)

See ``tests/golden/README.md`` for when to re-record and how to check a re-recording.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import lzma
import math
import sqlite3
import sys
from pathlib import Path
from typing import Sequence

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
#: tables kept as gzip'd CSV with every float's repr; every other table is kept as xz'd CSV with its floats
#: rounded to `DIGITS` significant digits (both compared value by value)
KEEP_CSV = ("scores", "schedule", "partition")
DIGITS = 12
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
#: the tolerance of a float: RTOL relative to the value, plus RTOL times its column's scale (`column_scale`)
#: for values that are 0 in exact arithmetic (a sum of terms that cancel, an estimate equal to the truth),
#: with ATOL as the floor of that absolute part
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


def column_scale(values: list[str]) -> float:
    """The magnitude a column's values are compared at absolutely: the median of its non-zero absolute values
    (NaN and infinities left out), so a column of relative errors is compared at its typical error, neither
    at its largest outlier nor at its exact zeros."""
    x = np.abs(np.array([float(v) for v in values if v not in ("", "nan", "inf", "-inf")], dtype=float))
    x = x[x > 0]
    return float(np.median(x)) if x.size else 0.0


def compare_tables(got_text: str, want_text: str, limit: int = 12, datasets: Sequence[str] | None = None) -> list[str]:
    """Value-by-value differences between two canonical tables beyond the tolerance (at most ``limit``); with
    ``datasets``, against the reference's rows of those datasets only (the first column), at the tolerance of the
    whole reference."""
    gh, grows = parse(got_text)
    wh, wrows = parse(want_text)
    if gh != wh:
        return [f"columns differ: {gh} (reference {wh})"]
    fset = set(_float_columns(wh, wrows)) | set(_float_columns(gh, grows))
    atol = {j: max(ATOL, RTOL * column_scale([r[j] for r in wrows])) for j in fset}
    if datasets is not None:
        wrows = [r for r in wrows if r[0] in datasets]
    if len(grows) != len(wrows):
        return [f"{len(grows)} rows (reference {len(wrows)})"]
    out = []
    for i, (g, r) in enumerate(zip(grows, wrows)):
        for j, (a, b) in enumerate(zip(g, r)):
            if a == b:
                continue
            if j in fset and a not in ("", "nan") and b not in ("", "nan"):
                x, y = float(a), float(b)
                if abs(x - y) <= RTOL * abs(y) + atol[j]:
                    continue
            out.append(f"row {i + 1} ({', '.join(r[:3])}) {wh[j]}: {a} (reference {b})")
            if len(out) >= limit:
                return out
    return out


def _rounded(text: str) -> str:
    """The canonical table with its float columns rounded to `DIGITS` significant digits."""
    header, rows = parse(text)
    fcols = set(_float_columns(header, rows))
    return _write_csv(header, [[format(float(v), f".{DIGITS}g") if j in fcols and v not in ("", "nan") else v
                                for j, v in enumerate(r)] for r in rows])


def load_reference(name: str) -> dict[str, str]:
    """table name -> the reference's canonical CSV text, for experiment ``name``."""
    index = json.loads((REFERENCE / f"{name}.json").read_text())
    out = {}
    for table, entry in index.items():
        if "kept" not in entry:
            raise ValueError(f"{REFERENCE / (name + '.json')}: table {table} has no kept file (a fingerprint of "
                             "the reference before issue 39): re-record with python tests/golden/digest.py")
        data = (REFERENCE / entry["kept"]).read_bytes()
        out[table] = (lzma.decompress(data) if entry["kept"].endswith(".xz") else gzip.decompress(data)).decode()
    return out


def compare(name: str, got: dict[str, str], datasets: Sequence[str] | None = None) -> list[str]:
    """Every table of experiment ``name`` against its reference (with ``datasets``: the rows of those datasets,
    as `run_reference` computes them): a list of differences, empty when equal."""
    want = load_reference(name)
    if datasets is not None:  # a table none of those datasets has a row in is not written for them (the series)
        want = {t: ref for t, ref in want.items() if t in got or any(r[0] in datasets for r in parse(ref)[1])}
    if sorted(got) != sorted(want):
        return [f"tables {sorted(got)} (reference {sorted(want)})"]
    problems = []
    for table, ref in want.items():
        problems += [f"{name}.{table}: {d}" for d in compare_tables(got[table], ref, datasets=datasets)]
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


def run_reference(name: str, db: str | Path, datasets: Sequence[str] | None = None) -> None:
    """Run experiment ``name`` with its pinned plugins into the store at ``db``, one process (the recording
    and the test run it the same way; set ``MPX_CODE_VERSION=golden`` first); with ``datasets``, only the cells
    of those datasets (each cell as in the whole grid: its training workloads are the whole grid's)."""
    from mpx.experiment import run_experiment
    from mpx.experiment.store import ResultsStore

    exp = pinned_config(CONFIGS[name])
    cells = None if datasets is None else [c for c in exp.cells() if c["dataset"]["name"] in datasets]
    with ResultsStore(db) as store:
        run_experiment(exp, store, jobs=1, progress=False, cells=cells)


def record(name: str, db: str | Path) -> None:
    """Write the reference of experiment ``name`` from the store at ``db``."""
    tables = canonical_tables(db)
    REFERENCE.mkdir(exist_ok=True)
    for old in REFERENCE.glob(f"{name}.*"):
        old.unlink()
    index = {}
    for t, text in tables.items():
        if t in KEEP_CSV:
            kept = f"{name}.{t}.csv.gz"
            with gzip.GzipFile(REFERENCE / kept, "wb", mtime=0) as fh:
                fh.write(text.encode())
        else:
            kept = f"{name}.{t}.csv.xz"
            (REFERENCE / kept).write_bytes(lzma.compress(_rounded(text).encode(), preset=9 | lzma.PRESET_EXTREME))
        index[t] = {"rows": text.count("\n") - 1, "kept": kept}
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
