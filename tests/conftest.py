"""Shared test fixtures: where the real inputs of ``../shared`` are, skipping cleanly when absent."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests._blas import one_blas_thread_per_worker
from tests._tools import unpack_shared_gem5

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MPX_SHARED", REPO.parent / "shared"))
# the exact schedules the tests solve are kept for this test process only (not read from the user's machine-wide
# cache, `mpx.util.solved`): every run of the suite exercises the solver
os.environ["MPX_MILP_CACHE"] = tempfile.mkdtemp(prefix="mpx-test-milp-")


# under ``-n N``: one BLAS thread per test process (`tests._blas`)
one_blas_thread_per_worker()

# the gem5 recording tests run with the prebuilt gem5 of ../shared when no other is set (`tests._tools`)
if (_gem5 := unpack_shared_gem5(SHARED)) is not None:
    os.environ["MPX_GEM5"] = _gem5


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
    before the first test: no single test pays numba's compilation (cold: minutes; from the cache: ~2 s).

    Under ``-n N`` worker i starts at the i-th N-th of the list and wraps around: with an empty cache the
    workers compile different kernels first, and each finds most of the others' in the cache when it gets
    there, instead of all of them compiling every kernel at once."""
    from mpx.util.jit import HAVE_NUMBA

    if HAVE_NUMBA:
        from mpx import scalers, schedulers

        plugins = [(registry, name) for registry in (schedulers.REGISTRY, scalers.REGISTRY)
                   for name in registry.builtin if registry.tags(name).jit]
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
        start = len(plugins) * (int(worker) % workers) // workers if worker.isdigit() else 0
        for registry, name in plugins[start:] + plugins[:start]:
            registry.get_class(name).warm_up()


def pytest_collection_modifyitems(config, items):
    """Modules holding a slow test first, the longest first (a slow marker's ``seconds``: the module's largest),
    each module's tests kept together and in order: with ``-n auto`` the long tests start at once and the
    short ones fill the workers around them, instead of one long test last."""
    def seconds(item) -> float:
        return max((float(m.kwargs.get("seconds", 0)) for m in item.iter_markers("slow")), default=-1.0)

    weight: dict[str, float] = {}
    for item in items:
        name = item.module.__name__ if item.module is not None else ""
        weight[name] = max(weight.get(name, -2.0), seconds(item))
    items.sort(key=lambda item: -weight[item.module.__name__ if item.module is not None else ""])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``-n N`` distributes by work stealing: each worker takes its share of the ordered tests, and one that runs
    out takes half of what another has not started (xdist's default, ``load``, hands tests out in batches
    and cannot take back those already sent: one worker ran 100 s longer than the other)."""
    if config.getoption("dist") != "load":  # -n's default is "load"; another --dist the caller chose stays
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)
