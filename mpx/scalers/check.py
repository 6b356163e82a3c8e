"""Conformance check every scaler must pass (like scikit-learn's ``check_estimator``).

``check_scaler(scaler)`` (an instance, a class or a registry name) runs the scaler on a small generic
multiplexed run — 5 single events on 2 generic counters read every 2 quanta, so under perf's sliding
window every event misses whole read windows; a (non-weak) group ``{g,h,z}`` whose third member ``z``
never counts; ``cycles`` on a fixed counter — and checks:

1. **interface**: ``name`` is set, ``view`` is "read" or "quantum", ``causal`` is a bool, the
   constructor stores its hyper-parameters (given and default) unchanged,
   ``clone`` works, ``estimate`` refuses a Trace;
2. **shapes**: the Estimate covers every event and read window of the observation (and every quantum
   when it has quantum counts), non-flagged windows hold finite numbers (enforced by `Estimate`);
3. **events that never ran**: ``z`` (in error: ΔE = ΔR = 0 everywhere) is flagged in every window;
4. **NaN in the observation**: reads and quantum counts with NaN cells do not make it raise;
5. **determinism**: two runs and a clone give identical estimates;
6. **never reads the truth**: it works on an observation whose trace is deleted (and mpx.multiplex's
   checksum cache emptied); and two traces that differ only where no event was counted give identical
   observations, so they must give identical estimates — each trace is kept alive (and cached by the
   multiplexer) while its observation is estimated, so a scaler that finds and reads a trace is caught;
7. **honest ``causal``**: a causal scaler's estimate of windows <= w must not change when the trace
   after window w changes (checked at five w, not all multiples of the rotation period). An offline
   scaler that happens to behave causally on this run is reported in ``info`` (not a failure:
   declaring offline is always safe).

Learned scalers (``learned = True``) are first fitted on a different synthetic trace. ``params`` (or
the class's ``example_params``) are the hyper-parameters to build it with. Failures are collected and
raised together as one `ScalerError`; on success a dict of facts is returned.
"""

from __future__ import annotations

import dataclasses
import gc
import inspect
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.observation import Observation, QuantumView, ReadView
from mpx.scalers.base import VIEWS, Estimate, Scaler, ScalerError

__all__ = ["check_scaler", "generic_observation", "generic_trace", "observation_from_quanta", "observation_from_reads"]

EVENTS = ("a", "b", "c", "d", "e", "g", "h", "z", "cycles")
SPEC = "a,b,c,d,e,{g,h,z},cycles"


def _pmu():
    from mpx.pmu import PMU

    return PMU.from_dict({"name": "check-f1g2", "units": {"cpu": {"generic": 2, "fixed": {"fixed0": ["cycles"]}}}})


def generic_trace(seed: int = 0, n: int = 120, workload: str = "check"):
    """A trace with phases and bursts (so interpolating scalers have trends to follow), one interval per
    quantum (no apportioning), cycles constant at 30,000 per interval (enough for PAPI's 25,000)."""
    from mpx.trace import Trace

    rng = np.random.default_rng(seed)
    t = np.arange(n)
    phase = 1.0 + 0.8 * np.sin(2 * np.pi * t / 37.0)[:, None]
    base = rng.uniform(200, 5000, len(EVENTS))[None, :]
    burst = np.where(rng.random((n, 1)) < 0.08, 4.0, 1.0)
    counts = rng.poisson(base * phase * burst).astype(float)
    counts[:, EVENTS.index("cycles")] = 30000.0
    edges = np.arange(n + 1, dtype=float) * 10.0
    return Trace(list(EVENTS), counts, edges, "us", meta={"workload": workload, "source": "mpx.scalers.check",
                                                          "synthetic": True})


def generic_observation(trace=None, read_every: int = 2):
    """The check's observation of ``trace`` (default `generic_trace`) under perf's scheduler."""
    from mpx.multiplex import multiplex
    from mpx.problem import Problem

    trace = trace if trace is not None else generic_trace()
    problem = Problem.from_perf_events(SPEC, _pmu())
    return multiplex(trace, problem, "perf", quantum=10.0, read_every=read_every)


def observation_from_reads(events: list[str] | tuple[str, ...], edges: Any, raw: Any, enabled: Any,
                           running: Any, *, meta: dict | None = None):
    """`mpx.observation.Observation.from_reads` in the check's world (time in us, PMU ``generic-2``)."""
    return Observation.from_reads(events, edges, raw, enabled, running, time_unit="us", pmu="generic-2", meta=meta)


def observation_from_quanta(events: list[str] | tuple[str, ...], edges: Any, counts: Any, running: Any,
                            read_every: int, *, meta: dict | None = None):
    """`mpx.observation.Observation.from_quanta` in the check's world (time in us, PMU ``generic-2``)."""
    return Observation.from_quanta(events, edges, counts, running, read_every, time_unit="us", pmu="generic-2",
                                   meta=meta)


def _param_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and other odd parameters
        return False


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


def _instance(scaler: Any, params: dict | None) -> Scaler:
    if isinstance(scaler, str):
        from mpx import scalers

        cls = scalers.get_class(scaler)
    elif isinstance(scaler, type):
        cls = scaler
    elif isinstance(scaler, Scaler):
        return scaler.clone().set_params(**(params or {})) if params else scaler
    else:
        raise ConfigError(f"check_scaler: expected a scaler, a Scaler class or a registry name, got {scaler!r}")
    if not (isinstance(cls, type) and issubclass(cls, Scaler)):
        raise ConfigError(f"check_scaler: {cls!r} is not a mpx.scalers.base.Scaler subclass")
    return cls(**(cls.example_params if params is None else params))


def check_scaler(scaler: Any, params: dict | None = None) -> dict[str, Any]:
    """Run every conformance check on ``scaler`` (see the module docstring); raises `ScalerError`
    listing every failure, returns facts (``causal``, ``view``, ``behaves_causally``, ...) otherwise."""

    s = _instance(scaler, params)
    label = f"{type(s).__name__}({s.name or '?'})"
    fails: list[str] = []
    info: dict[str, Any] = {"scaler": s.name, "class": type(s).__name__}

    def fail(msg: str) -> None:
        fails.append(msg)

    # 1. interface
    if not isinstance(s.name, str) or not s.name:
        fail("name must be a non-empty string")
    if s.view not in VIEWS:
        fail(f"view must be one of {VIEWS}, got {s.view!r}")
    if not isinstance(s.causal, (bool, np.bool_)):
        fail(f"causal must be a bool, got {s.causal!r}")
    info.update(causal=bool(s.causal), view=s.view, learned=bool(s.learned))
    try:
        params_now = s.get_params()
        given = dict(params_now)
        built = type(s)(**given).get_params()
        # what the signature's defaults plus the given values say the parameters must be
        sig = inspect.signature(type(s).__init__)
        expected = {k: p.default for k, p in sig.parameters.items() if k in params_now}
        expected.update(given)
        if built.keys() != expected.keys() or any(not _param_equal(built[k], expected[k]) for k in expected):
            fail(f"constructor does not store its parameters unchanged: given {given}, stored {built}")
        defaults = {k: p.default for k, p in sig.parameters.items()
                    if k in params_now and p.default is not inspect.Parameter.empty}
        if len(defaults) == len(params_now):
            stored = type(s)().get_params()
            if any(not _param_equal(stored[k], defaults[k]) for k in defaults):
                fail(f"constructor does not store its default parameters unchanged: defaults {defaults}, "
                     f"stored {stored}")
        s.clone()
    except Exception as exc:  # noqa: BLE001 - reported as a failure
        fail(f"get_params/clone failed: {type(exc).__name__}: {exc}")

    if s.learned:
        try:
            s.fit([generic_trace(seed=99, workload="other")])
        except Exception as exc:  # noqa: BLE001
            fail(f"fit on a trace failed: {type(exc).__name__}: {exc}")
            raise ScalerError(f"{label} fails the conformance check:\n  - " + "\n  - ".join(fails)) from exc

    trace = generic_trace()
    try:
        s.estimate(trace)
        fail("estimate accepted a Trace (it must take only an Observation)")
    except ConfigError:
        pass
    except Exception as exc:  # noqa: BLE001
        fail(f"estimate(trace) raised {type(exc).__name__} instead of ConfigError: {exc}")

    # 6a. the trace gone before estimating
    obs = generic_observation(trace)
    counts_a = np.array(trace.counts)
    del trace
    gc.collect()
    try:
        est = s.estimate(obs)
    except Exception as exc:  # noqa: BLE001
        fail(f"estimate on the generic observation raised {type(exc).__name__}: {exc}")
        raise ScalerError(f"{label} fails the conformance check:\n  - " + "\n  - ".join(fails)) from exc

    # 2. shapes
    w, e = obs.reads.raw.shape
    if est.counts.shape != (w, e) or est.events != obs.events:
        fail(f"estimate shape {est.counts.shape} != {(w, e)}")
    if est.quantum_counts is not None and est.quantum_counts.shape != obs.quanta.counts.shape:
        fail(f"quantum estimate shape {est.quantum_counts.shape} != {obs.quanta.counts.shape}")
    if not np.array_equal(est.edges, obs.reads.edges):
        fail("estimate edges differ from the observation's read edges")
    if est.causal != bool(s.causal):
        fail("Estimate.causal differs from the scaler's causal flag")
    info["not_estimated_share"] = float(est.not_estimated.mean()) if est.not_estimated.size else 0.0

    # 3. events that never ran
    z = obs.events.index("z")
    if "z" not in obs.errors:  # pragma: no cover - a change in the multiplexer, not in the scaler
        fail("internal: the generic problem no longer has an event in error")
    elif not est.not_estimated[:, z].all():
        fail("an event that never ran (ΔE = ΔR = 0 everywhere) is not flagged as not estimated in every window")

    # 4. NaN in the observation
    try:
        est_nan = s.estimate(_with_nan(obs))
        if est_nan.counts.shape != (w, e):
            fail("wrong shape on an observation with NaN cells")
    except Exception as exc:  # noqa: BLE001
        fail(f"NaN cells in the observation made it raise {type(exc).__name__}: {exc}")

    # 5. determinism
    try:
        if not _same_estimate(est, s.estimate(obs)):
            fail("two runs on the same observation differ")
        c = s.clone()
        if s.learned:
            c.fit([generic_trace(seed=99, workload="other")])
        if not _same_estimate(est, c.estimate(obs)):
            fail("a clone gives a different estimate")
    except Exception as exc:  # noqa: BLE001
        fail(f"determinism check raised {type(exc).__name__}: {exc}")

    # 6b. two traces differing only where nothing was counted, each alive (and in the multiplexer's
    # cache) while its observation is estimated: a scaler that finds and reads a trace gets caught
    from mpx.trace import Trace

    ran = np.asarray(obs.quanta.running)
    counts_b = np.where(ran, counts_a, counts_a * 3.0 + 7.0)
    try:
        tr_a = generic_trace()
        obs_a = generic_observation(tr_a)
        est_a = s.estimate(obs_a)
        del tr_a
        tr_b = Trace(list(EVENTS), counts_b, generic_trace().edges, "us", meta=dict(generic_trace().meta))
        obs_b = generic_observation(tr_b)
        if not (_same(obs_b.reads.raw, obs.reads.raw) and _same(obs_b.quanta.counts, obs.quanta.counts)):
            fail("internal: observations of traces differing only in uncounted cells differ")  # pragma: no cover
        elif not _same_estimate(est_a, s.estimate(obs_b)):
            fail("the estimate changed when only the unobserved truth changed: the scaler reads the truth")
        del tr_b
    except Exception as exc:  # noqa: BLE001
        fail(f"estimate on the two-truth test raised {type(exc).__name__}: {exc}")

    # 7. causality
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
            est_p = s.estimate(obs_p)
        except Exception as exc:  # noqa: BLE001
            fail(f"estimate on a perturbed trace raised {type(exc).__name__}: {exc}")
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
                fail(f"declared causal, but its estimate of read windows < {cut} changed when only later windows "
                     "changed")
                break
    info["behaves_causally"] = behaves_causally

    if fails:
        raise ScalerError(f"{label} fails the conformance check:\n  - " + "\n  - ".join(fails))
    return info
