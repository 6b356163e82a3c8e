"""Layout checks of a drawn figure (issue 27): its size is the style's (`mpx.figures.style.WIDTH` wide, at
most `MAX_HEIGHT` tall) and no two of its texts overlap or leave the figure. The extents are matplotlib's
own (``Text.get_window_extent`` after the figure is drawn, as it is saved)."""

from __future__ import annotations

from typing import Any

__all__ = ["overlaps", "outside"]

#: texts closer than this (pixels at 100 dpi) count as touching, not overlapping (glyph boxes have padding)
TOL = 1.0


def _clip_ticks(fig: Any) -> set[int]:
    """ids of tick labels the axis does not draw (outside the view limits)."""
    hidden = set()
    for ax in fig.axes:
        if not ax.axison:  # ax.axis("off"): its ticks are not drawn
            hidden |= {id(t) for axis in (ax.xaxis, ax.yaxis) for t in axis.get_ticklabels(which="both")}
            continue
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not (lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo)):
                    hidden |= {id(tick.label1), id(tick.label2)}
    return hidden


def _items(fig: Any) -> list[tuple[str, Any]]:
    """Every text the figure draws, with its extent in pixels: titles, labels, tick labels, legend entries,
    annotations, captions and table cells (which ``findobj`` does not reach)."""
    from matplotlib.table import Table
    from matplotlib.text import Text

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    hidden = _clip_ticks(fig)
    found = fig.findobj(Text) + [c.get_text() for tab in fig.findobj(Table) for c in tab.get_celld().values()]
    return [(t.get_text(), t.get_window_extent(r)) for t in dict.fromkeys(found)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden
            and (t.axes is None or t.axes.get_visible())]


def overlaps(fig: Any) -> list[tuple[str, str]]:
    """Pairs of texts of ``fig`` whose extents overlap by more than `TOL` pixels each way."""
    items = _items(fig)
    bad = []
    for i, (a, ba) in enumerate(items):
        for b, bb in items[i + 1:]:
            w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
            h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            if w > TOL and h > TOL:
                bad.append((a, b))
    return bad


def outside(fig: Any) -> list[str]:
    """Texts of ``fig`` that reach past its edges (by more than `TOL` pixels)."""
    W, H = fig.bbox.width, fig.bbox.height
    return [t for t, e in _items(fig) if e.x0 < -TOL or e.y0 < -TOL or e.x1 > W + TOL or e.y1 > H + TOL]
