"""Multiplexing scalers (estimators), by name: ``mpx.scalers.get("linear")``, ``available()``.

A scaler turns an `~mpx.observation.Observation` into an `~mpx.scalers.base.Estimate`; read
`mpx.scalers.base` for the interface and how to write one. Built-in scalers are listed in `BUILTIN`
(name → ``"module:Class"``, imported on first use):

- ``linear``: perf stat's Δraw·ΔE/ΔR per read window (causal; ``<not counted>`` when ΔR = 0);
- ``papi``: PAPI's kernel-multiplexing scaling, integer-percent scale factor, on each read window (the
  window-level PAPI baseline; causal); ``papi_cumulative``: the same formula on ``PAPI_read``'s cumulative
  values, differenced per window (what a ``PAPI_read`` user gets; causal);
- ``papi_sw``: PAPI's software-multiplexing rate estimator (cycles-based, per quantum; causal);
- ``dira`` (offline: looks one read window ahead), ``tam`` (causal: uses the previous window; as
  NeoMPX's code computes it) and ``tam_paper`` (the published trapezoid) — NeoMPX's interpolating
  estimators;
- ``dcam``, ``cam``: NeoMPX's geometric / exponential-rate estimators (offline);
- ``bayesperf``, ``bayesperf_smooth``: BayesPerf's factor graph with Expectation Propagation, causal
  filter and offline smoother; the point estimate is the posterior mode as in the paper (``point="mean"``:
  EP's mean, a named deviation) (`mpx.scalers.bayesperf`).
- ``tintin``: Tintin's running-count estimator as the authors' kernel computes it (TAM to the midpoint of each
  measurement, extrapolated reads) with its uncertainty σ = √V · unmonitored time as the std (quantum view;
  causal; `mpx.scalers.tintin`);
- ``counterminer``: CounterMiner's cleaning (Gumbel outliers replaced, missing windows filled) over any
  read-window scaler (``base``, default ``linear``); ``variant="tintin"`` is the rule Tintin's code intended
  (`mpx.scalers.counterminer`);
- ``fusion``, ``fusion_smooth``: a Kalman filter / RTS smoother on log-rates with cross-event
  covariances learned from other workloads and catalog relations (learned; `mpx.scalers.fusion`);
- null baselines (`mpx.scalers.null`): ``constant_rate`` / ``constant_rate_causal`` (the run's scaled rate,
  whole or so far, × each window's length) and the fill-matched ``linear_interpolate`` / ``linear_carry``
  (perf's scaling with the fill of DIRA/DCAM/CAM/CounterMiner and of TAM).

The read-window scalers (``linear`` to ``cam``) share one base, `mpx.scalers.reads.ReadScaler` (cleaning
the reads, the ``fill`` rules for windows where an event did not run), and take NeoMPX's post-processing
fixes as options (`mpx.scalers.fixes`). The inference kernels of the model-based scalers (Kalman
filter, Expectation Propagation, catalog relations) are in `mpx.scalers.inference`.

Other packages add scalers without touching mpx through the entry-point group ``mpx.scalers``; in their
``pyproject.toml``::

    [project.entry-points."mpx.scalers"]
    mine = "my_package.my_module:MyScaler"

An entry point named like a built-in is an error naming both; `register` adds one at run time (notebooks,
tests). Every scaler must pass ``mpx.conformance.check("scaler", ...)``; how to write, register and check
one: ``docs/extending.md``.

``get("linear", fill="zero")`` is a new scaler *instance* built with those hyper-parameters (a name the
class does not take is a `~mpx.errors.ConfigError` listing those it does); ``get_class(name)`` is the
class (its docstring says what each parameter means), ``available()`` every name (`mpx.registry`).
"""

from __future__ import annotations

from mpx.registry import Registry

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "REGISTRY", "available", "get", "get_class", "register", "unregister"]

#: built-in scalers: name → "module:Class"
BUILTIN: dict[str, str] = {
    "linear": "mpx.scalers.linear:LinearScaler",
    "papi": "mpx.scalers.linear:PapiScaler",
    "papi_cumulative": "mpx.scalers.linear:PapiCumulativeScaler",
    "papi_sw": "mpx.scalers.papi_sw:PapiSwScaler",
    "dira": "mpx.scalers.interpolation:DiraScaler",
    "tam": "mpx.scalers.interpolation:TamScaler",
    "tam_paper": "mpx.scalers.interpolation:TamPaperScaler",
    "tintin": "mpx.scalers.tintin:TintinScaler",
    "counterminer": "mpx.scalers.counterminer:CounterMinerScaler",
    "dcam": "mpx.scalers.neompx:DcamScaler",
    "cam": "mpx.scalers.neompx:CamScaler",
    "bayesperf": "mpx.scalers.bayesperf:BayesPerfScaler",
    "bayesperf_smooth": "mpx.scalers.bayesperf:BayesPerfSmoother",
    "fusion": "mpx.scalers.fusion:FusionScaler",
    "fusion_smooth": "mpx.scalers.fusion:FusionSmoother",
    "constant_rate": "mpx.scalers.null:ConstantRateScaler",
    "constant_rate_causal": "mpx.scalers.null:ConstantRateCausal",
    "linear_interpolate": "mpx.scalers.null:LinearInterpolate",
    "linear_carry": "mpx.scalers.null:LinearCarry",
}

ENTRY_POINT_GROUP = "mpx.scalers"

#: the scalers: built-ins, run-time registrations, entry points
REGISTRY = Registry("scaler", ENTRY_POINT_GROUP, BUILTIN, protocol="mpx.scalers.base:Scaler")

available, get, get_class, register, unregister = REGISTRY.verbs()
