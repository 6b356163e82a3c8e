"""The scaler interface: what a multiplexing scaler (estimator) gets, and what it returns.

A scaler turns an `~mpx.observation.Observation` — what a real PMU driver would have read — into an
`Estimate` of every event's count in every read window (and, for methods that work per quantum, in
every quantum). It never sees a `~mpx.trace.Trace`: `mpx.multiplex.multiplex` owns the truth and hands
out only Observations; `mpx.scoring.score.score` compares an Estimate with the truth afterwards.

scikit-learn's habits (Buitinck et al., "API design for machine learning software", 2013): the
constructor only stores its hyper-parameters, unchanged, under the same names (`mpx.params.Params` then
gives ``param_names``, ``get_params``, ``set_params``, ``clone`` and ``repr``) and ``param_constraints``
declares what each may hold (checked by ``estimate`` and ``fit``); ``estimate(observation)`` is the verb;
learned scalers also have ``fit(traces_or_observations)`` and keep what they learned in attributes ending in ``_``.

Adding a scaler::

    import numpy as np
    from mpx.scalers.base import Estimate, Scaler

    class MyScaler(Scaler):
        name = "mine"                       # registry name
        causal = True                       # True: window w uses only windows <= w (usable online);
                                            # False: offline, may look ahead
        view = "read"                       # "read": uses obs.reads; "quantum": uses obs.quanta
        source = "where the method comes from (paper, tool, file)"

        param_constraints = {"alpha": Interval(float, 0, None, closed="neither")}  # from mpx.params

        def __init__(self, alpha: float = 1.0):   # hyper-parameters only, stored as given
            self.alpha = alpha

        def _estimate(self, obs) -> Estimate:
            r = obs.reads
            ok = r.running > 0
            counts = np.where(ok, r.raw * r.enabled / np.where(ok, r.running, 1.0), np.nan)
            return self.make_estimate(obs, counts, not_estimated=~ok)

``causal`` is a class attribute, or a property when it depends on hyper-parameters (a fill that
interpolates, a post-processing fix that uses whole-run statistics: see `mpx.scalers.reads`). Then
register it: add ``"mine": "my_module:MyScaler"`` to `mpx.scalers.BUILTIN`, or, from another
package, an entry point in the group ``mpx.scalers`` (see `mpx.scalers`, ``docs/extending.md``). Every
registered scaler must pass ``mpx.conformance.check("scaler", ...)`` (run over the built-ins by
``tests/conformance/test_all.py``):
output shapes, determinism, never reading the truth, events that never ran, NaN in the observation, and
an honest ``causal`` flag (a causal scaler's window w must not change when later windows change). Set
``example_params`` when the defaults cannot run on a generic observation or the constructor needs an
argument: the registry reads the tags from an instance built with them.

``scaler.tags()`` (`ScalerTags`) gathers what callers may know without running it: ``causal``, ``view``,
``learned``, ``jit`` and ``needs_relations`` (set it when the scaler takes the catalog's relations as its
``relations`` hyper-parameter; callers pass them then).

Learned scalers set ``learned = True`` and implement ``_fit(items)``; ``fit`` accepts Traces or
Observations (a learned scaler may train on the truth of *other* workloads — leave-one-workload-out is
the experiment runner's job — but ``estimate`` still receives only the Observation to be scored).

What the Observation offers (see `mpx.multiplex`): ``reads`` (per read window ``edges[W+1]``,
``raw[W, E]`` Δcount, ``enabled[W, E]`` Δtime_enabled, ``running[W, E]`` Δtime_running), ``quanta``
(``edges[Q+1]``, ``running[Q, E]`` bool, ``counts[Q, E]`` with NaN where the event did not run),
``events``, ``problem`` (PMU, groups, metrics), ``errors`` (events that never counted), ``meta``
(provenance). Raw counts may contain NaN (a broken read); a scaler must not crash on them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError, MpxError
from mpx.observation import Observation
from mpx.params import Params

__all__ = ["Estimate", "Scaler", "ScalerError", "ScalerTags", "VIEWS"]

VIEWS = ("read", "quantum")


class ScalerError(MpxError, RuntimeError):
    """A scaler broke its contract (wrong shapes, non-finite estimates where it claims one, ...)."""


def _ro(a: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return None
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Estimate:
    """A scaler's estimate of every event's count, with what it could not estimate.

    ``counts[W, E]``: estimated count per read window (the observation's read windows, ``edges[W+1]``)
    and event. ``std[W, E]`` (optional): a standard deviation of the same shape, for scalers that report
    uncertainty. ``not_estimated[W, E]`` (bool): windows where the method had nothing to go on (perf's
    ``<not counted>``: the event did not run in the window); there ``counts`` is NaN, or a documented
    fallback value (0, a carried rate) — scoring counts these windows apart either way.
    ``quantum_counts[Q, E]`` / ``quantum_std`` (optional): the same per quantum (``quantum_edges[Q+1]``)
    for methods that work at that level. ``ran[W, E]`` (optional, bool): the event was counted in the
    window (from the observation, set by `Scaler.make_estimate`): scoring compares scalers on these
    windows whatever each flags. ``scaler``/``params``/``causal``: who made it; ``meta``:
    provenance copied from the observation; ``notes``: what the scaler did that a reader should know
    (fallbacks taken, fixes applied). ``run_totals[E]`` (optional): the whole-run count per event as the
    tool reports it at the end of the run when that is not the sum of its windows (perf's whole-run
    scaling, PAPI's last read; NaN: the tool prints none, e.g. ``<not counted>``); see `totals`.
    """

    events: tuple[str, ...]
    edges: np.ndarray
    counts: np.ndarray
    not_estimated: np.ndarray
    std: np.ndarray | None = None
    quantum_edges: np.ndarray | None = None
    quantum_counts: np.ndarray | None = None
    quantum_std: np.ndarray | None = None
    scaler: str = ""
    params: dict = field(default_factory=dict)
    causal: bool = False
    meta: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    ran: np.ndarray | None = None
    run_totals: np.ndarray | None = None

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("events", tuple(self.events))
        set_("notes", tuple(self.notes))
        set_("edges", _ro(np.asarray(self.edges, dtype=np.float64)))
        set_("counts", _ro(np.asarray(self.counts, dtype=np.float64)))
        set_("not_estimated", _ro(np.asarray(self.not_estimated, dtype=bool)))
        if self.ran is not None:
            set_("ran", _ro(np.asarray(self.ran, dtype=bool)))
        for k in ("std", "quantum_edges", "quantum_counts", "quantum_std", "run_totals"):
            v = getattr(self, k)
            if v is not None:
                set_(k, _ro(np.asarray(v, dtype=np.float64)))
        e = len(self.events)
        w = self.edges.size - 1
        if self.edges.ndim != 1 or w < 0:
            raise ScalerError(f"Estimate.edges must be 1-D with W+1 entries, got shape {self.edges.shape}")
        for k in ("counts", "not_estimated", "std", "ran"):
            v = getattr(self, k)
            if v is not None and v.shape != (w, e):
                raise ScalerError(f"Estimate.{k} must have shape {(w, e)} (read windows, events), got {v.shape}")
        if self.run_totals is not None and self.run_totals.shape != (e,):
            raise ScalerError(f"Estimate.run_totals must have shape {(e,)} (events), got {self.run_totals.shape}")
        if self.quantum_counts is not None:
            if self.quantum_edges is None or self.quantum_edges.ndim != 1:
                raise ScalerError("Estimate.quantum_counts needs quantum_edges[Q+1]")
            q = self.quantum_edges.size - 1
            for k in ("quantum_counts", "quantum_std"):
                v = getattr(self, k)
                if v is not None and v.shape != (q, e):
                    raise ScalerError(f"Estimate.{k} must have shape {(q, e)} (quanta, events), got {v.shape}")
        elif self.quantum_std is not None:
            raise ScalerError("Estimate.quantum_std without quantum_counts")
        bad = ~np.isfinite(self.counts) & ~self.not_estimated
        if bad.any():
            w_i, e_i = np.argwhere(bad)[0]
            raise ScalerError(f"Estimate from {self.scaler!r}: count of {self.events[e_i]!r} in read window {w_i} "
                              f"is {self.counts[w_i, e_i]} but the window is not flagged as not estimated")
        if self.std is not None and (~np.isfinite(self.std[~self.not_estimated])).any():
            raise ScalerError(f"Estimate from {self.scaler!r}: non-finite std in an estimated window")
        if self.std is not None and (self.std[~self.not_estimated] < 0).any():
            raise ScalerError(f"Estimate from {self.scaler!r}: negative std")

    @property
    def n_windows(self) -> int:
        return int(self.counts.shape[0])

    @property
    def has_std(self) -> bool:
        return self.std is not None

    def column(self, event: str) -> np.ndarray:
        """Estimated counts of one event per read window."""
        try:
            return self.counts[:, self.events.index(event)]
        except ValueError:
            raise ConfigError(f"the estimate has no event {event!r}") from None

    def totals(self) -> np.ndarray:
        """Whole-run estimate per event as the tool reports it: ``run_totals`` when the scaler has a rule
        of its own (NaN where it reports none), else the sum over read windows, NaN windows counting as 0."""
        if self.run_totals is not None:
            return np.array(self.run_totals)
        return self.window_totals()

    def window_totals(self) -> np.ndarray:
        """The sum over read windows per event, NaN windows counting as 0 (perf's ``<not counted>``
        intervals summed as they are printed)."""
        return np.nansum(self.counts, axis=0)

    def __repr__(self) -> str:
        q = "" if self.quantum_counts is None else f", {self.quantum_counts.shape[0]} quanta"
        return (f"Estimate({self.scaler or '?'}: {len(self.events)} events, {self.n_windows} read windows{q}, "
                f"{int(self.not_estimated.sum())} not estimated, std={'yes' if self.has_std else 'no'})")


@dataclass(frozen=True)
class ScalerTags:
    """What callers may know about a scaler without reading its code (scikit-learn's tags).

    ``causal``: window w uses only windows <= w (usable online; may depend on hyper-parameters);
    ``view``: the part of the Observation it uses, ``"read"`` or ``"quantum"``; ``learned``: needs
    `Scaler.fit` on other workloads first; ``needs_relations``: takes the catalog's relations as its
    ``relations`` hyper-parameter (callers pass them when they have a catalog); ``jit``: compiles
    kernels on first use (`Scaler.warm_up`).
    """

    causal: bool
    view: str
    learned: bool
    needs_relations: bool
    jit: bool


def sum_quanta(per_quantum: np.ndarray, read_quanta: np.ndarray) -> np.ndarray:
    """Per read window sums of a per quantum array ``[Q, E]``; ``read_quanta[W+1]`` are the quantum
    index of each read (`~mpx.observation.ReadView.quanta`)."""
    per_quantum = np.asarray(per_quantum, dtype=np.float64)
    starts = np.asarray(read_quanta[:-1], dtype=np.intp)
    if starts.size == 0:
        return np.zeros((0, per_quantum.shape[1]))
    return np.add.reduceat(per_quantum, starts, axis=0)


def _checksum_of(item: Any) -> str | None:
    """The checksum of a training item's trace: a Trace's own, an Observation's ``meta['trace_checksum']``."""
    if isinstance(item, Observation):
        return item.meta.get("trace_checksum")
    checksum = getattr(item, "checksum", None)
    return checksum() if callable(checksum) else None


class Scaler(Params, ABC):
    """Base of every scaler: registry ``name``, ``causal`` (True: online-usable, window w depends only
    on windows <= w; False: offline, may look ahead), ``view`` (``"read"`` or ``"quantum"``: which part
    of the Observation it uses), ``learned`` (needs `fit`), a citation in ``source``; scikit-learn style
    parameter handling. Implement `_estimate` (and `_fit` for learned scalers)."""

    name: ClassVar[str] = ""
    causal: ClassVar[bool] = False
    view: ClassVar[str] = "read"
    learned: ClassVar[bool] = False
    source: ClassVar[str] = ""
    _contract_error: ClassVar[type[Exception]] = ScalerError
    #: hyper-parameters the conformance check builds the scaler with when the defaults cannot run
    example_params: ClassVar[dict[str, Any]] = {}
    #: True when the scaler JIT-compiles kernels (numba) on first use; `warm_up` then compiles them
    jit: ClassVar[bool] = False
    #: takes the catalog's relations as its ``relations`` hyper-parameter (see `ScalerTags`)
    needs_relations: ClassVar[bool] = False

    def tags(self) -> ScalerTags:
        """The scaler's capability tags (one place for what callers would otherwise sniff)."""
        return ScalerTags(causal=bool(self.causal), view=str(self.view), learned=bool(self.learned),
                          needs_relations=bool(self.needs_relations), jit=bool(self.jit))

    @classmethod
    def warm_up(cls) -> None:
        """Compile the method's JIT kernels on a tiny input, so that the first real call does not pay for
        it (numba caches the machine code on disk). For a caller that can compile ahead: a benchmark, the
        experiment runner's pool (once, in one worker, before the cells that run the scaler)."""

    # -- the verbs -----------------------------------------------------------------------------------

    def memory_bytes(self, n_events: int, n_quanta: int, n_windows: int) -> int:
        """About how many bytes `estimate` needs for an observation of ``n_events`` events, ``n_quanta``
        quanta and ``n_windows`` read windows (checked against the machine's memory before a replay,
        `mpx.scoring.replay.memory_refusal`). Default: a few dozen ``[Q, E]`` float arrays; a scaler whose model
        grows faster (E×E matrices per quantum) overrides it."""
        return 8 * 32 * max(n_quanta, n_windows) * n_events

    def fit(self, data: Iterable[Any]) -> Scaler:
        """Train on Traces or Observations (other workloads than the scored one); returns self.
        Scalers that learn nothing accept and ignore ``data``. The checksums of the training traces are
        kept (``training_checksums_``): `estimate` refuses an observation of one of them."""
        if self.learned:
            self.validate_params()
            items = list(data)
            if not items:
                raise ConfigError(f"{type(self).__name__}.fit needs at least one trace or observation")
            self._fit(items)
            self.fitted_ = True
            self.training_checksums_ = frozenset(c for c in map(_checksum_of, items) if c)
        return self

    def _fit(self, items: list[Any]) -> None:  # pragma: no cover - learned scalers override it
        raise NotImplementedError(f"{type(self).__name__} sets learned=True but does not implement _fit")

    @abstractmethod
    def _estimate(self, observation: Any) -> Estimate:
        """The estimate for ``observation`` (build it with `make_estimate`)."""

    def estimate(self, observation: Any) -> Estimate:
        """Estimate every event's count per read window of ``observation`` (an Observation, never a
        Trace); checks the result's shapes against the observation."""
        if not isinstance(observation, Observation):
            raise ConfigError(f"{type(self).__name__}.estimate expects a mpx.observation.Observation, got "
                              f"{type(observation).__name__} (a scaler never receives a Trace: use "
                              "mpx.multiplex.multiplex first)")
        self.validate_params()
        if self.learned and not getattr(self, "fitted_", False):
            raise ConfigError(f"{type(self).__name__} is a learned scaler: call fit(...) before estimate")
        if self.learned and observation.meta.get("trace_checksum") in getattr(self, "training_checksums_", ()):
            raise ConfigError(f"{type(self).__name__} was fitted on the trace it is asked to estimate (checksum "
                              f"{observation.meta['trace_checksum']}): train on other workloads "
                              "(mpx.scoring.replay.other_workloads)")
        est = self._estimate(observation)
        if not isinstance(est, Estimate):
            raise ScalerError(f"{type(self).__name__}._estimate returned {type(est).__name__}, not an Estimate")
        w, e = observation.reads.raw.shape
        if est.events != tuple(observation.events) or est.counts.shape != (w, e):
            raise ScalerError(f"{type(self).__name__}: estimate shape {est.counts.shape} / events differ from the "
                              f"observation's read view {(w, e)}")
        if est.quantum_counts is not None and est.quantum_counts.shape != observation.quanta.counts.shape:
            raise ScalerError(f"{type(self).__name__}: quantum estimate shape {est.quantum_counts.shape} differs "
                              f"from the observation's {observation.quanta.counts.shape}")
        return est

    # -- helpers for implementations -------------------------------------------------------------------

    def make_estimate(self, observation: Any, counts: np.ndarray, *, not_estimated: np.ndarray | None = None,
                      std: np.ndarray | None = None, quantum_counts: np.ndarray | None = None,
                      quantum_std: np.ndarray | None = None, notes: Iterable[str] = (),
                      run_totals: np.ndarray | None = None) -> Estimate:
        """An `Estimate` on ``observation``'s read windows with this scaler's name, parameters and the
        observation's provenance. ``not_estimated`` defaults to the windows with NaN counts."""
        counts = np.asarray(counts, dtype=np.float64)
        if not_estimated is None:
            not_estimated = ~np.isfinite(counts)
        params = self.params_json()
        meta = dict(observation.meta)
        meta["scaler"] = self.name or type(self).__name__
        meta["scaler_params"] = params
        return Estimate(
            events=tuple(observation.events),
            edges=observation.reads.edges,
            counts=counts,
            not_estimated=not_estimated,
            std=std,
            quantum_edges=None if quantum_counts is None else observation.quanta.edges,
            quantum_counts=quantum_counts,
            quantum_std=quantum_std,
            scaler=self.name or type(self).__name__,
            params=params,
            causal=bool(self.causal),
            meta=meta,
            notes=tuple(notes),
            ran=np.asarray(observation.reads.running) > 0,
            run_totals=run_totals,
        )
