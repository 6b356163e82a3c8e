"""hperf's adaptive grouping: greedy merging of event groups, then perf's rotation of the merged groups.

Source: Liu, Guo, Huang, "Efficient Cross-platform Multiplexing of Hardware Performance Counters via
Adaptive Grouping", ACM TACO 2024; code github.com/solecnugit/hperf, ``event_group.py``
(``EventGroup.__optimize_event_groups`` and ``get_event_groups_str``). What the code does, and this
module repeats step by step:

1. Every event group minus the *other* events (software, uncore: never multiplexed) and the *pinned*
   events (hperf passes them as ``event:D``) becomes a set; empty sets are dropped.
2. While more than one group is left: remove ``G_i``, the smallest group (the first one of minimum
   size: hperf's strict ``<``); remove ``G_j``, the group minimising ``|G_j ∪ G_i|`` (again the first
   minimum); if ``|G_i ∪ G_j| <= available_GP`` insert the union **at the front** of the list;
   otherwise put both back where they were and **stop** — hperf never tries another pair after the
   first failed merge.
3. hperf hands ``perf stat -e`` the other events ungrouped, the pinned events with ``:D``, then each
   merged group in braces; the kernel's rotation does the rest. mpx hands the same event list to
   `mpx.schedulers.perf.perf_rotation`.

In mpx terms: *other* events are the problem's free events (`Problem.free`: fixed-counter and software
events; `mpx.problem.Problem.from_catalog` also frees the other-PMU events of hperf catalogs), *pinned*
events are the events of pinned groups, and the event groups are the problem's other groups, in order.
hperf does not check that a group fits (its icelake configuration has a 6-event group with
``available_GP = 4``): such groups are kept and listed in the schedule's notes; whether perf can ever run
them is then perf's business (`~mpx.schedulers.base.open_groups`).

hperf's figures are by hperf's definitions, reported beside mpx's (`HperfScheduler.tool_figures`,
``mpx schedule``): utilization is relative to hperf's own budget ``available_GP`` (each merged group is
one time slice: mean of |G| / available_GP, so icelake's 6-event group on a budget of 4 counts 1.5),
pinned events are left out even when they hold a general counter (``instructions`` on Arm), and the
sampling ratio is per *metric*: the share of the slices whose group holds all of the metric's multiplexed
events (mpx's co-scheduling ratio, in hperf's model of equal slices).

Re-running the merge on hperf's own configurations (``shared/data/metrics/hperf``, tests in
``tests/schedulers/test_hperf.py``): cascadelake 2 groups, icelake 2 groups (one of 6 events > 4),
arm 6 groups (the first merge fails: 3 + 4 > 6), kunpeng 1 group.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mpx.errors import ConfigError
from mpx.params import Interval, StrOptions
from mpx.problem import EventGroup, Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.schedulers.perf import ASSIGNMENTS, perf_rotation

__all__ = ["HperfScheduler", "catalog_available_gp", "hperf_merge"]


def hperf_merge(groups: list[list[str]], available_gp: int) -> tuple[list[list[str]], list[tuple[int, ...]]]:
    """hperf's greedy merge (``__optimize_event_groups``) on groups already stripped of other and
    pinned events. Returns the merged groups and, for each, the indices of the input groups it joins.

    Member order inside a merged group is ``G_j`` then the members of ``G_i`` not in ``G_j`` (hperf's
    sets have no meaningful order; counting does not depend on it).
    """
    work = [(list(dict.fromkeys(g)), (i,)) for i, g in enumerate(groups) if g]
    while len(work) > 1:
        i_idx = min(range(len(work)), key=lambda k: (len(work[k][0]), k))
        g_i, src_i = work.pop(i_idx)
        set_i = set(g_i)
        j_idx = min(range(len(work)), key=lambda k: (len(set(work[k][0]) | set_i), k))
        g_j, src_j = work.pop(j_idx)
        union = g_j + [e for e in g_i if e not in set(g_j)]
        if len(union) <= available_gp:
            work.insert(0, (union, tuple(sorted(src_j + src_i))))
        else:
            work.insert(j_idx, (g_j, src_j))
            work.insert(i_idx, (g_i, src_i))
            break
    return [g for g, _ in work], [s for _, s in work]


def catalog_available_gp(problem: Problem) -> int | None:
    """The ``available_GP`` of the hperf configuration ``problem`` was built from
    (``Problem.from_catalog`` keeps the catalog's platform entries in ``meta['platform']``), or None:
    no such entry, or the PMU's counter budget was changed (`mpx.pmu.PMU.with_generic_counters` sets
    ``resized_from``): the catalog's budget describes its own hardware, not a what-if."""
    gp = (problem.meta.get("platform") or {}).get("available_GP")
    if isinstance(gp, bool) or not isinstance(gp, int) or gp < 1:
        return None
    if getattr(problem.pmu, "resized_from", None) is not None:
        return None
    return gp


class HperfScheduler(StaticScheduler):
    """hperf's adaptive grouping (TACO 2024; ``event_group.py``), rotated by perf; see the module
    docstring.

    Parameters
    ----------
    available_gp:
        hperf's ``available_GP``, the number of general-purpose counters a merged group may use. None:
        the catalog's own ``available_GP`` when the problem was built from an hperf configuration
        (`catalog_available_gp`), else the problem's usable programmable counters minus one per pinned
        event that is not free (a pinned event holds a counter in every quantum).
    assignment:
        Passed to `mpx.schedulers.perf.perf_rotation` (``"matching"`` or ``"perf"``).
    """

    name: ClassVar[str] = "hperf"
    source: ClassVar[str] = ("Liu, Guo, Huang, ACM TACO 2024 (adaptive grouping); "
                             "github.com/solecnugit/hperf event_group.py __optimize_event_groups")

    param_constraints: ClassVar[dict] = {"available_gp": [None, Interval(int, 1, None)],
                                         "assignment": StrOptions(ASSIGNMENTS)}

    def __init__(self, available_gp: int | None = None, assignment: str = "matching") -> None:
        self.available_gp = available_gp
        self.assignment = assignment

    def params_for(self, problem: Problem) -> dict[str, Any]:
        """`get_params` with ``available_gp`` taken from the catalog when it is None and the catalog has one."""
        params = self.get_params()
        if params["available_gp"] is None:
            params["available_gp"] = catalog_available_gp(problem)
        return params

    def tool_figures(self, problem: Problem) -> dict[str, Any]:
        """hperf's own figures of the last schedule (module docstring): ``available_GP``, utilization
        against it, and the mean per-metric sampling ratio over the merged groups as equal time slices."""
        groups = [set(g.events) for g in self.merged_groups_]
        n = max(len(groups), 1)
        util = sum(len(g) for g in groups) / (n * self.available_gp_) if groups else float("nan")
        ratios = []
        for m in problem.metrics:
            need = {e for e in m.events if e not in self.skipped_events_}
            ratios.append(1.0 if not need else sum(need <= g for g in groups) / n)
        return {"available_GP": self.available_gp_, "utilization": util,
                "sampling_ratio": sum(ratios) / len(ratios) if ratios else float("nan"), "groups": len(groups)}

    def _budget(self, problem: Problem, pinned: list[str]) -> int:
        if self.available_gp is not None:
            return self.available_gp
        gp = catalog_available_gp(problem)
        if gp is not None:
            return gp
        held = len([e for e in dict.fromkeys(pinned) if e not in problem.free and problem.countable(e)])
        budget = problem.n_counters() - held
        if budget < 1:
            raise ConfigError(f"hperf: no general-purpose counter left for event groups ({problem.n_counters()} "
                              f"usable, {held} held by pinned events)")
        return budget

    def _schedule(self, problem: Problem) -> Schedule:
        free = problem.free
        pinned_groups = [g for g in problem.groups if g.pinned]
        pinned = [e for g in pinned_groups for e in g.events]
        skip = set(free) | set(pinned)
        flexible = [g for g in problem.groups if not g.pinned]
        stripped = [[e for e in g.events if e not in skip] for g in flexible]
        kept = [g for g, s in zip(flexible, stripped) if s]
        stripped = [s for s in stripped if s]
        budget = self._budget(problem, pinned)
        merged, sources = hperf_merge(stripped, budget)
        names = [g.name or "{" + ",".join(g.events) + "}" for g in kept]
        merged_groups = tuple(
            EventGroup(tuple(m), name="+".join(names[i] for i in src)) for m, src in zip(merged, sources)
        )
        self.merged_groups_ = merged_groups
        self.available_gp_ = budget
        self.skipped_events_ = frozenset(skip)
        notes = [f"hperf merge (available_GP = {budget}): {len(stripped)} event groups -> {len(merged)}"]
        over = [g for g in merged_groups if len(g.events) > budget]
        for g in over:
            notes.append(f"group {g.name} has {len(g.events)} events > available_GP = {budget}: hperf keeps it "
                         "(it does not check), perf runs it only if the PMU has room")
        # hperf's perf stat -e list: other events, pinned events (:D), merged groups
        perf_problem = problem.replace(groups=tuple(pinned_groups) + merged_groups)
        inner = perf_rotation(perf_problem, assignment=self.assignment)
        return Schedule(problem.events, inner.configs, inner.prefix, inner.cycle, inner.groups, inner.errors,
                        tuple(notes) + inner.notes)
