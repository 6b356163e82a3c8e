"""The runner: compute the cells of an experiment not yet in a results store — in this process, in a
pool of processes, or on a Dask distributed scheduler — and write each one as it finishes.

`run_cell` computes one cell with its kind (`mpx.experiment.kinds`); only the parent process writes
to the store (`mpx.experiment.store.ResultsStore.write`, one transaction per cell).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any


from mpx.errors import ConfigError, MpxError
from mpx.experiment.kinds import declared_tables, get_kind
from mpx.experiment.config import Experiment
from mpx import code_version
from mpx.experiment.rows import cell_row
from mpx.util.jit import PACKAGE, compile_notice
from mpx.util.progress import bar as progress_bar
from mpx.util.progress import interrupt_requested, interrupts_deferred

#: seconds between two looks at a noted Ctrl-C while a pool runs (`interrupts_deferred`)
INTERRUPT_POLL = 0.2

__all__ = ["die_with_parent", "one_blas_thread", "run_cell", "run_experiment", "start_worker", "usable_cpus",
           "warm_up_aside"]

#: environment variables that set the thread count of the BLAS and OpenMP libraries numpy and scipy load
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                         "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask; `os.cpu_count` where there is none): the
    default of ``mpx run --jobs``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity on this platform
        return max(1, os.cpu_count() or 1)


def one_blas_thread() -> None:
    """One BLAS/OpenMP thread in this process: ``jobs`` workers each running a multi-threaded BLAS on a
    machine with ``jobs`` cores oversubscribe it (BayesPerf with relations went from 4 s to 21-82 s per
    cell with two workers). numpy is already loaded in a forked worker, so its thread pools are limited
    with threadpoolctl; the environment variables cover the libraries loaded later and any subprocess."""
    for var in BLAS_THREAD_VARIABLES:
        os.environ[var] = "1"
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency; without it only the variables
        return
    threadpool_limits(limits=1)


def start_worker(parent: int) -> None:
    """Pool worker initializer: die with the parent (`die_with_parent`), leave Ctrl-C to the parent (it
    stops the pool: a worker that caught SIGINT itself would report it as a cell's exception and go on
    with the next cell), and one BLAS thread (`one_blas_thread`)."""
    import signal

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_blas_thread()


def run_cell(cell: dict) -> dict[str, Any]:
    """Compute one cell: a dict of tables (lists of row dicts): ``cell`` and the tables its kind declares
    (`mpx.experiment.kinds.CellKind.tables`). A cell the kind cannot
    handle (a `MpxError`, e.g. a scheduler refusing the problem) comes back with ``status = "skipped"``
    and the reason; a scaler that cannot handle it likewise, per row."""
    t0 = time.perf_counter()
    try:
        out = get_kind(cell["kind"]).run(cell)
        status, reason = out.pop("_status", ("done", None))
    except MpxError as exc:
        out = {}
        status, reason = "skipped", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a bug must not stop a long run: the cell is stored as an error, retried on rerun
        out = {}
        status, reason = "error", f"{type(exc).__name__}: {exc}"
    out["cell"] = cell_row(cell, status, reason, time.perf_counter() - t0)
    return out


def run_experiment(exp: Experiment, store: Any, *, jobs: int = 1, dask_scheduler: str | None = None,
                   progress: bool = True, cells: list[dict] | None = None) -> dict[str, int]:
    """Compute every cell of ``exp`` not yet in ``store`` (a `mpx.experiment.store.ResultsStore`): in this
    process (``jobs = 1``), in a pool of ``jobs`` processes, or on the Dask distributed scheduler at
    ``dask_scheduler`` (``tcp://host:port``). Each finished cell is written at once, in one transaction,
    by this process only. Returns counts: ``cells``, ``cached``, ``computed``, ``skipped``, ``errors``
    and the ``run_id``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"--jobs must be a positive integer, got {jobs!r}")
    cells = exp.cells() if cells is None else cells
    store.declare(declared_tables())
    finished = store.finished_keys()
    todo = [c for c in cells if c["key"] not in finished]
    where = f"dask {dask_scheduler}" if dask_scheduler else f"{jobs} process(es)"
    counts = {"cells": len(cells), "cached": len(cells) - len(todo), "computed": 0, "skipped": 0, "errors": 0}
    bar = None

    def done(result: dict) -> None:
        store.write(result)
        st = result["cell"]["status"]
        counts["computed"] += 1
        counts["skipped"] += st == "skipped"
        counts["errors"] += st == "error" or any(r.get("status") == "error" for r in result.get("scores", []))
        bar.update(1)

    run_id = store.begin_run(exp.name, str(exp.path) if exp.path else None, exp.raw, code_version(),
                             [c["key"] for c in cells], where)
    try:  # from the run's row on: an interrupt anywhere (the compile notice included) marks the run interrupted
        if not dask_scheduler and any(_needs_jit(c) for c in todo):
            compile_notice(PACKAGE / "partition", "the partitioner's kernels", show=progress)
        bar = progress_bar(total=len(cells), initial=counts["cached"], desc=exp.name, unit="cell", wanted=progress)
        if not todo:
            pass
        elif dask_scheduler:
            _run_dask(todo, dask_scheduler, done)
        elif jobs == 1 or len(todo) == 1:
            todo, warming = warm_up_aside(todo)
            try:
                for c in todo:
                    done(run_cell(c))
            finally:
                if warming is not None:
                    warming.kill()
                    warming.wait()
        else:
            _run_pool(todo, min(jobs, len(todo)), done)
    except BaseException as exc:
        if bar is not None:
            bar.close()
        store.end_run(run_id, "interrupted")
        if isinstance(exc, KeyboardInterrupt):  # one line for the command to print: what was kept
            # counted in the store: the signal may arrive between a committed write and its count
            kept = len(store.finished_keys() & {c["key"] for c in cells})
            raise KeyboardInterrupt(f"{kept} of {counts['cells']} cells finished and stored in {store.path}, "
                                    f"{kept - counts['cached']} of them in this run") from None
        raise
    bar.close()
    store.end_run(run_id, "finished")
    counts["run_id"] = run_id
    return counts


def _run_pool(todo: list[dict], workers: int, done: Callable[[dict], None]) -> None:
    """The cells in a pool of ``workers`` processes (`start_worker`), each result handed to ``done`` as it
    arrives. Kernels are compiled once, not once per worker (`jit_warm_ups`): the first tasks compile the
    jitted schedulers' and scalers' kernels into numba's on-disk cache, one worker each, and a cell that runs
    them is submitted only when they are there, so the other workers load them instead of compiling them
    again (the fresh quickstart: ~50 s of CPU per worker); cells that need none run meanwhile. Results do not
    depend on the order. On any exception here (Ctrl-C above all) the pool is stopped at once: queued cells
    are cancelled and the workers terminated, instead of waiting for every submitted cell to finish."""
    with interrupts_deferred():  # a Ctrl-C is raised here, between the pool's calls, never inside one
        _drive_pool(todo, workers, done)


def _drive_pool(todo: list[dict], workers: int, done: Callable[[dict], None]) -> None:
    """`_run_pool`'s work, with Ctrl-C noted (it raises KeyboardInterrupt between two waits)."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=start_worker, initargs=(os.getpid(),))
    try:
        warm, needs = jit_warm_ups(todo)
        waiting = {pool.submit(warm_up_kernels, group, names): group for group, names in warm.items()}
        ready: set[str] = set()
        held = list(zip(todo, needs))
        pending: set = set()
        while True:
            now = [c for c, need in held if need <= ready]
            held = [(c, need) for c, need in held if not need <= ready]
            pending.update(pool.submit(run_cell, c) for c in now)
            if not pending and not waiting:
                break
            finished, _ = wait(pending | set(waiting), timeout=INTERRUPT_POLL, return_when=FIRST_COMPLETED)
            if interrupt_requested():
                raise KeyboardInterrupt
            for f in finished:
                if f in waiting:
                    f.result()  # a compile that failed is the cell's own failure later, not the run's
                    ready.add(waiting.pop(f))
                else:
                    pending.discard(f)
                    done(f.result())
    except BaseException:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        results = getattr(pool, "_result_queue", None)
        manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:  # a cell in progress is lost (it was not stored); the stored ones stay
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
        # A worker terminated while it wrote its result leaves half a message in the result pipe: the pool's
        # thread then waits in recv() for the rest forever, and Python's exit waits for that thread (mpx run
        # hung after Ctrl-C, 1 in 3 runs beside a busy loop). With every worker gone, closing this process's
        # end for writing ends that read (EOF): the thread marks the pool broken and stops.
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()
        # The pool's thread ends by closing its wake-up pipe; Python's exit writes to that pipe without a lock
        # (CPython gh-125451, fixed in later Pythons): if both happen at once, "OSError: [Errno 9] Bad file descriptor"
        # is printed after the command's line (the pool's Ctrl-C test, once in 5 full suites). So it ends here.
        if manager is not None:
            manager.join(timeout=10)
        raise
    pool.shutdown(wait=True)


def jit_warm_ups(todo: list[dict]) -> tuple[dict[str, list[str]], list[frozenset[str]]]:
    """What a pool compiles before the cells: ``{"schedulers": names, "scalers": names}`` (the registered
    plugins with the ``jit`` tag that some cell of ``todo`` runs; a group with none is left out), and per
    cell the groups it waits for."""
    groups: dict[str, set[str]] = {"schedulers": set(), "scalers": set()}
    needs = []
    for c in todo:
        kind = get_kind(c["kind"])
        mine = {"schedulers": kind.jit_schedulers(c), "scalers": kind.jit_scalers(c)}
        for g, names in mine.items():
            groups[g].update(names)
        needs.append(frozenset(g for g, names in mine.items() if names))
    return {g: sorted(names) for g, names in groups.items() if names}, needs


def warm_up_kernels(group: str, names: list[str]) -> None:
    """Pool task: compile (or load from numba's cache) the kernels of the registered ``group``
    (``"schedulers"`` or ``"scalers"``) plugins ``names`` (their ``warm_up``). Never raises: a kernel that
    does not compile fails in the cells that use it, as it would without this step."""
    from mpx import scalers, schedulers

    registry = {"schedulers": schedulers, "scalers": scalers}[group]
    for name in names:
        try:
            registry.get_class(name).warm_up()
        except Exception:  # noqa: BLE001 - reported by the cells that run the plugin
            pass


def die_with_parent(parent: int) -> None:
    """Pool worker initializer: end the worker when the run that started it dies. A killed ``mpx run
    --jobs N`` otherwise leaves its workers running forever (reparented, blocked on their queue).
    Linux's ``PR_SET_PDEATHSIG`` sends SIGTERM at the parent's death; elsewhere nothing is set. SIGTERM ends
    the worker whatever handler it inherited (`mpx.cli.main` turns a SIGTERM of the command into one line)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl: nothing to set
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def _needs_jit(cell: dict) -> bool:
    """Does the cell run a scheduler that compiles numba kernels on first use (its kind says)?"""
    return bool(get_kind(cell["kind"]).jit_schedulers(cell))


def warm_up_aside(todo: list[dict]) -> tuple[list[dict], subprocess.Popen | None]:
    """Hide the first-run JIT compilation of schedulers (the hypergraph partitioner's numba kernels take
    ~25 s to compile in a fresh checkout) behind the other cells: a side process compiles them into numba's
    on-disk cache while this process runs the cells that do not need them; those run last. Results do
    not depend on the order. Returns the reordered cells and the side process (None if not needed)."""
    needing = [c for c in todo if _needs_jit(c)]
    if not needing or len(needing) == len(todo):
        return todo, None
    names = sorted({n for c in needing for n in get_kind(c["kind"]).jit_schedulers(c)})
    code = ("import sys; from mpx import schedulers\n"
            "for n in sys.argv[1:]: schedulers.get_class(n).warm_up()")
    parent = os.getpid()  # the side process ends with the run (a killed run otherwise leaves it compiling)
    proc = subprocess.Popen([sys.executable, "-c", code, *names], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: die_with_parent(parent))
    return [c for c in todo if not _needs_jit(c)] + needing, proc


#: times mpx submits a cell again after its worker died (or the task failed outside `run_cell`), on top of the
#: scheduler's own ``distributed.scheduler.allowed-failures``; then the cell is stored as an error
DASK_RETRIES = 1


def _run_dask(todo: list[dict], address: str, done: Callable[[dict], None], fn: Callable[[dict], dict] = run_cell
              ) -> None:
    """Run ``todo`` on the Dask scheduler at ``address`` (docs/cluster.md). Each finished cell's rows go to
    ``done`` (the store) as it arrives and its future is released at once, so a worker lost later never
    makes Dask recompute a finished cell for a future still referenced here (Prefect #15442). A cell whose
    task fails outside `run_cell` (its worker died: ``KilledWorker``) is submitted again `DASK_RETRIES`
    times, then stored as an error row, retried by the next run; the sweep goes on. ``fn``: the cell
    function (a test's, importable on the workers)."""
    try:
        from dask.distributed import Client, as_completed as dask_completed  # optional: pip install 'mpx[dask]'
    except ImportError:
        raise ConfigError("--dask-scheduler needs dask.distributed: pip install 'mpx[dask]'") from None
    try:
        client = Client(address, timeout=30)
    except OSError as exc:
        raise ConfigError(f"--dask-scheduler {address}: cannot connect ({exc})") from None
    try:
        cells = {f"mpx-cell-{c['key']}": c for c in todo}
        tries = dict.fromkeys(cells, 0)
        # the futures live only in `pending` (as_completed's own set) until they are yielded
        pending = dask_completed(client.map(fn, todo, key=list(cells), pure=False))
        for fut in pending:
            key = fut.key if fut.key in cells else fut.key.rsplit("-try", 1)[0]
            try:
                row = fut.result()
            except Exception as exc:  # the task failed outside run_cell: a dead worker, a lost connection
                if tries[key] < DASK_RETRIES:
                    tries[key] += 1
                    pending.add(client.submit(fn, cells[key], key=f"{key}-try{tries[key]}", pure=False))
                    continue
                row = {"cell": cell_row(cells[key], "error", f"{type(exc).__name__} on the Dask cluster after "
                                        f"{tries[key] + 1} submissions: {exc}", 0.0)}
            finally:
                fut.release()
                del fut
            done(row)
    finally:
        client.close()
