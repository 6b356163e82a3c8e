"""Fixtures of the reader tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SPLIT = Path(__file__).resolve().parents[1] / "data" / "callgrind" / "split"


@pytest.fixture
def split_copy(tmp_path: Path) -> Path:
    """A writable copy of the real split callgrind run of tests/data/callgrind/split (27 parts), without its
    valgrind log."""
    dest = tmp_path / "run"
    shutil.copytree(SPLIT, dest)
    (dest / "valgrind.log").unlink()
    return dest
