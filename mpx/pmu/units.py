"""Counters and units: the parts a `~mpx.pmu.PMU` is made of (see `mpx.pmu.model` for the schema)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpx.errors import ConfigError
from mpx.pmu.files import check_name

__all__ = ["FIXED", "GENERIC", "KINDS", "Counter", "UncountableEventError", "Unit"]

FIXED = "fixed"
GENERIC = "generic"
KINDS = (FIXED, GENERIC)

GLOB_CHARS = frozenset("*?[")
"""Characters that make a mask key a shell-style pattern."""
_MAX_COUNTERS = 1024  # per unit; x86 has X86_PMC_IDX_MAX = 64 counter indices in all


class UncountableEventError(ConfigError):
    """An event can never be counted on this PMU (unknown unit, no allowed counter left, ...)."""


@dataclass(frozen=True)
class Counter:
    """One hardware counter: its name, kind (``"fixed"`` or ``"generic"``), unit and index in the unit.

    ``str(counter)`` is ``"unit/name"``, the form used in ``reserved`` lists.
    """

    name: str
    kind: str
    unit: str
    index: int

    def __str__(self) -> str:
        return f"{self.unit}/{self.name}"

    @property
    def sort_key(self) -> tuple[str, int, int]:
        return (self.unit, KINDS.index(self.kind), self.index)


@dataclass(frozen=True)
class Unit:
    """One perf PMU: fixed counters with their bound events, generic counters, event masks.

    ``fixed_events`` holds ``(event, fixed counter name)`` pairs; ``masks`` holds
    ``(event or pattern, generic counter names)`` pairs in declaration order. Build one with
    `Unit.make`, which validates.
    """

    name: str
    fixed: tuple[Counter, ...]
    generic: tuple[Counter, ...]
    fixed_events: tuple[tuple[str, str], ...]
    masks: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def make(
        cls,
        name: str,
        generic: int | Sequence[str],
        fixed: Mapping[str, Sequence[str]],
        masks: Mapping[str, Sequence[str]] | None = None,
        *,
        where: str = "<unit>",
    ) -> Unit:
        """Build and validate a unit; ``where`` prefixes error messages (file and key)."""
        check_name(name, f"{where}: unit name")
        if isinstance(generic, bool) or not isinstance(generic, (int, list, tuple)):
            raise ConfigError(f"{where}.generic: expected a count or a list of counter names, got {generic!r}")
        if isinstance(generic, int):
            if not 0 <= generic <= _MAX_COUNTERS:
                raise ConfigError(f"{where}.generic: {generic} counters is not a plausible unit (0..{_MAX_COUNTERS})")
            generic_names = [f"gp{i}" for i in range(generic)]
        else:
            generic_names = list(generic)
            for g in generic_names:
                check_name(g, f"{where}.generic: counter name")
        if not isinstance(fixed, Mapping):
            raise ConfigError(f"{where}.fixed: expected a table fixed counter → list of events, got {fixed!r}")
        names = list(fixed) + generic_names
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ConfigError(f"{where}: duplicate counter name(s) {', '.join(dup)}")
        fixed_ctrs = tuple(Counter(n, FIXED, name, i) for i, n in enumerate(fixed))
        generic_ctrs = tuple(Counter(n, GENERIC, name, i) for i, n in enumerate(generic_names))
        bound: dict[str, str] = {}
        for cname, events in fixed.items():
            check_name(cname, f"{where}.fixed: counter name")
            if isinstance(events, str) or not isinstance(events, (list, tuple)):
                raise ConfigError(f"{where}.fixed.{cname}: expected a list of event names, got {events!r}")
            for ev in events:
                if not isinstance(ev, str) or not ev:
                    raise ConfigError(f"{where}.fixed.{cname}: event names must be non-empty strings, got {ev!r}")
                if any(ch in GLOB_CHARS for ch in ev):
                    raise ConfigError(f"{where}.fixed.{cname}: fixed bindings take exact names, not patterns ({ev!r})")
                if ev in bound:
                    raise ConfigError(
                        f"{where}.fixed: event {ev!r} is bound to two fixed counters ({bound[ev]}, {cname})"
                    )
                bound[ev] = cname
        mask_items: list[tuple[str, tuple[str, ...]]] = []
        masks = {} if masks is None else masks
        if not isinstance(masks, Mapping):
            raise ConfigError(f"{where}.masks: expected a table event → list of generic counters, got {masks!r}")
        gset = set(generic_names)
        for ev, ctrs in masks.items():
            key = f"{where}.masks.{ev!r}"
            if not isinstance(ev, str) or not ev:
                raise ConfigError(f"{where}.masks: event names must be non-empty strings, got {ev!r}")
            if ev in bound:
                raise ConfigError(
                    f"{key}: {ev!r} is bound to fixed counter {bound[ev]}; a mask lists generic counters only"
                )
            if isinstance(ctrs, str) or not isinstance(ctrs, (list, tuple)) or not ctrs:
                raise ConfigError(f"{key}: expected a non-empty list of generic counter names, got {ctrs!r}")
            for c in ctrs:
                if not isinstance(c, str):
                    raise ConfigError(f"{key}: counter names are strings, got {c!r}")
                if c in fixed:
                    raise ConfigError(
                        f"{key}: {c!r} is a fixed counter; bind fixed events under 'fixed', masks name generic counters"
                    )
                if c not in gset:
                    known = ", ".join(generic_names) or "none"
                    raise ConfigError(f"{key}: unknown counter {c!r} (generic counters: {known})")
            if len(set(ctrs)) != len(ctrs):
                raise ConfigError(f"{key}: a counter is listed twice in {list(ctrs)}")
            mask_items.append((ev, tuple(ctrs)))
        return cls(name, fixed_ctrs, generic_ctrs, tuple(sorted(bound.items())), tuple(mask_items))

    def to_dict(self) -> dict[str, Any]:
        fixed: dict[str, list[str]] = {c.name: [] for c in self.fixed}
        for ev, cname in self.fixed_events:
            fixed[cname].append(ev)
        return {
            "generic": [c.name for c in self.generic],
            "fixed": fixed,
            "masks": {ev: list(ctrs) for ev, ctrs in self.masks},
        }
