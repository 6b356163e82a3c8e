"""What is measured on which hardware: the `Problem` (core; perf syntax in `mpx.problem.perf`, the
catalog adapter in `mpx.problem.from_catalog`, the PMU adapter in `mpx.problem.hardware`).

A Problem is everything a scheduler may know before the run: the events (in the order the user listed
them), the PMU, the metrics (each metric's event set is a hyperedge), the user's event groups,
per-event weights and the known relations among events (event sets tied by an identity or inequality,
e.g. from a catalog's formulas). It never holds a Trace: schedulers get a Problem and, when online, what
was observed so far (see `mpx.multiplex`), never the truth.

Four ways to build one:

- ``Problem(events, pmu, groups=..., metrics=..., weights=..., relations=...)``; events not in any group
  become single-event groups appended in event order (perf: every ``-e`` event not in braces is its own
  group).
- `Problem.from_perf_events` parses perf's event-list syntax, ``"{a,b}:W,c,{d,e}:D"``
  (`parse_event_list`).
- `Problem.from_metrics` groups metrics the way ``perf stat -M`` does (`perf_metric_groups`).
- `Problem.from_catalog` measures a metric `~mpx.metrics.Catalog` on a PMU: the catalog's own groups
  (LIKWID event sets, hperf event groups) or perf's, events outside the core counters made free with
  the reason, uncore events placed on an instance, the catalog's relations kept.

Hardware model (mpx's, shared by every scheduler; see `Problem.free`):

- Events bound to a fixed counter of the PMU and software events never compete for a programmable
  counter: mpx counts them in every quantum. Perf behaves so for the fixed counters when the fixed events
  are pinned (``:D``) or scheduled before the first group that fails; an unpinned ``instructions`` listed
  after a failing group would, in the kernel, wait its turn (``merge_sched_in`` stops every later hardware
  group). mpx takes the always-counted model because fixed counters are never over-committed.
- An event may belong to several groups (``perf stat -M`` opens a shared event once per metric group).
  Each copy takes its own counter when its group is on (`Problem.fits` counts an event listed twice
  twice), but mpx keeps one column per event: it runs whenever any of its groups runs, i.e. the counts
  of perf's per-group copies are pooled.
- Events the PMU can never count (unknown unit, every allowed counter missing) are not an error here:
  schedulers put them in error state (perf stat prints ``<not supported>``), see
  `mpx.schedulers.base.open_groups`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError, MpxWarning
from mpx.pmu.namespace import namespace_of
from mpx.problem.from_catalog import problem_from_catalog
from mpx.problem.groups import EventGroup, MetricEdge, as_metric_edges, as_relations
from mpx.problem.hardware import Hardware, pmu_of
from mpx.problem.perf import SOFTWARE_EVENTS, TOOL_EVENTS, nmi_watchdog_on, parse_event_list, perf_metric_groups

__all__ = ["Problem", "warn_foreign_events"]


def warn_foreign_events(events: Iterable[str], pmu: Any) -> None:
    """Warn (`~mpx.errors.MpxWarning`) when ``events`` are another machine's than ``pmu``'s (an Intel
    catalog on ``neoverse-n1``, callgrind events on ``skylake``): generic counters take any name, so the
    run would go through; the namespaces are `mpx.pmu.namespace`'s (names it cannot place never warn)."""
    mine, mine_eg = namespace_of(pmu.declared_events())
    theirs, theirs_eg = namespace_of(events)
    if mine is not None and theirs is not None and mine != theirs:
        warnings.warn(MpxWarning(f"the events are {theirs} events (e.g. {', '.join(theirs_eg)}) but PMU {pmu.name!r} "
                                 f"counts {mine} events (it names {', '.join(mine_eg)}): a catalog or trace for another "
                                 "machine? choose the PMU of the machine the events come from"), stacklevel=4)


@dataclass(frozen=True, eq=False)
class Problem:
    """Events, PMU, metrics, groups, weights and relations of one measurement (never the truth).

    ``relations``: event tuples known to be tied (a linear identity or inequality among their counts),
    for schedulers that use the relation graph (`mpx.schedulers.bayesperf`); given as lists of event
    names or objects with ``.events`` (`mpx.metrics.Relation`), every event in the problem.
    ``meta``: free-form provenance (how the problem was built, e.g. ``Problem.from_catalog``'s notes).
    ``pmu``: a `mpx.pmu.PMU` or a preset name; None when nobody declared the hardware (a real run read
    back: its events are known, their counters are not) — then every hardware question (``fits``,
    ``free``, ``units``, ...) raises `ConfigError` instead of guessing.

    Built in code from event names and a PMU (a `mpx.pmu.PMU` or a preset name), with optional perf-style
    groups (counted together) and metrics (events a metric needs in the same quantum)::

        problem = Problem(("Ir", "Dr", "Dw", "D1mr"), "generic-2",
                          groups=[("Dr", "Dw")], metrics=[("D1 miss rate", ("D1mr", "Dr"))])
        problem.fits(["Dr", "Dw"])        # True: two events on two counters

    or from perf's syntax (`from_perf_events`: ``"{Dr,Dw},Ir"``), ``perf stat -M`` grouping
    (`from_metrics`) or a metric catalog (`from_catalog`: its metrics, groups and relations; catalogs
    are read by `mpx.metrics.resolve_catalog`, whose formats are listed in `mpx.metrics`; mpx's own TOML
    catalog schema is in `mpx.metrics.formats.toml`).
    """

    events: tuple[str, ...]
    pmu: Any
    groups: tuple[EventGroup, ...] = ()
    metrics: tuple[MetricEdge, ...] = ()
    weights: Any = None
    software: frozenset[str] = SOFTWARE_EVENTS
    meta: dict = field(default_factory=dict)
    relations: tuple[tuple[str, ...], ...] = ()
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        events = tuple(self.events) if not isinstance(self.events, str) else (self.events,)
        groups = self.groups
        if isinstance(groups, str):
            groups, notes = parse_event_list(groups)
            if notes:
                set_("meta", {**self.meta, "ignored_modifiers": list(notes)})
        groups = tuple(g if isinstance(g, EventGroup) else EventGroup(tuple(g)) for g in groups)
        if not events:
            events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        if not events:
            raise ConfigError("a Problem needs at least one event")
        for e in events:
            if not isinstance(e, str) or not e:
                raise ConfigError(f"event names must be non-empty strings, got {e!r}")
        if len(set(events)) != len(events):
            raise ConfigError(f"events repeat: {sorted({e for e in events if events.count(e) > 1})}")
        known = set(events)
        for g in groups:
            missing = [e for e in g.events if e not in known]
            if missing:
                raise ConfigError(f"group {g.to_perf()} names events that are not in the problem: {missing}")
        covered = {e for g in groups for e in g.events}
        groups = groups + tuple(EventGroup((e,)) for e in events if e not in covered)
        metrics = as_metric_edges(self.metrics)
        for m in metrics:
            missing = [e for e in m.events if e not in known]
            if missing:
                raise ConfigError(f"metric {m.name!r} needs events that are not in the problem: {missing}")
        relations = as_relations(self.relations, known)
        w = self.weights
        if w is None:
            w = np.ones(len(events))
        elif isinstance(w, Mapping):
            unknown = [k for k in w if k not in known]
            if unknown:
                raise ConfigError(f"weights given for unknown events: {unknown}")
            w = np.array([float(w.get(e, 1.0)) for e in events])
        else:
            w = np.array(w, dtype=float, copy=True)
        if w.shape != (len(events),) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ConfigError(f"weights must be {len(events)} finite non-negative numbers, got {w!r}")
        w.setflags(write=False)
        set_("events", events)
        set_("pmu", pmu_of(self.pmu))
        set_("groups", groups)
        set_("metrics", metrics)
        set_("weights", w)
        set_("software", frozenset(self.software))
        set_("meta", dict(self.meta))
        set_("relations", relations)
        set_("_cache", {})
        if self.pmu is not None:
            self._hw()  # check now that the PMU knows every event: a bad problem fails at construction
            warn_foreign_events(events, self.pmu)

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def from_perf_events(cls, spec: str, pmu: Any, *, metrics: Any = None, weights: Any = None,
                         software: Iterable[str] = SOFTWARE_EVENTS) -> Problem:
        """A Problem from perf's ``-e`` syntax, e.g. ``"{a,b}:W,c,{d,e}:D"`` (see `parse_event_list`)."""
        groups, notes = parse_event_list(spec)
        meta: dict[str, Any] = {"built_from": f"perf -e {spec}"}
        if notes:
            meta["ignored_modifiers"] = list(notes)
        events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        return cls(events, pmu, groups=groups, metrics=metrics, weights=weights, software=frozenset(software),
                   meta=meta)

    @classmethod
    def from_metrics(cls, metrics: Any, pmu: Any, *, metric_no_merge: bool = False,
                     metric_no_group: bool = False, nmi_watchdog: bool | None = None, smt_on: bool = False,
                     weights: Any = None, software: Iterable[str] = SOFTWARE_EVENTS) -> Problem:
        """A Problem grouped like ``perf stat -M`` (see `perf_metric_groups`).

        ``nmi_watchdog`` decides ``NO_GROUP_EVENTS_NMI``; when None it is True iff the PMU has reserved
        counters (mpx.pmu models the watchdog as a reserved counter, ``PMU.with_nmi_watchdog``). Tool events (``duration_time``...) are left out of the
        problem and noted in ``meta['dropped']``.
        """
        edges = as_metric_edges(metrics)
        pmu = pmu_of(pmu)
        if nmi_watchdog is None:
            nmi_watchdog = bool(nmi_watchdog_on(pmu))
        groups = perf_metric_groups(edges, metric_no_merge=metric_no_merge, metric_no_group=metric_no_group,
                                    nmi_watchdog=nmi_watchdog, smt_on=smt_on)
        events = tuple(dict.fromkeys(e for g in groups for e in g.events))
        tools = sorted({e for m in edges for e in m.events if e in TOOL_EVENTS})
        kept = tuple(MetricEdge(m.name, tuple(e for e in m.events if e not in TOOL_EVENTS), m.constraint)
                     for m in edges)
        meta: dict[str, Any] = {
            "built_from": "perf stat -M " + ",".join(m.name for m in edges),
            "metric_no_merge": metric_no_merge, "metric_no_group": metric_no_group,
            "nmi_watchdog": nmi_watchdog, "smt_on": smt_on,
        }
        if tools:
            meta["dropped"] = [{"what": f"tool events {tools}", "why": "perf measures them from the clock, "
                                "not the PMU; mpx has the time axis"}]
        return cls(events, pmu, groups=groups, metrics=kept, weights=weights, software=frozenset(software),
                   meta=meta)

    @classmethod
    def from_catalog(cls, catalog: Any, pmu: Any, *, groups: str = "auto", metrics: Any = None) -> Problem:
        """A Problem measuring the metrics of a `mpx.metrics.Catalog` on ``pmu`` (a `mpx.pmu.PMU` or a
        preset name).

        - **groups**: ``"auto"`` takes the catalog's predefined groups — LIKWID event sets
          (``"eventset"``), else hperf event groups (``"event_group"``, hperf's pinned events as pinned
          groups) — and otherwise groups the metrics as ``perf stat -M`` does (``"metrics"``,
          `perf_metric_groups`, NMI watchdog on iff the PMU has reserved counters); each can also be
          asked for. ``meta['groups_from']`` says which (``"eventset"``, ``"event_group"``,
          ``"perf stat -M"``).
        - **metrics**: names of the metrics to measure (default all; with LIKWID/hperf groups, the
          metrics whose events the groups hold). An Arm telemetry specification's metrics follow its
          top-down methodology (stage-1 groups, then stage-2 groups, names sorted inside a group: the
          order the Arm Top-down Tool builds its metric list in); other catalogs keep their own order.
        - **events outside the core counters** are made free (``software``: counted in every quantum,
          never competing for a programmable counter), each with its reason in ``meta['free_events']``:
          catalog events of another PMU class (LIKWID ``PWR``/``TMP``/``MPERF``/box counters, hperf's
          *other* events, perf ``Unit`` events, Ice Lake's ``TMA`` metric registers), fixed-counter
          events the PMU model does not bind (LIKWID names its fixed events ``INSTR_RETIRED_ANY``, the
          presets bind perf's ``INST_RETIRED.ANY``), and perf-style ``unit/event/`` names whose unit the
          PMU does not describe (``cstate_core/c3-residency/``, ``msr/tsc/``).
        - **uncore instances**: an event the PMU cannot place but whose catalog unit
          (``EventInfo.unit`` or the ``Unit`` of the perf metrics using it) names PMU units is renamed
          ``instance/event/`` on the first instance (``hif_rd`` → ``ali_drw_21000/hif_rd/``); perf
          would open it on every instance and sum, and every instance is scheduled alike. Renames are
          in ``meta['renamed']``.
        - **relations**: the catalog's relations (exact identities and inequalities among events) whose
          events are all in the problem go to `Problem.relations`, as sorted event tuples.

        ``meta`` also holds ``catalog`` (its name) and ``platform`` (the catalog's scalar platform
        entries, e.g. hperf's ``available_GP``).
        """
        return cls(**problem_from_catalog(catalog, pmu, groups=groups, metrics=metrics))

    # -- lookup ---------------------------------------------------------------------------------

    @property
    def n_events(self) -> int:
        return len(self.events)

    def index(self, event: str) -> int:
        """Column of ``event``."""
        idx = self._cache.get("index")
        if idx is None:
            idx = self._cache["index"] = {e: i for i, e in enumerate(self.events)}
        try:
            return idx[event]
        except KeyError:
            raise KeyError(f"no event {event!r} in the problem") from None

    def mask(self, events: Iterable[str]) -> np.ndarray:
        """Boolean row ``[E]`` with ``events`` set."""
        row = np.zeros(self.n_events, dtype=bool)
        for e in events:
            row[self.index(e)] = True
        return row

    def metric_masks(self) -> np.ndarray:
        """``[M, E]`` boolean incidence of metrics (rows) on events."""
        out = np.zeros((len(self.metrics), self.n_events), dtype=bool)
        for i, m in enumerate(self.metrics):
            out[i] = self.mask(m.events)
        return out

    # -- hardware (everything schedulers need to know about the PMU goes through here) -----------

    def _hw(self) -> Hardware:
        hw = self._cache.get("hw")
        if hw is None:
            if self.pmu is None:
                raise ConfigError("the problem declares no PMU: counter placement needs one (a mpx.pmu.PMU or a "
                                  "preset name such as 'skylake')")
            hw = self._cache["hw"] = Hardware(self)
        return hw

    @property
    def fixed(self) -> frozenset[str]:
        """Events bound to a (not reserved) fixed counter of the PMU."""
        return self._hw().fixed

    @property
    def free(self) -> frozenset[str]:
        """Events that never compete for a programmable counter (fixed-counter and software events):
        counted in every quantum."""
        return self._hw().free

    @property
    def free_mask(self) -> np.ndarray:
        return self._hw().free_mask

    def unit(self, event: str) -> str:
        """The PMU unit (``cpu``, an uncore PMU name...) whose counters count ``event``."""
        return self._hw().unit(event)

    @property
    def uncountable(self) -> dict[str, str]:
        """Events the PMU can never count (even with no counter reserved), with the reason."""
        return dict(self._hw().why_not)

    @property
    def unplaceable(self) -> dict[str, str]:
        """Programmable events a scheduler can never place, with the reason: the PMU cannot count them, or
        they fit no counter that is not reserved (e.g. the NMI watchdog holds the only one they allow)."""
        out: dict[str, str] = {}
        why = self._hw().why_not
        for e in self.events:
            if e in self.free:
                continue
            if not self.countable(e):
                out[e] = why.get(e, "the PMU can never count it")
            elif not self.fits([e]):
                out[e] = "fits no usable counter (its counters are reserved)"
        return out

    def countable(self, event: str) -> bool:
        """Whether ``event`` can be placed on some counter of its unit (ignoring counters reserved by
        others, like perf's open-time check) or is free."""
        return self._hw().countable(event)

    def fits(self, events: Iterable[str], *, method: str = "matching", reserved: bool = True) -> bool:
        """Whether ``events`` can be counted together in one quantum. Free events are ignored.

        ``method``: ``"matching"`` (bipartite matching: exact) or ``"perf"`` (the x86 kernel's
        weight-ordered greedy ``perf_assign_events``, which can fail where a matching exists; ties are
        broken by the order of ``events``, which should then be the kernel's: groups in scheduling
        order, members in group order).
        ``reserved=False`` ignores counters held by others (NMI watchdog), as x86's open-time
        ``validate_group`` does with its fake cpuc. An event listed twice needs two counters (perf opens
        an event shared by two groups once per group).
        """
        if method not in ("matching", "perf"):
            raise ConfigError(f"fits: method must be 'matching' or 'perf', got {method!r}")
        events = tuple(events)
        key = events if method == "perf" else tuple(sorted(events))
        return self._hw().fits(key, method, reserved)

    def n_counters(self, unit: str | None = None) -> int:
        """Usable (not reserved) programmable counters of ``unit`` (all units of the problem's events
        when None)."""
        return self._hw().n_counters(unit)

    def units(self) -> tuple[str, ...]:
        """Units of the problem's non-free events, in first-appearance order."""
        return self._hw().units

    # -- display --------------------------------------------------------------------------------

    def to_perf(self) -> str:
        """The groups in perf's ``-e`` syntax."""
        return ",".join(g.to_perf() for g in self.groups)

    def __repr__(self) -> str:
        name = None if self.pmu is None else getattr(self.pmu, "name", type(self.pmu).__name__)
        return (f"Problem({self.n_events} events, {len(self.groups)} groups, {len(self.metrics)} metrics, "
                f"pmu={name!r})")

    def replace(self, **changes: Any) -> Problem:
        """A copy with some fields changed (``dataclasses.replace``)."""
        changes.setdefault("_cache", {})
        return dataclasses.replace(self, **changes)
