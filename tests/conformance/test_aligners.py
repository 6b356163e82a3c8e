"""Every registered aligner passes every conformance check of `mpx.conformance.aligners`; the checks catch
an aligner that ignores the reference's own counts or accepts a missing anchor."""

import numpy as np
import pytest

from mpx import aligners
from mpx.aligners.naive import NaiveAligner
from mpx.conformance.aligners import ALIGNER_CHECKS, check_aligner
from mpx.errors import ConfigError


@pytest.mark.parametrize("name", aligners.available())
@pytest.mark.parametrize("check", list(ALIGNER_CHECKS))
def test_registered_aligner_conforms(name, check):
    ALIGNER_CHECKS[check](aligners.get(name))


def test_checks_catch_a_broken_aligner():
    class Shifted(NaiveAligner):
        name = "shifted"

        def _transfer(self, ref, run):  # takes every count from the next window: wrong on identical runs
            t, covered = super()._transfer(ref, run)
            return np.roll(t, 1, axis=1), covered

    with pytest.raises(ConfigError, match="identical_runs"):
        check_aligner(Shifted())
