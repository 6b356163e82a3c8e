"""The refactor guard: the score tables of the quickstart, one schedule and one partition experiment equal,
row for row, within a relative 1e-9 on floats and exactly on integers and text (``digest.RTOL``: another
machine's BLAS or CPU moves last bits, and a byte digest failed on a fresh machine), the reference recorded before the house was rebuilt (``tests/golden/``, at
``beedbdf``; the refactor of issue 11 passed against it unchanged). Re-recorded since: the quickstart once,
for BayesPerf's random-walk floor of events that have counted nothing yet (42 of its 891 score rows, all
bayesperf / bayesperf_smooth; every other row identical); then all three for issue 12's scoring protocol
(the quickstart runs two read regimes; new columns: every measure on the window sets, metric-windows,
over10_all, the regime, the tools' whole-run totals; window-level ``papi`` with ``papi_cumulative`` beside
it; BayesPerf's posterior mode; BayesPerf's one-count walk floor of issue 14); then the quickstart for the
Tintin work (the tintin scheduler's rows follow the authors' kernel; the tintin and counterminer scalers'
rows are new), the top-down verdict columns (None for callgrind: no hierarchy) and the event rows'
``median_true``; every other number as before (checked against the previous reference within the tolerance).

A change that is meant to move numbers re-records the reference (``python tests/golden/digest.py``) in the
same commit and says why in its message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))
import digest  # noqa: E402

@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "quickstart" else n
                                  for n in digest.CONFIGS])
def test_tables_match_reference(name, tmp_path, monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "golden")
    digest.run_reference(name, tmp_path / "results.sqlite")
    problems = digest.compare(name, digest.canonical_tables(tmp_path / "results.sqlite"))
    assert not problems, f"{name}: differs from the reference beyond rtol {digest.RTOL:g}:\n" + "\n".join(problems[:20])


def _table(rows: list[list[object]]) -> str:
    header = ["cell_dataset", "cell_scheduler", "cell_seed", "scaler", "n", "wape"]
    return digest._write_csv(header, digest._sorted_rows(header, [[str(v) for v in r] for r in rows]))


def test_comparison_tolerates_last_bits_and_catches_real_changes():
    """The tolerance the golden test applies: last-bit noise passes, a moved number or row does not."""
    rows = [["awk", "perf", 0, "linear", 12, 0.25], ["awk", "perf", 0, "dcam", 12, 0.125],
            ["xz", "perf", 0, "linear", 7, 1e6 / 3]]
    ref = _table(rows)
    noisy = _table([[*r[:5], r[5] * (1 + 2.5e-14)] for r in rows])
    assert digest.compare_tables(noisy, ref) == []
    assert digest.compare_fingerprint(digest.fingerprint(noisy), digest.fingerprint(ref)) == []
    moved = _table([*rows[:2], [*rows[2][:5], rows[2][5] * (1 + 1e-6)]])
    assert len(digest.compare_tables(moved, ref)) == 1
    small = _table([[*rows[0][:5], 0.25 * (1 + 1e-4)], *rows[1:]])  # a small value beside a large one
    assert digest.compare_fingerprint(digest.fingerprint(small), digest.fingerprint(ref))
    count = _table([[*rows[0][:4], 13, rows[0][5]], *rows[1:]])  # integers are exact
    assert digest.compare_tables(count, ref) and digest.compare_fingerprint(
        digest.fingerprint(count), digest.fingerprint(ref))
    assert digest.compare_tables(_table(rows[:2]), ref) == ["2 rows (reference 3)"]
