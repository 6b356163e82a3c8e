"""The results store: one transaction per cell, cache hits on rerun, a run killed with kill -9 resumes
to exactly the rows of an uninterrupted run, CSV export."""

from __future__ import annotations

import errno
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mpx.experiment import load_config, run_experiment
from mpx.experiment.store import ResultsStore, open_store, write_atomic
from tests._exp_helpers import assert_same, stable_tables, write_config

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def pinned_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


def test_store_roundtrip_and_cache_hits(tmp_path):
    exp = load_config(write_config(tmp_path))
    with ResultsStore(tmp_path / "out" / "results.sqlite") as st:
        first = run_experiment(exp, st, progress=False)
        assert first["cells"] == 6 and first["computed"] == 6 and first["cached"] == 0
        second = run_experiment(exp, st, progress=False)
        assert second["computed"] == 0 and second["cached"] == 6
        scores = st.table("scores")
        assert len(scores) == 6 * 2
        assert scores["cell_key"].nunique() == 6
        assert set(scores["scaler"]) == {"linear", "dira"}
        for col in ("dataset_checksum", "code_version", "seed", "workload", "scheduler", "scaler", "quantum"):
            assert scores[col].notna().all(), col
        assert len(st.runs()) == 2
        files = st.export(tmp_path / "csv")
        names = {p.name for p in files}
        assert {"cells.csv", "scores.csv", "events.csv", "schedule.csv"} <= names
        assert all(p.stat().st_size > 0 for p in files)
    # a changed config computes only the new cells
    p = write_config(tmp_path, extra='[sweep]\n"hardware.counters" = [2, 3]\n')
    with open_store(tmp_path / "out", read_only=False) as st:
        third = run_experiment(load_config(p), st, progress=False)
        assert third["cached"] == 6 and third["computed"] == 6
        assert st.table("scores")["cell_key"].nunique() == 12  # latest run's cells only


def test_write_is_one_transaction(tmp_path):
    """A cell whose rows cannot be written leaves nothing behind (no half cell)."""
    with ResultsStore(tmp_path / "r.sqlite") as st:
        st.declare({"scores": ("scaler",)})
        bad = {"cell": {"key": "k1", "status": "done"},
               "scores": [{"scaler": "a", "window_mape": 0.1}, {"scaler": "b", "window_mape": object()}]}
        with pytest.raises(sqlite3.Error):
            st.write(bad)
        assert st.finished_keys() == set()
        assert st.conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 0
        st.write({"cell": {"key": "k1", "status": "done"}, "scores": [{"scaler": "a", "window_mape": 0.1}]})
        assert st.finished_keys() == {"k1"}


def test_the_store_refuses_an_undeclared_table(tmp_path):
    """A kind's tables are declared (name → key columns) and kept in the file; rows for any other table
    are refused with the store unchanged, not silently dropped."""
    from mpx.errors import ConfigError

    with ResultsStore(tmp_path / "r.sqlite") as st:
        st.declare({"scores": ("scaler",), "mine": ("x",)})
        with pytest.raises(ConfigError, match=r"undeclared table\(s\) \['mytable'\]"):
            st.write({"cell": {"key": "k1", "status": "done"}, "mytable": [{"x": 1}]})
        assert st.finished_keys() == set()
        with pytest.raises(ConfigError, match="declared with keys"):
            st.declare({"mine": ("y",)})
        st.write({"cell": {"key": "k1", "status": "done"}, "mine": [{"x": 2}, {"x": 1}]})
    with ResultsStore(tmp_path / "r.sqlite") as st:  # the schema is in the file
        assert st.tables() == {"scores": ("cell_key", "scaler"), "mine": ("cell_key", "x")}
        assert list(st.table("mine")["x"]) == [1, 2]
        with pytest.raises(ConfigError, match="no table 'mytable'"):
            st.table("mytable")


def test_a_full_disk_during_a_write_keeps_sqlites_message(tmp_path):
    """SQLite rolls a transaction back by itself when the disk fills up; the store's own rollback must not
    replace "database or disk is full" with "cannot rollback - no transaction is active"."""

    class FullDisk:  # the connection as SQLite behaves on a full disk: the INSERT fails, the transaction is gone
        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            if sql.startswith("INSERT"):
                self.conn.execute("ROLLBACK")
                raise sqlite3.OperationalError("database or disk is full")
            return self.conn.execute(sql, *args)

        def executemany(self, sql, rows):
            return self.execute(sql, rows)

        @property
        def in_transaction(self):
            return self.conn.in_transaction

    with ResultsStore(tmp_path / "r.sqlite") as st:
        st.declare({"scores": ("scaler",)})
        real, st.conn = st.conn, FullDisk(st.conn)
        with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
            st.write({"cell": {"key": "k1", "status": "done"}, "scores": [{"scaler": "a", "window_mape": 0.1}]})
        st.conn = real
        assert st.finished_keys() == set()


def test_open_store_errors(tmp_path):
    from mpx.errors import ConfigError

    with pytest.raises(ConfigError, match="no results store"):
        open_store(tmp_path)


def _run(cfg: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, MPX_CODE_VERSION="test", PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-m", "mpx", "run", str(cfg), "--out", str(out), "--no-progress",
                             "--no-figures", *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def _done(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as c:
            return c.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow(seconds=7)
def test_kill_9_resumes_to_identical_rows(tmp_path):
    # 3 workloads x 2 schedulers x 24 noise seeds = 144 cells: since cells got faster, 48 could all be stored
    # between the poll that saw the sixth and the kill
    n_cells = 144
    cfg = write_config(tmp_path, mux_extra="repetitions = 24\nnoise = {rel_sigma = 0.05}")
    ref = tmp_path / "ref"
    p = _run(cfg, ref)
    assert p.wait(timeout=300) == 0, p.stderr.read().decode()
    killed = tmp_path / "killed"
    db = killed / "results.sqlite"
    p = _run(cfg, killed, "--jobs", "2")
    deadline = time.time() + 120
    while _done(db) < 2 and time.time() < deadline and p.poll() is None:
        time.sleep(0.02)
    assert p.poll() is None, "the run finished before it could be killed: make the grid bigger"
    os.killpg(p.pid, signal.SIGKILL)  # the run and its workers, at an arbitrary moment
    p.wait(timeout=30)
    with sqlite3.connect(db, timeout=30) as c:  # may roll back the killed run's hot journal: no error swallowed
        n_killed = c.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    assert 0 < n_killed < n_cells, n_killed
    p = _run(cfg, killed)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err.decode()
    assert f"{n_killed} cached" in out.decode()
    assert_same(stable_tables(ref / "results.sqlite"), stable_tables(db))


def test_parquet_export_when_pyarrow_is_installed(tmp_path):
    pytest.importorskip("pyarrow", reason="pyarrow not installed: Parquet export is optional, CSV is always written")
    import pandas as pd

    exp = load_config(write_config(tmp_path))
    with ResultsStore(tmp_path / "r.sqlite") as st:
        run_experiment(exp, st, progress=False)
        files = st.export(tmp_path / "x", parquet=True)
    pq = [p for p in files if p.suffix == ".parquet"]
    assert pq and len(pd.read_parquet(tmp_path / "x" / "scores.parquet")) == 12


def test_latex_keeps_integer_columns_whole_and_escapes():
    import numpy as np
    import pandas as pd

    from mpx.experiment.store import to_latex

    df = pd.DataFrame({"runs": [5, 3], "mape": [1.2345, np.nan], "rate": [12528000.0, 4.0]},
                      index=pd.Index(["a_b", "c"], name="tool"))
    tex = to_latex(df, "caption", "tab:x")
    assert r"a\_b & 5 & 1.23 & 12,528,000 \\" in tex and r"c & 3 & --- & 4.00 \\" in tex


def test_export_replaces_whole_files_only(tmp_path, monkeypatch):
    """Issue 16: a full disk left ``series.csv`` cut short. Each file is written under a temporary name and
    renamed: a write that fails (here ENOSPC after part of the text) leaves the previous export whole and
    no temporary file behind."""
    import pandas as pd

    exp = load_config(write_config(tmp_path))
    with ResultsStore(tmp_path / "r.sqlite") as st:
        run_experiment(exp, st, progress=False)
        files = st.export(tmp_path / "x", parquet=False)
        before = {p.name: p.read_bytes() for p in files}
        real = pd.DataFrame.to_csv

        def full_disk(df, path, **kw):
            text = real(df, None, **kw)
            Path(path).write_text(text[: len(text) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
        with pytest.raises(OSError, match="No space left"):
            st.export(tmp_path / "x", parquet=False)
    assert {p.name: p.read_bytes() for p in (tmp_path / "x").iterdir()} == before
    write_atomic(tmp_path / "x" / "new.txt", lambda tmp: Path(tmp).write_text("whole"))
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == sorted([*before, "new.txt"])


def test_one_run_at_a_time_per_store_and_killed_runs_are_marked(tmp_path):
    from mpx.errors import ConfigError
    from mpx.experiment.store import ResultsStore

    path = tmp_path / "results.sqlite"
    with ResultsStore(path) as a, ResultsStore(path) as b:
        run = a.begin_run("x", None, {}, "v", ["k"], "1 process(es)")
        with pytest.raises(ConfigError, match=r"another mpx run is writing to this store \(pid \d+ on "):
            b.begin_run("x", None, {}, "v", ["k"], "1 process(es)")
        a.end_run(run)
        second = b.begin_run("x", None, {}, "v", ["k"], "1 process(es)")  # free again once the first ended
        b.close()  # a kill: the run stays 'running', the lock goes with the process (here: the file)
    with ResultsStore(path) as c:
        third = c.begin_run("x", None, {}, "v", ["k"], "1 process(es)")
        status = dict(zip(c.runs()["run_id"], c.runs()["status"]))
        assert status == {run: "finished", second: "interrupted", third: "running"}
        c.end_run(third)


def test_a_killed_run_takes_its_pool_workers_with_it(tmp_path, request):
    """SIGKILL of ``mpx run --jobs 2`` alone (not its process group): its workers must not live on."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    cfg = write_config(tmp_path, mux_extra="repetitions = 8\nnoise = {rel_sigma = 0.05}")
    db = tmp_path / "r" / "results.sqlite"
    p = _run(cfg, tmp_path / "r", "--jobs", "2")

    def no_leftovers() -> None:  # a failed assertion below must not leave the run (blocked on its pipes) behind
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    request.addfinalizer(no_leftovers)

    def children(pid):
        out = []
        for d in os.listdir("/proc"):
            try:
                with open(f"/proc/{d}/stat") as fh:
                    if d.isdigit() and int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, ValueError, IndexError):
                continue
        return out

    # kill while the pool is at work: a cell stored and the workers alive (after the last cell the pool is shut
    # down while the run still exports, which a busy machine's timing could hit: no worker was found then)
    workers, deadline = [], time.time() + 120
    while time.time() < deadline and p.poll() is None:
        workers = children(p.pid)
        if workers and _done(db) >= 1:
            break
        time.sleep(0.02)
    assert p.poll() is None, "the run finished before it could be killed: make the grid bigger"
    assert workers, "no pool worker found"
    os.kill(p.pid, signal.SIGKILL)  # the run only, at an arbitrary moment
    p.wait(timeout=30)
    deadline = time.time() + 20
    def running(pid):  # neither gone nor a zombie waiting for its (dead) parent's reaper
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    alive = workers
    while alive and time.time() < deadline:
        time.sleep(0.1)
        alive = [w for w in alive if running(w)]
    assert not alive, f"pool workers {alive} outlived the killed run"


def test_atomic_writes_get_a_new_files_permissions(tmp_path):
    """Issue 27: exports were created 0600 (mkstemp's mode); a shared results folder needs the umask's."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.csv", lambda tmp: Path(tmp).write_text("x\n"))
        assert stat.S_IMODE((tmp_path / "a.csv").stat().st_mode) == 0o644
        os.umask(0o077)
        write_atomic(tmp_path / "b.csv", lambda tmp: Path(tmp).write_text("x\n"))
        assert stat.S_IMODE((tmp_path / "b.csv").stat().st_mode) == 0o600
    finally:
        os.umask(old)
