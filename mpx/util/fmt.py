"""Numbers for people: engineering prefixes, one home for the bench report and the figures."""

from __future__ import annotations

__all__ = ["eng"]


def eng(v: float) -> str:
    """3 significant digits with a k/M/G prefix (999,600 -> 1M, not 1e+03k)."""
    for f, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= f * 0.9995:
            return f"{v / f:.3g}{suffix}"
    return f"{v:.3g}"
