"""Does an event set fit without multiplexing? The pre-flight check users ask for (``mpx schedule --check``).

A set fits when every event can be counted in the same quantum: the events bound to fixed counters on
their counter, every other event on a programmable counter its mask allows, none of them taken by someone
else (`mpx.pmu.PMU.with_nmi_watchdog`: the hard-lockup detector's pinned cycles event). Two answers are
given, because they differ: an exact bipartite matching, and Linux's own placement on x86
(``perf_assign_events``, weight-ordered greedy without backtracking: it can fail where a matching exists,
`mpx.pmu.PMU.assign`). Software events (``Problem.software``) take no counter.

Where it does not fit, the fewest groups are bounded from below by ⌈programmable events / usable
counters⌉ per unit, and from above by a first-fit packing that respects the masks (events with the fewest
allowed counters first, each into the first group it fits with); when the two agree that is the fewest
groups. How much counter time each event then gets under perf, the grouping tools and mpx's grouping is
`mpx.scoring.schedules.score_schedulers`' sampling ratio, which the command prints beside this check.

The machine's variants that change the answer: SMT on or off (a preset named ``NAME-htoff`` is the same
core with hyper-threading off, e.g. Skylake: 4 programmable counters per logical CPU with HT on, 8 with
it off) and the NMI watchdog on or off (``/proc/sys/kernel/nmi_watchdog``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from mpx.errors import MpxError
from mpx.pmu import PMU, preset, presets
from mpx.problem.core import Problem

__all__ = ["FitCheck", "check_fit", "pmu_variants"]


@dataclass(frozen=True)
class FitCheck:
    """The answer for one PMU variant."""

    variant: str
    pmu: str
    counters: dict[str, int]  # usable programmable counters per unit of the events
    fixed: tuple[str, ...]  # events on fixed counters (never multiplexed)
    programmable: tuple[str, ...]  # events that need a programmable counter
    uncountable: dict[str, str]  # event -> why no usable counter can ever take it (left out of the check)
    fits: bool  # exact: a placement of every event in one quantum exists
    fits_perf: bool  # Linux x86's weight-ordered greedy places them all
    min_groups: int  # lower bound on the groups needed (1 when it fits)
    packed_groups: int  # groups of a first-fit packing that respects the masks (an upper bound)

    @property
    def exact_groups(self) -> int | None:
        """The fewest groups when the bounds meet, else None."""
        return self.min_groups if self.min_groups == self.packed_groups else None

    def to_dict(self) -> dict:
        return {"variant": self.variant, "pmu": self.pmu, "counters": dict(self.counters),
                "fixed": list(self.fixed), "programmable": list(self.programmable),
                "uncountable": dict(self.uncountable), "fits": self.fits, "fits_perf": self.fits_perf,
                "min_groups": self.min_groups, "packed_groups": self.packed_groups,
                "exact_groups": self.exact_groups}


def pmu_variants(pmu: PMU, *, smt: bool = True, watchdog: bool = True) -> list[tuple[str, PMU]]:
    """The PMU as given, then (``smt``) its hyper-threading sibling preset when one exists, each (``watchdog``)
    with and without the NMI watchdog; labelled for a table."""
    names = set(presets())
    base = [(pmu.name, pmu)]
    if smt:
        if pmu.name.endswith("-htoff") and pmu.name[: -len("-htoff")] in names:
            base = [(f"{pmu.name[:-len('-htoff')]} (SMT on)", preset(pmu.name[: -len("-htoff")])),
                    (f"{pmu.name} (SMT off)", pmu)]
        elif f"{pmu.name}-htoff" in names:
            base = [(f"{pmu.name} (SMT on)", pmu), (f"{pmu.name}-htoff (SMT off)", preset(f"{pmu.name}-htoff"))]
    out = []
    for label, p in base:
        out.append((f"{label}, watchdog off" if watchdog else label, p))
        if watchdog:
            out.append((f"{label}, watchdog on", p.with_nmi_watchdog()))
    return out


def check_fit(problem: Problem, variant: str | None = None) -> FitCheck:
    """Whether ``problem``'s events fit in one quantum on its PMU, and if not, bounds on the fewest groups."""
    uncountable = problem.unplaceable
    events = [e for e in problem.events if e not in uncountable and e not in problem.software]
    fixed = tuple(e for e in events if e in problem.fixed)
    programmable = tuple(e for e in events if e not in problem.free)
    fits = problem.fits(events)
    fits_perf = fits and problem.fits(events, method="perf")
    counters = {u: problem.n_counters(u) for u in dict.fromkeys(problem.unit(e) for e in programmable)}
    by_unit: dict[str, list[str]] = {}
    for e in programmable:
        by_unit.setdefault(problem.unit(e), []).append(e)
    lower = max([math.ceil(len(evs) / max(counters[u], 1)) for u, evs in by_unit.items()] or [1])
    packed = 1 if fits else _first_fit(problem, by_unit)
    return FitCheck(variant or problem.pmu.name, problem.pmu.name, counters, fixed, programmable, uncountable,
                    fits, fits_perf, 1 if fits else max(lower, 1), packed)


def _first_fit(problem: Problem, by_unit: dict[str, list[str]]) -> int:
    """Groups of a first-fit packing per unit, events with the fewest allowed counters first; the units
    count in parallel, so the answer is the largest unit's."""
    worst = 1
    for evs in by_unit.values():
        order = sorted(evs, key=lambda e: (_mask_size(problem, e), evs.index(e)))
        groups: list[list[str]] = []
        for e in order:
            for g in groups:
                if problem.fits([*g, e]):
                    g.append(e)
                    break
            else:
                groups.append([e])
        worst = max(worst, len(groups))
    return worst


def _mask_size(problem: Problem, event: str) -> int:
    try:
        return len(problem.pmu.allowed(event))
    except MpxError:  # an event the PMU cannot place: no mask to sort by
        return 1 << 30


def check_variants(make_problem, pmu: PMU, **kw: bool) -> Iterable[tuple[FitCheck, Problem]]:
    """`check_fit` on every variant of `pmu_variants`; ``make_problem(pmu)`` builds the problem on each."""
    for label, p in pmu_variants(pmu, **kw):
        prob = make_problem(p)
        yield check_fit(prob, label), prob
