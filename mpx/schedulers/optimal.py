"""An exact schedule by integer programming: the best cyclic schedule of a given length for metric
co-scheduling, as a yardstick for the heuristics.

Choosing which events share a quantum is set packing under counter constraints (reference
``multiplexing-methods.md``, "Optimal formulations"), small enough at a few counters and tens of metrics
to solve exactly with `scipy.optimize.milp` (HiGHS). The model, for a cycle of ``L`` quanta:

- ``x[q, e]`` = event ``e`` counts in quantum ``q`` (binary), for every event that competes for a
  programmable counter (free events count always; events of pinned groups are forced to 1; events the
  PMU can never count are left out and reported in ``errors``);
- ``z[q, e, c]`` = event ``e`` sits on counter ``c`` in quantum ``q`` (binary, only for the counters
  ``e`` may use): ``Σ_c z[q,e,c] = x[q,e]`` and ``Σ_e z[q,e,c] <= 1`` — a quantum's events fit the PMU
  exactly when such an assignment exists (the bipartite matching of `mpx.pmu.PMU.fits`);
- ``y[q, m]`` = metric ``m`` is complete in quantum ``q``: ``y[q,m] <= x[q,e]`` for its events;
- every event runs at least once per cycle (``cover_all``), so no event is silently never measured.

Objective ``"maxmin"``: maximise the minimum over metrics of the co-scheduling ratio ``Σ_q y[q,m] / L``;
ties broken by the total number of complete metric-quanta, then by counter use (lexicographic, by
integer weights that keep the levels apart). ``"weighted"``: maximise ``Σ_m w_m Σ_q y[q,m] / L`` with
``w_m`` the mean of the problem's event weights over the metric's events (all 1 by default: the mean
co-scheduling ratio), counter use as tie-break. Metrics needing an event the PMU can never count, and
metrics whose events never fit the PMU together, and metrics with no programmable event, are constant
(0, 0 and 1) and left out of the objective (listed in the notes). Groups other
than pinned ones are not constraints here: co-scheduling is the objective.

The work is bounded by counts, never by seconds, so the same problem gets the same answer on an idle and
on a busy machine (issue 39: a 60 s wall-clock limit made busy machines skip cells idle ones solved):
instances with more than ``max_variables`` binary variables are refused with a `ConfigError` before
building anything (a size rule decided before solving), and a solve that does not prove optimality within
``node_limit`` branch-and-bound nodes of HiGHS is an error too, naming that bound: a number that is not the
optimum would mislead the comparison. HiGHS's MIP search is deterministic for a given model and options, so a
model solved once on a machine is kept (`mpx.util.solved`: the real catalogs' instances take minutes).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from scipy.sparse import lil_matrix

from mpx.errors import ConfigError
from mpx.params import Interval, StrOptions
from mpx.problem import Problem
from mpx.schedulers.base import Schedule, StaticScheduler
from mpx.util.solved import milp_cached

__all__ = ["OptimalScheduler"]

_OBJECTIVES = ("maxmin", "weighted")


class OptimalScheduler(StaticScheduler):
    """Exact cyclic schedule by MILP (`scipy.optimize.milp`); see the module docstring.

    Parameters
    ----------
    length:
        Quanta in the cycle. None: the fewest that can run every event once as far as counting tells,
        ``ceil(events / counters)`` per PMU unit (pinned events deducted); when counter masks make that
        too short, the next lengths are tried.
    objective:
        ``"maxmin"`` (minimum metric co-scheduling ratio) or ``"weighted"``.
    cover_all:
        Require every event to run at least once per cycle.
    max_variables:
        Refuse instances with more binary variables than this (before solving).
    node_limit:
        Branch-and-bound nodes HiGHS may explore to prove optimality; more is an error naming this bound.
        No wall-clock limit: the answer never depends on the machine's speed or load.
    """

    name: ClassVar[str] = "optimal"
    uses_metrics: ClassVar[bool] = True
    source: ClassVar[str] = ("exact set-packing ILP over a cyclic schedule (reference multiplexing-methods.md, "
                             "'Optimal formulations'), solved by scipy.optimize.milp / HiGHS")

    param_constraints: ClassVar[dict] = {"length": [None, Interval(int, 1, None)], "objective": StrOptions(_OBJECTIVES),
                                         "cover_all": "boolean", "max_variables": Interval(int, 1, None),
                                         "node_limit": Interval(int, 1, None)}

    def __init__(self, length: int | None = None, objective: str = "maxmin", cover_all: bool = True,
                 max_variables: int = 4000, node_limit: int = 20_000) -> None:
        self.length = length
        self.objective = objective
        self.cover_all = cover_all
        self.max_variables = max_variables
        self.node_limit = node_limit

    def _prepare(self, problem: Problem) -> tuple[dict[str, str], list[str], set[str], dict[str, list[str]]]:
        free = problem.free
        errors = problem.unplaceable
        sched = [e for e in problem.events if e not in free and e not in errors]
        pinned = {e for g in problem.groups if g.pinned for e in g.events if e in sched}
        allowed = {e: [str(c) for c in problem.pmu.allowed(e)] for e in sched}
        return errors, sched, pinned, allowed

    def _schedule(self, problem: Problem) -> Schedule:
        errors, sched, pinned, allowed = self._prepare(problem)
        if self.length is None:
            length = 1
            for unit in dict.fromkeys(problem.unit(e) for e in sched):
                mine = [e for e in sched if problem.unit(e) == unit]
                held = len([e for e in mine if e in pinned])
                room = len({c for e in mine for c in allowed[e]}) - held
                if room < 1 and held < len(mine):
                    raise ConfigError(f"optimal: pinned events leave no counter of unit {unit!r} for the others")
                if room > 0:
                    length = max(length, math.ceil((len(mine) - held) / room))
        else:
            length = int(self.length)
        return self._solve(problem, length)

    def _solve(self, problem: Problem, length: int) -> Schedule:

        errors, sched, pinned, allowed = self._prepare(problem)
        counters = sorted({c for cs in allowed.values() for c in cs})
        n_ctr = len(counters)
        metrics = []
        constant = []
        for m in problem.metrics:
            if any(e in errors for e in m.events):
                constant.append(f"{m.name} (0: needs an event the PMU cannot count)")
                continue
            ev = [e for e in m.events if e in set(sched)]
            if not ev:
                constant.append(f"{m.name} (1: only free events)")
                continue
            if not problem.fits(list(dict.fromkeys(ev + sorted(pinned)))):
                constant.append(f"{m.name} (0: its events never fit the PMU together)")
                continue
            metrics.append((m.name, ev, float(np.mean([problem.weights[problem.index(e)] for e in m.events]))))
        n_s, n_m = len(sched), len(metrics)
        n_z = sum(len(a) for a in allowed.values())
        n_bin = length * (n_s + n_z + n_m)
        if n_bin > self.max_variables:
            raise ConfigError(f"optimal: instance too big for the exact ILP: {n_bin} binary variables > "
                              f"max_variables = {self.max_variables} ({n_s} events, {n_m} metrics, {n_z} "
                              f"event-counter pairs, cycle of {length} quanta)")
        if not sched:
            return Schedule.from_configs(problem, [[]], errors=errors, notes=["nothing to multiplex"])

        # variable layout: x[q,e], z[q,e,c], y[q,m], then k (maxmin only)
        xi = {(q, e): q * n_s + i for q in range(length) for i, e in enumerate(sched)}
        base = length * n_s
        zi: dict[tuple[int, str, str], int] = {}
        for q in range(length):
            for e in sched:
                for c in allowed[e]:
                    zi[(q, e, c)] = base + len(zi)
        base += len(zi)
        yi = {(q, j): base + q * n_m + j for q in range(length) for j in range(n_m)}
        base += length * n_m
        maxmin = self.objective == "maxmin"
        n_var = base + (1 if maxmin else 0)
        kidx = base

        rows: list[tuple[dict[int, float], float, float]] = []
        for q in range(length):
            for e in sched:
                rows.append(({**{zi[(q, e, c)]: 1.0 for c in allowed[e]}, xi[(q, e)]: -1.0}, 0.0, 0.0))
            users: dict[str, list[int]] = {c: [] for c in counters}
            for e in sched:
                for c in allowed[e]:
                    users[c].append(zi[(q, e, c)])
            for c, vs in users.items():
                if len(vs) > 1:
                    rows.append(({v: 1.0 for v in vs}, -np.inf, 1.0))
            for j, (_, ev, _) in enumerate(metrics):
                for e in ev:
                    rows.append(({yi[(q, j)]: 1.0, xi[(q, e)]: -1.0}, -np.inf, 0.0))
        if self.cover_all:
            for e in sched:
                rows.append(({xi[(q, e)]: 1.0 for q in range(length)}, 1.0, np.inf))
        if maxmin:
            for j in range(n_m):
                rows.append(({kidx: 1.0, **{yi[(q, j)]: -1.0 for q in range(length)}}, -np.inf, 0.0))
        a = lil_matrix((len(rows), n_var))
        lo = np.empty(len(rows))
        hi = np.empty(len(rows))
        for r, (coef, l, h) in enumerate(rows):
            for v, w in coef.items():
                a[r, v] = w
            lo[r], hi[r] = l, h

        lb = np.zeros(n_var)
        ub = np.ones(n_var)
        for e in pinned:
            for q in range(length):
                lb[xi[(q, e)]] = 1.0
        integrality = np.ones(n_var)
        c = np.zeros(n_var)
        x_w = 1.0
        y_w = float(n_s * length + 1)
        c[: length * n_s] = -x_w
        if maxmin:
            ub[kidx] = float(length)
            integrality[kidx] = 0
            for (q, j), v in yi.items():
                c[v] = -y_w
            c[kidx] = -y_w * float(n_m * length + 1)
        else:
            wmin = min((w for _, _, w in metrics if w > 0), default=1.0)
            scale = y_w / wmin
            for (q, j), v in yi.items():
                c[v] = -scale * metrics[j][2]
        res = milp_cached(c, a, lo, hi, integrality, lb, ub, {"node_limit": int(self.node_limit)})
        if res.status == 2 and self.length is None and self.cover_all and length < len(sched):
            return self._solve(problem, length + 1)
        if res.status == 2:
            raise ConfigError(f"optimal: no schedule of {length} quanta can run every event once "
                              f"({n_s} events, {n_ctr} counters); give a longer length")
        if res.status != 0 or res.x is None:
            nodes = getattr(res, "mip_node_count", None)
            # HiGHS reports the node limit as its status 16 ("solution limit"), which scipy maps to 4
            hit = res.status == 1 or (nodes is not None and nodes >= self.node_limit)
            bound = f"node_limit = {self.node_limit} branch-and-bound nodes" if hit else f"status {res.status}"
            raise ConfigError(f"optimal: the solver stopped at {bound} without proving optimality ({res.message}; "
                              f"{nodes} nodes, {n_bin} binary variables); the instance is too big for an exact "
                              "answer (raise node_limit to search longer)")
        sol = np.round(res.x).astype(int)
        configs = [[e for e in sched if sol[xi[(q, e)]]] for q in range(length)]
        covered = np.array([[sol[yi[(q, j)]] for j in range(n_m)] for q in range(length)]).reshape(length, n_m)
        ratios = covered.mean(axis=0) if n_m else np.zeros(0)
        if maxmin:
            self.optimum_ = float(ratios.min()) if n_m else float("nan")
        else:
            w = np.array([m[2] for m in metrics])
            self.optimum_ = float((w * ratios).sum()) if n_m else float("nan")
        self.metric_ratios_ = {m[0]: float(r) for m, r in zip(metrics, ratios)}
        unique = list(dict.fromkeys(tuple(cfg) for cfg in configs))
        cycle = [unique.index(tuple(cfg)) for cfg in configs]
        notes = [f"optimal ({self.objective}) over a cycle of {length} quanta: {self.optimum_:.4g}"]
        if constant:
            notes.append("left out of the objective: " + ", ".join(constant))
        return Schedule.from_configs(problem, [list(u) for u in unique], cycle=cycle, errors=errors, notes=notes)
