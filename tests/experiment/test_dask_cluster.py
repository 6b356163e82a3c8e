"""The Dask path of the runner on a real cluster of processes (`dask.distributed.LocalCluster`): finished
cells are released as soon as their rows are stored, and a worker killed mid-cell gives that cell a retry,
then an error row, while the sweep goes on without recomputing finished cells (issue 39, docs/cluster.md)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from mpx.experiment import runner

N_CELLS = 8
KILLER = "k3"


def _cell(cell: dict) -> dict:
    """A cell that marks each computation; the killer waits until every other cell is stored, then kills its
    worker, every time it runs."""
    marks = Path(cell["marks"])
    (marks / f"ran-{cell['key']}-{os.getpid()}-{time.monotonic_ns()}").touch()
    if cell["key"] == KILLER:
        for _ in range(6000):  # bounded by a count: the test fails rather than hangs
            if len(list(marks.glob("stored-*"))) >= N_CELLS - 1:
                break
            time.sleep(0.01)
        os._exit(1)
    return {"cell": runner.cell_row(cell, "done", None, 0.0)}


def test_a_killed_worker_gives_a_retry_then_an_error_row_and_nothing_else_is_recomputed(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] not installed (pip install "
                                      "'mpx[dask]' or '.[test]')")
    import cloudpickle
    import dask

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import tests/
    cells = [{"key": f"k{i}", "kind": "scaling", "code_version": "test", "marks": str(tmp_path)}
             for i in range(N_CELLS)]
    stored: list[dict] = []

    def done(row: dict) -> None:
        stored.append(row)
        (tmp_path / f"stored-{row['cell']['key']}").touch()

    # the scheduler gives up on a task at the first worker death; mpx then submits it once more
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None) as cluster:
            runner._run_dask(cells, cluster.scheduler_address, done, fn=_cell)
    status = {r["cell"]["key"]: r["cell"]["status"] for r in stored}
    assert len(stored) == N_CELLS and status == {c["key"]: "error" if c["key"] == KILLER else "done" for c in cells}
    killed = next(r["cell"] for r in stored if r["cell"]["key"] == KILLER)
    assert "KilledWorker" in killed["reason"] and "2 submissions" in killed["reason"]
    runs = {c["key"]: len(list(tmp_path.glob(f"ran-{c['key']}-*"))) for c in cells}
    assert runs == {c["key"]: 1 + runner.DASK_RETRIES if c["key"] == KILLER else 1 for c in cells}
