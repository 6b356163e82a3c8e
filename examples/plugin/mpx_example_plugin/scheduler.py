"""A static scheduler: perf's block round robin over the problem's event groups, last group first (so the
groups perf would leave for the end of a rotation count first)."""

from __future__ import annotations

from typing import ClassVar

from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.schedulers.round_robin import pack_round_robin


class ReverseRoundRobin(StaticScheduler):
    """Block round robin over the groups in reverse order (an example plugin, built on
    `mpx.schedulers.round_robin.pack_round_robin`, the public packing of perf's rotation)."""

    name: ClassVar[str] = "example_reverse"
    source: ClassVar[str] = "mpx-example-plugin (perf's round robin, groups reversed)"

    def _schedule(self, problem: Problem) -> Schedule:
        return pack_round_robin(problem.replace(groups=tuple(problem.groups)[::-1]))
