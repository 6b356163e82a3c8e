"""Tintin's running-count estimator and σ on hand cases derived from the kernel's code
(../shared/peers/tintin/kernel/, WUSTL-CSPL/tintin-kernel 7906262e)."""

from __future__ import annotations

import numpy as np
import pytest

from mpx.observation import Observation
from mpx.scalers import get
from mpx.scalers.tintin import running_counts, tam_area, welford_variance


def _obs(counts, running, read_every):
    counts = np.asarray(counts, float).reshape(len(counts), -1)
    running = np.asarray(running, bool).reshape(counts.shape)
    return Observation.from_quanta(["e"] * 1 if counts.shape[1] == 1 else [f"e{j}" for j in range(counts.shape[1])],
                                   np.arange(counts.shape[0] + 1.0), np.where(running, counts, np.nan), running,
                                   read_every, time_unit="intervals")


def test_issue_24_hand_case_3380():
    """One event, 8 quanta of counts 100..800, on the counter in quanta 0, 3 and 6, read at the end.
    tintin_estimation.c:91 (first measurement c·T/mon = 100·1/1 = 100), :96 / :20-51 (TAM with W = 3,
    h = 1: 100·3 + 9·400/5 − 9·100/5 = 840, then 400·3 + 9·700/5 − 9·400/5 = 1740) and :146-150
    (extrapolated read: (8 − 7)·700/1 = 700): 100 + 840 + 1740 + 700 = 3380."""
    counts = np.arange(100.0, 900.0, 100.0)
    ran = np.isin(np.arange(8), [0, 3, 6])
    est = get("tintin").estimate(_obs(counts, ran, 8))
    assert est.totals()[0] == pytest.approx(3380.0)
    assert est.counts[0, 0] == pytest.approx(3380.0)
    # the same from the kernel functions one by one
    assert tam_area(400, 4, 1, 100, 1, 1) == pytest.approx(840.0)
    assert tam_area(700, 7, 1, 400, 4, 1) == pytest.approx(1740.0)
    # linear scaling would give 1200 · 8/3 = 3200
    assert 1200 * 8 / 3 == pytest.approx(3200.0)


def test_tam_keeps_the_measured_count():
    """The TAM area over W (tintin_estimation.c:44-49) = the measured count + the line's integral over
    the gap (the line passes through c/h at the measurement's midpoint)."""
    c, h, t, cp, hp, tp = 300.0, 2.0, 10.0, 50.0, 1.0, 5.0
    gap = t - h - tp
    slope = (c / h - cp / hp) / (t - h / 2 - tp)
    assert tam_area(c, t, h, cp, tp, hp) == pytest.approx(c + cp / hp * gap + slope * gap**2 / 2)


def test_reads_split_the_running_count_and_in_progress_measurement():
    """Reads every 4 quanta: the read at quantum 4 cuts nothing (quantum 3 closes a measurement there),
    the window estimates add up to the final read (3380)."""
    counts = np.arange(100.0, 900.0, 100.0)
    ran = np.isin(np.arange(8), [0, 3, 6])
    est = get("tintin").estimate(_obs(counts, ran, 4))
    assert est.counts[:, 0].sum() == pytest.approx(3380.0)
    assert est.counts[0, 0] == pytest.approx(100 + 840)      # read at T = 4, right at the second measurement's end


def test_merged_measurement_and_active_read():
    """Quanta 0-1 on the counter (merged: one measurement of 300 over 2), 2-3 off, 4 on, read at 3 and 6.
    Read at 3 (extrapolated, tintin_estimation.c:146-150): first c·T/mon = 300·2/2 = 300, + (3−2)·150 = 450."""
    counts = np.array([100.0, 200, 300, 400, 500, 600])
    ran = np.array([1, 1, 0, 0, 1, 0], bool)
    est = get("tintin").estimate(_obs(counts, ran, 3))
    assert est.counts[0, 0] == pytest.approx(450.0)
    unmerged = get("tintin", merge=False).estimate(_obs(counts, ran, 3))
    # unmerged: 100·1/1 = 100, then TAM(200, T=2, h=1 | 100, T=1, h=1): W = 1, 2W − h = 1:
    # 100 + 200 − 100 = 200 (the measured count: no gap), then + (3 − 2)·200 = 500
    assert unmerged.counts[0, 0] == pytest.approx(100 + 200 + 200)


def test_sigma_is_sqrt_weighted_population_variance_times_unmonitored_time():
    """tintin_uncertainty.c:199-218: rates 100 (h=1) and 400 (h=1): mean 250, V = (1·0·... Welford) = 22500;
    σ of the window = 150 · (time off the counter in it)."""
    v = welford_variance(np.array([100.0, 400.0]), np.array([1.0, 1.0]))
    assert v[-1] == pytest.approx(np.var([100.0, 400.0]))  # population, not sample
    w = welford_variance(np.array([100.0, 800.0]), np.array([1.0, 2.0]))  # rates 100 and 400, weights 1, 2
    assert w[-1] == pytest.approx(np.average((np.array([100.0, 400.0]) - 300.0) ** 2, weights=[1, 2]))
    counts = np.arange(100.0, 900.0, 100.0)
    ran = np.isin(np.arange(8), [0, 3, 6])
    est = get("tintin").estimate(_obs(counts, ran, 4))
    # window 2 (quanta 4..7): V over rates 100, 400, 700 = 60000; unmonitored 3 of 4 quanta
    assert est.std[1, 0] == pytest.approx(np.sqrt(60000.0) * 3)
    # window 1 (quanta 0..3): V over 100, 400 = 22500; unmonitored 2
    assert est.std[0, 0] == pytest.approx(150.0 * 2)


def test_running_counts_first_measurement_extrapolates_back():
    """tintin_estimation.c:5-17: first measurement at quanta 2-3 (count 50 over 2, T = 4) → 100."""
    assert running_counts(np.array([50.0]), np.array([2.0]), np.array([4.0]), np.array([2.0]))[0] == pytest.approx(100)


def test_event_never_run_is_not_estimated():
    counts = np.ones((6, 2))
    ran = np.zeros((6, 2), bool)
    ran[:, 0] = True
    est = get("tintin").estimate(_obs(counts, ran, 3))
    assert est.not_estimated[:, 1].all() and not est.not_estimated[:, 0].any()
    assert est.counts[:, 0] == pytest.approx([3.0, 3.0])


def test_sigma_from_the_pieces_of_a_merged_measurement():
    """core.c:2423, 2450: Welford gets every piece (one quantum) whether merged or not. Counts 10..50 on
    quanta 0-4 (one merged measurement), off on 5-9, one read window: V = var(10..50) = 200, std = √200 · 5."""
    counts = np.array([10.0, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    ran = np.arange(10) < 5
    est = get("tintin").estimate(_obs(counts, ran, 10))
    assert est.std[0, 0] == pytest.approx(np.sqrt(200.0) * 5)
