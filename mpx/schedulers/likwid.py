"""LIKWID's predefined event sets, switched one per quantum (``likwid-perfctr -g A -g B ... -T``).

Source: LIKWID (Treibig, Hager, Wellein, "LIKWID: A lightweight performance-oriented tool suite for x86
multicore environments", ICPPW 2010; github.com/RRZE-HPC/likwid): a performance group file
(``groups/<arch>/<GROUP>.txt``) names each event with the counter register it goes on (``PMC0``,
``FIXC1``...); ``likwid-perfctr`` with several ``-g`` options measures one group at a time and switches
to the next after each ``-T`` interval (2 s by default; ``perfmon_switchActiveGroup`` in
``src/perfmon.c``), round robin. It never multiplexes inside a group: a group whose events do not fit
the counters cannot be set up and likwid-perfctr stops with an error.

In mpx: each group of the problem (in order, or the ones named in ``groups``) is one configuration;
configurations rotate one per quantum (the quantum plays the role of ``-T``). Free events (fixed-counter
and software events; `mpx.problem.Problem.from_catalog` also frees LIKWID's ``FIXC``/``PWR``/``TMP``/box
counters) count all the time. A group that does not fit the PMU, or holds an event the PMU can never
count, is a `~mpx.errors.ConfigError` naming the group — as likwid-perfctr refuses to start. Events in
no selected group are reported in ``errors`` (never measured).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mpx.errors import ConfigError
from mpx.params import ListOf
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler

__all__ = ["LikwidScheduler"]


class LikwidScheduler(StaticScheduler):
    """LIKWID group switching; see the module docstring.

    Parameters
    ----------
    groups:
        Names of the problem's groups to measure, in switching order (``-g A -g B``; a name may repeat).
        None: every group of the problem, in order.
    """

    name: ClassVar[str] = "likwid"
    source: ClassVar[str] = ("LIKWID likwid-perfctr -g A -g B (group switching every -T, src/perfmon.c "
                             "perfmon_switchActiveGroup); Treibig et al., ICPPW 2010")

    needs_event_sets: ClassVar[bool] = True
    param_constraints: ClassVar[dict] = {"groups": [None, ListOf(str, "group names")]}

    def __init__(self, groups: Sequence[str] | None = None) -> None:
        self.groups = groups

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
            configs.append(tuple(busy))
        measured = {e for c in configs for e in c} | set(problem.free)
        errors = {e: "in no selected LIKWID group: never measured" for e in problem.events if e not in measured}
        unique = list(dict.fromkeys(configs))
        cycle = [unique.index(c) for c in configs]
        notes = [f"{len(configs)} LIKWID group(s) switched one per quantum"]
        return Schedule.from_configs(problem, unique, cycle=cycle, groups=tuple(chosen), errors=errors, notes=notes)
