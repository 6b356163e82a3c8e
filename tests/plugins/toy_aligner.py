"""A toy aligner, one file and a ``register()`` call: maps the runs onto the reference by read-window
index, stretched to the reference's number of windows (no anchor needed beyond being counted)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx import aligners
from mpx.aligners.base import Aligner, AnchorSeries, overlap_matrix


class ToyAligner(Aligner):
    """Window i of the reference takes the same share of every other run (a plugin example)."""

    name: ClassVar[str] = "toy"
    source: ClassVar[str] = "tests/plugins/toy_aligner.py (a plugin example)"

    def __init__(self, merge: str = "reference") -> None:
        self.merge = merge

    def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
        x = np.linspace(0.0, run.n, ref.n + 1)
        return overlap_matrix(x, run.n), np.ones(ref.n, dtype=bool)


def register() -> None:
    aligners.register("toy", ToyAligner)
