"""Shared test fixtures: where the real inputs of ``../shared`` are, skipping cleanly when absent."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests._blas import one_blas_thread_per_worker

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MPX_SHARED", REPO.parent / "shared"))
# the exact schedules the tests solve are kept for this test process only (not read from the user's machine-wide
# cache, `mpx.util.solved`): every run of the suite exercises the solver
os.environ["MPX_MILP_CACHE"] = tempfile.mkdtemp(prefix="mpx-test-milp-")


# under ``-n N``: one BLAS thread per test process (`tests._blas`)
one_blas_thread_per_worker()


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``; skips the calling test (with the reason) when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real input {path} not present (../shared is absent or MPX_SHARED points elsewhere)")
    return path


@pytest.fixture
def shared():
    return shared_path


@pytest.fixture(scope="session", autouse=True)
def jit_warm_up():
    """Compile (or load from numba's on-disk cache) the kernels of every plugin whose tags say ``jit``, once,
    before the first test: no single test pays numba's compilation (cold: minutes; from the cache: ~2 s)."""
    from mpx.util.jit import HAVE_NUMBA

    if HAVE_NUMBA:
        from mpx import scalers, schedulers

        for registry in (schedulers.REGISTRY, scalers.REGISTRY):
            for name in registry.builtin:
                if registry.tags(name).jit:
                    registry.get_class(name).warm_up()


def pytest_collection_modifyitems(config, items):
    """Modules holding a slow test first (each module's tests kept together and in order): with ``-n auto`` the
    long tests start at once and the short ones fill the workers around them, instead of one long test last."""
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow") and item.module is not None}
    items.sort(key=lambda item: item.module is None or item.module.__name__ not in slow)
