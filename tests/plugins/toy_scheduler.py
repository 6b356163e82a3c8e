"""A toy static scheduler, one file and a ``register()`` call: block round robin over the event groups in
reverse order (the last group first)."""

from __future__ import annotations

from typing import ClassVar

from mpx import schedulers
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.schedulers.round_robin import pack_round_robin


class ToyScheduler(StaticScheduler):
    """Round robin over the problem's groups, last group first (a plugin example)."""

    name: ClassVar[str] = "toy"
    source: ClassVar[str] = "tests/plugins/toy_scheduler.py (a plugin example)"

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem.replace(groups=tuple(problem.groups)[::-1]))


def register() -> None:
    schedulers.register("toy", ToyScheduler)
