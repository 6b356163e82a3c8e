"""``mpx run --jobs N``: Ctrl-C stops the pool within seconds and says what was kept; each worker runs one
BLAS thread; the default is the usable CPUs."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from mpx.experiment.runner import start_worker, usable_cpus
from tests._exp_helpers import write_config
from tests._tools import running


def _blas_threads() -> int:
    from threadpoolctl import threadpool_info

    return max([p["num_threads"] for p in threadpool_info()] or [1])


def _env(name: str) -> str | None:
    return os.environ.get(name)


def test_a_worker_runs_one_blas_thread():
    with ProcessPoolExecutor(1, initializer=start_worker, initargs=(os.getpid(),)) as pool:
        assert pool.submit(_blas_threads).result(timeout=60) == 1
        assert pool.submit(_env, "OPENBLAS_NUM_THREADS").result(timeout=60) == "1"


def test_default_jobs_are_the_usable_cpus():
    assert usable_cpus() == len(os.sched_getaffinity(0))


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("SELECT COUNT(*) FROM cells WHERE status IN ('done', 'skipped')").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_ctrl_c_with_jobs_stops_within_seconds_and_keeps_the_finished_cells(tmp_path):
    # 3,600 cells of ~10 ms: the whole run takes over 30 s, far more than it takes to see its first cell
    # stored (360 cells finished in 3.3 s beside a busy loop, before the signal was sent)
    seeds, cells = ", ".join(str(s) for s in range(600)), 3600
    cfg = write_config(tmp_path, "many", mux_extra=f"seeds = [{seeds}]")
    out = tmp_path / "out"
    env = dict(os.environ)
    env.pop("MPX_PROGRESS", None)
    # a terminal's Ctrl-C goes to the whole process group: the run in a session of its own, SIGINT to it
    proc = subprocess.Popen([sys.executable, "-m", "mpx", "run", str(cfg), "--out", str(out), "--jobs", "2",
                             "--no-progress", "--no-figures"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    db = out / "results.sqlite"
    deadline = time.monotonic() + 240
    while _stored(db) < 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert proc.poll() is None and _stored(db) >= 1, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=60)
    stopped = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert stopped < 20, f"took {stopped:.1f} s to stop"
    last = err.strip().splitlines()[-1]
    assert last.startswith("mpx run: interrupted (") and "cells finished and stored in" in last, last
    kept = _stored(db)
    assert 1 <= kept < cells
    assert f"({kept} of {cells} cells finished" in last, last
    deadline = time.monotonic() + 10
    while running(str(out)) and time.monotonic() < deadline:  # the workers went with the run
        time.sleep(0.1)
    assert not running(str(out))


def test_a_pool_compiles_the_jitted_plugins_once_before_the_cells_that_run_them(monkeypatch):
    """`jit_warm_ups`: the quickstart's pool first compiles the partitioner's kernels (the hypergraph and
    fusion_aware schedulers) and the Kalman filter (the fusion scalers), one task each; a cell waits for the
    groups it runs, so no second worker compiles them again (issue 39: ~50 s of CPU per worker when fresh)."""
    from mpx.experiment import load_config
    from mpx.experiment.runner import jit_warm_ups

    monkeypatch.setenv("MPX_CODE_VERSION", "test")
    cells = load_config(Path(__file__).resolve().parents[2] / "experiments" / "quickstart.toml").cells()
    warm, needs = jit_warm_ups(cells)
    assert warm == {"schedulers": ["fusion_aware", "hypergraph"], "scalers": ["fusion", "fusion_smooth"]}
    jit_cells = {c["key"] for c in cells if c["scheduler"]["name"] in ("hypergraph", "fusion_aware")}
    assert len(jit_cells) == 36
    for c, need in zip(cells, needs):
        assert need == ({"schedulers", "scalers"} if c["key"] in jit_cells else {"scalers"})
    plain = [dict(c, scalers=[s for s in c["scalers"] if not s["name"].startswith("fusion")]) for c in cells
             if c["key"] not in jit_cells]
    assert jit_warm_ups(plain) == ({}, [frozenset()] * len(plain))  # nothing to compile: no warm-up task


HALF_WRITTEN = r'''
import gc, multiprocessing.queues, os, signal, struct, time
import mpx.experiment.runner as runner

def half_written(cell):
    # as a worker terminated in the middle of sending its result: a header announcing 4096 bytes, 10 sent
    q = next(o for o in gc.get_objects() if isinstance(o, multiprocessing.queues.SimpleQueue))
    os.write(q._writer.fileno(), struct.pack("!i", 4096) + b"0123456789")
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(600)

runner.run_cell = half_written
runner.jit_warm_ups = lambda todo: ({}, [frozenset()] * len(todo))
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    runner._run_pool([{"key": "a"}, {"key": "b"}], 2, lambda result: None)
except KeyboardInterrupt:
    print("interrupted")
'''


def test_a_worker_stopped_halfway_through_its_result_does_not_hang_the_exit(tmp_path):
    """Ctrl-C while a worker sends its result: the worker is terminated with half a message in the result
    pipe, and the pool's thread, reading the rest, must not keep the process from ending (it did, in 1 of 3
    runs of ``mpx run --jobs 2`` interrupted beside a busy loop)."""
    script = tmp_path / "half.py"
    script.write_text(HALF_WRITTEN)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), PYTHONFAULTHANDLER="1")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # every thread's stack on stderr: where it hung
        out, err = proc.communicate()
    assert proc.returncode == 0 and out.strip() == "interrupted", err[-6000:]
