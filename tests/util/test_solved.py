"""The machine-wide cache of exact MILP solutions (`mpx.util.solved`): the same answer as solving, one solve per
model, off when asked, a damaged entry solved again."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from mpx.util import solved


def knapsack():
    """max 5a + 4b + 3c s.t. 2a + 3b + c <= 5, binary: a = b = 1 (9; a = c = 1 gives 8)."""
    a = csr_matrix(np.array([[2.0, 3.0, 1.0]]))
    return (np.array([-5.0, -4.0, -3.0]), a, np.array([-np.inf]), np.array([5.0]), np.ones(3), np.zeros(3),
            np.ones(3), {"node_limit": 100})


def test_a_cached_answer_equals_the_solved_one_and_is_solved_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MPX_MILP_CACHE", str(tmp_path))
    calls = []
    import scipy.optimize

    real = scipy.optimize.milp

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "milp", counting)
    first = solved.milp_cached(*knapsack())
    again = solved.milp_cached(*knapsack())
    assert len(calls) == 1 and len(list(tmp_path.glob("*.npz"))) == 1
    assert first.status == again.status == 0 and np.array_equal(np.round(first.x), [1, 1, 0])
    assert np.array_equal(first.x, again.x) and again.mip_node_count == first.mip_node_count
    other = list(knapsack())
    other[-1] = {"node_limit": 101}  # another bound is another model
    solved.milp_cached(*other)
    assert len(calls) == 2 and len(list(tmp_path.glob("*.npz"))) == 2


def test_off_and_damaged(tmp_path, monkeypatch):
    monkeypatch.setenv("MPX_MILP_CACHE", "")
    assert solved.cache_folder() is None and solved.milp_cached(*knapsack()).status == 0
    monkeypatch.setenv("MPX_MILP_CACHE", str(tmp_path))
    solved.milp_cached(*knapsack())
    (entry,) = tmp_path.glob("*.npz")
    entry.write_bytes(entry.read_bytes()[:40])  # cut short
    res = solved.milp_cached(*knapsack())
    assert res.status == 0 and np.array_equal(np.round(res.x), [1, 1, 0])
    assert solved.milp_cached(*knapsack()).x is not None and not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("folder", ["/proc/no-such-place"])
def test_an_unwritable_cache_keeps_the_answer(folder, monkeypatch):
    monkeypatch.setenv("MPX_MILP_CACHE", folder)
    assert solved.milp_cached(*knapsack()).status == 0
