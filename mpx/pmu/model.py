"""The PMU model: which counters exist and which events may go on which counter.

A `PMU` is a set of *units* (perf PMUs: the core ``cpu`` PMU, an uncore PMU such as ``ali_drw_21000``).
Each unit has **fixed counters** (each bound to the events it can count, e.g. ``INST_RETIRED.ANY`` on
Intel fixed counter 0), **generic counters** (programmable), and per-event **masks** (the generic
counters an event may use; an event without a mask may use any generic counter of its unit). Some
counters can be **reserved** by someone else (the NMI watchdog, see `PMU.with_nmi_watchdog`).

Whether a set of events fits in one quantum is a bipartite matching, events → allowed, unreserved
counters (`PMU.assign`, `PMU.fits`; the placement rules live in `mpx.pmu.placement`). The Linux x86
kernel does *not* solve that matching: it assigns greedily (`method="perf"`), see `PMU.assign` for the
algorithm, its source and an example where it fails although a matching exists.

Hardware descriptions are TOML files with the schema below (the presets live in ``mpx/data/pmu/``).
There are no silent defaults for hardware parameters: a missing key is a `ConfigError` naming the key
and the file. ::

    name = "skylake"                      # required
    description = "..."                   # optional text
    sources = ["...", "..."]              # optional: where the numbers come from
    reserved = ["cpu/gp0"]                # optional: counters held by someone else ("unit/counter")
    default_unit = "cpu"                  # optional: unit of events without a "unit/event/" prefix
    event_units = { "hif_rd" = "ali_drw_21000" }   # optional: unit of individual events

    [units.cpu]
    generic = 4                           # required: a count (names gp0..gp3) or a list of names
    fixed = { fixed0 = ["INST_RETIRED.ANY"], fixed1 = ["CPU_CLK_UNHALTED.THREAD"] }   # required, may be {}
    masks = { "INST_RETIRED.PREC_DIST" = ["gp1"], "MEM_LOAD_RETIRED.*" = ["gp0", "gp1", "gp2", "gp3"] }
    instances = ["..."]                   # optional: replicate this unit under each of these names

Mask keys are event names or shell-style patterns (``*``, ``?``, ``[...]``); an exact name wins over
patterns, patterns are tried in file order, and a fixed binding wins over any pattern.

Which unit an event belongs to: a perf-style ``unit/event/`` name (``ali_drw_21000/hif_rd/``), else
``event_units``, else the only unit, else ``default_unit``; otherwise the event is an error.

Modelled only when the fixed counter is *reserved* (the NMI watchdog's cycles, `with_nmi_watchdog`): the
kernel's fallback of a cycles/instructions event onto a generic counter (x86
``intel_pmu_check_event_constraints`` widens their fixed constraints; arm64 ``armv8pmu_get_event_idx``
likewise for the cycle counter). Not modelled: the same fallback when the fixed counter is merely busy —
here two events bound to the same fixed counter exclude each other; shared extra registers (two OFFCORE_RESPONSE MSRs on Intel); Intel's
HT-exclusive counter workaround (``gpmax``); arm64 chained 64-bit events (counter pairs).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpx.errors import ConfigError
from mpx.pmu.describe import describe
from mpx.pmu.files import read_toml, required_key, str_list
from mpx.pmu.perfjson import counter_fields
from mpx.pmu.placement import place_greedy, place_matching
from mpx.pmu.units import FIXED, GENERIC, GLOB_CHARS, KINDS, Counter, UncountableEventError, Unit

__all__ = ["PMU"]

#: a perf-style event name ``unit/event/`` with optional trailing modifiers (``cpu/event/u``)
_PREFIXED = re.compile(r"^([A-Za-z0-9_.\-]+)/(.+)/([A-Za-z]*)$")
_CYCLES_NAMES = ("cycles", "cpu-cycles", "CPU_CYCLES", "cpu_cycles", "CPU_CLK_UNHALTED.THREAD")
"""Names of the core cycles event, whose fixed counter the NMI watchdog's cycles event takes."""

_TOP_KEYS = ("name", "description", "sources", "units", "reserved", "default_unit", "event_units")
_UNIT_KEYS = ("generic", "fixed", "masks", "instances")
_CACHE_MAX = 1 << 17  # entries per PMU before the assignment cache is cleared


@dataclass(frozen=True)
class _EventInfo:
    unit: str
    name: str  # the event name inside its unit (without a perf-style prefix)
    fixed: Counter | None
    allowed: tuple[Counter, ...]  # unreserved counters, by index
    weight: int  # perf's constraint weight: size of the static mask, reserved counters included


class PMU:
    """A named set of units and counters, with feasibility checks; immutable and hashable.

    Equality and hash cover the hardware model (name, units, masks, reserved counters, event → unit
    rules), not the free-text ``description`` and ``sources``.
    """

    __slots__ = (
        "name", "description", "sources", "units", "reserved", "default_unit", "event_units", "resized_from",
        "_unit", "_counter", "_fixed_of", "_exact", "_patterns", "_info", "_cache", "_key",
    )

    def __init__(
        self,
        name: str,
        units: Sequence[Unit],
        *,
        description: str = "",
        sources: Sequence[str] = (),
        reserved: Iterable[Counter | str] = (),
        default_unit: str | None = None,
        event_units: Mapping[str, str] | None = None,
        where: str = "<pmu>",
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}: 'name' must be a non-empty string, got {name!r}")
        if not units:
            raise ConfigError(f"{where}: a PMU needs at least one unit")
        self.name = name
        self.resized_from: PMU | None = None  # set by `with_generic_counters` on its copy
        self.description = description
        self.sources = tuple(sources)
        self.units = tuple(units)
        self._unit = {}
        for u in self.units:
            if u.name in self._unit:
                raise ConfigError(f"{where}: duplicate unit name {u.name!r}")
            self._unit[u.name] = u
        self._counter = {(c.unit, c.name): c for u in self.units for c in (*u.fixed, *u.generic)}
        self.reserved = frozenset(self._counter_ref(r, where, "reserved") for r in reserved)
        if default_unit is not None and default_unit not in self._unit:
            raise ConfigError(f"{where}: default_unit {default_unit!r} is not a unit ({', '.join(self._unit)})")
        self.default_unit = default_unit
        event_units = dict(event_units or {})
        for ev, un in event_units.items():
            if un not in self._unit:
                raise ConfigError(f"{where}: event_units.{ev!r} names unknown unit {un!r} ({', '.join(self._unit)})")
        self.event_units = event_units
        for u in self.units:
            for ev, cn in u.fixed_events:
                c = self._counter.get((u.name, cn))
                if c is None or c.kind != FIXED:
                    raise ConfigError(f"{where}: unit {u.name!r}: event {ev!r} is bound to {cn!r}, not a fixed counter")
        self._fixed_of = {
            u.name: {ev: self._counter[(u.name, cn)] for ev, cn in u.fixed_events} for u in self.units
        }
        self._exact: dict[str, dict[str, tuple[Counter, ...]]] = {}
        self._patterns: dict[str, list[tuple[str, tuple[Counter, ...]]]] = {}
        for u in self.units:
            exact: dict[str, tuple[Counter, ...]] = {}
            pats: list[tuple[str, tuple[Counter, ...]]] = []
            for ev, cnames in u.masks:
                missing = [c for c in cnames if (u.name, c) not in self._counter]
                if missing:
                    raise ConfigError(f"{where}: unit {u.name!r}: mask of {ev!r} names unknown counter(s) {missing}")
                ctrs = tuple(sorted((self._counter[(u.name, c)] for c in cnames), key=lambda c: c.index))
                if any(ch in GLOB_CHARS for ch in ev):
                    pats.append((ev, ctrs))
                else:
                    exact[ev] = ctrs
            self._exact[u.name] = exact
            self._patterns[u.name] = pats
        self._info: dict[str, _EventInfo] = {}
        self._cache: dict[Any, dict[str, Counter] | None] = {}
        self._key = (
            self.name,
            tuple((u.name, tuple(c.name for c in u.fixed), tuple(c.name for c in u.generic), u.fixed_events, u.masks)
                  for u in self.units),
            tuple(sorted(str(c) for c in self.reserved)),
            self.default_unit,
            tuple(sorted(self.event_units.items())),
        )

    # ---- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | os.PathLike | None = None) -> PMU:
        """A PMU from the TOML schema (module docstring) as a dict; ``source`` names it in errors.

        The way to describe hardware in code (``mpx.pmu.preset(name)`` gives the shipped ones,
        `PMU.from_file` reads the same schema from TOML), e.g. 4 programmable counters and a fixed
        cycle counter, one event restricted to the first two::

            pmu = PMU.from_dict({"name": "toy", "units": {"cpu": {
                "generic": 4, "fixed": {"fixed0": ["cycles"]}, "masks": {"l2_miss": ["gp0", "gp1"]}}}})
            pmu.fits(["cycles", "l2_miss", "a", "b", "c"])   # True: cycles on fixed0, four on gp0..gp3
        """
        src = "<dict>" if source is None else os.fspath(source)
        if not isinstance(data, Mapping):
            raise ConfigError(f"{src}: a PMU description is a table, got {type(data).__name__}")
        unknown = sorted(set(data) - set(_TOP_KEYS))
        if unknown:
            raise ConfigError(f"{src}: unknown key(s) {', '.join(map(repr, unknown))} (known: {', '.join(_TOP_KEYS)})")
        name = required_key(data, "name", src)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{src}: key 'name' must be a non-empty string, got {name!r}")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise ConfigError(f"{src}: key 'description' must be a string, got {description!r}")
        sources = str_list(data.get("sources", []), src, "sources")
        units_tbl = required_key(data, "units", src)
        if not isinstance(units_tbl, Mapping) or not units_tbl:
            raise ConfigError(f"{src}: key 'units' must be a non-empty table of units, got {units_tbl!r}")
        units: list[Unit] = []
        for label, tbl in units_tbl.items():
            key = f"units.{label}"
            if not isinstance(tbl, Mapping):
                raise ConfigError(f"{src}: key '{key}' must be a table, got {tbl!r}")
            bad = sorted(set(tbl) - set(_UNIT_KEYS))
            if bad:
                listed = ", ".join(f"{key}.{b}" for b in bad)
                raise ConfigError(f"{src}: unknown key(s) {listed} (known: {', '.join(_UNIT_KEYS)})")
            generic = required_key(tbl, "generic", src, key)
            fixed = required_key(tbl, "fixed", src, key)
            instances = str_list(tbl.get("instances", [label]), src, f"{key}.instances")
            if not instances:
                raise ConfigError(f"{src}: key '{key}.instances' is empty")
            for inst in instances:
                units.append(Unit.make(inst, generic, fixed, tbl.get("masks"), where=f"{src}: {key}"))
        reserved = str_list(data.get("reserved", []), src, "reserved")
        default_unit = data.get("default_unit")
        if default_unit is not None and not isinstance(default_unit, str):
            raise ConfigError(f"{src}: key 'default_unit' must be a string, got {default_unit!r}")
        event_units = data.get("event_units", {})
        if not isinstance(event_units, Mapping) or not all(isinstance(v, str) for v in event_units.values()):
            raise ConfigError(f"{src}: key 'event_units' must be a table event → unit name, got {event_units!r}")
        return cls(name, units, description=description, sources=sources, reserved=reserved,
                   default_unit=default_unit, event_units=event_units, where=src)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> PMU:
        """A PMU from a TOML file with the schema of the module docstring."""
        return cls.from_dict(read_toml(path), source=path)

    def to_dict(self) -> dict[str, Any]:
        """The TOML schema as a dict (units written out one by one); ``from_dict`` reads it back."""
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        if self.sources:
            out["sources"] = list(self.sources)
        if self.reserved:
            out["reserved"] = sorted(str(c) for c in self.reserved)
        if self.default_unit is not None:
            out["default_unit"] = self.default_unit
        if self.event_units:
            out["event_units"] = dict(self.event_units)
        out["units"] = {u.name: u.to_dict() for u in self.units}
        return out

    def _replace(self, **changes: Any) -> PMU:
        kw: dict[str, Any] = dict(
            description=self.description, sources=self.sources, reserved=self.reserved,
            default_unit=self.default_unit, event_units=self.event_units,
        )
        units = changes.pop("units", self.units)
        name = changes.pop("name", self.name)
        kw.update(changes)
        return PMU(name, units, **kw)

    def with_reserved(self, *counters: Counter | str, replace: bool = False) -> PMU:
        """A copy in which ``counters`` (Counter or ``"unit/name"``) are held by someone else."""
        new = {self._counter_ref(c, "<with_reserved>", "reserved") for c in counters}
        return self._replace(reserved=new if replace else self.reserved | new)

    def with_nmi_watchdog(self, unit: str = "cpu", counter: str | None = None) -> PMU:
        """A copy with the NMI watchdog enabled: it holds the counter its pinned cycles event gets.

        The hard-lockup detector keeps a pinned ``PERF_COUNT_HW_CPU_CYCLES`` event on every CPU while
        enabled (``wd_hw_attr`` in ``kernel/watchdog_perf.c``; ``/proc/sys/kernel/nmi_watchdog``). The
        kernel puts a cycles event on the dedicated cycles counter when there is one: Intel's fixed
        counter 1 (``perf_sched_find_counter`` of ``arch/x86/events/core.c`` tries the fixed counters
        first), Arm's cycle counter (``armv8pmu_get_event_idx`` of ``drivers/perf/arm_pmuv3.c``); with
        none (AMD, ``generic-N``) it takes the lowest-numbered free generic counter. So by default the
        watchdog holds the fixed counter that ``cycles``/``cpu-cycles`` is bound to, if any, else the
        lowest free generic counter; four general events then all run on a 4-counter Intel core, and a
        study's own cycles event moves to a generic counter (`allowed`). ``counter`` names the counter
        to hold (fixed or generic).
        """
        if unit not in self._unit:
            raise ConfigError(f"PMU {self.name!r} has no unit {unit!r} to run the NMI watchdog on ({', '.join(self._unit)})")
        if counter is None:
            cyc = [self._fixed_of[unit][n] for n in _CYCLES_NAMES if n in self._fixed_of[unit]]
            if cyc and cyc[0] not in self.reserved:
                return self.with_reserved(cyc[0])
            free = [c for c in self._unit[unit].generic if c not in self.reserved]
            if not free:
                raise ConfigError(f"PMU {self.name!r}: no free generic counter on unit {unit!r} for the NMI watchdog")
            return self.with_reserved(free[0])
        c = self._counter.get((unit, counter))
        if c is None:
            raise ConfigError(f"PMU {self.name!r}: no counter {unit}/{counter}")
        return self.with_reserved(c)

    def with_generic_counters(self, n: int, unit: str | None = None) -> PMU:
        """A copy whose ``unit`` has ``n`` generic counters (a what-if on the counter budget).

        ``unit``: by default the core unit, i.e. the default unit, else the only unit (a PMU with
        several units and no default unit needs it named). Fewer counters keep the lowest-numbered
        ones: masks are cut to them (an event left with no counter is a `ConfigError`) and reserved
        counters that no longer exist are dropped. More counters add ``gp<k>`` counters that no mask
        names (so masked events keep their masks). The same count returns ``self``; otherwise the copy
        is named ``<name>-<n>gp`` and its ``resized_from`` is this PMU (None on a PMU as declared).
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"PMU {self.name!r}: the number of generic counters must be a positive integer, "
                              f"got {n!r}")
        if unit is None:
            unit = self.default_unit or (self.units[0].name if len(self.units) == 1 else None)
            if unit is None:
                raise ConfigError(f"PMU {self.name!r} has several units and no default unit to resize")
        elif unit not in self._unit:
            raise ConfigError(f"PMU {self.name!r} has no unit {unit!r} ({', '.join(self._unit)})")
        names = [c.name for c in self._unit[unit].generic]
        if n == len(names):
            return self
        data = self.to_dict()
        tbl = data["units"][unit]
        if n < len(names):
            names = names[:n]
            masks = {}
            for ev, ctrs in tbl["masks"].items():
                kept = [c for c in ctrs if c in names]
                if not kept:
                    raise ConfigError(f"event {ev!r} may only use {ctrs} on PMU {self.name!r}, which a unit with "
                                      f"{n} generic counter(s) lacks")
                masks[ev] = kept
            tbl["masks"] = masks
            data["reserved"] = [r for r in data.get("reserved", []) if not (
                r.startswith(unit + "/") and r.split("/", 1)[1] not in names + list(tbl["fixed"]))]
        else:
            k = len(names)
            while len(names) < n:
                if f"gp{k}" not in names:
                    names.append(f"gp{k}")
                k += 1
        tbl["generic"] = names
        data["name"] = f"{self.name}-{n}gp"
        copy = PMU.from_dict(data, source=f"<{self.name} with {n} generic counters>")
        object.__setattr__(copy, "resized_from", self)  # the one field set after construction
        return copy

    def with_event_masks_from_perf_json(
        self,
        paths: str | os.PathLike | Iterable[str | os.PathLike],
        *,
        field: str = "Counter",
        unit: str = "cpu",
        json_unit: str | None = None,
    ) -> PMU:
        """A copy whose masks and fixed bindings of ``unit`` come from perf pmu-events JSON files.

        Reads the Linux ``tools/perf/pmu-events/arch/<arch>/<cpu>/*.json`` event files (or a directory
        of them): ``field`` is ``"Counter"`` (hyper-threading on) or ``"CounterHTOff"`` (off).
        ``"0,2,3"`` becomes a mask on generic counters 0, 2, 3; ``"Fixed counter N"`` (or ``"32"``, ``"33"``, ...
        the kernel's fixed-counter indices 32 + N) a binding to the unit's N-th fixed counter. An event whose
        mask equals what the PMU already allows is left alone; a differing mask overrides the PMU's
        (JSON wins). Entries with a ``Unit`` key are other PMUs (uncore) unless it equals
        ``json_unit`` (hybrid parts tag core events ``"cpu_core"``/``"cpu_atom"``); they, ``UNC_``
        events, entries without ``field`` and non-event entries (metrics, group descriptions) are left
        out and counted in ``sources``.
        A fixed binding that contradicts the PMU, or an index the unit lacks, is a `ConfigError`.
        """
        if unit not in self._unit:
            raise ConfigError(f"PMU {self.name!r} has no unit {unit!r} ({', '.join(self._unit)})")
        u = self._unit[unit]
        read = counter_fields(paths, field=field, json_unit=json_unit)
        files, specs = read.files, read.specs
        fixed_events = dict(u.fixed_events)
        masks = dict(u.masks)
        changed = 0
        for ev, ((fixed_idx, gens), value, line, path) in specs.items():
            if fixed_idx is not None:
                if fixed_idx >= len(u.fixed):
                    raise ConfigError(
                        f"{path}:{line}: event {ev} is on fixed counter {fixed_idx}, unit {unit!r} has {len(u.fixed)}"
                    )
                cname = u.fixed[fixed_idx].name
                if fixed_events.get(ev, cname) != cname:
                    raise ConfigError(
                        f"{path}:{line}: event {ev} is on fixed counter {cname} in perf JSON, "
                        f"bound to {fixed_events[ev]} in PMU {self.name!r}"
                    )
                if ev in masks:
                    raise ConfigError(
                        f"{path}:{line}: event {ev} is on fixed counter {cname} in perf JSON, masked in PMU {self.name!r}"
                    )
                if ev not in fixed_events:
                    fixed_events[ev] = cname
                    changed += 1
                continue
            bad = [g for g in gens if g >= len(u.generic)]
            if bad:
                raise ConfigError(
                    f"{path}:{line}: event {ev}: {field} {value!r} names generic counter {bad[0]}, unit {unit!r} "
                    f"has {len(u.generic)} (wrong field for this PMU? HT on is 'Counter', HT off 'CounterHTOff')"
                )
            if ev in fixed_events:
                raise ConfigError(
                    f"{path}:{line}: event {ev} has a generic mask in perf JSON but is fixed in PMU {self.name!r}"
                )
            want = tuple(u.generic[g].name for g in sorted(set(gens)))
            current = self._generic_mask(unit, ev)
            if tuple(c.name for c in current) != want:
                masks[ev] = want
                changed += 1
        fixed_tbl: dict[str, list[str]] = {c.name: [] for c in u.fixed}
        for ev, cname in fixed_events.items():
            fixed_tbl[cname].append(ev)
        new_unit = Unit.make(unit, [c.name for c in u.generic], fixed_tbl, masks, where=f"<perf json into {unit}>")
        names = ", ".join(os.path.basename(os.fspath(f)) for f in files)
        note = (
            f"masks of unit {unit!r} from perf JSON field {field!r} ({names}): "
            f"{len(specs)} events read, {changed} changed; left out: {read.skipped_uncore} uncore, "
            f"{read.skipped_nofield} without {field}, {read.skipped_other} non-event entries"
        )
        units = tuple(new_unit if x.name == unit else x for x in self.units)
        return self._replace(units=units, sources=(*self.sources, note))

    # ---- queries ------------------------------------------------------------------------------

    @property
    def counters(self) -> tuple[Counter, ...]:
        """Every counter, unit by unit, fixed before generic."""
        return tuple(c for u in self.units for c in (*u.fixed, *u.generic))

    def available(self, unit: str | None = None, kind: str | None = None) -> tuple[Counter, ...]:
        """The unreserved counters, optionally of one unit and/or kind."""
        if unit is not None and unit not in self._unit:
            raise ConfigError(f"PMU {self.name!r} has no unit {unit!r}")
        if kind is not None and kind not in KINDS:
            raise ConfigError(f"counter kind must be one of {KINDS}, got {kind!r}")
        return tuple(
            c for c in self.counters
            if c not in self.reserved and (unit is None or c.unit == unit) and (kind is None or c.kind == kind)
        )

    def unit_of(self, event: str) -> str:
        """The unit ``event`` belongs to (see the module docstring for the rules)."""
        return self._event(event).unit

    def fixed_counter(self, event: str) -> Counter | None:
        """The fixed counter ``event`` is bound to, or None for a generic event."""
        return self._event(event).fixed

    def is_fixed(self, event: str) -> bool:
        """Whether ``event`` runs on a fixed counter (such events never multiplex)."""
        return self._event(event).fixed is not None

    def allowed(self, event: str) -> tuple[Counter, ...]:
        """The unreserved counters ``event`` may use; raises `UncountableEventError` when there is none."""
        return self._event(event).allowed

    def countable(self, event: str) -> bool:
        """Whether ``event`` can be counted at all on this PMU."""
        try:
            self._event(event)
        except UncountableEventError:
            return False
        return True

    def declared_events(self) -> tuple[str, ...]:
        """The event names the PMU itself names: bound to a fixed counter or given an exact mask (a
        generic counter takes any other name too; `mpx.pmu.namespace` reads these to tell whose PMU it is)."""
        return tuple(dict.fromkeys([ev for u in self.units for ev, _ in u.fixed_events]
                                   + [ev for u in self.units for ev in self._exact[u.name]]))

    def fits(self, events: Iterable[str], method: str = "matching") -> bool:
        """Whether ``events`` can all be counted in the same quantum (see `assign`)."""
        return self.assign(events, method=method) is not None

    def assign(self, events: Iterable[str], method: str = "matching") -> dict[str, Counter] | None:
        """A counter for every event of ``events`` in one quantum, or None if they do not fit.

        ``method="matching"`` is exact: a maximum bipartite matching events → allowed unreserved
        counters (`scipy.sparse.csgraph.maximum_bipartite_matching`, after a greedy fast path).
        ``method="perf"`` is what Linux does on x86, ``perf_assign_events`` in
        ``arch/x86/events/core.c``: events in increasing order of *weight* (the number of counters in
        their constraint mask; ties in the given order), each takes a free fixed counter of its mask if
        any, else the lowest-numbered free generic counter of its mask, with no backtracking (the kernel
        backtracks only for constraints flagged ``overlap``, AMD family 15h). It can fail where a
        matching exists. Hand-worked example, generic counters 0..2 and masks A={0}, B={1,2},
        C={0,1}: weights 1, 2, 2; A takes 0; B (listed before C) takes 1, its lowest free counter;
        C finds 0 and 1 taken and the group fails, although A→0, B→2, C→1 fits.

        Fixed-bound events go on their fixed counter and never take a generic one; two events bound to
        the same fixed counter do not fit together. An event that can never be counted raises
        `UncountableEventError`. Results are cached per event set (per ordered tuple for "perf").
        """
        if method == "matching":
            key: Any = frozenset(events)
            order = sorted(key)
        elif method == "perf":
            if isinstance(events, (set, frozenset)):
                order = sorted(events)  # a set has no order: make the tie-break deterministic
            else:
                order = list(dict.fromkeys(events))
            key = ("perf", tuple(order))
        else:
            raise ConfigError(f"assign: method must be 'matching' or 'perf', got {method!r}")
        try:
            hit = self._cache[key]
        except KeyError:
            infos = [(ev, self._event(ev)) for ev in order]
            hit = _assign(infos, method)
            if len(self._cache) >= _CACHE_MAX:
                self._cache.clear()
            self._cache[key] = hit
        return None if hit is None else dict(hit)

    # ---- inspection ---------------------------------------------------------------------------

    def __repr__(self) -> str:
        nf = sum(len(u.fixed) for u in self.units)
        ng = sum(len(u.generic) for u in self.units)
        nm = sum(len(u.masks) for u in self.units)
        return (f"PMU({self.name!r}, units={len(self.units)}, fixed={nf}, generic={ng}, "
                f"masks={nm}, reserved={len(self.reserved)})")

    def describe(self) -> str:
        """A short text table: units with the same layout share a row; then fixed bindings and masks
        (`mpx.pmu.describe.describe`)."""
        return describe(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PMU) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "_key"):
            raise AttributeError("PMU is immutable; use its with_* methods for a modified copy")
        object.__setattr__(self, name, value)

    # ---- internals ----------------------------------------------------------------------------

    def _counter_ref(self, ref: Counter | str, where: str, key: str) -> Counter:
        if isinstance(ref, Counter):
            c = self._counter.get((ref.unit, ref.name))
            if c is None or c != ref:
                raise ConfigError(f"{where}: {key}: {ref} is not a counter of this PMU")
            return c
        if not isinstance(ref, str):
            raise ConfigError(f"{where}: {key}: expected 'unit/counter', got {ref!r}")
        if "/" in ref:
            un, _, cn = ref.partition("/")
        elif len(self.units) == 1:
            un, cn = self.units[0].name, ref
        else:
            raise ConfigError(f"{where}: {key}: {ref!r} must be written 'unit/counter' (the PMU has several units)")
        c = self._counter.get((un, cn))
        if c is None:
            raise ConfigError(f"{where}: {key}: unknown counter {ref!r}")
        return c

    def _resolve_unit(self, event: str) -> tuple[str, str]:
        m = _PREFIXED.match(event)
        if m:
            un, name = m.group(1), m.group(2)
            if un not in self._unit:
                raise UncountableEventError(
                    f"event {event!r}: unit {un!r} is not on PMU {self.name!r} (units: {', '.join(self._unit)})"
                )
            return un, name
        if event in self.event_units:
            return self.event_units[event], event
        if len(self.units) == 1:
            return self.units[0].name, event
        if self.default_unit is not None:
            return self.default_unit, event
        raise UncountableEventError(
            f"event {event!r}: PMU {self.name!r} has several units ({', '.join(self._unit)}) and no default_unit; "
            "write it 'unit/event/' or list it under event_units"
        )

    def _generic_mask(self, unit: str, name: str) -> tuple[Counter, ...]:
        exact = self._exact[unit].get(name)
        if exact is not None:
            return exact
        for pat, ctrs in self._patterns[unit]:
            if fnmatch.fnmatchcase(name, pat):
                return ctrs
        return self._unit[unit].generic

    def _counts_on_generic(self, unit: str, fixed: Counter) -> bool:
        """Whether the events of fixed counter ``fixed`` may also count on a generic counter: those of the
        cycles and instructions counters (x86 ``intel_pmu_check_event_constraints`` ORs the generic
        counters into every fixed constraint but the pseudo-encodings, ref-cycles and slots; arm64 counts
        CPU_CYCLES on any event counter when the cycle counter is taken)."""
        names = {ev for ev, c in self._fixed_of[unit].items() if c == fixed}
        return bool(names & (set(_CYCLES_NAMES) | {"instructions", "INST_RETIRED.ANY"}))

    def _event(self, event: str) -> _EventInfo:
        info = self._info.get(event)
        if info is not None:
            return info
        if not isinstance(event, str) or not event:
            raise UncountableEventError(f"event names are non-empty strings, got {event!r}")
        unit, name = self._resolve_unit(event)
        fixed = self._fixed_of[unit].get(name)
        if fixed is not None and fixed in self.reserved and self._counts_on_generic(unit, fixed):
            fixed = None  # cycles/instructions: the kernel extends the fixed constraint to the generic counters
        if fixed is not None:
            if fixed in self.reserved:
                raise UncountableEventError(f"event {event!r}: its fixed counter {fixed} is reserved")
            info = _EventInfo(unit, name, fixed, (fixed,), 1)
        else:
            mask = self._generic_mask(unit, name)
            allowed = tuple(c for c in mask if c not in self.reserved)
            if not allowed:
                why = ("unit has no generic counters" if not self._unit[unit].generic
                       else f"every counter it may use ({', '.join(c.name for c in mask)}) is reserved")
                raise UncountableEventError(f"event {event!r} on unit {unit!r} can never be counted: {why}")
            info = _EventInfo(unit, name, None, allowed, len(mask))
        self._info[event] = info
        return info


# ---- assignment (the rules live in mpx.pmu.placement) ----------------------------------------------


def _assign(infos: Sequence[tuple[str, _EventInfo]], method: str) -> dict[str, Counter] | None:
    """``method="perf"``: perf's greedy; ``"matching"``: the greedy as a fast path, then an exact
    matching of the generic events (fixed events keep their own counter)."""
    out = place_greedy([i.allowed for _, i in infos], [i.weight for _, i in infos])
    if out is not None or method == "perf":
        return None if out is None else {ev: c for (ev, _), c in zip(infos, out)}
    fixed = [(ev, i.fixed) for ev, i in infos if i.fixed is not None]
    if len({c for _, c in fixed}) < len(fixed):
        return None
    gen = [(ev, i) for ev, i in infos if i.fixed is None]
    placed = place_matching([i.allowed for _, i in gen])
    if placed is None:
        return None
    result = dict(fixed)
    result.update((ev, c) for (ev, _), c in zip(gen, placed))
    return result
