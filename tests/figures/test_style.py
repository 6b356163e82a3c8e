"""`mpx.figures.style.log_axis` labels any measured range without collisions: a figure of measured seconds
(`partitioner_vs_kahypar`) must not pass or fail with how busy the machine was."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mpx.figures.style import WIDTH, log_axis  # noqa: E402
from tests.figures.layout import overlaps  # noqa: E402


@pytest.mark.parametrize("lo", [0.003, 0.004, 0.005])
@pytest.mark.parametrize("decades", [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0])
def test_a_half_width_log_axis_never_collides(lo: float, decades: float) -> None:
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH, 2.0), sharey=True, layout="constrained")
    x = np.array([lo, lo * 10 ** decades])
    ax.plot([1, 1], [0, 1])
    ax2.plot(x, [0, 1], "o")
    log_axis(ax2, "x")
    try:
        assert overlaps(fig) == []
        assert len([t for t in ax2.get_xticklabels() if t.get_text()]) >= 1
    finally:
        plt.close(fig)
