"""Formula-level tests of the baseline scalers on hand-computed cases, the C loops of the reference
implementations ported literally (NeoMPX's papi_accurate_multiplexing.c) against mpx's closed forms,
and what each scaler does in windows where an event did not run (ΔR = 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpx import scalers
from mpx.errors import ConfigError
from mpx.conformance.scalers import observation_from_quanta, observation_from_reads
from mpx.scalers.interpolation import dira
from mpx.scalers.neompx import cam, dcam


def est(name, obs, **params):
    return scalers.get(name, **params).estimate(obs)


def one(raw, enabled, running, edges=None):
    """Single-event read view."""
    w = len(raw)
    edges = np.arange(w + 1) * 20.0 if edges is None else edges
    return observation_from_reads(["x"], edges, np.reshape(raw, (w, 1)), np.reshape(enabled, (w, 1)),
                                  np.reshape(running, (w, 1)))


# -- the C loops, ported literally -------------------------------------------------------------------


def c_dira(a, b, n):
    m = (b - a) / n
    acc = a
    for i in range(int(n) - 1):
        acc += a + m * (i + 1)
    acc += (n - int(n)) * (a + m * n)
    return acc


def c_dcam(a, b, n):
    if a == b:
        return a * n
    if a == 0:
        m = b ** (1.0 / (n - 1 + 1e-10)) if int(n) - 2 > 0 else 0.0
        acc = 1.0
        for i in range(int(n) - 2):
            acc += m ** (i + 1)
        return acc
    if b == 0:
        m = (1.0 / a) ** (1.0 / (n - 1 + 1e-10))
        acc = a
        for i in range(int(n) - 1):
            acc += a * m ** (i + 1)
        return acc
    m = (b / a) ** (1.0 / n)
    acc = a
    for i in range(int(n) - 1):
        acc += a * m ** (i + 1)
    return acc + (n - int(n)) * a * m ** n


def c_cam(a, b, n):
    t = b / a if a != 0 else 1.0
    if t == 1.0:
        return a * n
    return a * n * (t - 1) / math.log(t) if t > 0 else 0.0


counts = st.integers(min_value=0, max_value=10**7).map(float)
ratios = st.floats(min_value=1.0, max_value=12.0, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(a=counts, b=counts, n=ratios)
def test_closed_forms_match_the_c_loops(a, b, n):
    arr = lambda v: np.array([v])  # noqa: E731
    assert dira(arr(a), arr(b), arr(n))[0] == pytest.approx(c_dira(a, b, n), rel=1e-9, abs=1e-6)
    assert dcam(arr(a), arr(b), arr(n))[0] == pytest.approx(c_dcam(a, b, n), rel=1e-7, abs=1e-6)
    assert cam(arr(a), arr(b), arr(n))[0] == pytest.approx(c_cam(a, b, n), rel=1e-9, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(a=counts, n=ratios)
def test_constant_rate_gives_linear_scaling(a, n):
    arr = lambda v: np.array([v])  # noqa: E731
    # with the next count equal to this one, every interpolator degenerates to a·n (linear scaling)
    for f in (dira, dcam, cam):
        assert f(arr(a), arr(a), arr(n))[0] == pytest.approx(a * n, rel=1e-9, abs=1e-9)


# -- perf ----------------------------------------------------------------------------------------------


def test_linear_is_perf_stat_per_window():
    e = est("linear", one([100, 50, 0, 7], [10, 10, 10, 10], [5, 10, 0, 3]))
    # 100·10/5 = 200; unscaled when ran all the time; <not counted>; 7·10/3 = 23.33 → (u64) 23
    np.testing.assert_array_equal(e.counts[:, 0], [200, 50, np.nan, 23])
    np.testing.assert_array_equal(e.not_estimated[:, 0], [False, False, True, False])
    e = est("linear", one([7], [10], [3]), integer=False)
    assert e.counts[0, 0] == pytest.approx(70 / 3)
    assert e.causal is True


def test_linear_total_is_perfs_whole_run_scaling():
    e = est("linear", one([100, 50, 0, 7], [10, 10, 10, 10], [5, 10, 0, 3]))
    # perf's end-of-run line: Σraw·ΣE/ΣR = 157·40/18 = 348.9 → (u64) 348, not the sum of the interval
    # lines 200 + 50 + <not counted> + 23 = 273
    assert e.totals()[0] == 348 and e.window_totals()[0] == 273
    assert est("linear", one([157], [40], [18]), integer=False).totals()[0] == pytest.approx(157 * 40 / 18)
    assert est("linear", one([5, 5], [10, 10], [10, 10])).totals()[0] == 10  # never multiplexed: unscaled
    assert np.isnan(est("linear", one([0, 0], [10, 10], [0, 0])).totals()[0])  # never counted: none printed
    # time-valued events keep their fraction in the total as in the windows
    obs = observation_from_reads(["task-clock"], np.array([0.0, 20.0]), [[7.0]], [[10.0]], [[3.0]])
    assert est("linear", obs).totals()[0] == pytest.approx(70 / 3)


def test_linear_fill_options_for_not_counted_windows():
    obs = one([100, 0, 300, 0], [20, 20, 20, 20], [10, 0, 10, 0])
    nan = est("linear", obs).counts[:, 0]
    zero = est("linear", obs, fill="zero").counts[:, 0]
    carry = est("linear", obs, fill="carry").counts[:, 0]
    interp = est("linear", obs, fill="interpolate").counts[:, 0]
    np.testing.assert_array_equal(nan, [200, np.nan, 600, np.nan])
    np.testing.assert_array_equal(zero, [200, 0, 600, 0])
    # carry: last rate × ΔE: 10/unit, then 30/unit
    np.testing.assert_array_equal(carry, [200, 200, 600, 600])
    # rates 10 and 30 at window mid-points 10 and 50 → 20 at 30; constant 30 after the last
    np.testing.assert_array_equal(interp, [200, 400, 600, 600])
    for e in (est("linear", obs, fill=f) for f in ("nan", "zero", "carry", "interpolate")):
        np.testing.assert_array_equal(e.not_estimated[:, 0], [False, True, False, True])
    assert scalers.get("linear", fill="carry").causal and not scalers.get("linear", fill="interpolate").causal
    # before the first window where it ran, carry has nothing: NaN
    np.testing.assert_array_equal(est("linear", one([0, 100], [20, 20], [0, 10]), fill="carry").counts[:, 0],
                                  [np.nan, 200])
    with pytest.raises(ConfigError, match="fill"):
        est("linear", obs, fill="formula")


# -- PAPI ----------------------------------------------------------------------------------------------


# PAPI src/components/perf_event/perf_event.c _pe_read_multiplexed lines 1233-1250:
#   running == enabled → raw; running && enabled → scale = enabled*100LL/running; scale*raw/100LL; else raw


def test_papi_integer_percent_per_window():
    obs = one([1000, 1000, 7, 55, 0], [3, 10, 10, 10, 10], [2, 3, 3, 10, 0])
    e = est("papi", obs)
    # ⌊300/2⌋ = 150 → 1500; ⌊1000/3⌋ = 333 → ⌊333·1000/100⌋ = 3330 (not 3333); 333·7/100 → 23; unscaled; raw 0
    np.testing.assert_array_equal(e.counts[:, 0], [1500, 3330, 23, 55, 0])
    np.testing.assert_array_equal(e.not_estimated[:, 0], [False, False, False, False, True])
    assert scalers.get("papi").causal and "_pe_read_multiplexed" in scalers.get_class("papi").source


def test_papi_scales_each_window_on_its_own_times():
    # window 0 ran 1 of 10, window 1 ran 9 of 10: each window's own factor
    e = est("papi", one([100, 100], [10, 10], [1, 9]))
    # ⌊1000/1⌋ = 1000 → 1000; ⌊1000/9⌋ = 111 → ⌊111·100/100⌋ = 111
    np.testing.assert_array_equal(e.counts[:, 0], [1000, 111])
    # the cumulative reads on the same windows: 1000, then raw 200, E 20, R 10 → 200 → 400: -600
    np.testing.assert_array_equal(est("papi_cumulative", one([100, 100], [10, 10], [1, 9])).counts[:, 0],
                                  [1000, -600])


def test_papi_cumulative_reads_can_go_negative():
    # PAPI_read scales totals since PAPI_start; per-window values are differences of two scaled reads
    e = est("papi_cumulative", one([100, 0, 100], [10, 10, 10], [5, 0, 5]))
    # cumulative: raw 100,100,200; E 10,20,30; R 5,5,10 → scale 200,400,300 → 200,400,600
    np.testing.assert_array_equal(e.counts[:, 0], [200, 200, 200])
    assert e.not_estimated[:, 0].tolist() == [False, True, False]
    # window-level PAPI on the same windows: 200, the raw 0 where it did not run, 200
    np.testing.assert_array_equal(est("papi", one([100, 0, 100], [10, 10, 10], [5, 0, 5])).counts[:, 0],
                                  [200, 0, 200])
    e = est("papi_cumulative", one([100, 0], [10, 10], [1, 9]))
    # 100·1000/100 = 1000, then raw 100, E 20, R 10 → 200: the second window is -800
    np.testing.assert_array_equal(e.counts[:, 0], [1000, -800])
    assert scalers.get("papi_cumulative").causal


def test_papi_cumulative_total_is_the_last_read():
    raw, ena, run = [37, 0, 52, 11], [10, 10, 10, 7], [3, 0, 6, 7]
    e = est("papi_cumulative", one(raw, ena, run))
    # PAPI_read at the end: Σraw 100, ΣE 37, ΣR 16 → ⌊3700/16⌋ = 231 → ⌊231·100/100⌋ = 231
    assert e.counts[:, 0].sum() == 231
    # reads after each window: ⌊1000/3⌋=333 → 123; E 20 R 3 → 666 → 246; E 30 R 9 → 333 → ⌊333·89/100⌋ = 296
    np.testing.assert_array_equal(e.counts[:, 0], [123, 246 - 123, 296 - 246, 231 - 296])
    # both PAPI scalers report that last read as the whole-run total, whatever their windows sum to
    for name in ("papi", "papi_cumulative"):
        assert est(name, one(raw, ena, run)).totals()[0] == 231, name
    assert est("papi", one(raw, ena, run)).window_totals()[0] == 123 + 0 + 86 + 11  # ⌊333·37/100⌋, 0, ⌊166·52/100⌋, 11


def test_papi_truncates_counts_never_times():
    obs = observation_from_reads(["task-clock", "x"], [0, 100], [[60.38, 7.0]], [[100, 100]], [[50, 50]])
    for name in ("papi", "papi_cumulative"):
        c = est(name, obs).counts[0]
        # factor ⌊100·100/50⌋ = 200: task-clock 120.76 msec keeps its fraction, the count 14
        assert c[0] == pytest.approx(120.76) and c[1] == 14.0, name


# -- PAPI software multiplexing -----------------------------------------------------------------------


def sw_obs():
    # x runs in q0 (300 in 30k cycles), q2 (50 in 10k cycles: too short to update the rate), q3 (600 in 30k)
    return observation_from_quanta(["x", "cycles"], [0, 1, 2, 3, 4],
                                   [[300, 30000], [999, 30000], [50, 10000], [600, 30000]],
                                   [[1, 1], [0, 1], [1, 1], [1, 1]], read_every=2)


def test_papi_sw_rate_estimator():
    e = est("papi_sw", sw_obs())
    # q0: span 30000 · 0.01 = 300; q2: span 70000-30000 = 40000 at the old rate 0.01 = 400 (10000 < 25000
    # cycles: no update); q3: 30000 · 0.02 = 600
    np.testing.assert_array_equal(e.quantum_counts[:, 0], [300, 0, 400, 600])
    np.testing.assert_array_equal(e.counts[:, 0], [300, 1000])
    assert e.causal and not e.not_estimated[:, 0].any()
    np.testing.assert_array_equal(e.counts[:, 1], [60000, 40000])  # cycles ran all the time: its own counts
    s = est("papi_sw", sw_obs(), attribution="spread")
    # q2's 400 spread over q1 (30000 cycles) and q2 (10000): 300 + 100
    np.testing.assert_array_equal(s.quantum_counts[:, 0], [300, 300, 100, 600])
    np.testing.assert_array_equal(s.counts[:, 0], [600, 700])
    assert not s.causal


def test_papi_sw_tail_and_min_cycles():
    obs = observation_from_quanta(["x", "cycles"], [0, 1, 2, 3], [[300, 30000], [5, 30000], [7, 30000]],
                                  [[1, 1], [0, 1], [0, 1]], read_every=1)
    e = est("papi_sw", obs)
    # PAPI_stop extrapolates 60000 cycles at 0.01 into the last quantum (attribution="slice")
    np.testing.assert_array_equal(e.quantum_counts[:, 0], [300, 0, 600])
    assert e.not_estimated[:, 0].tolist() == [False, True, True]
    # with a threshold above every slice PAPI has no rate at all: not applicable, with the reason
    with pytest.raises(ConfigError, match="no multiplexing slice reached min_cycles"):
        est("papi_sw", obs, min_cycles=10**6)
    # an event none of whose slices reach it, beside one that has a rate: flagged in every window
    obs2 = observation_from_quanta(["x", "y", "cycles"], [0, 1, 2], [[3, 9, 500], [4, 9, 50]],
                                   [[1, 0, 1], [0, 1, 1]], read_every=1)
    e2 = est("papi_sw", obs2, min_cycles=100)
    assert e2.not_estimated[:, 1].all() and not e2.not_estimated[0, 0]


def test_papi_sw_needs_cycles():
    obs = observation_from_quanta(["x", "y"], [0, 1, 2], [[1, 2], [3, 4]], [[1, 1], [1, 0]], read_every=1)
    with pytest.raises(ConfigError, match="cycles"):
        est("papi_sw", obs)
    with pytest.raises(ConfigError, match="not an event"):
        est("papi_sw", obs, cycles_event="nope")
    # the time axis instead of cycles: rates per unit of time
    e = est("papi_sw", obs, cycles_event="time", min_cycles=0.5)
    np.testing.assert_array_equal(e.counts[:, 0], [1, 3])
    # y ran only in q0 (2 counts in 1 time unit); PAPI_stop extrapolates that rate over q1
    np.testing.assert_array_equal(e.counts[:, 1], [2, 2])


# -- DIRA, TAM, DCAM, CAM --------------------------------------------------------------------------


def test_dira_hand_computed():
    e = est("dira", one([100, 200], [20, 20], [10, 10]))
    # n = 2, m = 50: 100 + (100 + 50) = 250; the last window ramps to 0: 200 + (200 - 100) = 300
    np.testing.assert_array_equal(e.counts[:, 0], [250, 300])
    e = est("dira", one([100, 200], [25, 25], [10, 10]), integer=False)
    # n = 2.5, m = 40: 100 + (100 + 40) + 0.5·(100 + 100) = 340
    assert e.counts[0, 0] == pytest.approx(340)
    assert not scalers.get("dira").causal


def test_tam_hand_computed_and_its_lag():
    e = est("tam", one([100, 200], [20, 20], [10, 10]))
    # est0 = 2·100/2; est1 = 2·(100 + 200)/2 + (100 - 200)/2 = 250
    np.testing.assert_array_equal(e.counts[:, 0], [100, 250])
    # an event counted all the time (α = 1): TAM returns the previous window's count, the first halved
    e = est("tam", one([10, 20, 30], [20, 20, 20], [20, 20, 20]))
    np.testing.assert_array_equal(e.counts[:, 0], [5, 10, 20])
    assert scalers.get("tam").causal


def test_tam_paper_is_the_published_trapezoid():
    e = est("tam_paper", one([100, 200], [20, 20], [10, 10]))
    # est0 = 2·100/2; est1 = 2·(100 + 200)/2 + (200 - 100)/2 = 350
    np.testing.assert_array_equal(e.counts[:, 0], [100, 350])
    # counted all the time (α = 1): the window's own count after the first (no lag)
    e = est("tam_paper", one([10, 20, 30], [20, 20, 20], [20, 20, 20]))
    np.testing.assert_array_equal(e.counts[:, 0], [5, 20, 30])
    assert scalers.get("tam_paper").causal and "opposite sign" in scalers.get_class("tam_paper").source


def test_dcam_hand_computed():
    e = est("dcam", one([100, 400], [20, 20], [10, 10]), integer=False)
    # n = 2, m = √4 = 2: 100·(1 + 2) = 300; last: decay towards 1
    assert e.counts[0, 0] == pytest.approx(300)
    e = est("dcam", one([100, 400], [25, 25], [10, 10]), integer=False)
    # n = 2.5, m = 4^0.4: 100·(1 + m) + 0.5·100·m^2.5 = 100(1 + 4^0.4) + 200
    assert e.counts[0, 0] == pytest.approx(100 * (1 + 4 ** 0.4) + 200)
    a = np.array
    assert dcam(a([0.0]), a([1000.0]), a([4.0]))[0] == pytest.approx(111)       # 1 + 10 + 100
    assert dcam(a([1000.0]), a([0.0]), a([4.0]))[0] == pytest.approx(1111, rel=1e-6)  # 1000(1 + .1 + .01 + .001)
    assert dcam(a([100.0]), a([100.0]), a([2.5]))[0] == 250
    assert dcam(a([0.0]), a([500.0]), a([1.0]))[0] == 1  # the C code's a = 0 branch: 1, not 0


def test_cam_hand_computed():
    obs = one([100, 400, 50], [20, 20, 20], [10, 10, 5])
    e = est("cam", obs, gaps="neompx", integer=False)
    # t = 4: 100·2·3/ln 4; t = 50/400: 400·2·(0.125 - 1)/ln 0.125; the last window is linear: 50·20/5
    np.testing.assert_allclose(e.counts[:, 0], [600 / math.log(4), 800 * (-0.875) / math.log(0.125), 200])
    # bridge rescales the next count to this window's running time: 50·10/5 = 100, t = 0.25
    e = est("cam", obs, integer=False)
    np.testing.assert_allclose(e.counts[:, 0], [600 / math.log(4), 800 * (-0.75) / math.log(0.25), 200])


def test_cam_changes_an_event_counted_all_the_time():
    # n = 1 still applies the exponential-rate integral: the logarithmic mean of a and b, not a
    e = est("cam", one([100, 400, 50], [10, 10, 10], [10, 10, 10]), integer=False)
    np.testing.assert_allclose(e.counts[:, 0], [300 / math.log(4), -350 / math.log(0.125), 50])


# -- windows where the event did not run -------------------------------------------------------------

GAP = dict(raw=[100, 0, 300], enabled=[20, 20, 20], running=[10, 0, 10])


@pytest.mark.parametrize("name, bridge, neompx", [
    # bridge: the neighbour of window 0 is window 2 (same running time → b = 300); window 1 filled
    # neompx: window 1's raw 0 is taken as a real zero count by its neighbours
    ("dira", [300, 400, 450], [150, 0, 450]),
    ("tam", [100, 200, 300], [100, 100, 150]),
    ("dcam", [273, 400, 301], [101, 1, 301]),
    ("cam", [364, 400, 600], [0, 0, 600]),
])
def test_interpolators_where_the_event_did_not_run(name, bridge, neompx):
    obs = one(GAP["raw"], GAP["enabled"], GAP["running"])
    b = est(name, obs)
    n = est(name, obs, gaps="neompx", fill="formula")
    np.testing.assert_array_equal(b.counts[:, 0], bridge)
    np.testing.assert_array_equal(n.counts[:, 0], neompx)
    for e in (b, n):
        assert e.not_estimated[:, 0].tolist() == [False, True, False]
    # fill="nan" leaves the gap empty under either mode
    assert np.isnan(est(name, obs, fill="nan").counts[1, 0])
    assert np.isnan(est(name, obs, gaps="neompx", fill="nan").counts[1, 0])
    with pytest.raises(ConfigError, match="formula"):
        est(name, obs, fill="formula")


def test_bridge_rescales_the_neighbour_to_this_windows_running_time():
    # window 0 ran 10 with 100 counts, window 2 ran 5 with 50: the same rate, so DIRA sees a flat ramp
    obs = one([100, 0, 50], [20, 20, 20], [10, 0, 5])
    assert est("dira", obs).counts[0, 0] == 200  # = linear 100·20/10


def test_event_that_never_ran_is_flagged_everywhere():
    obs = observation_from_reads(["x", "y"], [0, 10, 20, 30], [[5, 0], [6, 0], [7, 0]], [[10, 0]] * 3,
                                 [[10, 0]] * 3)
    assert obs.errors == {"y": "never enabled"}
    for name in ("linear", "papi", "papi_cumulative", "dira", "tam", "dcam", "cam"):
        for fill in ("nan", "zero", "carry", "interpolate"):
            e = est(name, obs, fill=fill)
            assert e.not_estimated[:, 1].all(), (name, fill)
            assert not e.not_estimated[:, 0].any()
            col = e.counts[:, 1]
            # nothing to go on: no rate exists, so only "zero" puts a number there
            assert (col == 0).all() if fill == "zero" else np.isnan(col).all(), (name, fill, col)


def test_nan_reads_are_windows_not_run():
    obs = one([100, np.nan, 300], [20, 20, 20], [10, 10, 10])
    for name in ("linear", "papi", "papi_cumulative", "dira", "tam", "dcam", "cam"):
        e = est(name, obs)
        assert e.not_estimated[1, 0], name
        assert any("non-finite" in n for n in e.notes)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_read_views_never_break_a_scaler(data):
    w = data.draw(st.integers(1, 12))
    e = data.draw(st.integers(1, 3))
    raw = np.array(data.draw(st.lists(st.integers(0, 10**6), min_size=w * e, max_size=w * e)), float).reshape(w, e)
    running = np.array(data.draw(st.lists(st.sampled_from([0.0, 2.5, 5.0, 10.0]), min_size=w * e,
                                          max_size=w * e))).reshape(w, e)
    raw[running == 0] = 0
    obs = observation_from_reads([f"e{i}" for i in range(e)], np.arange(w + 1) * 10.0, raw,
                                 np.full((w, e), 10.0), running)
    for name in ("linear", "papi", "papi_cumulative", "dira", "tam", "dcam", "cam"):
        for fixes in ({}, {"te_fix": True, "outlier_fix": True, "missing_fix": True}):
            out = est(name, obs, **fixes)
            assert out.counts.shape == (w, e)
            assert np.isfinite(out.counts[~out.not_estimated]).all()
            np.testing.assert_array_equal(out.not_estimated, (running == 0) | ~np.isfinite(out.counts))
    # where every event ran all the time, the read-window scalers but TAM and CAM return the raw counts
    # (DCAM returns 1 for a zero count: its a = 0 branch starts the growth at 1; counts here are >= 1)
    full = observation_from_reads(["a"], np.arange(w + 1) * 10.0, raw[:, :1] + 1, np.full((w, 1), 10.0),
                                  np.full((w, 1), 10.0))
    for name in ("linear", "papi", "papi_cumulative", "dira", "dcam"):
        np.testing.assert_array_equal(est(name, full).counts[:, 0], raw[:, 0] + 1, err_msg=name)


def test_integer_truncates_counts_never_times():
    # task-clock in msec, multiplexed: half the window ran; a count event beside it
    obs = observation_from_reads(["task-clock", "x"], [0, 100], [[60.38, 7.0]], [[100, 100]], [[50, 50]])
    e = est("linear", obs)
    assert e.counts[0, 0] == pytest.approx(120.76) and e.counts[0, 1] == 14.0  # perf: 120.76 msec, 14 counts
    for name in ("dira", "dcam", "tam"):
        c = est(name, obs).counts[0]
        assert c[0] != np.trunc(c[0]) and c[1] == np.trunc(c[1]), name  # the time keeps its fraction
