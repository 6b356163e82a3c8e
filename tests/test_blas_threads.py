"""The test processes' BLAS threads (`tests._blas`): one per process under ``-n N``, all of them on request."""

from __future__ import annotations

import os

import pytest

from tests._blas import _AT_START, all_blas_threads

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas() -> list[int]:
    return [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]


def test_one_blas_thread_in_a_worker_and_all_on_request():
    start = [lib["num_threads"] for lib in _AT_START if lib["user_api"] == "blas"]
    assert start, "no BLAS library was seen at the start"
    if os.environ.get("PYTEST_XDIST_WORKER"):
        assert set(_blas()) == {1}
    with all_blas_threads():
        assert sorted(_blas()) == sorted(start)
