"""A PMU as a short text table (`mpx.pmu.PMU.describe`)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["describe"]


def describe(pmu: Any) -> str:
    """A short text table of ``pmu``: units with the same layout share a row; then fixed bindings and
    masks (at most 40), then reserved counters."""
    head = f"PMU {pmu.name}" + (f": {pmu.description}" if pmu.description else "")
    groups: dict[Any, list[Any]] = {}
    for u in pmu.units:
        res = tuple(c.name for c in (*u.fixed, *u.generic) if c in pmu.reserved)
        layout = (tuple(c.name for c in u.fixed), tuple(c.name for c in u.generic), u.fixed_events, u.masks, res)
        groups.setdefault(layout, []).append(u)
    rows = [("unit", "fixed", "generic", "masks", "reserved")]
    bindings: list[str] = []
    masks: list[str] = []
    for (fixed, generic, fixed_events, umasks, res), us in groups.items():
        label = us[0].name if len(us) == 1 else f"{us[0].name} .. {us[-1].name} ({len(us)} units)"
        rows.append((label, _span(list(fixed)), _span(list(generic)), str(len(umasks)), ",".join(res) or "-"))
        where = us[0].name if len(us) == 1 else "(each)"
        for c in fixed:
            evs = [ev for ev, cn in fixed_events if cn == c]
            bindings.append(f"  {where}/{c}: {', '.join(evs) or '(no event bound)'}")
        masks += [f"  {where}: {ev} -> {_span(list(ctrs))}" for ev, ctrs in umasks]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [head] + ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    if bindings:
        lines += ["fixed counters:"] + bindings
    if masks:
        lines += ["masks:"] + (masks if len(masks) <= 40 else masks[:40] + [f"  ... {len(masks) - 40} more"])
    if pmu.reserved:
        lines.append("reserved: " + ", ".join(sorted(str(c) for c in pmu.reserved)))
    return "\n".join(lines)


def _span(names: list[str]) -> str:
    """``gp0..gp7`` for a run of numbered names, else the names joined by commas."""
    if not names:
        return "-"
    m = [re.fullmatch(r"(.*?)(\d+)", n) for n in names]
    if len(names) > 2 and all(m) and len({x.group(1) for x in m}) == 1:
        nums = [int(x.group(2)) for x in m]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return f"{names[0]}..{names[-1]}"
    return ",".join(names)
