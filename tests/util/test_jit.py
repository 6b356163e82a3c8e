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

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed: kernels run as plain Python")
def test_kernels_outside_util_are_cached_by_content(tmp_path):
    code = "from mpx.partition.refinement import fm\nprint(fm.fm_kernel._cache._cache_path)"
    env = {**os.environ, "MPX_NUMBA_CACHE": str(tmp_path), "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    path = Path(res.stdout.strip())
    assert path.parent == tmp_path and path.name.startswith("mpx_partition_refinement_fm-"), path


def test_a_first_compile_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    """Issue 39: before a kernel module is compiled for the first time on a machine (no index in its cache
    folder) one line on stderr says so, where progress bars are shown; a cached module says nothing."""
    from mpx.util import jit

    if not jit.HAVE_NUMBA:
        pytest.skip("numba is not installed")
    monkeypatch.setenv("MPX_NUMBA_CACHE", str(tmp_path))
    monkeypatch.setenv("MPX_PROGRESS", "1")
    tokens = jit.PACKAGE / "readers" / "gem5" / "tokens.py"
    assert jit.compile_notice(tokens, "the gem5 tokenizer")
    assert capsys.readouterr().err.count("mpx: compiling the gem5 tokenizer once for this machine") == 1
    folder = jit.kernel_folder(tokens)
    folder.mkdir(parents=True)
    (folder / "tokens.scan-1.py311.nbi").write_bytes(b"")
    assert not jit.compile_notice(tokens, "the gem5 tokenizer") and capsys.readouterr().err == ""
    assert jit.compile_notice(jit.PACKAGE / "partition", "the partitioner's kernels")  # a folder: its kernels
    assert "the partitioner's kernels" in capsys.readouterr().err
    monkeypatch.setenv("MPX_PROGRESS", "0")
    assert jit.compile_notice(jit.PACKAGE / "partition", "x") and capsys.readouterr().err == ""
