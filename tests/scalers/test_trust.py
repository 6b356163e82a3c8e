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
