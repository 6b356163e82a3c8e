"""The top-down hierarchy a metric catalog declares: which metrics are level-1 nodes and which level-2
nodes sit under each — what a *verdict* ("the bottleneck is Backend Bound, then Memory Bound") is read from.

The convention is Intel's, as its perf JSON files write it (``tools/perf/pmu-events/arch/x86/*/
*-metrics.json``, e.g. ``"MetricGroup": "Frontend;TopdownL2;tma_L2_group;tma_frontend_bound_group"``): a
node of level *k* is a metric in the group ``TopdownL<k>`` whose scale unit is ``100%`` (a share of the
slots; ``tma_slots`` itself is in ``TopdownL1`` but is a count), and its parent is the level-(*k*-1) node
``P`` whose group ``P_group`` it is in. The gem5 catalog (``mpx/metrics/builtin/gem5.toml``) follows the
same convention. A catalog without ``TopdownL1`` shares declares no hierarchy (`TopDown.from_catalog` is
None).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TopDown"]

#: the scale unit of a share of the slots
SHARE_UNIT = "100%"


@dataclass(frozen=True)
class TopDown:
    """Level-1 nodes, and the level-2 children of each (in catalog order)."""

    level1: tuple[str, ...]
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every node, level 1 first."""
        return self.level1 + tuple(c for p in self.level1 for c in self.children.get(p, ()))

    @classmethod
    def from_catalog(cls, catalog: Any) -> TopDown | None:
        """The hierarchy ``catalog`` declares (module docstring), or None when it declares none."""
        def level(k: int) -> list[Any]:
            return [m for m in catalog.metrics.values()
                    if f"TopdownL{k}" in m.groups and (m.scale_unit or "").replace(" ", "") == SHARE_UNIT]

        top = [m.name for m in level(1)]
        if len(top) < 2:
            return None
        children = {p: tuple(m.name for m in level(2) if f"{p}_group" in m.groups) for p in top}
        return cls(tuple(top), {p: c for p, c in children.items() if c})
