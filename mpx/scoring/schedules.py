"""Scheduler figures, computed from a schedule or an observation alone (no truth needed).

- **PMC utilization**: share of programmable counter-quanta in use: Σ_q (events on programmable
  counters in quantum q) / (Q × usable programmable counters of the units the problem uses). Events on
  fixed counters and software events are not counted (hperf, TACO 2024, reports this figure).
- **Sampling ratio** of an event: share of quanta in which it ran (free events: 1 — except under a tool
  that stops them with their group, LIKWID: the share of its groups' steps; events in error: 0).
  ``mean_sampling_ratio`` averages over the multiplexed (non-free) events, the ones a scheduler decides.
- **Co-scheduling ratio** of a metric: share of quanta in which all its events ran together (a schedule's
  or observation's running sets are taken as they are; a bare running mask has its free events added);
  a metric is only reliable in such quanta.
- **Configurations**: number of distinct running sets over the quanta scored.

Shares are of quanta (not of time), so the short last quantum of a run counts like the others.

`schedule_scores` computes them for one schedule; `score_schedulers` runs several schedulers on one
problem and returns one tidy row per scheduler (what ``mpx schedule`` prints). Static schedulers are
scored on their schedule alone; online ones need observations, so they run through `mpx.multiplex` on
a trace — a given one, or `synthetic_trace` (one Poisson counter per event with per-event rates,
bursts and phases drawn from a seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpx import schedulers
from mpx.datasets import synthetic as S
from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.problem import Problem
from mpx.schedulers.base import OnlineScheduler, Schedule

__all__ = ["ScheduleScores", "schedule_scores", "score_schedulers", "synthetic_trace"]


@dataclass(frozen=True, eq=False)
class ScheduleScores:
    """Per-event and per-metric figures of one schedule, with their means (see the module docstring)."""

    events: tuple[str, ...]
    metrics: tuple[str, ...]
    sampling_ratio: np.ndarray
    coschedule_ratio: np.ndarray
    free: np.ndarray
    utilization: float
    n_configs: int
    n_quanta: int

    @property
    def mean_sampling_ratio(self) -> float:
        """Mean sampling ratio of the multiplexed events (NaN when every event is free)."""
        sel = self.sampling_ratio[~self.free]
        return float(sel.mean()) if sel.size else float("nan")

    @property
    def mean_coschedule_ratio(self) -> float:
        """Mean co-scheduling ratio over the metrics (NaN without metrics)."""
        return float(self.coschedule_ratio.mean()) if self.coschedule_ratio.size else float("nan")

    def summary(self) -> dict[str, Any]:
        """The scalar figures as a dict (one tidy row)."""
        return {
            "utilization": self.utilization,
            "mean_sampling_ratio": self.mean_sampling_ratio,
            "min_sampling_ratio": float(self.sampling_ratio[~self.free].min()) if (~self.free).any() else float("nan"),
            "mean_coschedule_ratio": self.mean_coschedule_ratio,
            "n_configs": self.n_configs,
            "n_quanta": self.n_quanta,
        }

    def rows(self) -> list[dict[str, Any]]:
        """Tidy rows: one per event (``kind="event"``) and one per metric (``kind="metric"``)."""
        out = [{"kind": "event", "name": e, "sampling_ratio": float(r), "free": bool(f)}
               for e, r, f in zip(self.events, self.sampling_ratio, self.free)]
        out += [{"kind": "metric", "name": m, "coschedule_ratio": float(r)}
                for m, r in zip(self.metrics, self.coschedule_ratio)]
        return out

    def __repr__(self) -> str:
        s = self.summary()
        return (f"ScheduleScores(utilization={s['utilization']:.3f}, mean_sampling_ratio={s['mean_sampling_ratio']:.3f}, "
                f"mean_coschedule_ratio={s['mean_coschedule_ratio']:.3f}, n_configs={self.n_configs}, "
                f"n_quanta={self.n_quanta})")


def schedule_scores(source: Any, problem: Problem | None = None, n_quanta: int | None = None) -> ScheduleScores:
    """Scheduler figures of ``source``: an `~mpx.observation.Observation` (its quanta and problem), a
    `~mpx.schedulers.base.Schedule` (with ``problem``; over ``n_quanta`` quanta, or over one period of
    its cycle — the steady state — when None), or a boolean running mask ``[Q, E]`` (with ``problem``).
    """
    add_free = False
    if hasattr(source, "quanta") and hasattr(source, "problem"):
        running = np.asarray(source.quanta.running, dtype=bool)
        problem = source.problem if problem is None else problem
    elif isinstance(source, Schedule):
        if problem is None:
            raise ConfigError("schedule_scores: a Schedule needs its problem")
        if n_quanta is None:
            running = source.configs[source.cycle]
        else:
            running = source.running(n_quanta)
    else:
        if problem is None:
            raise ConfigError("schedule_scores: a running mask needs its problem")
        running = np.asarray(source)
        add_free = True
        if running.dtype != bool:
            raise ConfigError(f"schedule_scores: a running mask must be boolean, got {running.dtype}")
    if running.ndim != 2 or running.shape[1] != problem.n_events or running.shape[0] == 0:
        raise ConfigError(f"schedule_scores: running mask must be [Q >= 1, {problem.n_events}], got {running.shape}")
    free = problem.free_mask
    n_q = running.shape[0]
    sampling = running.mean(axis=0)
    on = running | free if add_free else running
    metric_mask = problem.metric_masks()
    if metric_mask.size:
        missing = (~on).astype(np.int32) @ metric_mask.T.astype(np.int32)
        cosched = (missing == 0).mean(axis=0)
    else:
        cosched = np.zeros(len(problem.metrics))
    n_ctr = problem.n_counters()
    used = (running & ~free).sum()
    utilization = float(used / (n_q * n_ctr)) if n_ctr else float("nan")
    n_configs = int(np.unique(running, axis=0).shape[0])
    return ScheduleScores(
        events=problem.events,
        metrics=tuple(m.name for m in problem.metrics),
        sampling_ratio=sampling,
        coschedule_ratio=np.asarray(cosched, dtype=float),
        free=free.copy(),
        utilization=utilization,
        n_configs=n_configs,
        n_quanta=n_q,
    )


# -- several schedulers on one problem --------------------------------------------------------------


def synthetic_trace(problem: Problem, quanta: int, seed: int = 0) -> Any:
    """A synthetic `~mpx.trace.Trace` of ``quanta`` intervals with one counter per problem event, for
    online schedulers: log-uniform rates, a few bursty events and two phases, so that events differ in
    how much they vary (what online schedulers react to). Deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    names = list(problem.events)
    rates = np.exp(rng.uniform(np.log(10.0), np.log(1e5), len(names)))
    disp = np.where(rng.random(len(names)) < 0.3, rng.uniform(0.05, 1.0, len(names)), 0.0)
    nodes = tuple(S.Event(n, float(r), dispersion=float(d)) for n, r, d in zip(names, rates, disp))
    bursty = tuple(n for n in names if rng.random() < 0.2)
    bursts = (S.Burst("b0", bursty, onset=0.02, duration=10.0, amplitude=5.0),) if bursty else ()
    scaled = {n: float(rng.uniform(0.3, 3.0)) for n in names if rng.random() < 0.5}
    phases = (S.Phase(max(quanta // 4, 1)), S.Phase(max(quanta // 4, 1), scale=scaled))
    spec = S.SynthSpec("mpx-schedule", nodes, phases=phases, bursts=bursts, intervals=quanta,
                       description="synthetic trace for online schedulers in mpx schedule")
    return S.generate(spec, seed=seed)


def score_schedulers(problem: Problem, names: list[str], *, quanta: int | None = None, trace: Any = None,
                     seed: int = 0, params: dict[str, dict] | None = None) -> list[dict[str, Any]]:
    """One tidy row per scheduler name (registry names, `mpx.schedulers.available`), in order.

    Static schedules are scored over ``quanta`` quanta (one period of the cycle when None). Online
    schedulers run through `mpx.multiplex` on ``trace`` — or, when None, on `synthetic_trace` with
    ``quanta`` intervals and ``seed`` — cut into min(``quanta``, its intervals) equal quanta
    (``quanta`` defaults to 1000 here). ``params``: constructor arguments per scheduler name.

    Row keys: ``scheduler``, ``kind``, ``params`` (the hyper-parameters, non-scalars as their repr),
    the figures of `ScheduleScores.summary` — ``groups`` (distinct configurations), ``utilization``,
    ``mean_sampling_ratio``, ``min_sampling_ratio``, ``mean_coschedule_ratio``, ``n_quanta`` — then
    ``event_groups`` (groups as the scheduler opened them), ``errors`` (events in error, with the
    reason), ``notes`` (static schedulers' notes), ``tool`` (the figures by the tool's own definitions,
    beside mpx's: hperf's utilization against ``available_GP`` and per-metric sampling ratio, the Arm
    Top-down tool's group-count spread over its set orders; None for the others: ``tool_figures``),
    ``trace`` (what an online scheduler ran on) and
    ``skipped``: the reason when the scheduler cannot handle the problem (a `ConfigError`, or
    one `Scheduler.applicable` gives, e.g. LIKWID without LIKWID event sets), the figures then None.
    """
    rows: list[dict[str, Any]] = []
    params = params or {}
    for name in names:
        row: dict[str, Any] = {"scheduler": name, "kind": None, "groups": None, "event_groups": None,
                               "utilization": None, "mean_sampling_ratio": None, "min_sampling_ratio": None,
                               "mean_coschedule_ratio": None, "n_quanta": None, "errors": {}, "notes": [],
                               "params": {}, "trace": None, "skipped": None, "tool": None}
        try:
            sched = schedulers.get(name, **params.get(name, {}))
            row["kind"] = sched.kind
            row["params"] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                             for k, v in sched.params_for(problem).items()}
            why = sched.applicable(problem)
            if why:
                row["skipped"] = why
                rows.append(row)
                continue
            if isinstance(sched, OnlineScheduler):
                n_q = quanta or 1000
                run_trace = trace if trace is not None else synthetic_trace(problem, n_q, seed)
                span = float(run_trace.edges[-1] - run_trace.edges[0])
                step = span / min(n_q, run_trace.n_intervals)
                obs = multiplex(run_trace, problem, sched, quantum=step, read_every=1, seed=seed)
                sc = schedule_scores(obs)
                row["trace"] = ("synthetic (mpx.datasets.synthetic, seed %d, %d quanta)" % (seed, obs.n_quanta)
                                if trace is None else str(run_trace.meta.get("source") or "given trace"))
                row["errors"] = dict(obs.errors)
                row["event_groups"] = len(obs.groups)
            else:
                s = sched.schedule(problem)
                sc = schedule_scores(s, problem, n_quanta=quanta)
                row["errors"] = dict(s.errors)
                row["notes"] = list(s.notes)
                row["event_groups"] = len(s.groups)
                row["tool"] = sched.tool_figures(problem)
        except ConfigError as exc:
            row["skipped"] = str(exc)
            rows.append(row)
            continue
        summary = sc.summary()
        row.update(groups=sc.n_configs, utilization=summary["utilization"],
                   mean_sampling_ratio=summary["mean_sampling_ratio"],
                   min_sampling_ratio=summary["min_sampling_ratio"],
                   mean_coschedule_ratio=summary["mean_coschedule_ratio"], n_quanta=sc.n_quanta)
        rows.append(row)
    return rows

