"""The scale study's ranking statistics (experiments/analyses/timescale.py, issue 36) on hand-worked cases."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "analyses" / "timescale.py"
_spec = importlib.util.spec_from_file_location("timescale_study", SCRIPT)
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)


def test_ranks_share_ties_and_put_missing_last():
    assert study._ranks(np.array([3.0, 1.0, 3.0, np.nan])).tolist() == [2.0, 1.0, 2.0, 4.0]


def test_vectorised_tau_is_the_pairwise_one():
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0, 3.0, 3.0])
    # pairs: (12) discordant, (34) tied in b (0), the other four concordant: (4 - 1) / 6
    assert np.isclose(study._tau_rows(a[None], b[None])[0], 0.5)
    assert np.isclose(study._kendall(pd.Series(a), pd.Series(b)), 0.5)


def test_bootstrap_means_are_paired_over_programs():
    per = pd.DataFrame({"p1": [1.0, 10.0], "p2": [3.0, 30.0]}, index=["x", "y"])
    idx = np.array([[0, 0], [1, 1], [0, 1]])
    m = study._boot_means(per, ["p1", "p2"], idx)
    assert m.tolist() == [[1.0, 10.0], [3.0, 30.0], [2.0, 20.0]]  # the same programs for both scalers
