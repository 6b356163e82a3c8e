"""numba's compiled kernels are cached once per machine, keyed on content (`mpx.util.jit`): every kernel of the
package, wherever it lives, is claimed by the content locator. After the re-layout moved the module into
mpx/util/ it claimed only mpx/util's files, and a fresh clone recompiled the partitioner's kernels into its own
__pycache__ (its first quickstart took 63 s instead of 25 s)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpx.util.jit import HAVE_NUMBA

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed: kernels run as plain Python")
def test_kernels_outside_util_are_cached_by_content(tmp_path):
    code = "from mpx.partition.refinement import fm\nprint(fm.fm_kernel._cache._cache_path)"
    env = {**os.environ, "MPX_NUMBA_CACHE": str(tmp_path), "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    path = Path(res.stdout.strip())
    assert path.parent == tmp_path and path.name.startswith("mpx_partition_refinement_fm-"), path
