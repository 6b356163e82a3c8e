"""Synthetic ground truth for controlled studies — generated, not measured, and labelled so.

Every trace made here carries ``meta['synthetic'] = True``, ``meta['simulator'] = "mpx.datasets.synthetic"``, the
full generator parameters (``meta['generator']``: spec and seed, enough to regenerate it bit for bit) and
the exact linear identities it satisfies (``meta['identities']``). It is deterministic for a seed (one
``numpy.random.default_rng(seed)`` stream).

A `SynthSpec` is declarative. Its ``nodes`` are produced in order, each from earlier ones:

- `Event`: a counter with a base ``rate`` (mean count per interval) times a multiplier; Poisson noise,
  gamma-Poisson (negative binomial) with ``dispersion > 0``, or none (``noise=False``: a clock, rounded);
  ``occurrence < 1`` makes a rare event (zero outside a random ``occurrence`` fraction of intervals).
- `Split`: an existing event's count divided among new ``parts`` by a multinomial draw with weights times
  multipliers: ``total = sum(parts)`` holds exactly in every interval (TMA slot hierarchies, hit/miss).
- `Derived`: an exact integer linear combination of earlier events (``slots_total = 4 * cycles``).

The multiplier of an event's rate or of a split part's weight is the product of

- `Phase` s: piecewise-stationary scales (``scale[name]``) over phases of chosen lengths (the list
  repeats when shorter than the trace); ``transition = w`` ramps linearly from the previous phase's scale
  over the first ``w`` intervals of the phase (0 = abrupt);
- `Burst` s: a two-state Markov chain per burst (a burst starts with probability ``onset`` per interval and
  lasts a geometric number of intervals with mean ``duration``), scaling its ``targets`` by ``amplitude``
  while on — all targets of one burst jump together;
- `Factor` s: shared latent log-normal factors, AR(1) in log space with stationary std ``sigma`` and
  lag-one correlation ``rho``; ``loadings`` tie events (or split parts) to factors, so events loading on
  the same factor are correlated. The factor term is mean-normalised (``exp(l·f - (l·sigma)²/2)``), so it
  leaves the mean rate unchanged.

Counts are non-negative integers (stored as float64, like every Trace). The latent state goes to the aux
side table: ``synth::phase`` (index of the phase), ``synth::burst::NAME`` (0/1) and ``synth::factor::NAME``.
`identities` returns the identities as data; `PRESETS` holds named specs (``tma``, ``phases``, ``bursty``,
``correlated``); ``mpx synth PRESET -o FILE`` writes one as a native trace.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from mpx.errors import ConfigError
from mpx.trace import TIME_UNITS, Trace

SIMULATOR = "mpx.datasets.synthetic"

Identity = tuple[str, list[tuple[float, str]]]
"""``(lhs, [(coef, event), ...])``: ``trace[lhs] == sum(coef * trace[event])`` in every interval."""


# -- the declarative spec --------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A base counter: ``count ~ Poisson(rate × multiplier)`` (see module docstring for the options)."""

    name: str
    rate: float
    dispersion: float = 0.0
    noise: bool = True
    occurrence: float = 1.0
    loadings: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Split:
    """Divide the count of event ``total`` among new events ``parts`` (name → base weight)."""

    total: str
    parts: Mapping[str, float]
    loadings: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """part → {factor: loading}: a latent factor moving that part's share."""


@dataclass(frozen=True)
class Derived:
    """``name = sum(coef × event)`` over earlier events, integer coefficients, exact."""

    name: str
    terms: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Phase:
    """``length`` intervals in which ``scale[name]`` multiplies a rate or a split weight (default 1)."""

    length: int
    scale: Mapping[str, float] = field(default_factory=dict)
    transition: int = 0
    label: str = ""


@dataclass(frozen=True)
class Burst:
    """On/off bursts scaling ``targets`` by ``amplitude`` while on."""

    name: str
    targets: tuple[str, ...]
    onset: float
    duration: float
    amplitude: float


@dataclass(frozen=True)
class Factor:
    """A shared latent factor: AR(1) in log space, stationary std ``sigma``, lag-one correlation ``rho``."""

    name: str
    sigma: float
    rho: float = 0.9


Node = Union[Event, Split, Derived]


@dataclass(frozen=True)
class SynthSpec:
    """Everything that defines a synthetic trace except the seed."""

    name: str
    nodes: tuple[Node, ...]
    phases: tuple[Phase, ...] = ()
    bursts: tuple[Burst, ...] = ()
    factors: tuple[Factor, ...] = ()
    intervals: int = 1000
    interval_length: float = 1.0
    time_unit: str = "intervals"
    description: str = ""

    @property
    def events(self) -> list[str]:
        """Event names in trace order."""
        out: list[str] = []
        for node in self.nodes:
            if isinstance(node, Split):
                out.extend(node.parts)
            else:
                out.append(node.name)
        return out


# -- (de)serialisation: the spec travels in the trace's meta --------------------------------------------

_NODE_KINDS: dict[str, type] = {"event": Event, "split": Split, "derived": Derived}


def spec_to_dict(spec: SynthSpec) -> dict[str, Any]:
    """A JSON-serialisable dict of ``spec`` (inverse: `spec_from_dict`)."""

    def plain(x: Any) -> Any:
        if isinstance(x, Mapping):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, (tuple, list)):
            return [plain(v) for v in x]
        return x

    d = {f.name: plain(getattr(spec, f.name)) for f in dataclasses.fields(spec) if f.name != "nodes"}
    d["nodes"] = []
    for node in spec.nodes:
        kind = next(k for k, cls in _NODE_KINDS.items() if isinstance(node, cls))
        d["nodes"].append({"kind": kind, **{f.name: plain(getattr(node, f.name)) for f in dataclasses.fields(node)}})
    for key, items in (("phases", spec.phases), ("bursts", spec.bursts), ("factors", spec.factors)):
        d[key] = [{f.name: plain(getattr(i, f.name)) for f in dataclasses.fields(i)} for i in items]
    return d


def spec_from_dict(d: Mapping[str, Any]) -> SynthSpec:
    """Rebuild a `SynthSpec` from `spec_to_dict` output (e.g. ``trace.meta['generator']['spec']``)."""
    try:
        nodes: list[Node] = []
        for n in d["nodes"]:
            n = dict(n)
            cls = _NODE_KINDS[n.pop("kind")]
            if cls is Derived:
                n["terms"] = tuple((int(c), str(e)) for c, e in n["terms"])
            nodes.append(cls(**n))
        return SynthSpec(
            **{k: v for k, v in d.items() if k not in ("nodes", "phases", "bursts", "factors")},
            nodes=tuple(nodes),
            phases=tuple(Phase(**p) for p in d.get("phases", ())),
            bursts=tuple(Burst(**{**b, "targets": tuple(b["targets"])}) for b in d.get("bursts", ())),
            factors=tuple(Factor(**f) for f in d.get("factors", ())),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"not a synthetic spec: {exc!r}") from None


# -- validation --------------------------------------------------------------------------------------


def _finite(x: Any, what: str, lo: float = 0.0, lo_open: bool = False, hi: float | None = None) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ConfigError(f"{what} must be a finite number, got {x!r}")
    if x < lo or (lo_open and x == lo) or (hi is not None and x > hi):
        raise ConfigError(f"{what} = {x!r} is out of range")
    return float(x)


def _positive_int(x: Any, what: str, minimum: int = 1) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < minimum:
        raise ConfigError(f"{what} must be an integer >= {minimum}, got {x!r}")
    return int(x)


def validate(spec: SynthSpec) -> None:
    """Check ``spec`` completely; a `ConfigError` names the offending key."""
    if not isinstance(spec.name, str) or not spec.name:
        raise ConfigError(f"spec name must be a non-empty string, got {spec.name!r}")
    _positive_int(spec.intervals, "intervals")
    _finite(spec.interval_length, "interval_length", lo_open=True)
    if spec.time_unit not in TIME_UNITS:
        raise ConfigError(f"time_unit {spec.time_unit!r} is not one of {', '.join(TIME_UNITS)}")
    factors = {f.name for f in spec.factors}
    if len(factors) != len(spec.factors):
        raise ConfigError("duplicate factor names")
    for f in spec.factors:
        _finite(f.sigma, f"factor {f.name!r} sigma")
        _finite(f.rho, f"factor {f.name!r} rho", hi=0.999999)

    def check_loadings(load: Mapping[str, float], owner: str) -> None:
        for k, v in load.items():
            if k not in factors:
                raise ConfigError(f"{owner}: loading on unknown factor {k!r}")
            _finite(v, f"{owner} loading on {k!r}", lo=-math.inf)

    known: set[str] = set()
    scalable: set[str] = set()

    def new(name: Any) -> None:
        if not isinstance(name, str) or not name or name != name.strip() or name.startswith("synth::"):
            raise ConfigError(f"invalid event name {name!r}")
        if name in known:
            raise ConfigError(f"event {name!r} defined twice")
        known.add(name)

    for node in spec.nodes:
        if isinstance(node, Event):
            new(node.name)
            _finite(node.rate, f"event {node.name!r} rate")
            _finite(node.dispersion, f"event {node.name!r} dispersion")
            _finite(node.occurrence, f"event {node.name!r} occurrence", lo_open=True, hi=1.0)
            check_loadings(node.loadings, f"event {node.name!r}")
            scalable.add(node.name)
        elif isinstance(node, Split):
            if node.total not in known:
                raise ConfigError(f"split of {node.total!r}: no earlier event of that name")
            if len(node.parts) < 2:
                raise ConfigError(f"split of {node.total!r}: needs >= 2 parts")
            for part, w in node.parts.items():
                new(part)
                _finite(w, f"split of {node.total!r}: weight of {part!r}")
                scalable.add(part)
            if not any(w > 0 for w in node.parts.values()):
                raise ConfigError(f"split of {node.total!r}: all weights are 0")
            for part, load in node.loadings.items():
                if part not in node.parts:
                    raise ConfigError(f"split of {node.total!r}: loadings for unknown part {part!r}")
                check_loadings(load, f"split part {part!r}")
        elif isinstance(node, Derived):
            if not node.terms:
                raise ConfigError(f"derived event {node.name!r} has no terms")
            for coef, ev in node.terms:
                if isinstance(coef, bool) or not isinstance(coef, (int, np.integer)):
                    raise ConfigError(f"derived event {node.name!r}: coefficient of {ev!r} must be an integer "
                                      f"(counts stay integers), got {coef!r}")
                if ev not in known:
                    raise ConfigError(f"derived event {node.name!r}: no earlier event {ev!r}")
            new(node.name)
        else:
            raise ConfigError(f"unknown node {node!r}: expected Event, Split or Derived")
    for i, p in enumerate(spec.phases):
        _positive_int(p.length, f"phase {i} length")
        _positive_int(p.transition, f"phase {i} transition", minimum=0)
        for k, v in p.scale.items():
            if k not in scalable:
                raise ConfigError(f"phase {i} scales {k!r}, which is not an event or a split part")
            _finite(v, f"phase {i} scale of {k!r}")
    names = [b.name for b in spec.bursts]
    if len(set(names)) != len(names):
        raise ConfigError("duplicate burst names")
    for b in spec.bursts:
        for k in b.targets:
            if k not in scalable:
                raise ConfigError(f"burst {b.name!r} targets {k!r}, which is not an event or a split part")
        _finite(b.onset, f"burst {b.name!r} onset", lo_open=True, hi=1.0)
        _finite(b.duration, f"burst {b.name!r} duration", lo=1.0)
        _finite(b.amplitude, f"burst {b.name!r} amplitude")


# -- generation ---------------------------------------------------------------------------------------


def _phase_layout(phases: tuple[Phase, ...], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per interval: phase index, offset into the phase, index of the previous phase (-1 at the start)."""
    lengths = np.array([p.length for p in phases])
    reps = -(-n // int(lengths.sum()))
    seg_len = np.tile(lengths, reps)
    seg_start = np.concatenate([[0], np.cumsum(seg_len)[:-1]])
    seg = np.repeat(np.arange(seg_len.size), seg_len)[:n]
    idx = seg % len(phases)
    offset = np.arange(n) - seg_start[seg]
    prev = np.where(seg > 0, (idx - 1) % len(phases), -1)
    return idx, offset, prev


def _phase_multiplier(spec: SynthSpec, name: str, layout: tuple[np.ndarray, ...]) -> np.ndarray | float:
    if not spec.phases or all(name not in p.scale for p in spec.phases):
        return 1.0
    idx, offset, prev = layout
    vals = np.array([p.scale.get(name, 1.0) for p in spec.phases], dtype=float)
    width = np.array([p.transition for p in spec.phases])[idx]
    cur = vals[idx]
    before = vals[np.maximum(prev, 0)]
    ramp = (prev >= 0) & (offset < width)
    return np.where(ramp, before + (cur - before) * (offset + 1) / (width + 1), cur)


def _burst_states(rng: np.random.Generator, b: Burst, n: int) -> np.ndarray:
    """0/1 per interval: alternating off runs (geometric, starts with probability ``onset``) and on runs
    (geometric with mean ``duration``)."""
    on = np.zeros(n, dtype=bool)
    t = int(rng.geometric(b.onset)) - 1  # intervals before the first burst
    while t < n:
        length = int(rng.geometric(1.0 / b.duration))
        on[t : t + length] = True
        t += length + int(rng.geometric(b.onset))
    return on


def _ar1(x: np.ndarray, rho: float, block: int = 256) -> np.ndarray:
    """``y[t] = rho * y[t-1] + x[t]`` (``y[0] = x[0]``), blockwise: a lower-triangular matrix of powers of
    ``rho`` per block of ``block`` intervals (what ``scipy.signal.lfilter`` does, without importing scipy)."""
    k = np.arange(block)
    diff = k[:, None] - k[None, :]
    lower = np.where(diff >= 0, rho ** np.maximum(diff, 0), 0.0)
    carry = rho ** (k + 1)
    y = np.empty_like(x)
    prev = 0.0
    for s in range(0, x.size, block):
        m = min(block, x.size - s)
        yb = lower[:m, :m] @ x[s : s + m] + carry[:m] * prev
        y[s : s + m] = yb
        prev = yb[-1]
    return y


def _factor_paths(rng: np.random.Generator, factors: tuple[Factor, ...], n: int) -> dict[str, np.ndarray]:
    """Stationary AR(1) path per factor: ``f[0] ~ N(0, sigma^2)``, innovations ``sigma * sqrt(1 - rho^2)``."""
    out = {}
    for f in factors:
        x = rng.standard_normal(n) * f.sigma
        x[1:] *= math.sqrt(1.0 - f.rho**2)
        out[f.name] = _ar1(x, f.rho)
    return out


def generate(spec: SynthSpec, seed: int = 0, intervals: int | None = None) -> Trace:
    """A synthetic `Trace` from ``spec`` (``intervals`` overrides ``spec.intervals``), deterministic for
    ``seed``."""
    if intervals is not None:
        spec = dataclasses.replace(spec, intervals=intervals)
    validate(spec)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    n = spec.intervals
    rng = np.random.default_rng(int(seed))
    layout = _phase_layout(spec.phases, n) if spec.phases else None
    bursts = {b.name: _burst_states(rng, b, n) for b in spec.bursts}
    factors = _factor_paths(rng, spec.factors, n)
    sigma = {f.name: f.sigma for f in spec.factors}

    def multiplier(name: str, loadings: Mapping[str, float]) -> np.ndarray:
        m = np.ones(n)
        if layout is not None:
            m = m * _phase_multiplier(spec, name, layout)
        for b in spec.bursts:
            if name in b.targets:
                m = np.where(bursts[b.name], m * b.amplitude, m)
        if loadings:
            log = sum(load * factors[k] - 0.5 * (load * sigma[k]) ** 2 for k, load in loadings.items())
            m = m * np.exp(log)
        return m

    cols: dict[str, np.ndarray] = {}
    for node in spec.nodes:
        if isinstance(node, Event):
            lam = node.rate * multiplier(node.name, node.loadings)
            if not node.noise:
                x = np.rint(lam)
            else:
                if node.dispersion > 0:
                    lam = lam * rng.gamma(1.0 / node.dispersion, node.dispersion, size=n)
                x = rng.poisson(lam).astype(float)
            if node.occurrence < 1:
                x = np.where(rng.random(n) < node.occurrence, x, 0.0)
            cols[node.name] = x
        elif isinstance(node, Split):
            parts = list(node.parts)
            w = np.column_stack([node.parts[p] * multiplier(p, node.loadings.get(p, {})) for p in parts])
            total = cols[node.total]
            wsum = w.sum(axis=1, keepdims=True)
            bad = (wsum[:, 0] <= 0) & (total > 0)
            if bad.any():
                raise ConfigError(f"split of {node.total!r}: all part weights are 0 in interval "
                                  f"{int(np.argmax(bad))} while the total is not")
            p = np.divide(w, wsum, out=np.full_like(w, 1.0 / len(parts)), where=wsum > 0)
            draws = rng.multinomial(total.astype(np.int64), p)
            for j, name in enumerate(parts):
                cols[name] = draws[:, j].astype(float)
        else:
            x = sum(int(c) * cols[e] for c, e in node.terms)
            if (x < 0).any():
                t = int(np.argmax(x < 0))
                raise ConfigError(f"derived event {node.name!r} is negative ({x[t]:g}) in interval {t}: "
                                  "a counter cannot be")
            cols[node.name] = np.asarray(x, dtype=float)

    names = spec.events
    counts = np.column_stack([cols[e] for e in names]) if names else np.zeros((n, 0))
    aux_names: list[str] = []
    aux: list[np.ndarray] = []
    if layout is not None:
        aux_names.append("synth::phase")
        aux.append(layout[0].astype(float))
    for b in spec.bursts:
        aux_names.append(f"synth::burst::{b.name}")
        aux.append(bursts[b.name].astype(float))
    for f in spec.factors:
        aux_names.append(f"synth::factor::{f.name}")
        aux.append(factors[f.name])
    edges = np.arange(n + 1) * float(spec.interval_length)
    meta = {
        "synthetic": True,
        "simulator": SIMULATOR,
        "format": "synthetic",
        "source": f"{SIMULATOR}:{spec.name}",
        "workload": spec.name,
        "time_axis": f"constant intervals of {spec.interval_length:g} {spec.time_unit} (generated)",
        "generator": {"seed": int(seed), "spec": spec_to_dict(spec)},
        "identities": [[lhs, [[c, e] for c, e in terms]] for lhs, terms in identities(spec)],
    }
    return Trace(
        names, counts, edges, spec.time_unit, meta=meta, aux_names=aux_names,
        aux=np.column_stack(aux) if aux else None,
    )


def identities(spec: SynthSpec) -> list[Identity]:
    """The exact linear identities of traces generated from ``spec``: one per `Split`
    (``total = sum(parts)``) and one per `Derived` event, as ``(lhs, [(coef, event), ...])``."""
    out: list[Identity] = []
    for node in spec.nodes:
        if isinstance(node, Split):
            out.append((node.total, [(1.0, p) for p in node.parts]))
        elif isinstance(node, Derived):
            out.append((node.name, [(float(c), e) for c, e in node.terms]))
    return out


def check_identities(trace: Trace, ids: list[Identity] | None = None) -> list[tuple[str, int, float]]:
    """The identities violated in ``trace`` (default: those in ``trace.meta['identities']``), as
    ``(lhs, first bad interval, its residual)``; empty when all hold exactly."""
    if ids is None:
        ids = [(lhs, [(float(c), e) for c, e in terms]) for lhs, terms in trace.meta.get("identities", [])]
    bad = []
    for lhs, terms in ids:
        rhs = sum(c * trace[e] for c, e in terms)
        resid = trace[lhs] - rhs
        if np.any(resid != 0):
            t = int(np.flatnonzero(resid != 0)[0])
            bad.append((lhs, t, float(resid[t])))
    return bad


# -- presets --------------------------------------------------------------------------------------------


def _tma() -> SynthSpec:
    """The RISC-V simulator's TMA slot counters (``seeds/tma-profiling.md``, ``PerfCount.h``), dispatch
    width 4, one interval = 10,000 cycles; a compute, a memory-bound and a frontend-bound phase."""
    width = 4  # FETCH_WIDTH: slots per cycle
    return SynthSpec(
        name="tma",
        description="TMA slot hierarchy of the RISC-V simulator's PerfCount counters (synthetic)",
        nodes=(
            Event("cycles", rate=10_000, noise=False),
            Derived("slots_total", ((width, "cycles"),)),
            Split("slots_total", {"slots_issued": 0.55, "slots_frontend_bound": 0.15, "slots_backend_bound": 0.30},
                  loadings={"slots_frontend_bound": {"icache": 0.8}, "slots_backend_bound": {"dmem": 0.6}}),
            Split("slots_issued", {"commit_num": 0.9, "slots_bad_speculation": 0.1},
                  loadings={"slots_bad_speculation": {"branch": 1.0}}),
            Split("slots_frontend_bound", {"slots_fetch_latency": 0.6, "slots_fetch_bandwidth": 0.4},
                  loadings={"slots_fetch_latency": {"icache": 0.8}}),
            Split("slots_backend_bound", {"slots_mem_bound_lsu": 0.5, "slots_core_bound": 0.5},
                  loadings={"slots_mem_bound_lsu": {"dmem": 0.6}}),
            Split("slots_mem_bound_lsu", {"slots_mem_l1_bound": 0.4, "slots_mem_ext_bound": 0.6},
                  loadings={"slots_mem_ext_bound": {"dmem": 0.8}}),
            Split("slots_core_bound", {"slots_core_bound_rob": 0.5, "slots_core_bound_iq": 0.5}),
            Event("branch_insts", rate=1_800, dispersion=0.01),
            Event("branch_mispredict", rate=60, dispersion=0.05, loadings={"branch": 1.0}),
            Event("icache_miss", rate=40, dispersion=0.05, loadings={"icache": 1.0}),
            Event("dcache_miss", rate=150, dispersion=0.05, loadings={"dmem": 1.0}),
            Event("exceptions", rate=2, occurrence=0.03),
        ),
        phases=(
            Phase(200, {"slots_issued": 1.3, "slots_backend_bound": 0.6}, label="compute"),
            Phase(150, {"slots_backend_bound": 2.0, "slots_mem_ext_bound": 2.0, "dcache_miss": 3.0},
                  transition=20, label="memory"),
            Phase(100, {"slots_frontend_bound": 2.5, "slots_fetch_latency": 2.0, "icache_miss": 4.0},
                  label="frontend"),
        ),
        bursts=(Burst("flush", ("slots_bad_speculation", "branch_mispredict"), onset=0.02, duration=4, amplitude=3),),
        factors=(Factor("icache", 0.3, 0.9), Factor("dmem", 0.4, 0.95), Factor("branch", 0.3, 0.8)),
        intervals=1000,
        interval_length=10_000,
        time_unit="cycles",
    )


def _phases() -> SynthSpec:
    """Eight Poisson events over four phases (abrupt and smooth transitions), rates from 10 to 1e5."""
    rates = [10, 50, 200, 1_000, 5_000, 20_000, 50_000, 100_000]
    names = [f"ev{i}" for i in range(len(rates))]
    scales = [
        {},
        {"ev0": 5, "ev2": 0.2, "ev4": 3, "ev6": 0.5},
        {"ev1": 4, "ev3": 0.1, "ev5": 2, "ev7": 0.3},
        {"ev0": 0.5, "ev2": 3, "ev4": 0.3, "ev6": 2, "ev7": 2},
    ]
    return SynthSpec(
        name="phases",
        description="piecewise-stationary rates: 4 phases, abrupt and smooth (50-interval) transitions",
        nodes=tuple(Event(n, rate=r) for n, r in zip(names, rates)),
        phases=(Phase(250, scales[0], label="A"), Phase(100, scales[1], label="B"),
                Phase(400, scales[2], transition=50, label="C"), Phase(250, scales[3], label="D")),
        intervals=1000,
        interval_length=100_000,
        time_unit="cycles",
    )


def _bursty() -> SynthSpec:
    """Steady, bursty, overdispersed and rare events."""
    return SynthSpec(
        name="bursty",
        description="bursts (shared and single), overdispersion and rare events",
        nodes=(
            Event("steady", rate=10_000),
            Event("overdispersed", rate=2_000, dispersion=0.25),
            Event("burst_a", rate=500),
            Event("burst_b", rate=100),
            Event("spiky", rate=50, dispersion=0.1),
            Event("rare_1pct", rate=20, occurrence=0.01),
            Event("rare_5pct", rate=5, occurrence=0.05),
        ),
        bursts=(
            Burst("shared", ("burst_a", "burst_b"), onset=0.02, duration=5, amplitude=10),
            Burst("spike", ("spiky",), onset=0.05, duration=1.5, amplitude=40),
        ),
        intervals=1000,
        interval_length=100_000,
        time_unit="cycles",
    )


def _correlated() -> SynthSpec:
    """Nine events loading on three latent factors, plus three independent ones."""
    nodes = []
    for k, f in enumerate(("f0", "f1", "f2")):
        for j in range(3):
            nodes.append(Event(f"{f}_ev{j}", rate=1_000 * (j + 1), loadings={f: 1.0 - 0.2 * j}))
    nodes += [Event(f"indep{j}", rate=1_000 * (j + 1)) for j in range(3)]
    return SynthSpec(
        name="correlated",
        description="events sharing latent log-normal AR(1) factors (correlated) and independent events",
        nodes=tuple(nodes),
        factors=(Factor("f0", 0.5, 0.9), Factor("f1", 0.4, 0.5), Factor("f2", 0.6, 0.98)),
        intervals=1000,
        interval_length=100_000,
        time_unit="cycles",
    )


PRESETS: dict[str, Callable[[], SynthSpec]] = {
    "tma": _tma,
    "phases": _phases,
    "bursty": _bursty,
    "correlated": _correlated,
}
"""Named specs: name → function returning a fresh `SynthSpec`."""


def preset(name: str, **changes: Any) -> SynthSpec:
    """The named preset spec, with fields replaced by ``changes`` (e.g. ``intervals=5000``)."""
    try:
        spec = PRESETS[name]()
    except KeyError:
        raise ConfigError(f"unknown synthetic preset {name!r}; known: {', '.join(PRESETS)}") from None
    return dataclasses.replace(spec, **changes) if changes else spec


def synth(name: str, intervals: int | None = None, seed: int = 0) -> Trace:
    """Generate the named preset (shortcut for ``generate(preset(name), seed, intervals)``)."""
    return generate(preset(name), seed=seed, intervals=intervals)
