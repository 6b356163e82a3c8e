"""Issue 40, items 1-4: stores of every schema mpx has written (built with the store module of the commit that
wrote them) are read, verified and resumed — or refused in one line; `mpx run` refuses a 0-byte or damaged store
like `mpx report` and writes nothing into it; a store of the current schema treats a missing checksum as damage
and `--verify` checks the cells its finished runs expect."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import types
from pathlib import Path

import pytest

from tests._exp_helpers import stable_tables, write_config
from mpx.cli import main
from mpx.errors import FormatError
from mpx.experiment.store import SCHEMA, ResultsStore, open_store

REPO = Path(__file__).resolve().parents[2]

#: one commit per schema mpx has written, with the module that wrote it
OLD = {
    "the first store (five row tables, no partition)": ("77f1d5a", "mpx/results.py"),
    "cells and runs only": ("80178c5", "mpx/results.py"),
    "row_tables": ("f4c8279", "mpx/results.py"),
    "cell_checksums": ("4ea2530", "mpx/results.py"),
    "row_tables and cell_checksums": ("ffb1e4b", "mpx/experiment/store.py"),
    "schema 3 before run_checksums": ("80d865e", "mpx/experiment/store.py"),
    "schema 3 with run_checksums": ("43e23ea", "mpx/experiment/store.py"),
}


def old_module(commit: str, path: str) -> types.ModuleType:
    try:
        src = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:{path}"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"needs the git history ({commit}:{path})")
    mod = types.ModuleType(f"old_store_{commit}")
    exec(compile(src, f"{commit}:{path}", "exec"), mod.__dict__)
    return mod


@pytest.fixture(scope="module")
def current(tmp_path_factory):
    """A small experiment run by this mpx: its config, store and every cell's rows (what an older mpx wrote)."""
    tmp = tmp_path_factory.mktemp("current")
    cfg = write_config(tmp, extra="")
    assert main(["run", str(cfg), "--out", str(tmp / "out"), "--jobs", "1", "--no-progress", "--no-figures"]) == 0
    store = tmp / "out" / "results.sqlite"
    with open_store(store) as st:
        tables = st.tables()
        cells = st.table("cells")
        rows = {t: st.table(t) for t in tables}
        config = st.run_config()
    cols = ("key", "experiment", "kind", "dataset", "dataset_checksum", "code_version", "scheduler", "seed",
            "status", "reason", "config")
    results = []
    for c in cells.to_dict("records"):
        r = {"cell": {k: c[k] for k in cols}}
        for t, df in rows.items():
            sel = df[df["cell_key"] == c["key"]].drop(columns="cell_key")
            r[t] = [{k: None if v != v else v for k, v in rec.items()} for rec in sel.to_dict("records")]  # NaN: NULL
        results.append(r)
    return {"config": cfg, "store": store, "tables": tables, "results": results, "raw": config}


def write_old(schema: str, current: dict, out: Path) -> Path:
    commit, path = OLD[schema]
    mod = old_module(commit, path)
    out.mkdir(parents=True)
    st = mod.ResultsStore(out / "results.sqlite")
    if hasattr(st, "declare"):
        st.declare({t: k[1:] for t, k in current["tables"].items()})
    run = st.begin_run("small", str(current["config"]), current["raw"], "old", [r["cell"]["key"] for r in
                                                                                current["results"]], "1")
    for r in current["results"]:
        st.write({k: v for k, v in r.items() if k == "cell" or v})
    st.end_run(run)
    st.close()
    return out


def report_lines(capsys, *argv) -> tuple[int, list[str], list[str]]:
    code = main(["report", *argv])
    cap = capsys.readouterr()
    return code, cap.out.splitlines(), cap.err.splitlines()


@pytest.mark.parametrize("schema", list(OLD))
def test_an_older_store_is_reported_verified_and_resumed(schema, current, tmp_path, capsys):
    """`mpx report` on a store without row_tables raised ``no such table: row_tables``; `--verify` said "0 of 0
    checked cell(s) match"; `mpx run` refused it with "table 'scores' is declared with keys (), not ('scaler',)"."""
    out = write_old(schema, current, tmp_path / "old")
    store = out / "results.sqlite"
    before = store.read_bytes()
    n = len(current["results"])
    code, new_lines, _ = report_lines(capsys, str(current["store"]))
    assert code == 0
    code, lines, err = report_lines(capsys, str(out))
    assert code == 0 and err == []
    checksums = "checksums" in schema
    # the same report, with one line naming the unchecked cells of a store without checksums
    assert [ln for ln in lines if not ln.startswith("note: ")] == new_lines
    assert any(ln.startswith("note: ") and "schema 0" in ln for ln in lines) != checksums
    code, lines, err = report_lines(capsys, str(out), "--verify")
    assert code == 0 and len(lines) == 1 and err == []
    if checksums:
        assert f"{n} of {n} checked cell(s) match" in lines[0]
    else:
        assert f"none of its {n} cell(s) has a checksum" in lines[0] and "schema 0" in lines[0]
    assert store.read_bytes() == before  # a reader writes nothing
    # mpx run resumes it: every cell cached, the store migrated to the current schema
    assert main(["run", str(current["config"]), "--out", str(out), "--jobs", "1", "--no-progress",
                 "--no-figures"]) == 0
    assert f"{n} cells ({n} cached, 0 computed" in capsys.readouterr().out
    assert sqlite3.connect(store).execute("PRAGMA user_version").fetchone()[0] == SCHEMA
    with open_store(out) as st:
        assert st.unchecked() == (0 if checksums else n)
        assert st.tables() == current["tables"]  # the keys an experiment kind declares, adopted
    code, lines, _ = report_lines(capsys, str(out), "--verify")
    assert code == 0
    old, new = stable_tables(store), stable_tables(current["store"])
    for t in new:
        cols = [c for c in new[t].columns if c != "code_version"]
        assert old[t][cols].equals(new[t][cols]), t


def test_a_store_of_a_newer_schema_is_refused_in_one_line(tmp_path, capsys):
    p = tmp_path / "results.sqlite"
    with ResultsStore(p):
        pass
    con = sqlite3.connect(p)
    con.execute(f"PRAGMA user_version = {SCHEMA + 1}")
    con.close()
    code, _, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and f"schema {SCHEMA + 1}" in err[0] and "newer mpx" in err[0]


def test_a_schema_number_no_mpx_wrote_is_damage(tmp_path, capsys):
    p = small_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    con.execute("PRAGMA user_version = 1")
    con.close()
    code, _, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and "schema number reads 1, which no mpx wrote" in err[0], err


def small_store(path: Path, n: int = 3) -> Path:
    with ResultsStore(path) as st:
        st.declare({"scores": ("scaler",)})
        run = st.begin_run("toy", None, {}, "v0", [f"k{i}" for i in range(n)], "1")
        for i in range(n):
            st.write({"cell": {"key": f"k{i}", "experiment": "toy", "status": "done"},
                      "scores": [{"scaler": "linear", "window_mape": 0.5 + i, "workload": f"w{i}"}]})
        st.end_run(run)
    return path


@pytest.mark.parametrize("how", ["row", "table", "unchecked table"])
def test_a_removed_checksum_is_damage(how, tmp_path, capsys):
    """Deleting a cell's checksum row (or the table) and changing a number reached `mpx report` with exit 0."""
    p = small_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    con.execute("UPDATE scores SET window_mape = 9.0 WHERE cell_key = 'k1'")
    con.execute({"row": "DELETE FROM cell_checksums WHERE cell_key = 'k1'", "table": "DROP TABLE cell_checksums",
                 "unchecked table": "DROP TABLE unchecked_cells"}[how])
    con.commit()
    con.close()
    before = p.read_bytes()
    code, lines, err = report_lines(capsys, str(p), "--verify")
    assert code == 1
    if how == "row":
        assert lines == [f"{p}: cell k1: its checksum is missing (this store checksums every cell it writes)",
                         f"{p}: 2 of 3 checked cell(s) match"]
    else:
        assert len(err) == 1 and "damaged results store" in err[0] and "missing" in err[0]
    code, lines, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and "missing" in err[0]
    with pytest.raises(FormatError, match="missing"):
        ResultsStore(p)
    assert p.read_bytes() == before


def test_verify_checks_the_cells_a_finished_run_expects(tmp_path, capsys):
    """A whole missing cell: plain `report` said so, `--verify` did not."""
    p = small_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    con.execute("DELETE FROM cells WHERE key = 'k2'")
    con.execute("DELETE FROM scores WHERE cell_key = 'k2'")
    con.execute("DELETE FROM cell_checksums WHERE cell_key = 'k2'")
    con.commit()
    con.close()
    code, lines, _ = report_lines(capsys, str(p), "--verify")
    assert code == 1
    assert lines == [f"{p}: cell k2: run 1 finished with it, and it is not stored",
                     f"{p}: 2 of 2 checked cell(s) match"]


def test_run_refuses_an_empty_or_damaged_store_and_writes_nothing(current, tmp_path, capsys):
    """A 0-byte results.sqlite was re-initialised silently; a damaged one got a `runs` row marked finished and an
    empty csv/ before the run failed."""
    cfg = current["config"]
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "results.sqlite").write_bytes(b"")
    assert main(["run", str(cfg), "--out", str(empty), "--jobs", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "empty file (0 bytes)" in err[0]
    assert (empty / "results.sqlite").stat().st_size == 0 and sorted(empty.iterdir()) == [empty / "results.sqlite"]
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    shutil.copy(current["store"], damaged / "results.sqlite")
    con = sqlite3.connect(damaged / "results.sqlite")
    con.execute("UPDATE scores SET window_mape = window_mape + 1 WHERE rowid = 1")
    con.commit()
    con.close()
    before = (damaged / "results.sqlite").read_bytes()
    assert main(["run", str(cfg), "--out", str(damaged), "--jobs", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "damaged" in err[0] and "left as it is" in err[0]
    assert (damaged / "results.sqlite").read_bytes() == before
    assert sorted(p.name for p in damaged.iterdir()) == ["results.sqlite"]


@pytest.mark.parametrize("sql", ["UPDATE runs SET cells = '[\"k0\", \"k1\"]'", "DELETE FROM run_checksums"])
def test_an_edited_run_is_damage(sql, tmp_path, capsys):
    """Found by the store fuzz target: a run's list of cells edited made `mpx report` read two of three cells with
    nothing said (the runs table carried no checksum)."""
    p = small_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    con.execute(sql)
    con.commit()
    con.close()
    code, lines, _ = report_lines(capsys, str(p), "--verify")
    assert code == 1 and lines[0].startswith(f"{p}: run 1: its ")
    with pytest.raises(FormatError, match="run 1"):
        ResultsStore(p)


def test_a_header_sqlite_does_not_know_is_one_line(tmp_path, capsys):
    """Found by the store fuzz target: a duplicated chunk of the file header raised sqlite3.OperationalError
    "unsupported file format" through `mpx report`."""
    p = small_store(tmp_path / "results.sqlite")
    b = p.read_bytes()
    p.write_bytes(b[:30] + b[:30] + b[30:])
    code, _, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and "results store" in err[0]


def test_a_schema_that_is_not_utf8_is_one_line(tmp_path, capsys):
    """Found by the store fuzz target: a byte flipped in the schema text raised UnicodeDecodeError (SQLite's error
    message quotes it)."""
    p = small_store(tmp_path / "results.sqlite")
    b = p.read_bytes()
    at = b.index(b"CREATE TABLE \"scores\"") if b"CREATE TABLE \"scores\"" in b else b.index(b"CREATE TABLE scores")
    p.write_bytes(b[:at + 3] + b"\xc5" + b[at + 4:])
    code, _, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and "damaged results store" in err[0]


def test_a_current_store_made_to_look_older_is_damage(tmp_path, capsys):
    """Found by the store fuzz target: user_version set to 0 and a run's cells edited read as an unchecked older
    store."""
    p = small_store(tmp_path / "results.sqlite")
    con = sqlite3.connect(p)
    con.execute("PRAGMA user_version = 0")
    con.execute("UPDATE runs SET cells = '[\"k0\"]'")
    con.commit()
    con.close()
    code, _, err = report_lines(capsys, str(p))
    assert code == 1 and len(err) == 1 and "schema number reads 0" in err[0]


def test_a_changed_definition_of_the_stores_own_tables_is_damage(tmp_path):
    """Flipped bytes in the schema text (the 600 s fuzz run's store findings): ``dataset_checksum`` renamed (every
    cell would read it as missing) and ``row_tables.name`` losing its type and key (the tables' order and keys
    change): refused in one line, as every definition mpx does not create."""
    db = tmp_path / "r.sqlite"
    with ResultsStore(db):
        pass
    with sqlite3.connect(db) as c:
        c.execute("ALTER TABLE cells RENAME COLUMN dataset_checksum TO eataset_checksum")
    with pytest.raises(FormatError, match=r"table cells is not as mpx creates it \(column 'dataset_checksum' reads"):
        open_store(db).close()
    db2 = tmp_path / "r2.sqlite"
    with ResultsStore(db2):
        pass
    with sqlite3.connect(db2) as c:
        c.execute("PRAGMA writable_schema = ON")
        c.execute("UPDATE sqlite_master SET sql = replace(sql, 'name TEXT PRIMARY KEY', 'name ,EXT PRIMARY KEY') "
                  "WHERE name = 'row_tables'")
    with pytest.raises(FormatError, match="table row_tables is not as mpx creates it"):
        open_store(db2).close()


def test_damaged_json_of_the_store_is_damage(tmp_path):
    """A byte run copied into ``row_tables.keys`` (the fuzz run's store finding: a JSONDecodeError traceback from
    `ResultsStore.tables`): the store's own JSON fields read as damage, in one line."""
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as st:
        st.declare({"scores": ("scaler",)})
    with sqlite3.connect(db) as c:
        c.execute("UPDATE row_tables SET keys = ? WHERE name = 'scores'", ('["cell_key", "sca',))
    with pytest.raises(FormatError, match="the sort keys of table 'scores' is not a JSON list"):
        with open_store(db) as st:
            st.tables()
