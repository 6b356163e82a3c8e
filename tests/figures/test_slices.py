"""Figures never pool a varying setting (issue 12): `mpx.figures.slices.hold` keeps one value of every
setting a figure does not show and the caption names it with the values left out; causal_vs_offline splits
noise settings and schedulers into panels; error_vs_read_window draws the main scalers against read window /
rotation and says what it left out. Hand-made score tables, so every expected value is known."""

from __future__ import annotations

import itertools

import matplotlib
import pandas as pd
import pytest

from mpx.errors import ConfigError
from mpx.figures import get
from mpx.figures.slices import hold, varying
from mpx.figures.style import style

matplotlib.use("Agg")


class FakeStore:
    """What a figure reads from a results store: ``table(name, experiment)``."""

    def __init__(self, scores):
        self.scores = scores

    def table(self, name, experiment=None):
        return self.scores.copy() if name == "scores" else pd.DataFrame()


def rows(**sweep):
    """One done score row per combination of ``sweep`` (lists), 3 workloads each; window_mape grows with the
    read window so a line's points can be told apart."""
    base = {"scaler": ["linear"], "scheduler": ["perf"], "read_every": [10], "noise_rel_sigma": [0.0],
            "noise_read_overhead": [0.0], "workload": ["a", "b", "c"]}
    base.update(sweep)
    out = []
    for combo in itertools.product(*base.values()):
        r = dict(zip(base, combo))
        rot = None if r["scheduler"] == "tintin" else 10
        r.update(status="done", causal=r["scaler"] != "dira", window_mape=0.1 * r["read_every"] / 10,
                 wape_all=0.2 * r["read_every"] / 10, missing_share=0.0, counters=4, n_events=14, pmu="generic-N",
                 seed=0, experiment="x", cell_key=f"{r['workload']}-{r['scheduler']}-{r['read_every']}",
                 mean_sampling_ratio=0.3, event_windows_per_s=1e6, n_windows=10,
                 rotation_quanta=rot, read_per_rotation=None if rot is None else r["read_every"] / rot)
        out.append(r)
    return pd.DataFrame(out)


def caption(fig):
    return " ".join(" ".join(t.get_text().split()) for t in fig.texts)


def test_hold_keeps_one_value_of_each_unshown_setting():
    df = rows(read_every=[10, 18], scheduler=["perf", "round_robin"])
    df = pd.concat([df, df[df["read_every"] == 18]])  # 18 now has more rows
    assert varying(df) == {"scheduler": ["perf", "round_robin"], "read_every": [10, 18]}
    sl = hold(df)
    assert sl.held == {"scheduler": "perf", "read_every": 18}  # perf preferred; read_every: most rows
    assert set(sl.rows["read_every"]) == {18} and set(sl.rows["scheduler"]) == {"perf"}
    assert sl.left_out == {"scheduler": ["round_robin"], "read_every": [10]}
    text = sl.caption()
    assert "perf scheduler (also in the data, not shown: round_robin)" in text
    assert "read every 18 quanta (also in the data, not shown: 10)" in text and "4 counters" in text
    # shown settings are neither held nor captioned
    assert hold(df, shown=("read_every",)).held == {"scheduler": "perf"}


def test_hold_breaks_ties_at_the_lower_median_and_prefers_no_noise():
    df = rows(read_every=[2, 5, 10, 19], noise_rel_sigma=[0.0, 0.02])
    sl = hold(df)
    assert sl.held == {"read_every": 5, "noise_rel_sigma": 0.0}
    assert "no count noise (also in the data, not shown: 0.02)" in sl.caption()


def test_causal_vs_offline_splits_noise_and_schedulers_into_panels():
    style()
    df = rows(scaler=["linear", "dira"], scheduler=["perf", "tintin"], noise_rel_sigma=[0.0, 0.02],
              read_every=[10, 20])
    fig = get("causal_vs_offline").draw(FakeStore(df), None)
    titles = sorted(ax.get_title(loc="left") for ax in fig.axes)
    # 2 schedulers x 2 noise settings, never pooled: two columns of panels, titled by what differs
    assert titles == [f"{s}, noise {n} (3 workloads)" for s in ("perf", "tintin") for n in ("0", "0.02")]
    assert "read every 10 quanta (also in the data, not shown: 20)" in caption(fig)


def test_error_vs_read_window_draws_main_scalers_against_read_per_rotation():
    style()
    df = rows(scaler=["linear", "dira", "my_scaler"], scheduler=["perf", "tintin"], read_every=[5, 10, 20])
    fig = get("error_vs_read_window").draw(FakeStore(df), None)
    left = fig.axes[0]  # one row of panels: perf (tintin has no fixed rotation)
    assert len(fig.axes) == 2 and left.get_title(loc="left") == "perf scheduler"
    lines = {ln.get_label(): ln for ln in left.get_lines() if not ln.get_label().startswith("_")}
    assert set(lines) == {"linear", "dira"}
    assert list(lines["linear"].get_xdata()) == [0.5, 1.0, 2.0]  # read_every / rotation (10 quanta)
    assert list(lines["linear"].get_ydata()) == pytest.approx([10.0, 20.0, 40.0])  # WAPE (%), all windows
    text = caption(fig)
    assert "other scalers in the data, not drawn: my_scaler" in text
    assert "schedulers without a fixed rotation, not drawn: tintin" in text


def test_error_vs_read_window_needs_two_read_windows():
    with pytest.raises(ConfigError, match="at least two values of read_every"):
        get("error_vs_read_window").draw(FakeStore(rows()), None)


def test_duty_cycle_needs_two_counter_values_and_draws_every_scheduler():
    with pytest.raises(ConfigError, match="at least two values of counters"):
        get("error_vs_duty_cycle").draw(FakeStore(rows(scheduler=["perf", "round_robin"])), None)
    style()
    df = pd.concat([rows(scheduler=["perf", "round_robin"]).assign(counters=c, mean_sampling_ratio=c / 14)
                    for c in (2, 4)])
    fig = get("error_vs_duty_cycle").draw(FakeStore(df), None)
    titles = {ax.get_title(loc="left") for ax in fig.axes}
    assert {"perf scheduler", "round_robin scheduler"} <= titles  # round_robin is drawn, not dropped
