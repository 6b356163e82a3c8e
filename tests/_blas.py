"""BLAS threads in the test processes: one per process under ``-n N`` (pytest-xdist), as `mpx run --jobs N`
gives each of its workers (`mpx.experiment.runner.start_worker`); OpenBLAS's idle threads spin, and on a 2-core
machine two test processes with two threads each spent a third of their CPU spinning (the scoring tests: 94 s of
CPU against 63 s, the same wall time). Subprocesses are not limited; `all_blas_threads` gives a test the threads
a user's process starts with."""

from __future__ import annotations

import os
from typing import Any

AT_START: list[dict] = []


def one_blas_thread_per_worker() -> None:
    """Limit this process to one BLAS thread when it is a pytest-xdist worker; note what it started with."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return
    import numpy  # noqa: F401 - numpy's and scipy's BLAS (two copies of OpenBLAS in the wheels) are the ones to limit
    import scipy.linalg  # noqa: F401

    if not AT_START:
        AT_START.extend(threadpool_info())
    if os.environ.get("PYTEST_XDIST_WORKER"):
        threadpool_limits(limits=1, user_api="blas")


def all_blas_threads() -> Any:
    """A context in which the BLAS libraries run as many threads as this process started with."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits={lib["prefix"]: lib["num_threads"] for lib in AT_START
                                     if lib["user_api"] == "blas"})
