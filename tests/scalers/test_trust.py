"""The trust report of a real perf stat -I run (`mpx.scalers.trust`, `mpx estimate`): counted values stay counted,
coverage and intervals beside every value, the top-down bottleneck with its probability."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.scalers.trust import tintin_sigma

DATA = Path(__file__).resolve().parents[1] / "data" / "perfstat"


def _csv(tmp_path: Path, rows: list[tuple[float, str, float, float]]) -> Path:
    """A perf stat -I -x, file: (time, event, value, percent running); enabled 100 ms per interval."""
    lines = ["# started on Fri Nov 27 20:00:00 2026", ""]
    for t, ev, value, pct in rows:
        lines.append(f"{t:14.9f},{value:.0f},,{ev},{int(1e8 * pct / 100)},{pct:.2f},,")
    p = tmp_path / "tma.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_a_value_counted_whole_is_shown_as_counted_by_every_scaler(capsys):
    """perf printed context-switches 0 at 0.201 s with 100 % running; DCAM's a = 0 case gives 1 there."""
    assert main(["estimate", str(DATA / "real_global_comma.csv"), "--scaler", "dcam", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = next(r for r in out["rows"] if r["counter"] == "context-switches" and abs(r["time"] - 0.2006) < 1e-3)
    assert row["counted"] and row["estimate"] == 0.0 and row["scaler_estimate"] == 1.0
    assert any("shown as counted" in n for n in out["notes"])


def test_tintin_sigma_is_the_weighted_rate_spread_times_unmonitored_time():
    """Two windows measured for 1 and 3 time units at rates 10 and 20: the weighted mean is 17.5, the
    weighted population variance (1·7.5² + 3·2.5²)/4 = 18.75; window 1 was enabled 4, ran 3."""
    raw = np.array([[10.0], [60.0]])
    enabled = np.array([[2.0], [4.0]])
    running = np.array([[1.0], [3.0]])
    s = tintin_sigma(raw, enabled, running)
    assert np.isnan(s[0, 0])  # one measured window: no spread yet
    assert s[1, 0] == pytest.approx(np.sqrt(18.75) * 1.0)


def test_bottleneck_with_probability_from_the_tma_catalog(tmp_path, capsys):
    """Backend-bound slots dominate in every interval; the events rotate at 50 % coverage."""
    rows = []
    for k, t in enumerate((0.1, 0.2, 0.3, 0.4)):
        big = 1.0 + 0.05 * k
        rows += [(t, "slots_issued", 3e6 * big, 50.0), (t, "commit_num", 2.5e6 * big, 50.0),
                 (t, "slots_frontend_bound", 1e6 * big, 50.0), (t, "slots_backend_bound", 6e6 * big, 50.0)]
    path = _csv(tmp_path, rows)
    assert main(["estimate", str(path), "--scaler", "linear", "--metrics", "tma", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["interval_from"].startswith("Tintin")
    first, last = out["bottleneck"][0], out["bottleneck"][-1]
    assert first["nodes"] == [{"node": "tma_backend_bound", "probability": None}]  # one window: no spread yet
    assert last["perf"] == "tma_backend_bound"
    assert last["nodes"][0]["node"] == "tma_backend_bound"
    assert sum(n["probability"] for n in last["nodes"]) == pytest.approx(1.0)
    assert main(["estimate", str(path), "--scaler", "linear", "--metrics", "tma"]) == 0
    text = capsys.readouterr().out
    assert "bottleneck per interval" in text and "tma_backend_bound" in text
    assert max(len(line) for line in text.splitlines()) <= 120


def test_units_say_what_is_scaled_and_a_rate_is_never_scaled(tmp_path, capsys):
    """Issue 26 item 3: a value printed as a rate is not a count; an amount (msec of a clock) is scaled like one."""
    from mpx.scalers.trust import is_rate_unit

    assert is_rate_unit("M/sec") and is_rate_unit("GHz") and is_rate_unit("%")
    assert not any(is_rate_unit(u) for u in ("", "msec", "Joules", "MiB", "ns"))
    lines = ["# started on Fri Nov 27 20:00:00 2026", ""]
    for k, t in enumerate((0.1, 0.2, 0.3, 0.4)):
        on = k % 2 == 0
        lines.append(f"{t:.9f},{99.5 + k:.2f},msec,task-clock,{int(1e8)},100.00,,")
        lines.append(f"{t:.9f},{1000 * (k + 1) if on else 0},,cycles,{int(5e7) if on else 0},{50.0 if on else 0:.2f},,")
        lines.append(f"{t:.9f},{3.5 if on else 0},M/sec,sw-rate,{int(5e7) if on else 0},{50.0 if on else 0:.2f},,")
    p = tmp_path / "units.csv"
    p.write_text("\n".join(lines) + "\n")
    assert main(["estimate", str(p), "--scaler", "linear", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    notes = " ".join(out["notes"])
    assert "sw-rate [M/sec]" in notes and "a rate is not a count" in notes
    assert "values in msec" in notes
    rate = [r for r in out["rows"] if r["counter"] == "sw-rate"]
    assert all(r["estimate"] == 3.5 for r in rate if r["counted"])  # perf's 3.5, never scaled by 1/0.5


def test_trusted_interval_holds_the_count_and_the_extrapolation():
    """Issue 38: a DCAM band of +-0.03 % around 23,149,086 where perf extrapolated 44,812 from what it counted
    (a program that started between two reads) must reach down to perf's value, and a Tintin band reaching
    below the count already seen (or below 0) starts at that count."""
    import numpy as np

    from mpx.scalers.trust import previous_rate_count, trusted_interval

    est = np.array([[23_149_086.0, 100.0]])
    lo, hi = trusted_interval(est, est - [[6_396, 300]], est + [[6_396, 300]], [[30_000.0, 60.0]], [[44_812.0, 120.0]])
    assert lo.tolist() == [[44_812.0, 60.0]] and hi.tolist() == [[23_155_482.0, 400.0]]
    lo, hi = trusted_interval(est, [[np.nan, -5.0]], [[np.nan, 150.0]], [[30_000.0, 0.0]], [[44_812.0, 120.0]])
    assert np.isnan(lo[0, 0]) and np.isnan(hi[0, 0]) and lo[0, 1] == 0.0 and hi[0, 1] == 150.0
    # the previous window's rate over this window's unseen time: 10/s x 50 s not running + 7 counted
    prev = previous_rate_count([[100.0], [7.0]], [[100.0], [60.0]], [[10.0], [10.0]])
    assert np.isnan(prev[0, 0]) and prev[1, 0] == 7.0 + 10.0 * 50.0


def test_following_rate_holds_a_phase_change_the_reads_saw():
    """At a window whose measured rates before and after differ by more than 2x (a phase change the reads saw),
    the interval holds the count the next measured rate gives its unseen time; steady windows keep their band."""
    import numpy as np

    from mpx.scalers.trust import following_rate_count, trusted_interval

    # one counter, four windows of 100 s: rates 1/s, (counted 10 in 10 s), 50/s, then 60/s (no phase change)
    raw, ena, run = [[100.0], [10.0], [5000.0], [600.0]], [[100.0]] * 4, [[100.0], [10.0], [100.0], [10.0]]
    nxt = following_rate_count(raw, ena, run)
    assert nxt[1, 0] == 10.0 + 50.0 * 90.0  # 1/s before, 50/s after: a change; 90 s unseen at 50/s
    assert np.isnan(nxt[0, 0]) and np.isnan(nxt[3, 0])  # nothing before / nothing after
    assert np.isnan(following_rate_count([[100.0], [10.0], [120.0]], [[100.0]] * 3, [[100.0], [10.0], [100.0]])[1, 0])
    est = np.array([[100.0]])
    lo, hi = trusted_interval(est, est - 5, est + 5, [[10.0]], [[100.0]], [[100.0]], nxt[1:2])
    assert lo[0, 0] == 95.0 and hi[0, 0] == 4_510.0


def test_recent_sigma_keeps_the_spread_of_the_last_measured_windows():
    """Issue 38 item 4: a busy start (rate 100) then a steady phase (rates 10, 12, 10, 12), each window enabled 2
    and running 1. Over the last 2 measured windows the rates 10 and 12 have mean 11 and variance 1: sigma = 1 x 1
    time unit not running. Tintin's all-history variance keeps the start: mean 244/6, variance 20,488/6 - (244/6)^2,
    sigma about 42. Time-weighted as Tintin's: rates 10 and 20 measured for 1 and 3 give 18.75; windows that did
    not run are not counted among the last k; a window as long as the run is Tintin's rule itself."""
    from mpx.scalers.trust import RECENT_WINDOWS, recent_sigma

    raw = np.array([[100.0], [100.0], [10.0], [12.0], [10.0], [12.0]])
    ena, run = np.full((6, 1), 2.0), np.ones((6, 1))
    recent, full = recent_sigma(raw, ena, run, 2), tintin_sigma(raw, ena, run)
    assert np.isnan(recent[0, 0]) and np.isnan(full[0, 0])
    assert recent[5, 0] == pytest.approx(1.0)
    assert full[5, 0] == pytest.approx(np.sqrt(20_488 / 6 - (244 / 6) ** 2))
    assert recent[2, 0] == pytest.approx(45.0)  # rates 100 and 10: the change itself is in the window
    assert recent_sigma(raw, ena, run, 6) == pytest.approx(full, nan_ok=True)
    weighted = recent_sigma([[50.0], [10.0], [0.0], [60.0]], [[2.0], [2.0], [4.0], [4.0]],
                            [[1.0], [1.0], [0.0], [3.0]], 2)
    assert weighted[3, 0] == pytest.approx(np.sqrt(18.75) * 1.0)  # windows 1 and 3: window 2 did not run
    assert weighted[2, 0] == pytest.approx(20.0 * 4.0)  # not run: rates 50 and 10 of windows 0-1, 4 units unseen
    with pytest.raises(ValueError, match="at least 2"):
        recent_sigma(raw, ena, run, 1)
    assert RECENT_WINDOWS >= 2


def test_printed_band_is_narrower_in_a_steady_phase_and_still_never_below_counted(tmp_path):
    """perf stat -I at 50 % running (ran 50 ms of 100 ms): 1,000,000 per interval three times, then 100,000 and
    120,000 in turn (rates 1e-2 then 1e-3 and 1.2e-3 per ns). Linear's estimate is perf's value.
    Last interval, band from the last 2 measured windows: sigma = 1e-4 x 5e7 ns = 5,000, so 120,000 +- 1.645 x
    5,000, its lower end held down to 110,000, the previous rate's count (60,000 counted + 1e-3 x 5e7; rule 3).
    With every window (Tintin's rule) sigma is about 216,000 and the band stops only at the 60,000 counted.
    At the phase change (fourth interval) the recent band still spans it: from the 50,000 counted up to 550,000,
    the count at the previous rate (rule 3)."""
    from mpx import scalers
    from mpx.observation import Observation
    from mpx.readers.perfstat import read_perf_stat
    from mpx.scalers.trust import trust_report

    values = [1e6, 1e6, 1e6, 1e5, 1e5, 1.2e5, 1e5, 1.2e5]
    run = read_perf_stat(_csv(tmp_path, [(0.1 * (t + 1), "cycles", v, 50.0) for t, v in enumerate(values)]))
    est = scalers.get("linear").estimate(Observation.from_read_view(run.read_view(), meta={"workload": "t"}))
    recent, full = trust_report(run, est, window=2), trust_report(run, est, window=len(values))
    z = 1.6448536269514722
    assert recent.lo[7, 0] == pytest.approx(110_000.0) and recent.hi[7, 0] == pytest.approx(120_000 + z * 5_000)
    assert full.lo[7, 0] == pytest.approx(60_000.0) and full.hi[7, 0] > 120_000 + z * 200_000
    assert recent.hi[7, 0] - recent.lo[7, 0] < (full.hi[7, 0] - full.lo[7, 0]) / 10
    assert np.all(recent.lo[1:, 0] >= np.asarray(values[1:]) / 2 - 0.5)  # never below what was counted
    assert recent.lo[3, 0] == pytest.approx(50_000.0) and recent.hi[3, 0] == pytest.approx(550_000.0)
    assert "last 2 measured windows" in recent.interval_from
