"""One replay, scored with several scalers: the choices `mpx evaluate` and an experiment's ``scaling`` cell share.

- `default_events`: the events to multiplex when none are named (a gem5 trace: the gem5 catalog's);
- `default_catalog`: the built-in catalog with the most metrics computable from the events;
- `other_workloads`: leave-one-workload-out, the rule that picks what learned scalers are fitted on
  (never the scored workload); `training_traces` applies it to ``mpx evaluate --train``;
- `scaler_spec`, `learned_scalers`: what a scaler is given, read from its tags (``needs_relations``,
  ``learned``) — the one decision `mpx evaluate`, `mpx run`, `mpx bench` and the claims share; relations
  are ``DEFAULT_RELATIONS`` (none) unless the caller names some (docs/scoring.md, "Relations");
- `score_scalers`: every scaler estimates from the one Observation (learned ones fitted first), and
  `mpx.scoring.score.score` compares each estimate with the truth; a scaler that would need more memory than
  the machine has (`Scaler.memory_bytes`, `available_memory`) is skipped with the reason instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mpx import scalers

from mpx.datasets import shipped as datasets
from mpx.datasets.specs import resolve_trace
from mpx.errors import ConfigError, MpxError
from mpx.scoring.score import Scores, score, true_windows
from mpx.metrics import builtin, builtin_names
from mpx.trace import Trace

__all__ = ["DEFAULT_RELATIONS", "default_events", "default_catalog", "available_memory",
           "memory_refusal", "other_workloads", "training_traces", "learned_scalers", "scaler_spec", "ScalerResult",
           "score_scalers"]

#: the relations a scaler that takes them is given when the caller names none: none (each event alone).
#: Relations are prior knowledge the user chooses (docs/scoring.md, "Relations"), never picked for them.
DEFAULT_RELATIONS = None

T = TypeVar("T")


def default_events(trace: Trace, pmu: Any) -> tuple[tuple[str, ...], str]:
    """The events to multiplex when none are named, and how they were chosen: for a gem5 trace the
    ``gem5`` catalog's (the stats its metrics and relations use, in the order `Problem.from_catalog`
    gives them on ``pmu``, as the experiments take them): the ~1,500 stats of a dump are simulator
    internals, not a PMU's events, and scalers that model every pair of events do not fit in memory on
    them. Otherwise every event of the trace."""
    if trace.meta.get("simulator") == "gem5":
        from mpx.problem import Problem

        have = set(trace.events)
        events = tuple(e for e in Problem.from_catalog(builtin("gem5"), pmu).events if e in have)
        if events:
            return events, (f"the gem5 catalog's {len(events)} (default for a gem5 trace; of its {len(have)} stats; "
                            "--events all for every stat)")
    return tuple(trace.events), "every event of the trace (default)"


def _proc_kib(path: str, field: str) -> int | None:
    """A ``/proc`` field given in kB (``MemAvailable:``, ``VmSize:``), in bytes; None where it cannot be read."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def available_memory() -> int | None:
    """Bytes this process can still allocate: the kernel's ``MemAvailable``, lowered to what an
    address-space limit (``ulimit -v``) leaves beyond what the process maps already; None when neither
    is known (not Linux)."""
    import resource

    avail = _proc_kib("/proc/meminfo", "MemAvailable:")
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        left = max(soft - (_proc_kib("/proc/self/status", "VmSize:") or 0), 0)
        avail = left if avail is None else min(avail, left)
    return avail


def memory_refusal(scaler: Any, obs: Any, available: int | None = None) -> str | None:
    """Why ``scaler`` must not estimate ``obs`` here (it would need more memory than is available,
    `available_memory` unless given), or None."""
    avail = available_memory() if available is None else available
    if avail is None:
        return None
    n_e, n_q, n_w = len(obs.events), obs.quanta.counts.shape[0], obs.reads.n_reads
    need = int(scaler.memory_bytes(n_e, n_q, n_w))
    if need <= avail:
        return None
    return (f"{scaler.name} would need about {need / 1e9:.1f} GB for {n_e} events x {n_q} quanta, more than the "
            f"{avail / 1e9:.1f} GB available: multiplex fewer events (mpx evaluate --events; a gem5 trace defaults "
            "to the gem5 catalog's), leave the scaler out, or take the risk (mpx evaluate --ignore-memory; "
            "score_scalers(..., memory_check=False))")


def default_catalog(events: Iterable[str]) -> tuple[Any, int]:
    """The built-in catalog with the most metrics computable from ``events`` and that number
    (``(None, 0)`` when no built-in catalog has a metric over them); the first wins a tie."""
    have = set(events)
    best, n_best = None, 0
    for name in builtin_names():
        cat = builtin(name)
        n = sum(1 for m in cat.metrics.values() if set(m.events) <= have)
        if n > n_best:
            best, n_best = cat, n
    return best, n_best


def other_workloads(candidates: Iterable[T], workload: str, workload_of: Callable[[T], str]) -> list[T]:
    """Leave-one-workload-out: the candidates (in order) that record a workload other than ``workload``,
    the scored one. Learned scalers are fitted on these only."""
    return [c for c in candidates if workload_of(c) != workload]


def scaler_spec(name: str, params: dict[str, Any] | None = None,
                relations: Any = DEFAULT_RELATIONS) -> tuple[str, dict[str, Any]]:
    """``(name, hyper-parameters)`` scaler ``name`` runs with: ``params``, plus ``relations`` when its tags
    say it takes them (``needs_relations``), ``params`` does not set them and ``relations`` is not None."""
    params = dict(params or {})
    if relations is not None and "relations" not in params and scalers.REGISTRY.tags(name).needs_relations:
        params["relations"] = relations
    return name, params


def learned_scalers(names: Iterable[str]) -> list[str]:
    """The scalers among ``names`` that must be fitted on other workloads first (their ``learned`` tag)."""
    return [n for n in names if scalers.REGISTRY.tags(n).learned]


#: collections whose learned scalers also train, by default, on another collection: a 250 ms gem5 recording's
#: own collection holds two or three programs, the 50 ms steady-state one twelve (a dataset of the same program,
#: the same recipe ``program``, is left out: it is the scored workload at another length)
TRAIN_WITH = {"gem5-long-250ms": ("gem5-long",)}


def training_traces(text: str | None, scored: str, workload: Any) -> tuple[list[Trace], str]:
    """The traces learned scalers are fitted on for ``mpx evaluate`` (``--train``: comma-separated
    trace files or dataset names), and how they were chosen; never the scored workload. Without
    ``--train``, a shipped dataset trains on the other shipped datasets of its simulator and collection (each
    records one workload; callgrind and gem5 traces have different events, and a collection one grain: the
    ``gem5-long`` datasets trained on none when only the main collection was looked in)."""
    if text is None:
        if scored not in datasets.names(None, None):
            return [], "none (give --train for learned scalers)"
        e = datasets.entry(scored)
        sim = (e.get("recipe") or {}).get("simulator", "callgrind")
        names = other_workloads(datasets.names(sim, datasets.collection(e)), scored, workload_of=lambda n: n)
        program = (e.get("recipe") or {}).get("program")
        names += [n for c in TRAIN_WITH.get(datasets.collection(e), ()) for n in datasets.names(sim, c)
                  if (datasets.entry(n).get("recipe") or {}).get("program") != program]
        return [datasets.load(n) for n in names], f"{', '.join(names)} (default: the other shipped datasets)"
    items = [t.strip() for t in text.split(",") if t.strip()]
    traces = [resolve_trace(t) for t in items]
    same = [i for i, t in zip(items, traces) if i == scored or (workload and t.meta.get("workload") == workload)]
    if same:
        raise ConfigError(f"--train: {same} is the scored workload; learned scalers are trained on other workloads")
    return traces, ", ".join(items)


@dataclass
class ScalerResult:
    """One scaler on one replay. ``status``: ``done``; ``skipped`` (a `MpxError`: the scaler cannot
    handle this replay; ``error`` holds it) or ``error`` (any other exception, when caught)."""

    name: str
    status: str
    scaler: Any = None
    estimate: Any = None
    scores: Scores | None = None
    seconds: float | None = None
    cpu_seconds: float | None = None
    error: BaseException | None = None

    @property
    def reason(self) -> str | None:
        """``"ErrorType: message"`` of a scaler that was not scored."""
        return None if self.error is None else f"{type(self.error).__name__}: {self.error}"


def score_scalers(obs: Any, trace: Trace, specs: Iterable[tuple[str, dict]], catalog: Any = None, *,
                  train: Sequence[Trace] | None = None,
                  catch_errors: bool = False, memory_check: bool = True,
                  no_train: str = "give it traces of other workloads") -> Iterator[ScalerResult]:
    """Each scaler ``(name, params)`` of ``specs`` estimates from ``obs``, scored against ``trace`` with
    ``catalog``'s metrics; one `ScalerResult` per scaler, yielded as it is done. Learned scalers are
    fitted on ``train`` (traces of other workloads, which the caller loads: scoring never calls back up);
    none given: a `ConfigError` ending in ``no_train``. A `MpxError` marks the scaler skipped; other exceptions
    propagate unless ``catch_errors`` (a long run records them and goes on). The truth is binned once
    per replay (per set of estimated events and window edges, normally one) and shared by every score. With
    ``memory_check`` a scaler that would need more memory than is available (`memory_refusal`) is skipped
    with the reason."""
    traces = list(train or [])
    truths: dict[tuple, Any] = {}
    for name, params in specs:
        res = ScalerResult(name, "done")
        try:
            s = res.scaler = scalers.get(name, **params)
            why = memory_refusal(s, obs) if memory_check else None
            if why:
                raise ConfigError(why)
            if s.tags().learned:
                if not traces:
                    raise ConfigError(f"{name} is a learned scaler: {no_train}")
                s.fit(traces)
            t0, c0 = time.perf_counter(), time.process_time()
            est = s.estimate(obs)
            res.seconds, res.cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
            res.estimate = est
            key = (tuple(est.events), est.edges.tobytes())
            if key not in truths:  # the true windows and their metric values, for every scaler
                truths[key] = (true_windows(trace, est.events, est.edges), {})
            res.scores = score(est, trace, catalog, truth=truths[key][0], truth_metrics=truths[key][1])
        except MpxError as exc:
            res.status, res.error = "skipped", exc
        except Exception as exc:
            if not catch_errors:
                raise
            res.status, res.error = "error", exc
        yield res
