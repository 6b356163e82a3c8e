"""Scheduler figures, computed from a schedule or an observation alone (no truth needed).

- **PMC utilization**: share of programmable counter-quanta in use: Σ_q (events on programmable
  counters in quantum q) / (Q × usable programmable counters of the units the problem uses). Events on
  fixed counters and software events are not counted (hperf, TACO 2024, reports this figure).
- **Sampling ratio** of an event: share of quanta in which it ran (free events: 1; events in error: 0).
  ``mean_sampling_ratio`` averages over the multiplexed (non-free) events, the ones a scheduler decides.
- **Co-scheduling ratio** of a metric: share of quanta in which all its events ran together (free events
  always count as running); a metric is only reliable in such quanta.
- **Configurations**: number of distinct running sets over the quanta scored.

Shares are of quanta (not of time), so the short last quantum of a run counts like the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.problem import Problem

__all__ = ["ScheduleScores", "schedule_scores"]


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
    """Scheduler figures of ``source``: an `~mpx.multiplex.Observation` (its quanta and problem), a
    `~mpx.schedulers.base.Schedule` (with ``problem``; over ``n_quanta`` quanta, or over one period of
    its cycle — the steady state — when None), or a boolean running mask ``[Q, E]`` (with ``problem``).
    """
    from mpx.schedulers.base import Schedule

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
        if running.dtype != bool:
            raise ConfigError(f"schedule_scores: a running mask must be boolean, got {running.dtype}")
    if running.ndim != 2 or running.shape[1] != problem.n_events or running.shape[0] == 0:
        raise ConfigError(f"schedule_scores: running mask must be [Q >= 1, {problem.n_events}], got {running.shape}")
    free = problem.free_mask
    n_q = running.shape[0]
    sampling = running.mean(axis=0)
    on = running | free
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
