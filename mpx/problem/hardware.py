"""The adapter from `~mpx.problem.Problem` to `mpx.pmu.PMU` (`Hardware`), and `pmu_of`."""

from __future__ import annotations

from typing import Any

from mpx.errors import ConfigError
from mpx.pmu import UncountableEventError, place_greedy, place_matching, resolve_pmu


__all__ = ["Hardware", "pmu_of"]


def pmu_of(pmu: Any) -> Any:
    """A Problem's ``pmu`` argument as a PMU: a preset name or TOML file (`mpx.pmu.resolve_pmu`), else
    as given (a `mpx.pmu.PMU`, or None: no PMU declared)."""
    return resolve_pmu(pmu) if isinstance(pmu, str) else pmu


class Hardware:
    """Adapter from `Problem` to `mpx.pmu.PMU`: which events are free, their units, feasibility.

    Categories: *software* events (free), events bound to an unreserved fixed counter (free), events
    that need a programmable counter, and events the PMU can never count even with no counter reserved
    (perf stat: ``<not supported>``).

    Fixed-counter fallback (not in `mpx.pmu`, added here): when a second event of the problem is bound
    to a fixed counter an earlier one already holds (Skylake's ``CPU_CLK_UNHALTED.THREAD`` and
    ``.THREAD_ANY`` both on fixed counter 1, as in the TMA metrics), it takes any programmable counter
    of its unit, as the kernels do (x86 ``intel_pmu_init`` widens fixed-event constraints to the
    generic counters; arm64 ``armv8pmu_get_event_idx`` moves cycles to a generic counter). Exception
    not modelled: Intel does not widen REF_CYCLES (fixed 2) and SLOTS (fixed 3).
    """

    def __init__(self, problem: Any) -> None:  # the Problem (mpx.problem.core) that builds it
        self._uncountable_exc = UncountableEventError
        pmu = problem.pmu
        for attr in ("fits", "unit_of", "fixed_counter", "countable", "available", "reserved"):
            if not hasattr(pmu, attr):
                raise ConfigError(f"{pmu!r} is not a mpx.pmu.PMU (it lacks {attr!r})")
        self.pmu = pmu
        self.open_pmu = pmu.with_reserved(replace=True) if pmu.reserved else pmu
        self.unit_of: dict[str, str] = {}
        self.why_not: dict[str, str] = {}  # events that can never be counted, with the reason
        self.fallback: dict[str, str] = {}  # fixed events whose counter is taken: any generic counter of the unit
        fixed: dict[str, str] = {}
        holder: dict[Any, str] = {}
        software = set(problem.software)
        for e in problem.events:
            if e in software:
                self.unit_of[e] = "software"
                continue
            try:
                self.unit_of[e] = self.open_pmu.unit_of(e)
                ctr = self.open_pmu.fixed_counter(e)
            except UncountableEventError as exc:
                self.why_not[e] = str(exc)
                continue
            if ctr is not None and ctr not in pmu.reserved:
                if ctr in holder:
                    self.fallback[e] = self.unit_of[e]
                    if not self.open_pmu.available(self.unit_of[e], "generic"):
                        self.why_not[e] = (f"its fixed counter {ctr} already counts {holder[ctr]!r} and unit "
                                           f"{self.unit_of[e]!r} has no programmable counter")
                else:
                    holder[ctr] = e
                    fixed[e] = str(ctr)
        self.fixed = frozenset(fixed)
        self.free = frozenset(fixed) | (software & set(problem.events))
        self.free_mask = problem.mask(self.free)
        self.free_mask.setflags(write=False)
        self.units = tuple(dict.fromkeys(
            self.unit_of[e] for e in problem.events
            if e in self.unit_of and e not in self.free and e not in self.why_not
        ))
        self._fits: dict[Any, bool] = {}

    def unit(self, event: str) -> str:
        try:
            return self.unit_of[event]
        except KeyError:
            raise ConfigError(f"event {event!r}: {self.why_not.get(event, 'not in the problem')}") from None

    def countable(self, event: str) -> bool:
        return event in self.free or (event in self.unit_of and event not in self.why_not)

    def fits(self, events: tuple[str, ...], method: str, reserved: bool) -> bool:
        key = (events, method, reserved)
        hit = self._fits.get(key)
        if hit is None:
            busy = [e for e in events if e not in self.free]
            if any(e in self.why_not for e in busy):
                hit = False
            else:
                pmu = self.pmu if reserved else self.open_pmu
                try:
                    if len(set(busy)) == len(busy) and not any(e in self.fallback for e in busy):
                        hit = pmu.fits(busy, method=method)
                    else:
                        hit = self._fits_instances(pmu, busy, method)
                except self._uncountable_exc:
                    hit = False
            if len(self._fits) > 1 << 16:
                self._fits.clear()
            self._fits[key] = hit
        return hit

    def _allowed(self, pmu: Any, event: str) -> tuple:
        if event in self.fallback:
            return pmu.available(self.fallback[event], "generic")
        return pmu.allowed(event)

    def _fits_instances(self, pmu: Any, busy: list[str], method: str) -> bool:
        """Feasibility when an event appears more than once (one counter per instance) or falls back
        from its fixed counter. `mpx.pmu.PMU` assigns sets of distinct events on their own masks, so
        this is done here with its public ``allowed``/``available`` and the placement rules of
        `mpx.pmu.placement`: perf's greedy (weight = size of the event's mask with no counter reserved,
        ties in list order) or the exact bipartite matching."""
        allowed = [self._allowed(pmu, e) for e in busy]
        if any(not a for a in allowed):
            return False
        if method == "perf":
            return place_greedy(allowed, [len(self._allowed(self.open_pmu, e)) for e in busy]) is not None
        return place_matching(allowed) is not None

    def n_counters(self, unit: str | None) -> int:
        units = self.units if unit is None else (unit,)
        return sum(len(self.pmu.available(u, "generic")) for u in units)
