"""An explicit per-process cache of static schedules, shared by the cells of one worker.

A static scheduler's schedule depends on its parameters and the problem only (the MILP one takes
seconds), so cells that differ in dataset or seed reuse it. `ScheduleCache.scheduler` returns the
scheduler a cell multiplexes with: an online one as is, a static one wrapped in `CachedStatic`, whose
`schedule` asks the cache. Nothing is patched on the scheduler instance.
"""

from __future__ import annotations

import json
from typing import Any

from mpx import schedulers
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, Scheduler, StaticScheduler

__all__ = ["ScheduleCache", "CachedStatic", "SCHEDULES"]


class CachedStatic(StaticScheduler):
    """A static scheduler whose schedule comes from a `ScheduleCache` under ``key`` (computed by
    ``inner`` on a miss). It reports ``inner``'s name and parameters, so an Observation's provenance
    is the same as with ``inner`` itself."""

    def __init__(self, inner: StaticScheduler, cache: ScheduleCache, key: str) -> None:
        self.inner = inner
        self.cache = cache
        self.key = key
        self.name = inner.name

    def get_params(self) -> dict[str, Any]:
        return self.inner.get_params()

    def params_for(self, problem: Problem) -> dict[str, Any]:
        return self.inner.params_for(problem)

    def tags(self) -> Any:
        return self.inner.tags()

    @property
    def free_always_on(self) -> bool:  # type: ignore[override]
        return self.inner.free_always_on

    def quanta_per_step(self, quantum: float, time_unit: str) -> int:
        return self.inner.quanta_per_step(quantum, time_unit)

    def applicable(self, problem: Problem) -> str | None:
        return self.inner.applicable(problem)

    def _schedule(self, problem: Problem) -> Schedule:  # pragma: no cover - `schedule` is overridden
        return self.inner._schedule(problem)

    def schedule(self, problem: Problem) -> Schedule:
        """``inner``'s checked schedule of ``problem``, computed once per cache key."""
        return self.cache.get(self.key, lambda: self.inner.schedule(problem))

    def __repr__(self) -> str:
        return f"CachedStatic({self.inner!r})"


class ScheduleCache:
    """Schedules by key (a scheduler spec and a hardware table, as JSON)."""

    def __init__(self) -> None:
        self._schedules: dict[str, Schedule] = {}

    def get(self, key: str, compute: Any) -> Schedule:
        """The schedule stored under ``key``, ``compute()`` stored first on a miss."""
        if key not in self._schedules:
            self._schedules[key] = compute()
        return self._schedules[key]

    def clear(self) -> None:
        self._schedules.clear()

    def __len__(self) -> int:
        return len(self._schedules)

    def scheduler(self, spec: dict, hardware: dict) -> Scheduler:
        """A scheduler instance of ``spec`` (``{"name", "params"}``) for a cell on ``hardware``; a static
        one's schedule is computed once per process and (spec, hardware)."""
        sched = schedulers.get(spec["name"], **spec.get("params", {}))
        if isinstance(sched, StaticScheduler):
            return CachedStatic(sched, self, json.dumps([spec, hardware], sort_keys=True))
        return sched


#: the cache of this process (cells run in a worker process share it)
SCHEDULES = ScheduleCache()
