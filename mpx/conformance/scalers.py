"""Conformance checks every scaler must pass (like scikit-learn's ``check_estimator``).

Each check is a function ``check_<name>(scaler)`` listed in `SCALER_CHECKS`; it runs the scaler on a
small generic multiplexed run — 5 single events on 2 generic counters read every 2 quanta, so under
perf's sliding window every event misses whole read windows; a (non-weak) group ``{g,h,z}`` whose third
member ``z`` never counts; ``cycles`` on a fixed counter — raises `~mpx.conformance.common.ConformanceError`
``check_scaler[<name>] <Class>(<registry name>): ...`` listing what fails, and returns facts:

1. **interface** (`check_interface`): ``name`` is set, ``view`` is "read" or "quantum", ``causal`` is a
   bool, the tags (`~mpx.scalers.base.ScalerTags`) agree with the attributes and ``needs_relations``
   with a ``relations`` parameter, the constructor stores its hyper-parameters (given and default)
   unchanged, ``param_constraints`` name parameters and the given ones satisfy them, ``clone`` works;
2. **refuses_trace** (`check_refuses_trace`): ``estimate`` refuses a Trace with a ConfigError;
3. **shapes** (`check_shapes`): on an observation whose trace is deleted, the Estimate covers every event
   and read window of the observation (and every quantum when it has quantum counts), non-flagged
   windows hold finite numbers (enforced by `Estimate`), ``Estimate.causal`` is the scaler's flag;
4. **never_ran** (`check_never_ran`): ``z`` (in error: ΔE = ΔR = 0 everywhere) is flagged in every window;
5. **nan_tolerant** (`check_nan_tolerant`): reads and quantum counts with NaN cells do not make it raise;
6. **deterministic** (`check_deterministic`): two runs and a clone give identical estimates;
7. **never_reads_truth** (`check_never_reads_truth`): two traces that differ only where no event was
   counted give identical observations, so they must give identical estimates — each trace is kept
   alive (and cached by the multiplexer) while its observation is estimated, so a scaler that finds
   and reads a trace is caught;
8. **causal** (`check_causal`): a causal scaler's estimate of windows <= w must not change when the
   trace after window w changes (checked at five w, not all multiples of the rotation period). An
   offline scaler that happens to behave causally on this run is reported (``behaves_causally``), not
   failed: declaring offline is always safe.

Learned scalers (``learned = True``) are first fitted on a different synthetic trace. ``check_scaler``
takes an instance, a class or a registry name and ``params`` (default: the class's
``example_params``) and is `mpx.conformance.check` of kind ``"scaler"``: every check, one
`~mpx.conformance.common.ConformanceError` listing every failure, each naming its check; the facts otherwise. The trace-free observation builders (`observation_from_reads`,
`observation_from_quanta`) and the generic run (`generic_trace`, `generic_observation`) serve tests too.
"""

from __future__ import annotations

import contextvars
import dataclasses
import gc
from collections.abc import Callable
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.multiplex import multiplex
from mpx.observation import Observation, QuantumView, ReadView
from mpx.pmu import PMU
from mpx.problem import Problem
from mpx.conformance.common import ConformanceError, param_failures
from mpx.scalers.base import VIEWS, Estimate, Scaler, ScalerTags
from mpx.trace import Trace

__all__ = ["EVENTS", "SCALER_CHECKS", "SPEC", "check_causal", "check_deterministic", "check_interface",
           "check_nan_tolerant", "check_never_ran", "check_never_reads_truth", "check_refuses_trace", "check_scaler",
           "check_shapes", "generic_observation", "generic_pmu", "generic_trace", "observation_from_quanta",
           "observation_from_reads"]

#: the generic run's events, and its perf ``-e`` list (a group whose third member never counts)
EVENTS = ("a", "b", "c", "d", "e", "g", "h", "z", "cycles")
SPEC = "a,b,c,d,e,{g,h,z},cycles"


def generic_pmu() -> PMU:
    """The generic run's PMU: 2 generic counters and ``cycles`` on a fixed counter."""
    return PMU.from_dict({"name": "check-f1g2", "units": {"cpu": {"generic": 2, "fixed": {"fixed0": ["cycles"]}}}})


def generic_trace(seed: int = 0, n: int = 120, workload: str = "check"):
    """A trace with phases and bursts (so interpolating scalers have trends to follow), one interval per
    quantum (no apportioning), cycles constant at 30,000 per interval (enough for PAPI's 25,000)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    phase = 1.0 + 0.8 * np.sin(2 * np.pi * t / 37.0)[:, None]
    base = rng.uniform(200, 5000, len(EVENTS))[None, :]
    burst = np.where(rng.random((n, 1)) < 0.08, 4.0, 1.0)
    counts = rng.poisson(base * phase * burst).astype(float)
    counts[:, EVENTS.index("cycles")] = 30000.0
    edges = np.arange(n + 1, dtype=float) * 10.0
    return Trace(list(EVENTS), counts, edges, "us", meta={"workload": workload, "source": "mpx.conformance.scalers",
                                                          "synthetic": True})


def generic_observation(trace=None, read_every: int = 2):
    """The check's observation of ``trace`` (default `generic_trace`) under perf's scheduler."""
    trace = trace if trace is not None else generic_trace()
    problem = Problem.from_perf_events(SPEC, generic_pmu())
    return multiplex(trace, problem, "perf", quantum=10.0, read_every=read_every)


def observation_from_reads(events: list[str] | tuple[str, ...], edges: Any, raw: Any, enabled: Any,
                           running: Any, *, meta: dict | None = None) -> Observation:
    """`mpx.observation.Observation.from_reads` in the check's world (time in us, PMU ``generic-2``)."""
    return Observation.from_reads(events, edges, raw, enabled, running, time_unit="us", pmu="generic-2", meta=meta)


def observation_from_quanta(events: list[str] | tuple[str, ...], edges: Any, counts: Any, running: Any,
                            read_every: int, *, meta: dict | None = None) -> Observation:
    """`mpx.observation.Observation.from_quanta` in the check's world (time in us, PMU ``generic-2``)."""
    return Observation.from_quanta(events, edges, counts, running, read_every, time_unit="us", pmu="generic-2",
                                   meta=meta)


def _same(x: np.ndarray | None, y: np.ndarray | None) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=True))


def _same_estimate(a: Estimate, b: Estimate) -> bool:
    return (_same(a.counts, b.counts) and _same(a.not_estimated, b.not_estimated) and _same(a.std, b.std)
            and _same(a.quantum_counts, b.quantum_counts))


def _with_nan(obs):
    r, q = obs.reads, obs.quanta
    raw = np.array(r.raw)
    raw[1, 0] = np.nan
    raw[-1, 1] = np.nan
    ena = np.array(r.enabled)
    ena[2, 2] = np.nan
    run = np.array(r.running)
    run[3, 3] = np.nan
    qc = np.array(q.counts)
    qc[np.flatnonzero(q.running[:, 0])[:2], 0] = np.nan
    qc[5, EVENTS.index("cycles")] = np.nan
    reads = ReadView(r.edges, r.quanta, raw, ena, run)
    quanta = QuantumView(q.edges, q.running, qc)
    return dataclasses.replace(obs, reads=reads, quanta=quanta)


def _label(s: Scaler) -> str:
    return f"{type(s).__name__}({s.name or '?'})"


def _fail(check: str, s: Scaler, fails: list[str]) -> None:
    if fails:
        raise ConformanceError("scaler", check, _label(s), fails)


def _ready(s: Scaler) -> Scaler:
    """A fresh clone, fitted on another synthetic workload when the scaler is learned."""
    c = s.clone()
    if c.learned:
        try:
            c.fit([generic_trace(seed=99, workload="other")])
        except Exception as exc:  # noqa: BLE001 - reported as a failure
            raise ConformanceError("scaler", "fit", _label(s),
                                   f"fit on a trace failed: {type(exc).__name__}: {exc}") from exc
    return c


#: within `check_scaler`: the `_base` of the scaler being checked, computed by its first check and read by the
#: others (five checks start from the same fitted clone and estimate: computing it once saves a quarter of the
#: estimates of a whole run); None outside, so that one check run alone computes its own
_SHARED_BASE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("_SHARED_BASE", default=None)


def _base(s: Scaler, check: str) -> tuple[Scaler, Observation, np.ndarray, Estimate]:
    """(fitted clone, the generic observation, its trace's counts, the estimate), the trace deleted
    and the multiplexer's checksum cache emptied before estimating."""
    shared = _SHARED_BASE.get()
    if shared is not None and shared.get("scaler") is s:
        return shared["base"]
    base = _compute_base(s, check)
    if shared is not None:
        shared.update(scaler=s, base=base)
    return base


def _compute_base(s: Scaler, check: str) -> tuple[Scaler, Observation, np.ndarray, Estimate]:
    c = _ready(s)
    trace = generic_trace()
    obs = generic_observation(trace)
    counts = np.array(trace.counts)
    del trace
    gc.collect()
    try:
        est = c.estimate(obs)
    except Exception as exc:  # noqa: BLE001
        raise ConformanceError("scaler", check, _label(s), f"estimate on the generic observation raised "
                               f"{type(exc).__name__}: {exc}") from exc
    return c, obs, counts, est


def check_interface(s: Scaler) -> dict[str, Any]:
    """Declared attributes and tags; hyper-parameters stored unchanged; constraints; clone."""
    fails: list[str] = []
    if not isinstance(s.name, str) or not s.name:
        fails.append("name must be a non-empty string")
    if s.view not in VIEWS:
        fails.append(f"view must be one of {VIEWS}, got {s.view!r}")
    if not isinstance(s.causal, (bool, np.bool_)):
        fails.append(f"causal must be a bool, got {s.causal!r}")
    tags = s.tags()
    if not isinstance(tags, ScalerTags) or (tags.causal, tags.view, tags.learned, tags.jit) != (
            bool(s.causal), s.view, bool(s.learned), bool(s.jit)):
        fails.append(f"tags() {tags!r} disagree with the causal/view/learned/jit attributes")
    elif tags.needs_relations != ("relations" in s.param_names()):
        fails.append("needs_relations must be True exactly when the scaler takes a 'relations' parameter")
    fails += param_failures(s)
    _fail("interface", s, fails)
    return {"causal": bool(s.causal), "view": s.view, "learned": bool(s.learned)}


def check_refuses_trace(s: Scaler) -> dict[str, Any]:
    """``estimate`` takes only an Observation: a Trace is a ConfigError."""
    c = _ready(s)
    try:
        c.estimate(generic_trace())
        fails = ["estimate accepted a Trace (it must take only an Observation)"]
    except ConfigError:
        fails = []
    except Exception as exc:  # noqa: BLE001
        fails = [f"estimate(trace) raised {type(exc).__name__} instead of ConfigError: {exc}"]
    _fail("refuses_trace", s, fails)
    return {}


def check_shapes(s: Scaler) -> dict[str, Any]:
    """With the trace gone, the estimate covers the observation's events, read windows and quanta."""
    _, obs, _, est = _base(s, "shapes")
    fails: list[str] = []
    w, e = obs.reads.raw.shape
    if est.counts.shape != (w, e) or est.events != obs.events:
        fails.append(f"estimate shape {est.counts.shape} != {(w, e)}")
    if est.quantum_counts is not None and est.quantum_counts.shape != obs.quanta.counts.shape:
        fails.append(f"quantum estimate shape {est.quantum_counts.shape} != {obs.quanta.counts.shape}")
    if not np.array_equal(est.edges, obs.reads.edges):
        fails.append("estimate edges differ from the observation's read edges")
    if est.causal != bool(s.causal):
        fails.append("Estimate.causal differs from the scaler's causal flag")
    _fail("shapes", s, fails)
    return {"not_estimated_share": float(est.not_estimated.mean()) if est.not_estimated.size else 0.0}


def check_never_ran(s: Scaler) -> dict[str, Any]:
    """An event that never ran (ΔE = ΔR = 0 everywhere) is flagged not estimated in every window."""
    _, obs, _, est = _base(s, "never_ran")
    z = obs.events.index("z")
    fails: list[str] = []
    if "z" not in obs.errors:  # pragma: no cover - a change in the multiplexer, not in the scaler
        fails.append("internal: the generic problem no longer has an event in error")
    elif not est.not_estimated[:, z].all():
        fails.append("an event that never ran (ΔE = ΔR = 0 everywhere) is not flagged as not estimated in every "
                     "window")
    _fail("never_ran", s, fails)
    return {}


def check_nan_tolerant(s: Scaler) -> dict[str, Any]:
    """NaN cells in the reads and quantum counts do not make it raise."""
    c = _ready(s)
    obs = generic_observation()
    fails: list[str] = []
    try:
        est_nan = c.estimate(_with_nan(obs))
        if est_nan.counts.shape != obs.reads.raw.shape:
            fails.append("wrong shape on an observation with NaN cells")
    except Exception as exc:  # noqa: BLE001
        fails.append(f"NaN cells in the observation made it raise {type(exc).__name__}: {exc}")
    _fail("nan_tolerant", s, fails)
    return {}


def check_deterministic(s: Scaler) -> dict[str, Any]:
    """Two runs, and a clone, give identical estimates."""
    c, obs, _, est = _base(s, "deterministic")
    fails: list[str] = []
    try:
        if not _same_estimate(est, c.estimate(obs)):
            fails.append("two runs on the same observation differ")
        if not _same_estimate(est, _ready(c).estimate(obs)):
            fails.append("a clone gives a different estimate")
    except Exception as exc:  # noqa: BLE001
        fails.append(f"determinism check raised {type(exc).__name__}: {exc}")
    _fail("deterministic", s, fails)
    return {}


def check_never_reads_truth(s: Scaler) -> dict[str, Any]:
    """Two traces differing only where nothing was counted, each alive while its observation is
    estimated, give identical estimates."""
    c, obs, counts_a, _ = _base(s, "never_reads_truth")
    fails: list[str] = []
    ran = np.asarray(obs.quanta.running)
    counts_b = np.where(ran, counts_a, counts_a * 3.0 + 7.0)
    try:
        tr_a = generic_trace()
        obs_a = generic_observation(tr_a)
        est_a = c.estimate(obs_a)
        del tr_a
        tr_b = Trace(list(EVENTS), counts_b, generic_trace().edges, "us", meta=dict(generic_trace().meta))
        obs_b = generic_observation(tr_b)
        if not (_same(obs_b.reads.raw, obs.reads.raw) and _same(obs_b.quanta.counts, obs.quanta.counts)):
            fails.append("internal: observations of traces differing only in uncounted cells differ")
        elif not _same_estimate(est_a, c.estimate(obs_b)):
            fails.append("the estimate changed when only the unobserved truth changed: the scaler reads the truth")
        del tr_b
    except Exception as exc:  # noqa: BLE001
        fails.append(f"estimate on the two-truth test raised {type(exc).__name__}: {exc}")
    _fail("never_reads_truth", s, fails)
    return {}


def check_causal(s: Scaler) -> dict[str, Any]:
    """A causal scaler's windows < w do not change when only the trace after window w changes; reports
    ``behaves_causally`` for every scaler."""
    c, obs, counts_a, est = _base(s, "causal")
    fails: list[str] = []
    w = obs.reads.raw.shape[0]
    behaves_causally = True
    rng = np.random.default_rng(7)
    for cut in sorted({w // 5, w // 3 + 1, w // 2 + 2, (2 * w) // 3 + 1, (4 * w) // 5 - 1}):
        if cut < 1 or cut >= w:
            continue
        t_cut = int(obs.reads.quanta[cut])  # first quantum after window cut-1 ... windows <= cut-1 keep
        pert = counts_a.copy()
        pert[t_cut:] *= rng.uniform(0.2, 5.0, pert[t_cut:].shape)
        pert[t_cut:, EVENTS.index("cycles")] = counts_a[t_cut:, EVENTS.index("cycles")]
        tr_p = Trace(list(EVENTS), np.round(pert), generic_trace().edges, "us", meta={"workload": "check"})
        obs_p = generic_observation(tr_p)
        del tr_p
        try:
            est_p = c.estimate(obs_p)
        except Exception as exc:  # noqa: BLE001
            fails.append(f"estimate on a perturbed trace raised {type(exc).__name__}: {exc}")
            break
        keep = slice(0, cut)
        same_past = (_same(est.counts[keep], est_p.counts[keep])
                     and _same(est.not_estimated[keep], est_p.not_estimated[keep])
                     and (est.std is None or _same(est.std[keep], est_p.std[keep])))
        if est.quantum_counts is not None and est_p.quantum_counts is not None:
            same_past = same_past and _same(est.quantum_counts[:t_cut], est_p.quantum_counts[:t_cut])
        if not same_past:
            behaves_causally = False
            if s.causal:
                fails.append(f"declared causal, but its estimate of read windows < {cut} changed when only later "
                             "windows changed")
                break
    _fail("causal", s, fails)
    return {"behaves_causally": behaves_causally}


#: every check, by name, in the order `check_scaler` runs them
SCALER_CHECKS: dict[str, Callable[[Scaler], dict[str, Any]]] = {
    "interface": check_interface,
    "refuses_trace": check_refuses_trace,
    "shapes": check_shapes,
    "never_ran": check_never_ran,
    "nan_tolerant": check_nan_tolerant,
    "deterministic": check_deterministic,
    "never_reads_truth": check_never_reads_truth,
    "causal": check_causal,
}


def check_scaler(scaler: Any, params: dict | None = None) -> dict[str, Any]:
    """Every scaler check (`mpx.conformance.suites.check` of kind ``"scaler"``: the registry's ``class_tags``
    and `SCALER_CHECKS`) on ``scaler`` (an instance, a class or a registry name; ``params`` default: the
    class's ``example_params``); raises one `~mpx.conformance.common.ConformanceError` listing every failure,
    returns facts (``scaler``, ``class``, ``causal``, ``view``, ``behaves_causally``, ...) otherwise."""
    from mpx.conformance.suites import check, plugin_object

    s = plugin_object("scaler", scaler, params)
    token = _SHARED_BASE.set({})
    try:
        return {"scaler": s.name, "class": type(s).__name__, **check("scaler", s)}
    finally:
        _SHARED_BASE.reset(token)
