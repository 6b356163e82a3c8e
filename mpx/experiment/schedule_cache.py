"""An explicit per-process cache of static schedules, shared by the cells of one worker.

A static scheduler's schedule depends on its parameters and the problem only (the MILP one takes
seconds), so cells that differ in dataset or seed reuse it: `ScheduleCache.schedule` computes it once per
(scheduler spec, hardware table) and the cell hands it to `mpx.multiplex.multiplex` (``schedule=``), which
runs it instead of asking the scheduler again. The scheduler itself is the registry's instance, unwrapped:
every hook it has is the one multiplex calls.
"""

from __future__ import annotations

import json
from typing import Any

from mpx.problem import Problem
from mpx.schedulers.base import Schedule, Scheduler

__all__ = ["ScheduleCache", "SCHEDULES"]


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

    def schedule(self, spec: dict, hardware: dict, scheduler: Scheduler, problem: Problem) -> Schedule | None:
        """The schedule of ``problem`` by ``scheduler`` (built from ``spec``, ``{"name", "params"}``, for a
        cell on ``hardware``), computed once per process and (spec, hardware) by a clone of ``scheduler``;
        None for an online scheduler (its tags say), which decides as the run goes."""
        if scheduler.tags().online:
            return None
        key = json.dumps([spec, hardware], sort_keys=True)
        return self.get(key, lambda: scheduler.clone().schedule(problem))


#: the cache of this process (cells run in a worker process share it)
SCHEDULES = ScheduleCache()
