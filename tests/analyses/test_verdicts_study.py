"""The verdict study's constant-verdict tables (experiments/analyses/verdicts.py, issue 34) on hand-made rows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "analyses" / "verdicts.py"
_spec = importlib.util.spec_from_file_location("verdicts_study", SCRIPT)
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)


def _row(w, sched, scaler, l1, contested, const=None, const_c=None):
    return {"counters": 4, "workload": w, "scheduler": sched, "scaler": scaler, "verdict_l1_agreement": l1,
            "verdict_l2_agreement": l1, "verdict_l1_serious": 0.0, "verdict_no_verdict": 0.0,
            "verdict_contested_share": 0.2, "verdict_l1_contested": contested, "verdict_const_l1": const,
            "verdict_const_l1_contested": const_c}


def test_a_row_beats_the_constant_only_with_an_interval_over_two_programs_or_more():
    """perf + linear's constant is right on 50 % of the contested windows of w1 and w2; DCAM on 80 % and 90 %
    (+30 and +40 points: yes); on one program alone (w3 only) no row is said to beat it."""
    rows = [_row("w1", "perf", "linear", 0.0, 0.0, 0.8, 0.5), _row("w2", "perf", "linear", 0.0, 0.0, 0.9, 0.5),
            _row("w1", "round_robin", "dcam", 0.9, 0.8), _row("w2", "round_robin", "dcam", 0.95, 0.9)]
    md = study.markdown(rows, "HEADER")
    assert md.startswith("HEADER\n| counters |")
    assert "| 4 | perf | constant (linear's whole-run verdict) | 85.0 % [80.0, 90.0] |" in md
    assert "yes (+35.0 points [+30.0, +40.0], 2 of 2 programs)" in md
    assert "no (-50.0 points [-50.0, -50.0], 2 of 2 programs)" in md     # linear: no verdict at all
    one = [_row("w3", "perf", "linear", 0.0, 0.0, 0.8, 0.5), _row("w3", "round_robin", "dcam", 0.9, 0.9)]
    assert "not shown (+40.0 points [+40.0, +40.0], 1 of 1 programs)" in study.markdown(one, "")
    assert "* (1)" in study.constant_table(one)
