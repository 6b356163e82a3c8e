"""Linux perf's multiplexing, quantum by quantum, as the kernel does it.

Source: ``kernel/events/core.c`` (Linux 6.x): ``ctx_sched_in`` → ``ctx_pinned_sched_in`` then
``ctx_flexible_sched_in``, both walking their groups in list order through ``visit_groups_merge`` →
``merge_sched_in`` → ``group_can_go_on`` / ``group_sched_in``; ``perf_rotate_context`` →
``ctx_event_to_rotate`` / ``rotate_ctx`` on each mux hrtimer tick. What is modelled:

- Opening (`mpx.schedulers.base.open_groups`): weak groups that can never be scheduled fall back to
  single events; members that cannot be opened are skipped; events no counter can take go to error.
- Each quantum, **pinned groups first**, in list order; a pinned group that cannot be placed goes to
  ERROR for the rest of the run, and the pinned groups after it in that pass are not placed either
  (``*can_add_hw = 0``, so they fail too and go to ERROR). Pinned groups never rotate.
- Then **flexible groups in list order**; at the first hardware group that cannot be placed,
  ``can_add_hw`` drops to 0 and *no later group is tried*, even when counters are left free.
- ``group_can_go_on``: while an exclusive group is on, nothing else goes on; an exclusive group goes on
  only if no other group of its kind (pinned / flexible) is on yet (Linux >= 5.11 semantics: a flexible
  exclusive group may share the PMU with pinned groups).
- A group goes on when all events placed so far plus its own fit the PMU (x86 ``commit_txn`` →
  ``x86_pmu_schedule_events`` re-assigns every event): `Problem.fits` with ``assignment`` =
  ``"matching"`` (exact) or ``"perf"`` (the x86 weight-ordered greedy, events in kernel order).
- **Rotation**: when a flexible group failed (``rotate_necessary``), the first *active* flexible group
  (or, if none is active, the first flexible group) moves to the tail of the list. With n single
  events on k counters this is a sliding window: each event runs k consecutive quanta out of n.
- Each PMU unit (core, each uncore PMU) has its own context, lists and rotation (per-PMU contexts,
  Linux >= 6.2). Software events are in the software PMU's context and always count; events on fixed
  counters are counted in every quantum (mpx's model, see `mpx.problem`).

Not modelled: the x86 fast path that keeps each event on its previous counter (``x86_schedule_events``
tries the old assignment first), cgroup and per-task contexts, the timing jitter of the hrtimer.

The kernel state (list order, pinned errors) is finite and the step is deterministic, so each unit's
schedule is a prefix followed by a cycle, found by running quanta until its state repeats; the units'
schedules combine with a period that is the lcm of theirs (an error beyond 10^6 quanta: units with
co-prime periods, e.g. 16 uncore PMUs each with a different number of events).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import StrOptions
from mpx.problem import EventGroup, Problem
from mpx.schedulers.base import Schedule, StaticScheduler, open_groups

__all__ = ["ASSIGNMENTS", "PerfScheduler", "perf_rotation"]

#: how a set of events is checked against the PMU: exact bipartite matching, or the x86 greedy
ASSIGNMENTS = ("matching", "perf")


class PerfScheduler(StaticScheduler):
    """perf's round robin (``kernel/events/core.c``); see the module docstring.

    Parameters
    ----------
    assignment:
        ``"matching"`` (the default: exact bipartite matching) or ``"perf"`` (x86 ``perf_assign_events``,
        ``arch/x86/events/core.c``: events by increasing constraint weight, each on the first free counter
        of its mask, backtracking only for constraints marked overlapping). The two differ only on PMUs
        with counter masks: a group the greedy rejects at open time although a placement exists (e.g.
        ``{A,B}`` with A allowed on counters 0,1 and B only on 0, A first at equal weight) is admitted by
        ``"matching"`` and refused by ``"perf"``. Matching is the default because every other scheduler
        and `Problem.fits` use the same exact feasibility, so a comparison of schedulers compares their
        policies and not one driver's placement heuristic (arm64 has no masks, where both agree); give
        ``"perf"`` to reproduce x86's open-time refusals.
    open_sees_reserved:
        Whether the open-time check knows the counters held by others (NMI watchdog). False is x86's
        behaviour (``validate_group`` uses a fake, empty cpuc): a group can open and then never run.
    groups:
        ``"problem"`` (the default): the problem's groups as they stand (a catalog's metric groups);
        ``"single"``: every event opened alone (``perf stat -e a,b,c``, no braces), so the rotation moves
        one event per tick, as Tintin's paper ran its perf baseline (24 single events, figure 13).
    """

    name: ClassVar[str] = "perf"
    source: ClassVar[str] = "Linux kernel/events/core.c (ctx_sched_in, merge_sched_in, rotate_ctx); tools/perf builtin-stat.c"

    param_constraints: ClassVar[dict] = {"assignment": StrOptions(ASSIGNMENTS), "open_sees_reserved": "boolean",
                                         "groups": StrOptions(("problem", "single"))}

    def __init__(self, assignment: str = "matching", open_sees_reserved: bool = False,
                 groups: str = "problem") -> None:
        self.assignment = assignment
        self.open_sees_reserved = open_sees_reserved
        self.groups = groups

    def _schedule(self, problem: Problem) -> Schedule:
        if self.groups == "single":
            problem = problem.replace(groups=tuple(EventGroup((e,)) for e in problem.events))
        return perf_rotation(problem, assignment=self.assignment, open_sees_reserved=self.open_sees_reserved)


def perf_rotation(problem: Problem, *, assignment: str = "matching", open_sees_reserved: bool = False) -> Schedule:
    """perf's schedule of ``problem``'s groups as they stand (module docstring): perf stat's open step,
    then per PMU unit the pinned and flexible passes and the rotation, quantum by quantum until the
    state repeats. The schedulers that hand perf a list of groups of their own (hperf's merged groups,
    the Arm Top-down tool's with ``multiplex=True``) call this on ``problem.replace(groups=...)``.
    Free events may be left out of the configurations (`StaticScheduler.schedule` adds them)."""
    opened = open_groups(problem, method=assignment, sees_reserved=open_sees_reserved)
    groups = opened.groups
    units = list(dict.fromkeys(opened.units))
    per_unit = []  # (running set of each simulated quantum, start of the cycle, groups in ERROR)
    for u in units:
        mine = [i for i, un in enumerate(opened.units) if un == u]
        per_unit.append(_simulate_unit(groups, [i for i in mine if groups[i].pinned],
                                       [i for i in mine if not groups[i].pinned],
                                       lambda ev: problem.fits(ev, method=assignment)))
    # units rotate independently: the whole schedule repeats after the lcm of their periods
    start = max((st for _, st, _ in per_unit), default=0)
    period = math.lcm(*(len(sets) - st for sets, st, _ in per_unit)) if per_unit else 1
    if start + period > _MAX_QUANTA:
        raise ConfigError(f"perf scheduler: the units' rotations repeat only after {start + period} quanta "
                          f"(more than {_MAX_QUANTA}); too many PMU units with co-prime periods")
    n = start + period
    idx = np.arange(n)
    cols = []
    for sets, st, _ in per_unit:
        local: dict[frozenset[str], int] = {}
        ids = np.array([local.setdefault(x, len(local)) for x in sets])
        cols.append(ids[np.where(idx < st, idx, st + (idx - st) % (len(sets) - st))])
    keys = np.stack(cols, axis=1) if cols else np.zeros((n, 1), dtype=int)
    config_of: dict[tuple[int, ...], int] = {}
    seq = [config_of.setdefault(tuple(row), len(config_of)) for row in keys.tolist()]
    distinct = [list(dict.fromkeys(sets)) for sets, _, _ in per_unit]  # local ids follow first appearance
    configs: list[set[str]] = [set() for _ in config_of]
    for row_key, c in config_of.items():
        for d, local_id in zip(distinct, row_key):
            configs[c] |= d[local_id]
    errored = set().union(*(err for _, _, err in per_unit)) if per_unit else set()
    errors = dict(opened.errors)
    alive = {e for j, g in enumerate(groups) if j not in errored for e in g.events}
    for gid in sorted(errored):
        for e in groups[gid].events:
            if e not in alive:
                errors.setdefault(e, f"pinned group {groups[gid].to_perf()} could not be placed: ERROR state")
    notes = list(opened.notes)
    ever = set().union(*configs)
    idle = [g.to_perf() for gid, g in enumerate(groups) if gid not in errored and not set(g.events) & ever]
    if idle:
        notes.append(f"flexible group(s) that never get on the PMU: {', '.join(idle)}")
    if errored:
        notes.append(f"{len(errored)} pinned group(s) went to ERROR state")
    return Schedule.from_configs(problem, configs, prefix=seq[:start], cycle=seq[start:],
                                 groups=groups, errors=errors, notes=notes)


_MAX_QUANTA = 1_000_000


def _simulate_unit(groups: tuple[EventGroup, ...], pinned: list[int], flexible: list[int],
                   fits: Callable[[list[str]], bool]) -> tuple[list[frozenset[str]], int, frozenset[int]]:
    """One PMU unit's context, quantum by quantum, until its state (flexible list order, pinned groups
    in ERROR) repeats. Returns the running set of each quantum simulated, the quantum where the cycle
    starts, and the pinned groups that ended in ERROR."""

    def step(order: tuple[int, ...], errored: frozenset[int]):
        placed: list[str] = []
        new_err = set(errored)
        exclusive_on = False
        # pinned pass (ctx_pinned_sched_in): a failure puts the group in ERROR and stops later ones
        can_add, active = True, False
        for gid in pinned:
            if gid in new_err:
                continue
            g = groups[gid]
            if _can_go_on(g, can_add, exclusive_on, active) and fits(placed + list(g.events)):
                placed += g.events
                active = True
                exclusive_on |= g.exclusive
            else:
                new_err.add(gid)
                can_add = False
        # flexible pass (ctx_flexible_sched_in): stops trying after the first failure
        can_add, first_active, failed = True, None, False
        for gid in order:
            g = groups[gid]
            if _can_go_on(g, can_add, exclusive_on, first_active is not None) and fits(placed + list(g.events)):
                placed += g.events
                exclusive_on |= g.exclusive
                if first_active is None:
                    first_active = gid
            else:
                can_add = False
                failed = True
        if failed:  # perf_rotate_context → rotate_ctx(ctx_event_to_rotate)
            victim = first_active if first_active is not None else order[0]
            order = tuple(x for x in order if x != victim) + (victim,)
        return frozenset(placed), order, frozenset(new_err)

    state = (tuple(flexible), frozenset())
    seen: dict = {}
    sets: list[frozenset[str]] = []
    while state not in seen:
        seen[state] = len(sets)
        run, order, errored = step(*state)
        sets.append(run)
        state = (order, errored)
    return sets, seen[state], state[1]


def _can_go_on(g: EventGroup, can_add: bool, exclusive_on: bool, same_kind_active: bool) -> bool:
    """``group_can_go_on`` (software-only groups never reach here: their events are free)."""
    if exclusive_on:
        return False
    if g.exclusive and same_kind_active:
        return False
    return can_add
