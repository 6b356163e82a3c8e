"""Installing mpx: a folder that holds a clone named ``mpx/`` must not shadow the package (issue 17: a
script run from there failed with ``cannot import name 'read_trace' from 'mpx' (unknown location)``)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import mpx


def test_a_folder_holding_a_clone_named_mpx_does_not_shadow_the_package(tmp_path):
    # the clone: a folder `mpx` without __init__.py (the package is mpx/mpx/): Python makes it a namespace
    # package unless a regular `mpx` package is found on sys.path; pyproject's package-dir makes the
    # editable install a sys.path entry (a .pth line), where setuptools' import hook came too late
    (tmp_path / "mpx" / "mpx").mkdir(parents=True)
    (tmp_path / "mpx" / "README.md").write_text("a clone\n")
    # mpx's own hook only (``__editable___mpx_0_1_0_finder.py``): a plugin installed beside it, such as
    # ``mpx_example_plugin``, has its own and made this test skip
    hooks = list(Path(sysconfig.get_paths()["purelib"]).glob("__editable___mpx_[0-9]*_finder.py"))
    if hooks:
        pytest.skip(f"this environment's editable install uses an import hook ({hooks[0].name}), made before "
                    "pyproject's package-dir: run `pip install -e .` again")
    code = "from mpx import read_trace; import mpx; print(mpx.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == Path(mpx.__file__)
