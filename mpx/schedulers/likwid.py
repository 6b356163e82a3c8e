"""LIKWID's predefined event sets, switched one per quantum (``likwid-perfctr -g A -g B ... -T``).

Source: LIKWID (Treibig, Hager, Wellein, "LIKWID: A lightweight performance-oriented tool suite for x86
multicore environments", ICPPW 2010; github.com/RRZE-HPC/likwid): a performance group file
(``groups/<arch>/<GROUP>.txt``) names each event with the counter register it goes on (``PMC0``,
``FIXC1``...); ``likwid-perfctr`` with several ``-g`` options measures one group at a time and switches
to the next after each ``-T`` interval (2 s by default; ``perfmon_switchActiveGroup`` in
``src/perfmon.c``), round robin. It never multiplexes inside a group: a group whose events do not fit
the counters cannot be set up and likwid-perfctr stops with an error.

In mpx: each group of the problem (in order, or the ones named in ``groups``) is one configuration,
holding **all** of the group's events: ``__perfmon_switchActiveGroupThread`` (``src/perfmon.c``) calls
``perfmon_stopCounters`` on the old group before ``perfmon_setupCounters`` of the new one, so fixed,
energy (``PWR``), thermal and box (uncore) counters are on only while their group is active — with two
groups ``MEM`` and ``FLOPS_DP``, ``DRAM_READS`` counts half the time (``free_always_on`` is False: the
problem's free events are not added to every quantum). Events in no selected group are never measured
(``errors``).

The switch interval ``switch_interval`` is ``-T`` in **seconds**: 2 s by default (``duration = 2.E06``
µs, ``src/applications/likwid-perfctr.lua``:182; with a single group the wrapper wakes every 30 s,
line 1379, but never switches). One step of the schedule is one switch interval; replayed on a trace
(`mpx.multiplex`) it lasts ``round(switch_interval / quantum in s)`` quanta (`quanta_per_step`). The
quantum's length in seconds comes from the trace's time axis (s/ms/us/ns) or from ``quantum_seconds``;
on an axis with no fixed relation to time (cycles, ticks, instructions) ``quantum_seconds`` is required
(a `~mpx.errors.ConfigError` otherwise: no clock rate is assumed). A group that does not fit the PMU,
or holds an event the PMU can never count, is a `~mpx.errors.ConfigError` naming the group — as
likwid-perfctr refuses to start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mpx.errors import ConfigError
from mpx.params import Interval, ListOf
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.trace import SECONDS_PER_UNIT

__all__ = ["LikwidScheduler"]


class LikwidScheduler(StaticScheduler):
    """LIKWID group switching; see the module docstring.

    Parameters
    ----------
    groups:
        Names of the problem's groups to measure, in switching order (``-g A -g B``; a name may repeat).
        None: every group of the problem, in order.
    switch_interval:
        ``-T``: seconds between two group switches (LIKWID's default: 2 s).
    quantum_seconds:
        Seconds one replay quantum lasts; None: from the trace's time axis (required when the axis is
        cycles, ticks or instructions).
    """

    name: ClassVar[str] = "likwid"
    source: ClassVar[str] = ("LIKWID likwid-perfctr -g A -g B (group switching every -T, src/perfmon.c "
                             "perfmon_switchActiveGroup); Treibig et al., ICPPW 2010")

    needs_event_sets: ClassVar[bool] = True
    free_always_on: ClassVar[bool] = False
    #: the conformance traces' axis is 'intervals': one quantum is said to last 1 s (a switch every 2)
    example_params: ClassVar[dict] = {"quantum_seconds": 1.0}
    param_constraints: ClassVar[dict] = {"groups": [None, ListOf(str, "group names")],
                                         "switch_interval": Interval(float, 0, None, closed="neither"),
                                         "quantum_seconds": [None, Interval(float, 0, None, closed="neither")]}

    def __init__(self, groups: Sequence[str] | None = None, switch_interval: float = 2.0,
                 quantum_seconds: float | None = None) -> None:
        self.groups = groups
        self.switch_interval = switch_interval
        self.quantum_seconds = quantum_seconds

    def quanta_per_step(self, quantum: float, time_unit: str) -> int:
        """Quanta per group switch: ``switch_interval`` over the quantum's length in seconds."""
        self.validate_params()
        if self.quantum_seconds is not None:
            q_s = float(self.quantum_seconds)
        elif time_unit in SECONDS_PER_UNIT:
            q_s = float(quantum) * SECONDS_PER_UNIT[time_unit]
        else:
            raise ConfigError(f"likwid: the trace's time axis is {time_unit!r}, which has no fixed relation to "
                              f"seconds; give quantum_seconds (seconds per quantum) so that the -T switch interval "
                              f"({self.switch_interval:g} s) can be placed")
        return max(1, round(float(self.switch_interval) / q_s))

    def applicable(self, problem: Problem) -> str | None:
        """LIKWID rotates predefined event sets, which only a problem built from LIKWID groups has
        (``meta['groups_from'] == "eventset"``, `Problem.from_catalog`)."""
        if problem.meta.get("groups_from") != "eventset":
            return ("needs predefined LIKWID event sets (eventset groups); this catalog's groups come from "
                    f"{problem.meta.get('groups_from') or 'the user'}")
        return None

    def _schedule(self, problem: Problem) -> Schedule:
        if self.groups is None:
            chosen = list(problem.groups)
        else:
            by_name = {}
            for g in problem.groups:
                if g.name is not None:
                    by_name.setdefault(g.name, g)
            missing = [n for n in self.groups if n not in by_name]
            if missing:
                raise ConfigError(f"likwid: no group(s) {missing} in the problem; groups: "
                                  f"{', '.join(n for n in by_name) or '(none named)'}")
            chosen = [by_name[n] for n in self.groups]
        if not chosen:
            raise ConfigError("likwid: no group to measure")
        pmu_name = getattr(problem.pmu, "name", problem.pmu)
        configs: list[tuple[str, ...]] = []
        for g in chosen:
            label = g.name or g.to_perf()
            busy = [e for e in g.events if e not in problem.free]
            bad = [e for e in busy if not problem.countable(e)]
            if bad:
                raise ConfigError(f"likwid: group {label}: PMU {pmu_name!r} can never count {bad} "
                                  "(likwid-perfctr cannot set up this event set)")
            if not problem.fits(busy):
                raise ConfigError(f"likwid: group {label} needs {len(busy)} programmable counters together, "
                                  f"which PMU {pmu_name!r} ({problem.n_counters()} usable) cannot give; LIKWID "
                                  "never multiplexes inside a group")
            configs.append(tuple(g.events))  # stopped with the group, free (fixed, energy, box) ones included
        measured = {e for c in configs for e in c}
        errors = {e: "in no selected LIKWID group: never measured" for e in problem.events if e not in measured}
        unique = list(dict.fromkeys(configs))
        cycle = [unique.index(c) for c in configs]
        notes = [f"{len(configs)} LIKWID group(s), one per step of -T = {self.switch_interval:g} s (a replay "
                 "stretches a step to that many quanta); every counter of a group, uncore and energy ones "
                 "included, stops when it is switched out"]
        return Schedule.from_configs(problem, unique, cycle=cycle, groups=tuple(chosen), errors=errors, notes=notes)
