"""Trace alignment's measurement: one group of events per run, each counted for the whole run.

The other road to many events on few counters (the thesis chapter, §轨迹对齐; Hauswirth et al., OOPSLA
2005; Neill, Drebes & Pop, Fuse, TACO 14(4) 2017): run the program once per group, every run counting
its group without multiplexing plus an **anchor** counted in every run, then align the runs on the anchor
(`mpx.aligners`). This module plans the runs and replays them on a `RunSet`'s ground truth:

- `plan_runs`: the groups, from any static scheduler's configurations (a greedy set cover of its
  configurations: round robin's or hperf's groups as they are, every K-th of perf's sliding windows). The
  anchor is ``"time"`` (the time axis itself, read for free with every sample), an event on a fixed
  counter (free), or an event that takes one generic counter in every run (the groups are then made on
  the PMU with that counter reserved: Hauswirth's cost).
- `measure_runs`: run ``i`` of the plan replayed on run ``i`` of the set with its group always on
  (the same `mpx.multiplex.multiplex`, so reads, apportioning and quanta are the multiplexing road's).
- `multiplex_runs`: the multiplexing road at the same run count (every run multiplexed with one
  scheduler), for comparisons at equal measurement cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.observation import Observation
from mpx.problem import Problem
from mpx.recording.runset import RunSet
from mpx.schedulers import get as get_scheduler
from mpx.schedulers.base import Schedule, StaticScheduler

TIME_ANCHOR = "time"
"""The anchor that is the time axis itself (instructions retired for a callgrind trace on its own axis,
cycles on an estimated-cycle axis): known with every read, costs no counter."""


@dataclass(frozen=True)
class RunPlan:
    """What each run counts: ``groups[i]`` (the anchor included when it is an event) for run ``i``."""

    groups: tuple[tuple[str, ...], ...]
    anchor: str
    grouping: str
    anchor_cost: str

    @property
    def n_runs(self) -> int:
        return len(self.groups)


class CountGroup(StaticScheduler):
    """One configuration for the whole run: ``perf stat -e {group}`` with nothing to multiplex."""

    name = "count_group"
    source = "trace alignment: one group per run (Hauswirth et al. OOPSLA 2005 §3)"

    def __init__(self, events: tuple[str, ...] = ()):
        self.events = events

    def _schedule(self, problem: Problem) -> Schedule:
        if not problem.fits(self.events):
            raise ConfigError(f"group {list(self.events)} does not fit the PMU {problem.pmu.name!r} at once")
        return Schedule.from_configs(problem, [self.events])


def plan_runs(problem: Problem, grouping: str | StaticScheduler = "round_robin",
              anchor: str = TIME_ANCHOR) -> RunPlan:
    """The runs trace alignment needs for ``problem``: see the module docstring."""
    sched = get_scheduler(grouping) if isinstance(grouping, str) else grouping
    if not isinstance(sched, StaticScheduler):
        raise ConfigError(f"grouping {sched.name!r} is an online scheduler: trace alignment needs fixed groups")
    events = list(problem.events)
    if anchor == TIME_ANCHOR:
        cost, grouped = "none (the time axis)", problem
    elif anchor not in events:
        raise ConfigError(f"anchor {anchor!r} is not one of the problem's events (or {TIME_ANCHOR!r})")
    elif anchor in problem.free:
        cost, grouped = "none (a fixed counter)", problem
    else:
        generic = problem.pmu.available(unit=problem.unit(anchor), kind="generic")
        if len(generic) < 2:
            raise ConfigError(f"anchor {anchor!r} needs a generic counter in every run and the PMU has "
                              f"{len(generic)}: nothing would be left for the groups")
        rest = [e for e in events if e != anchor]
        grouped = problem.replace(events=tuple(rest), pmu=problem.pmu.with_reserved(generic[-1]), groups=(),
                                  metrics=tuple(m for m in problem.metrics if anchor not in m.events),
                                  relations=tuple(r for r in problem.relations if anchor not in r), weights=None)
        cost = f"one generic counter in every run ({generic[-1]})"
    schedule = sched.schedule(grouped)
    free = set(grouped.free)
    configs = [[e for e, on in zip(grouped.events, row) if on and e not in free] for row in schedule.configs]
    covered: set[str] = set(free)
    groups: list[tuple[str, ...]] = []
    while True:  # greedy set cover: the configuration adding most, the earliest on ties
        gain = [len(set(c) - covered) for c in configs]
        if not gain or max(gain) == 0:
            break
        best = configs[gain.index(max(gain))]
        groups.append(tuple(best))
        covered |= set(best)
    missing = [e for e in grouped.events if e not in covered]
    if missing:
        raise ConfigError(f"grouping {sched.name!r} never counts {missing[:5]} (errors: "
                          f"{dict(list(sched.errors_.items())[:3])}): no run would measure them")
    if not groups:
        groups = [()]
    extra = sorted(free | ({anchor} if anchor != TIME_ANCHOR else set()))
    return RunPlan(tuple(tuple(sorted(set(g) | set(extra), key=problem.events.index)) for g in groups),
                   anchor, sched.name, cost)


def _pick(runset: RunSet, n: int, reference: int) -> list[int]:
    if n > len(runset):
        raise ConfigError(f"{n} runs needed, the run set {runset.workload!r} has {len(runset)}")
    if not 0 <= reference < len(runset):
        raise ConfigError(f"reference run {reference} out of range (the set has {len(runset)} runs)")
    return [(reference + i) % len(runset) for i in range(n)]


def measure_runs(runset: RunSet, problem: Problem, plan: RunPlan, quantum: float, read_every: int,
                 reference: int = 0) -> list[Observation]:
    """Run ``reference + i`` (cyclically) of ``runset`` counting ``plan.groups[i]``; item 0 is the reference."""
    runs = _pick(runset, plan.n_runs, reference)
    return [multiplex(runset.traces[r], problem, CountGroup(group), quantum, read_every)
            for r, group in zip(runs, plan.groups)]


def multiplex_runs(runset: RunSet, problem: Problem, scheduler: str | object, quantum: float, read_every: int,
                   n_runs: int, reference: int = 0) -> list[Observation]:
    """``n_runs`` runs each multiplexed by ``scheduler`` (the reference first): the multiplexing road at
    the same run count as an alignment plan."""
    return [multiplex(runset.traces[r], problem, scheduler, quantum, read_every)
            for r in _pick(runset, n_runs, reference)]


def run_costs(runset: RunSet, n_runs: int, reference: int = 0) -> float:
    """Measurement cost of ``n_runs`` runs in reference-run lengths (the sum of the runs' durations)."""
    runs = _pick(runset, n_runs, reference)
    length = lambda t: float(t.edges[-1] - t.edges[0])  # noqa: E731
    return sum(length(runset.traces[r]) for r in runs) / length(runset.traces[reference])


__all__ = ["TIME_ANCHOR", "RunPlan", "CountGroup", "plan_runs", "measure_runs", "multiplex_runs", "run_costs"]
