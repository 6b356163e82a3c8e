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

Issue 39: the per-event, per-metric and per-window tables are kept whole too (they kept a fingerprint that
summed log-magnitudes, which failed on an AVX2-only AMD machine: BayesPerf's estimate of an event counted
in every quantum equals the count to within 2 ulp, and the ulps depend on the CPU's SIMD path), and every
float is compared with a tolerance scaled to its column (``digest.compare_tables``); recorded once from the
code of ``3b56511`` after checking it against the old fingerprints. The same failure is reproduced on any
AVX-512 machine by numpy's and OpenBLAS's AVX2 code paths:
``NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" OPENBLAS_CORETYPE=Haswell``.

A change that is meant to move numbers re-records the reference in the same commit and says why in its
message: one command, ``python tests/golden/digest.py`` (or ``python tests/golden/digest.py quickstart`` for
one experiment; ``tests/golden/README.md``)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._blas import AT_START, all_blas_threads


GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))
import digest  # noqa: E402

@contextlib.contextmanager
def every_cpu_busy():
    """A busy loop per CPU while the block runs (and a check that none ended before it did)."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        yield
        assert all(p.poll() is None for p in busy), "a busy loop ended before the run did"
    finally:
        for p in busy:
            p.kill()
            p.wait()


#: the quickstart's datasets run with one BLAS thread and every CPU busy: two of nine (40 of 180 cells), sqlite for
#: its series (each cell runs the same code whatever its dataset; the whole run is the suite's longest); the run
#: with every BLAS thread takes the other seven, so that every row of the reference is compared once
SUBSET = {"quickstart": ("sqlite", "kernels")}


def the_others(name: str) -> tuple[str, ...] | None:
    """The datasets of experiment ``name``'s reference outside its `SUBSET` (None: all of them)."""
    if name not in SUBSET:
        return None
    every = {r[0] for r in digest.parse(digest.load_reference(name)["scores"])[1]}  # the first column: the dataset
    return tuple(sorted(every - set(SUBSET[name])))


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow(seconds=35)) if n == "quickstart" else n
                                  for n in digest.CONFIGS])
def test_tables_match_reference(name, tmp_path, monkeypatch):
    """The reference's tables, with every BLAS thread the library starts (the quickstart: the datasets outside its
    `SUBSET`, which the test below compares); the small experiments (the exact ILP and the partitioner, once
    bounded by seconds) with every CPU busy too: the tables do not depend on the load."""
    monkeypatch.setenv("MPX_CODE_VERSION", "golden")
    datasets = the_others(name)
    with all_blas_threads(), contextlib.nullcontext() if name in SUBSET else every_cpu_busy():
        digest.run_reference(name, tmp_path / "results.sqlite", datasets)
    problems = digest.compare(name, digest.canonical_tables(tmp_path / "results.sqlite"), datasets)
    assert not problems, f"{name}: differs from the reference beyond rtol {digest.RTOL:g}:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow(seconds=20)) if n == "quickstart" else n
                                  for n in digest.CONFIGS])
def test_tables_match_reference_with_one_blas_thread(name, tmp_path, monkeypatch):
    """The run above uses every BLAS thread the library starts; one thread sums in another order. The quickstart
    on two of its datasets (`SUBSET`), with every CPU busy."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    monkeypatch.setenv("MPX_CODE_VERSION", "golden")
    datasets = SUBSET.get(name)
    with threadpoolctl.threadpool_limits(limits=1), every_cpu_busy() if datasets else contextlib.nullcontext():
        digest.run_reference(name, tmp_path / "results.sqlite", datasets)
    problems = digest.compare(name, digest.canonical_tables(tmp_path / "results.sqlite"), datasets)
    assert not problems, f"{name} with one BLAS thread:\n" + "\n".join(problems[:20])


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
    moved = _table([*rows[:2], [*rows[2][:5], rows[2][5] * (1 + 1e-6)]])
    assert len(digest.compare_tables(moved, ref)) == 1
    small = _table([[*rows[0][:5], 0.25 * (1 + 1e-6)], *rows[1:]])  # a small value beside a large one
    assert len(digest.compare_tables(small, ref)) == 1
    count = _table([[*rows[0][:4], 13, rows[0][5]], *rows[1:]])  # integers are exact
    assert len(digest.compare_tables(count, ref)) == 1
    assert digest.compare_tables(_table(rows[:2]), ref) == ["2 rows (reference 3)"]


def test_a_subset_of_datasets_is_compared_with_the_references_rows_of_those_datasets():
    """The one-BLAS-thread quickstart runs two of its datasets: their rows are compared, the others not asked for,
    and a moved number or a missing row still fails."""
    rows = [["awk", "perf", 0, "linear", 12, 0.25], ["xz", "perf", 0, "dcam", 12, 0.125],
            ["xz", "perf", 0, "linear", 7, 1e6 / 3]]
    ref = _table(rows)
    assert digest.compare_tables(_table(rows[1:]), ref, datasets=("xz",)) == []
    assert digest.compare_tables(_table(rows[1:2]), ref, datasets=("xz",)) == ["1 rows (reference 2)"]
    moved = _table([rows[1], [*rows[2][:5], rows[2][5] * (1 + 1e-6)]])
    assert len(digest.compare_tables(moved, ref, datasets=("xz",))) == 1
    assert digest.compare_tables(_table(rows[1:]), ref, datasets=("awk",)) == ["2 rows (reference 1)"]


def test_a_value_zero_in_exact_arithmetic_is_compared_at_its_columns_scale():
    """0 on one machine, 2.6e-16 on another (BayesPerf on an event counted whole, issue 39): equal at the
    resolution of a column of errors around 0.1; a 0 that becomes 1e-6 is a real change."""
    rows = [["awk", "perf", 0, s, 12, v] for s, v in
            [("a", 0.0), ("b", 0.1), ("c", 0.2), ("d", 0.05), ("e", 1.9337069407346147e-16)]]
    ref = _table(rows)
    noise = _table([[*rows[0][:5], 2.6498644896352536e-16], *rows[1:4], [*rows[4][:5], 1.9492955427535807e-16]])
    assert digest.compare_tables(noise, ref) == []
    assert len(digest.compare_tables(_table([[*rows[0][:5], 1e-6], *rows[1:]]), ref)) == 1
    assert digest.column_scale(["0.0", "0.1", "nan", "", "0.2"]) == pytest.approx(0.15)


def test_rounded_reference_keeps_what_the_tolerance_needs():
    """The large tables are kept at `digest.DIGITS` significant digits: the rounding passes the comparison
    with a margin of 100x, and ints, text and NaN are untouched."""
    text = _table([["awk", "perf", 0, "linear", 12, 1 / 3], ["xz", "perf", 0, "dcam", 7, float("nan")]])
    rounded = digest._rounded(text)
    assert rounded != text and "nan" in rounded and ",12," in rounded
    assert digest.compare_tables(text, rounded) == []
    assert abs(float(digest.parse(rounded)[1][0][5]) * 3 - 1) < digest.RTOL / 100


def _blas() -> list[int]:
    info = pytest.importorskip("threadpoolctl").threadpool_info()
    return [lib["num_threads"] for lib in info if lib["user_api"] == "blas"]


def test_one_blas_thread_in_a_worker_and_all_on_request():
    """The test processes' BLAS threads (`tests._blas`): one per process under ``-n N``, all of them on request."""
    start = [lib["num_threads"] for lib in AT_START if lib["user_api"] == "blas"]
    assert start, "no BLAS library was seen at the start"
    if os.environ.get("PYTEST_XDIST_WORKER"):
        assert set(_blas()) == {1}
    with all_blas_threads():
        assert sorted(_blas()) == sorted(start)
