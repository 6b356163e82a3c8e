"""Plain block round robin: groups packed into configurations that fit, one configuration per quantum.

This is the textbook multiplexer (PAPI's software multiplexing in ``sw_multiplex.c`` switches whole
event sets on a timer; the thesis calls it "round robin"), not perf's: perf slides a window over a
list of groups (`mpx.schedulers.perf`). Here the groups, in list order, are packed into configurations:

- ``packing="next_fit"``: a group goes into the current configuration if it fits, else it opens the
  next one (configurations are consecutive blocks of the list);
- ``packing="first_fit"``: a group goes into the first configuration where it fits.

Pinned groups are in every configuration (a pinned group that does not fit beside the earlier pinned
ones goes to error, as in perf). An exclusive group gets a configuration of its own (beside the pinned
groups unless it is pinned itself). Groups are opened as perf stat opens them
(`mpx.schedulers.base.open_groups`: weak-group fallback, errors). Configurations rotate one per quantum:
with n single events on k counters, ceil(n / k) configurations, each running one quantum in turn.
Groups of every PMU unit share one list: with next-fit a group that does not fit closes the current
configuration for all units.
"""

from __future__ import annotations

from typing import ClassVar

from mpx.params import StrOptions
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler, open_groups
from mpx.schedulers.perf import ASSIGNMENTS

__all__ = ["RoundRobinScheduler", "pack_round_robin"]


class RoundRobinScheduler(StaticScheduler):
    """Block rotation of packed configurations (see the module docstring).

    Parameters
    ----------
    packing:
        ``"next_fit"`` (consecutive blocks, the default) or ``"first_fit"``.
    assignment:
        How a configuration is checked against the PMU: ``"matching"`` or ``"perf"`` (x86 greedy).
    open_sees_reserved:
        As for `mpx.schedulers.perf.PerfScheduler`.
    """

    name: ClassVar[str] = "round_robin"
    source: ClassVar[str] = "block round robin of event sets (PAPI sw_multiplex.c style; thesis ch. 2)"

    param_constraints: ClassVar[dict] = {"packing": StrOptions(("next_fit", "first_fit")),
                                         "assignment": StrOptions(ASSIGNMENTS), "open_sees_reserved": "boolean"}

    def __init__(self, packing: str = "next_fit", assignment: str = "matching", open_sees_reserved: bool = False) -> None:
        self.packing = packing
        self.assignment = assignment
        self.open_sees_reserved = open_sees_reserved

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem, packing=self.packing, assignment=self.assignment,
                                open_sees_reserved=self.open_sees_reserved)


def pack_round_robin(problem: Problem, *, packing: str = "next_fit", assignment: str = "matching",
                     open_sees_reserved: bool = False) -> Schedule:
    """The block round robin of ``problem``'s groups (module docstring): opened as perf stat opens them,
    packed into configurations that fit by ``packing``, one configuration per quantum. BayesPerf's
    scheduler starts from its first-fit packing. Free events may be left out of the configurations
    (`StaticScheduler.schedule` adds them)."""
    opened = open_groups(problem, method=assignment, sees_reserved=open_sees_reserved)
    errors = dict(opened.errors)
    notes = list(opened.notes)

    def fits(events: list[str]) -> bool:
        return problem.fits(events, method=assignment)

    base: list[str] = []
    pinned_exclusive = False
    for g in (g for g in opened.groups if g.pinned):
        if not pinned_exclusive and (not g.exclusive or not base) and fits(base + list(g.events)):
            base += g.events
            pinned_exclusive |= g.exclusive
        else:
            for e in g.events:
                errors.setdefault(e, f"pinned group {g.to_perf()} does not fit beside the earlier pinned groups")
    configs: list[list[str]] = []
    solo: list[bool] = []  # configuration holds an exclusive group
    for g in (g for g in opened.groups if not g.pinned):
        if pinned_exclusive or not fits(base + list(g.events)):
            for e in g.events:
                errors.setdefault(e, f"group {g.to_perf()} does not fit beside the pinned groups")
            continue
        if g.exclusive:
            configs.append(base + list(g.events))
            solo.append(True)
            continue
        candidates = range(len(configs)) if packing == "first_fit" else range(len(configs))[-1:]
        for c in candidates:
            if not solo[c] and fits(configs[c] + list(g.events)):
                configs[c] += g.events
                break
        else:
            configs.append(base + list(g.events))
            solo.append(False)
    if not configs:
        configs = [base]
    running_elsewhere = {e for c in configs for e in c}
    errors = {e: r for e, r in errors.items() if e not in running_elsewhere}
    return Schedule.from_configs(problem, [dict.fromkeys(c) for c in configs], groups=opened.groups,
                                 errors=errors, notes=notes)
