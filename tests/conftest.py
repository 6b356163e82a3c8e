"""Shared test fixtures: where the real inputs of ``../shared`` are, skipping cleanly when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MPX_SHARED", REPO.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``; skips the calling test (with the reason) when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real input {path} not present (../shared is absent or MPX_SHARED points elsewhere)")
    return path


@pytest.fixture
def shared():
    return shared_path
