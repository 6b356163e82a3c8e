"""Event grouping by hypergraph partitioning: which events share the counters in each quantum.

The thesis's answer to hperf's greedy merging (reference ``partitioning.md``): events are vertices,
each metric is a net over the events it needs (weight = the metric's importance), a group must fit the
counters, and the connectivity objective km1 = Σ_m ω(m)(λ(m) − 1) keeps a metric's events together.
`group_events` does, for each PMU unit the problem's multiplexed events use:

1. **Hypergraph** (`event_hypergraph`): the unit's schedulable events are the vertices (weight 1).
   Free events (fixed-counter, software) are always counted and are not vertices; events the PMU can
   never place go to ``errors``; events of pinned groups run in every group and take their counters off
   the cap. A metric's events on this unit form a net; metrics with the same event set are one net with
   the summed weight; nets of one event are dropped (they cannot be cut). Importance of a metric = mean
   of the problem's event weights over its events (as `mpx.schedulers.optimal`'s ``weighted``),
   scaled to integers.
2. **k**: starts at ⌈n / C⌉ (C = usable programmable counters of the unit minus pinned events) and goes
   up while the groups' *weighted mean co-scheduling ratio* (after steps 3–5) improves, at most
   ``max_extra_blocks`` steps; the smallest k of the best ratio wins (fewer groups: higher sampling
   ratios).
3. **Partition** with `mpx.partition.partition` under the block cap C (``max_block_weights=[C] * k``).
4. **Repair**: each block must fit the PMU's counter masks (bipartite matching, `Problem.fits`). An
   infeasible block gives up the event whose eviction makes it fit while losing the least net weight
   (else its most constrained event); the evicted event goes to the block with room where it fits and
   is most connected, or to a new block.
5. **Replication**: spare counters of a block take copies of events of metrics not complete in it,
   greedily by (Σ ω(m) / (1 + groups m is complete in) over the metrics that become complete) / events
   added, so cut metrics are co-scheduled somewhere and others more often; counters still spare then
   take the events that appear in the fewest groups (higher sampling ratio and utilization).

Groups of different units are zipped: group q holds block q of every unit (block q mod k_u for a unit
with fewer blocks). Deterministic for a given seed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.partition import Context, Hypergraph, InitialConfig, RefinementConfig, partition
from mpx.problem import Problem

__all__ = ["EventGrouping", "UnitGrouping", "event_hypergraph", "group_events", "grouping_context", "metric_importance",
           "replicate", "repair_blocks"]


@dataclass(frozen=True)
class UnitGrouping:
    """The grouping of one PMU unit: the partition blocks, what repair and replication did, the k tried."""

    unit: str
    events: tuple[str, ...]
    cap: int
    k: int
    km1: int
    blocks: tuple[tuple[str, ...], ...]          #: partition blocks after repair, before replication
    groups: tuple[tuple[str, ...], ...]          #: blocks with replicas added
    repaired: int                                #: events moved by the counter-mask repair
    tried: tuple[dict, ...]                      #: per k: km1, repaired moves, score


@dataclass(frozen=True)
class EventGrouping:
    """Groups of events counted together, one per quantum in rotation (pinned events in each)."""

    groups: tuple[tuple[str, ...], ...]
    errors: dict[str, str]
    units: tuple[UnitGrouping, ...]
    pinned: tuple[str, ...]
    coschedule: dict[str, float]                 #: per metric: share of groups holding all its events
    seconds: float
    notes: tuple[str, ...] = field(default=())

    @property
    def k(self) -> int:
        return len(self.groups)

    @property
    def mean_coschedule_ratio(self) -> float:
        v = list(self.coschedule.values())
        return float(np.mean(v)) if v else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"k": self.k, "groups": [list(g) for g in self.groups], "pinned": list(self.pinned),
                "errors": dict(self.errors), "mean_coschedule_ratio": self.mean_coschedule_ratio,
                "coschedule": dict(self.coschedule), "seconds": self.seconds, "notes": list(self.notes),
                "units": [{"unit": u.unit, "events": len(u.events), "cap": u.cap, "k": u.k, "km1": u.km1,
                           "repaired": u.repaired, "blocks": [list(b) for b in u.blocks], "tried": list(u.tried)}
                          for u in self.units]}


def metric_importance(problem: Problem) -> np.ndarray:
    """Importance of each metric: the mean of the problem's event weights over its events."""
    return np.array([float(np.mean([problem.weights[problem.index(e)] for e in m.events])) if m.events else 0.0
                     for m in problem.metrics])


def _integer_weights(w: np.ndarray) -> np.ndarray:
    """Net weights as integers: unchanged when already whole numbers, else scaled so the largest is 1000."""
    if w.size == 0:
        return np.zeros(0, dtype=np.int64)
    if np.allclose(w, np.round(w)):
        return np.round(w).astype(np.int64)
    top = float(w.max())
    return np.where(w > 0, np.maximum(1, np.round(w * 1000.0 / top)), 0).astype(np.int64)


def event_hypergraph(events: Sequence[str], metric_events: Sequence[Sequence[str]],
                     importance: Sequence[float]) -> tuple[Hypergraph, list[tuple[int, ...]], np.ndarray]:
    """The hypergraph of ``events`` (vertices, in order; weight 1) with one net per distinct event set of
    the metrics restricted to ``events`` (≥ 2 events, positive weight; duplicate sets merged, weights
    summed). Returns the hypergraph, the metric parts as vertex tuples (one per metric, possibly empty),
    and the integer weight of each metric."""
    index = {e: i for i, e in enumerate(events)}
    parts = [tuple(sorted({index[e] for e in evs if e in index})) for evs in metric_events]
    wint = _integer_weights(np.asarray(importance, dtype=float))
    nets: dict[tuple[int, ...], int] = {}
    for part, w in zip(parts, wint):
        if len(part) >= 2 and w > 0:
            nets[part] = nets.get(part, 0) + int(w)
    keys = list(nets)
    hg = Hypergraph.from_nets([list(p) for p in keys], num_vertices=len(events),
                              net_weights=[nets[p] for p in keys], names=list(events))
    return hg, parts, wint


def grouping_context(n_vertices: int) -> Context:
    """The partitioner configuration for an event hypergraph of ``n_vertices`` events.

    Event groups are full (C·k close to n), so no single move is feasible: refinement adds pairwise swaps
    (`mpx.partition.refinement.swap`) between FM rounds. Such inputs are below the contraction limit (no
    coarsening) and initial partitioning (recursive bisection, k − 1 portfolios) takes most of the time,
    so the budget goes to independent repetitions on small inputs (⌊1000 / n⌋, at most 8, for n ≤ 400),
    else to one run with fewer portfolio runs per bisection (10 instead of 20) and 2 V-cycles — about
    0.5 s per call at 2,000 events on the 2-core machine of ``experiments/analyses/partition_quality.py`` when it is
    not loaded (twice that when it is).
    """
    refinement = RefinementConfig(algorithms=("label_propagation", "fm", "swap", "fm"))
    if n_vertices <= 400:
        return Context(refinement=refinement, vcycles=0, repetitions=max(1, min(8, 1000 // max(n_vertices, 1))))
    return Context(refinement=refinement, vcycles=2, initial=InitialConfig(runs=10))


def _links(v: int, block: set[int], parts: Sequence[tuple[int, ...]], weights: np.ndarray,
           nets_of: dict[int, list[int]]) -> int:
    """Weight of the metrics containing ``v`` and another vertex of ``block``."""
    return int(sum(weights[m] for m in nets_of.get(v, ()) if any(u != v and u in block for u in parts[m])))


def repair_blocks(blocks: list[list[int]], cap: int, fits: Callable[[Sequence[int]], bool],
                  parts: Sequence[tuple[int, ...]], weights: np.ndarray,
                  n_allowed: Callable[[int], int]) -> tuple[list[list[int]], int]:
    """Make every block fit: while a block does not, evict one event (the one whose eviction makes it fit
    at the least loss of metric weight; when none does, the one with the fewest allowed counters) and put
    it in the most connected block with room where it fits, or in a new block. Every single event must
    fit alone. Returns the blocks and the number of moves."""
    nets_of: dict[int, list[int]] = {}
    for m, p in enumerate(parts):
        for v in p:
            nets_of.setdefault(v, []).append(m)
    blocks = [list(b) for b in blocks]
    moves = 0
    b = 0
    while b < len(blocks):
        while not fits(blocks[b]):
            block = blocks[b]
            bset = set(block)
            best = None
            for v in block:
                rest = [u for u in block if u != v]
                loss = _links(v, bset, parts, weights, nets_of)
                key = (0 if fits(rest) else 1, loss if fits(rest) else n_allowed(v), v)
                if best is None or key < best[0]:
                    best = (key, v)
            v = best[1]
            block.remove(v)
            moves += 1
            target, score = None, -1
            for j, other in enumerate(blocks):
                if j == b or len(other) >= cap or not fits(other + [v]):
                    continue
                s = _links(v, set(other) | {v}, parts, weights, nets_of)
                if s > score:
                    target, score = j, s
            if target is None:
                blocks.append([v])
            else:
                blocks[target].append(v)
        b += 1
    return blocks, moves


def replicate(blocks: list[list[int]], cap: int, fits: Callable[[Sequence[int]], bool],
              parts: Sequence[tuple[int, ...]], weights: np.ndarray, n_vertices: int,
              fill: bool = True) -> list[list[int]]:
    """Fill spare counters with copies of events (see the module docstring, step 5). ``parts[m]`` are the
    vertices of metric m (empty: the metric has no event here); returns new blocks (originals first)."""
    groups = [list(b) for b in blocks]
    sets = [set(g) for g in groups]
    live = [m for m, p in enumerate(parts) if 0 < len(p) <= cap and weights[m] > 0]
    cov = {m: sum(1 for s in sets if s.issuperset(parts[m])) for m in live}
    nets_of: dict[int, list[int]] = {}
    for m in live:
        for v in parts[m]:
            nets_of.setdefault(v, []).append(m)
    infeasible: set[tuple[int, tuple[int, ...]]] = set()
    while True:
        best = None
        for b, s in enumerate(sets):
            spare = cap - len(s)
            if spare <= 0:
                continue
            seen: set[tuple[int, ...]] = set()
            for m in live:
                missing = tuple(v for v in parts[m] if v not in s)
                if not missing or len(missing) > spare or missing in seen or (b, missing) in infeasible:
                    continue
                seen.add(missing)
                after = s.union(missing)
                near = {j for v in missing for j in nets_of[v]}
                gain = sum(weights[j] / (1.0 + cov[j]) for j in near if after.issuperset(parts[j])) / len(missing)
                key = (gain, -b, -m)
                if best is None or key > best[0]:
                    best = (key, b, missing)
            # feasibility is checked lazily for the best candidate only (below)
        if best is None:
            break
        _, b, missing = best
        if not fits(groups[b] + list(missing)):
            infeasible.add((b, missing))
            continue
        before = sets[b]
        groups[b] += list(missing)
        sets[b] = before.union(missing)
        for j in {j for v in missing for j in nets_of[v]}:
            if sets[b].issuperset(parts[j]):
                cov[j] += 1
    if fill:
        count = np.zeros(n_vertices, dtype=np.int64)
        for s in sets:
            for v in s:
                count[v] += 1
        for b, s in enumerate(sets):
            for v in np.lexsort((np.arange(n_vertices), count)).tolist():
                if len(groups[b]) >= cap:
                    break
                if v in s or not fits(groups[b] + [v]):
                    continue
                groups[b].append(v)
                s.add(v)
                count[v] += 1
    return groups


def _score(groups: Sequence[set[int]], parts: Sequence[tuple[int, ...]], weights: np.ndarray) -> float:
    """Weighted mean co-scheduling ratio of the metrics with events here, over the groups."""
    live = [m for m, p in enumerate(parts) if p]
    total = float(sum(weights[m] for m in live))
    if not groups or total == 0:
        return 0.0
    cov = sum(weights[m] * sum(1 for s in groups if s.issuperset(parts[m])) for m in live)
    return float(cov) / (total * len(groups))


def group_events(problem: Problem, *, seed: int = 0, k: int | None = None, max_extra_blocks: int = 4,
                 replicate_events: bool = True, counters: int | None = None,
                 context: Context | None = None) -> EventGrouping:
    """Group the problem's multiplexed events by hypergraph partitioning (see the module docstring).

    ``k`` fixes the number of blocks of every unit (at least ⌈n/C⌉); None searches upward from there,
    at most ``max_extra_blocks`` steps. ``counters`` overrides C for the core unit (like hperf's
    ``available_GP``). ``context`` configures the partitioner (default: `grouping_context`). Raises `ConfigError` when pinned events do
    not fit together or leave no counter.
    """
    t0 = time.perf_counter()
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ConfigError(f"grouping: k must be a positive integer or None, got {k!r}")
    if isinstance(max_extra_blocks, bool) or not isinstance(max_extra_blocks, (int, np.integer)) or max_extra_blocks < 0:
        raise ConfigError(f"grouping: max_extra_blocks must be an integer >= 0, got {max_extra_blocks!r}")
    if counters is not None and (isinstance(counters, bool) or not isinstance(counters, (int, np.integer))
                                 or counters < 1):
        raise ConfigError(f"grouping: counters must be a positive integer or None, got {counters!r}")
    free = problem.free
    errors = problem.unplaceable
    sched = [e for e in problem.events if e not in free and e not in errors]
    pinned = [e for g in problem.groups if g.pinned for e in g.events if e in set(sched)]
    pinned = list(dict.fromkeys(pinned))
    if pinned and not problem.fits(pinned):
        raise ConfigError(f"grouping: the pinned events {pinned} do not fit the PMU together")
    importance = metric_importance(problem)
    metric_events = [m.events for m in problem.metrics]
    units: list[UnitGrouping] = []
    notes: list[str] = []
    core = problem.units()[0] if problem.units() else None
    for unit in dict.fromkeys(problem.unit(e) for e in sched):
        mine = [e for e in sched if problem.unit(e) == unit and e not in pinned]
        held = sum(1 for e in pinned if problem.unit(e) == unit)
        cap = (counters if counters is not None and unit == core else problem.n_counters(unit)) - held
        if not mine:
            continue
        if cap < 1:
            raise ConfigError(f"grouping: pinned events leave no counter of unit {unit!r} for the other events")
        units.append(_group_unit(problem, unit, mine, cap, pinned, metric_events, importance, seed, k,
                                 max_extra_blocks, replicate_events, context))
    n_groups = max((len(u.groups) for u in units), default=1)
    groups = []
    for q in range(n_groups):
        g = list(pinned)
        for u in units:
            g += list(u.groups[q % len(u.groups)])
        groups.append(tuple(g))
    if not units:
        notes.append("no event to multiplex" if not pinned else "only pinned events: one group")
    sets = [set(g) | set(free) for g in groups]
    cos = {}
    for m in problem.metrics:
        if any(e in errors for e in m.events):
            cos[m.name] = 0.0
        else:
            cos[m.name] = sum(1 for s in sets if s.issuperset(m.events)) / len(sets)
    return EventGrouping(tuple(groups), errors, tuple(units), tuple(pinned), cos, time.perf_counter() - t0,
                         tuple(notes))


def _group_unit(problem: Problem, unit: str, events: list[str], cap: int, pinned: list[str],
                metric_events: list[tuple[str, ...]], importance: np.ndarray, seed: int, k: int | None,
                max_extra: int, do_replicate: bool, context: Context | None) -> UnitGrouping:
    hg, parts, wint = event_hypergraph(events, metric_events, importance)
    n = len(events)
    cache: dict[tuple[int, ...], bool] = {}

    def fits(vs: Sequence[int]) -> bool:
        key = tuple(sorted(vs))
        ok = cache.get(key)
        if ok is None:
            ok = cache[key] = problem.fits([events[v] for v in key] + pinned)
        return ok

    def n_allowed(v: int) -> int:
        try:
            return len(problem.pmu.allowed(events[v]))
        except Exception:  # noqa: BLE001 - a PMU without per-event masks: every counter
            return cap

    k0 = math.ceil(n / cap)
    if k is not None and k < k0:
        raise ConfigError(f"grouping: k = {k} blocks of {cap} counters cannot hold the {n} events of unit "
                          f"{unit!r} (at least {k0})")
    ks = [k] if k is not None else list(range(k0, min(n, k0 + max_extra) + 1))
    best = None
    tried = []
    for kk in ks:
        if kk == 1:
            blocks = [list(range(n))]
            km1v = 0
        else:
            ctx = context if context is not None else grouping_context(n)
            res = partition(hg, kk, seed=seed, max_block_weights=[cap] * kk, context=ctx)
            km1v = int(res.km1)
            blocks = [b for b in res.groups() if b]
        blocks, moves = repair_blocks(blocks, cap, fits, parts, wint, n_allowed)
        groups = replicate(blocks, cap, fits, parts, wint, n) if do_replicate else [list(b) for b in blocks]
        score = _score([set(g) for g in groups], parts, wint)
        tried.append({"k": kk, "km1": km1v, "repaired": moves, "groups": len(groups), "score": score})
        if best is None or score > best[0] + 1e-12:
            best = (score, kk, km1v, blocks, groups, moves)
        elif k is None:
            break  # it stopped paying
    _, kk, km1v, blocks, groups, moves = best
    name = lambda b: tuple(events[v] for v in b)  # noqa: E731
    return UnitGrouping(unit, tuple(events), cap, kk, km1v, tuple(name(b) for b in blocks),
                        tuple(name(g) for g in groups), moves, tuple(tried))
