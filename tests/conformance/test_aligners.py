"""The aligner checks catch an aligner that ignores the reference's own counts (every registered aligner
passing every check is ``tests/conformance/test_all.py``)."""

import numpy as np
import pytest

from mpx.aligners.naive import NaiveAligner
from mpx.conformance.aligners import check_aligner
from mpx.conformance.common import ConformanceError


def test_checks_catch_a_broken_aligner():
    class Shifted(NaiveAligner):
        name = "shifted"

        def _transfer(self, ref, run):  # takes every count from the next window: wrong on identical runs
            t, covered = super()._transfer(ref, run)
            return np.roll(t, 1, axis=1), covered

    with pytest.raises(ConformanceError, match="identical_runs") as err:
        check_aligner(Shifted())
    assert (err.value.kind, err.value.check, err.value.plugin) == ("aligner", "identical_runs", "Shifted(shifted)")
