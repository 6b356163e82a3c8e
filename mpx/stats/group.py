"""The stats hierarchy: `StatGroup` nodes holding stats and child groups (one per simulator module)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mpx.stats.stat import (AnyStat, Distribution, Formula, Number, Scalar, Stat, StatsError, Vector,
                            check_name, join_name)

_structure_version = 0
"""Bumped whenever any group gains a stat or a child, so a dumper re-walks the tree only after a change."""


def _bump() -> None:
    global _structure_version
    _structure_version += 1


def structure_version() -> int:
    """A number that changes whenever any group gains a stat or a child (dumpers re-walk the tree then)."""
    return _structure_version


class StatGroup:
    """A named node of the stats hierarchy, holding stats and child groups (one per simulator module)."""

    def __init__(self, name: str, parent: StatGroup | None = None, desc: str = "") -> None:
        if name != "" or parent is not None:
            check_name(name, "group")
        self.name = name
        self.desc = desc
        self.parent: StatGroup | None = None
        self._stats: dict[str, AnyStat] = {}
        self._children: dict[str, StatGroup] = {}
        if parent is not None:
            parent.add_child(self)

    # -- structure ---------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """Dotted name of this group from the root (``""`` for an unnamed root)."""
        return self.name if self.parent is None else join_name(self.parent.path, self.name)

    @property
    def stats(self) -> dict[str, AnyStat]:
        """This group's own stats by short name (a copy)."""
        return dict(self._stats)

    @property
    def children(self) -> dict[str, StatGroup]:
        """Child groups by name (a copy)."""
        return dict(self._children)

    def _claim(self, name: str, what: str) -> None:
        if name in self._stats or name in self._children:
            raise StatsError(f"duplicate name {join_name(self.path, name)!r}: this group already has a "
                             f"{'stat' if name in self._stats else 'child group'} of that name ({what})")

    def add_child(self, child: StatGroup) -> StatGroup:
        """Attach an existing parentless group as a child; returns it."""
        if child.parent is not None:
            raise StatsError(f"group {child.path!r} already has a parent")
        if child is self or child._is_ancestor_of(self):
            raise StatsError(f"group {child.name!r} cannot be its own descendant")
        check_name(child.name, "group")
        self._claim(child.name, "group")
        child.parent = self
        self._children[child.name] = child
        _bump()
        return child

    def _is_ancestor_of(self, other: StatGroup) -> bool:
        node = other.parent
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def group(self, name: str, desc: str = "") -> StatGroup:
        """Create and attach a child group."""
        return StatGroup(name, parent=self, desc=desc)

    def add(self, stat: AnyStat) -> AnyStat:
        """Register an existing stat object in this group; returns it."""
        if not isinstance(stat, Stat):
            raise StatsError(f"not a stat: {stat!r}")
        if stat._group is not None:
            raise StatsError(f"stat {stat.full_name!r} already belongs to a group")
        self._claim(stat.name, stat.kind)
        stat._group = self
        self._stats[stat.name] = stat
        _bump()
        return stat

    # -- factories (the seed's ``group.scalar(name, desc)`` style) ---------------------------------

    def scalar(self, name: str, desc: str = "", *, unit: str | None = None, additive: bool = True) -> Scalar:
        """Create and register a `Scalar`."""
        return self.add(Scalar(name, desc, unit=unit, additive=additive))  # type: ignore[return-value]

    def vector(
        self, name: str, desc: str = "", *, unit: str | None = None, labels: Iterable[str] = (),
        additive: bool = True,
    ) -> Vector:
        """Create and register a `Vector`."""
        return self.add(Vector(name, desc, unit=unit, labels=labels, additive=additive))  # type: ignore[return-value]

    def distribution(
        self, name: str, desc: str = "", edges: Iterable[float] = (), *, unit: str | None = None
    ) -> Distribution:
        """Create and register a `Distribution` with bucket ``edges``."""
        return self.add(Distribution(name, desc, edges=edges, unit=unit))  # type: ignore[return-value]

    def formula(
        self, name: str, desc: str, fn: Callable[[], Number], *, unit: str | None = None, additive: bool = False
    ) -> Formula:
        """Create and register a `Formula` computing ``fn()`` at each dump."""
        return self.add(Formula(name, desc, fn, unit=unit, additive=additive))  # type: ignore[return-value]

    # -- traversal, dump, reset --------------------------------------------------------------------

    def walk(self) -> Iterator[tuple[str, AnyStat]]:
        """(flattened name, stat) of every stat below this group: own stats in declaration order, then
        each child group's, depth first."""
        for stat in self._stats.values():
            yield stat.full_name, stat
        for child in self._children.values():
            yield from child.walk()

    def __getitem__(self, path: str) -> AnyStat:
        """A stat by dotted path relative to this group (``group["core0.tiu.cmd_count"]``)."""
        head, _, rest = path.partition(".")
        if rest:
            if head not in self._children:
                raise KeyError(f"no child group {head!r} in {self.path or '<root>'!r}")
            return self._children[head][rest]
        if head not in self._stats:
            raise KeyError(f"no stat {head!r} in {self.path or '<root>'!r}")
        return self._stats[head]

    def dump(self) -> dict[str, Any]:
        """``{flattened name: value}`` of every stat below this group (formulas evaluated now);
        changes nothing."""
        return {name: stat.dump() for name, stat in self.walk()}

    def reset(self) -> None:
        """Zero every counter of this group and of all descendants (formulas follow at the next dump)."""
        for stat in self._stats.values():
            stat.reset()
        for child in self._children.values():
            child.reset()

    def __repr__(self) -> str:
        return f"StatGroup({self.path!r}: {len(self._stats)} stats, {len(self._children)} children)"
