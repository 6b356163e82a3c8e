"""``mpx trace plot``: timelines, breakdowns and heat maps of ground truth (`mpx.figures.trace_view`)."""

import numpy as np
import pytest

from mpx.cli import main
from mpx.errors import ConfigError
from mpx.figures.trace_view import breakdown, family, heatmap, timeline
from mpx.trace import Trace


def vector_trace() -> Trace:
    names = ("cpu.inst::IntAlu", "cpu.inst::MemRead", "cpu.inst::Never", "cpu.inst::total", "bank::0", "bank::1",
             "cycles")
    n = 50
    t = np.arange(n)
    counts = np.stack([60 + 0 * t, 40 * (t >= 25), 0 * t, 60 + 40 * (t >= 25), t % 3, 2 + 0 * t, 100 + 0 * t], axis=1)
    return Trace(names, counts.astype(float), np.arange(n + 1) * 100.0, "cycles", meta={"workload": "toy"})


def test_family_leaves_out_the_total_and_events_that_never_count():
    assert family(vector_trace(), "cpu.inst::*") == ["cpu.inst::IntAlu", "cpu.inst::MemRead"]
    with pytest.raises(ConfigError, match="no counting event"):
        family(vector_trace(), "cpu.nothing::*")


def test_breakdown_stacks_one_area_per_part_and_heatmap_one_row_per_unit():
    fig = breakdown(vector_trace(), "cpu.inst::*", bins=10)
    assert len(fig.axes[0].collections) == 2
    fig = heatmap(vector_trace(), "bank::*", bins=10)
    img = fig.axes[0].images[0].get_array()
    assert img.shape == (2, 10)
    assert np.allclose(img[1], 0.02)          # bank::1: 2 per interval of 100 cycles, in every bin


def test_timeline_of_events_is_a_rate():
    fig = timeline(vector_trace(), ["cycles"], bins=5)
    line = fig.axes[0].lines[0]
    assert np.allclose(line.get_ydata(), 1.0)   # 100 cycles per 100-cycle interval
    with pytest.raises(ConfigError, match="not in the trace"):
        timeline(vector_trace(), ["nope"])


def test_cli_draws_and_refuses_unclear_requests(tmp_path, capsys):
    path = tmp_path / "t.npz"
    vector_trace().save(path)
    assert main(["trace", "plot", str(path), "-o", str(tmp_path / "b.png"), "--breakdown", "cpu.inst::*"]) == 0
    assert (tmp_path / "b.png").stat().st_size > 0
    assert main(["trace", "plot", str(path), "-o", str(tmp_path / "x.png")]) != 0
    assert "name what to draw" in capsys.readouterr().err
    assert main(["trace", "plot", str(path), "-o", str(tmp_path / "x.png"), "--metrics", "ipc"]) != 0
    assert "--metrics needs --catalog" in capsys.readouterr().err
