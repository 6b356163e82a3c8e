"""Event groups from hypergraph partitioning (km1), rotated one group per quantum like LIKWID's groups.

Source: the thesis's grouping method (reference ``partitioning.md``): events are vertices, metrics are
nets, each group holds at most the usable programmable counters, and the connectivity objective km1 keeps
each metric's events together (KaHyPar's objective: Schlag et al., "High-Quality Hypergraph
Partitioning", ACM JEA 2022). The grouping itself (hypergraph, choice of k, partition under the counter
cap, counter-mask repair, replication of events into spare counters) is `mpx.grouping.partitioned.group_events`;
this scheduler turns its groups into configurations switched round robin, one per quantum — as
``likwid-perfctr -g A -g B`` switches its groups (`mpx.schedulers.likwid`). Pinned groups' events run in
every configuration; the user's other groups are not constraints (co-scheduling metrics is the
objective, as in `mpx.schedulers.optimal`). Events the PMU can never place are reported in ``errors``.
"""

from __future__ import annotations

from typing import ClassVar

from mpx.grouping.partitioned import group_events
from mpx.params import Interval
from mpx.pmu import preset
from mpx.problem import EventGroup, Problem
from mpx.schedulers.base import Schedule, StaticScheduler

__all__ = ["HypergraphScheduler"]


class HypergraphScheduler(StaticScheduler):
    """Hypergraph-partitioned event groups in rotation; see the module docstring and `mpx.grouping.partitioned`.

    Parameters
    ----------
    seed:
        Seed of the partitioner (the schedule is deterministic for a seed).
    k:
        Number of groups per PMU unit; None: from ⌈events / counters⌉ upward while the weighted mean
        co-scheduling ratio improves.
    max_extra_blocks:
        How many groups above ⌈events / counters⌉ the search may go.
    replicate:
        Fill spare counters with copies of events (of metrics not yet co-scheduled first).
    counters:
        Programmable counters a group may use on the core unit (like hperf's ``available_GP``); None:
        the PMU's usable counters.
    """

    name: ClassVar[str] = "hypergraph"
    uses_metrics: ClassVar[bool] = True
    source: ClassVar[str] = ("hypergraph partitioning of events (metrics = nets, km1 objective, block cap = "
                             "counters), KaHyPar-style (Schlag et al., ACM JEA 2022); mpx.grouping.partitioned; "
                             "groups switched like likwid-perfctr -g")

    jit: ClassVar[bool] = True

    @classmethod
    def warm_up(cls) -> None:
        """Group a small catalog-like problem: compiles the partitioner kernels event grouping uses."""
        events = [f"e{i}" for i in range(10)]
        metrics = {f"m{i}": events[i:i + 3] for i in range(0, 8, 2)}
        cls(seed=0).schedule(Problem(events, preset("generic-3"), metrics=metrics))

    param_constraints: ClassVar[dict] = {"seed": Interval(int, 0, None), "replicate": "boolean"}

    def __init__(self, seed: int = 0, k: int | None = None, max_extra_blocks: int = 4, replicate: bool = True,
                 counters: int | None = None) -> None:
        self.seed = seed
        self.k = k
        self.max_extra_blocks = max_extra_blocks
        self.replicate = replicate
        self.counters = counters

    def _schedule(self, problem: Problem) -> Schedule:
        grouping = group_events(problem, seed=self.seed, k=self.k, max_extra_blocks=self.max_extra_blocks,
                                replicate_events=self.replicate, counters=self.counters)
        self.grouping_ = grouping
        groups = tuple(EventGroup(g, name=f"H{i}") for i, g in enumerate(grouping.groups) if g)
        configs = [list(g) for g in grouping.groups]
        notes = [f"hypergraph grouping: {len(configs)} group(s) rotated one per quantum; mean metric "
                 f"co-scheduling {grouping.mean_coschedule_ratio:.3f}"]
        for u in grouping.units:
            notes.append(f"unit {u.unit}: {len(u.events)} events, cap {u.cap}, k = {u.k} (tried "
                         f"{[t['k'] for t in u.tried]}), km1 = {u.km1}, {u.repaired} event(s) moved by the "
                         "counter-mask repair")
        notes += list(grouping.notes)
        return Schedule.from_configs(problem, configs, groups=groups, errors=grouping.errors, notes=notes)
