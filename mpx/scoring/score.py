"""Score an `~mpx.scalers.base.Estimate` against the ground truth the scaler never saw.

``score(estimate, trace, catalog=None)`` computes the truth per read window from the trace over the
estimate's own window edges (the observation's reads; a window edge inside a trace interval splits that
interval uniformly in time, exactly as `mpx.multiplex.multiplex` did), checks that the trace is the one
the observation was made from (``meta['trace_checksum']``), and compares.

Definitions (per event e and read window w; est = estimate, true = truth):

- **meaningful window**: ``true ≥ floor_e`` with ``floor_e = max(floor_abs, floor_rel · median_w true)``
  (defaults 1 count and 1% of the event's median window count). Relative error
  ``|est − true| / true`` is computed only there; windows under the floor ("small") are reported with
  their absolute error instead, never as a ratio — a relative error of a near-zero truth is noise.
- **flagged** windows (``estimate.not_estimated``: the scaler had nothing to go on, e.g. perf's
  ``<not counted>``) are counted. Where a flagged window still holds a value (a fallback), that value is
  scored like any other — it is what a user of the scaler would get — and also summarised apart
  (``flagged_mape``); where it holds NaN it is **missing**: counted, never silently dropped, and it
  adds 0 to the whole-run sum.
- an event flagged in **every** window (never counted: an event in error, or never scheduled) gives the
  scaler nothing to go on: it is kept in the tables (``never_estimated``), counted in the summary
  (``n_events_never_estimated``), and left out of the legacy summary means below (not of the
  window-set measures) and of the metrics that need it —
  otherwise one such event would dominate every mean with an error of 100%.
- **window sets** (`mpx.scoring.measures`): every measure of `mpx.scoring.measures.MEASURES` on the sets ``ran``,
  ``unran`` and ``all``, a window without a value charged as an estimate of 0, columns
  ``{measure}_{set}`` and ``coverage_{set}``; their summary is the mean over **every** event, an event
  never counted included (on ``all`` it is charged in every window), so that every scheduler and
  scaler of a comparison is scored on the same event-windows (``docs/scoring.md``). ``over10_all``: the
  share of the meaningful windows whose charged estimate is off by more than 10 % (Mathur & Cook's
  measure).
- ``window_mape``: mean over events of the event's mean relative error over its meaningful windows
  with a value; ``window_mape_ran``: the same over the windows where the event ran (``estimate.ran``,
  from the observation; for an estimate without it, the windows it did not flag) — every scaler is
  scored there on the same windows, whether or not it fills the others (BayesPerf, TAM, DCAM, fusion
  do, perf's linear scaling does not).
- ``total_error``: mean over events with a non-zero true total of ``|total − Σ_w true| / Σ_w true``,
  where ``total`` is the whole-run count as the tool reports it (`Estimate.totals`: perf's end-of-run
  scaling ``Σraw · ΣE / ΣR``, PAPI's last read, otherwise the sum of the scaler's windows; a total the
  tool does not print counts as 0); ``total_error_windows``: the same with the sum of the windows
  (missing windows add 0: perf's ``<not counted>`` intervals summed as they are printed).
- **metrics** (with a ``catalog``, `mpx.metrics.Catalog`): every catalog metric whose events the
  estimate has is evaluated per window on the estimated counts and on the true counts
  (`mpx.metrics.evaluate_metrics`; ``duration_time`` = window length in seconds when the time axis
  allows it). Relative error where ``|true| ≥ max(metric_floor_abs, floor_rel · median |true|)``;
  ``metric_mape`` is the mean over metrics of their mean relative error. A metric value that cannot be
  computed from the estimate (a needed event missing, a zero denominator) is counted as missing.
  **Metric-windows on the window sets**: ``metric_{mape,wape,mdape,coverage}_{ran,all}``, over the
  metric-windows whose true value is defined (``all``) and those where every event of the metric ran
  (``ran``); the metric is evaluated on the charged counts (a missing count is 0) and a value still
  undefined there is charged as 0, so every scaler is scored on the same metric-windows; ``coverage``
  is the share where the metric could be computed from the scaler's own values. Measured on ``|true|``.
- **calibration** (estimates with a std): share of windows whose truth lies in the Gaussian central
  50% / 90% interval ``est ± z·std`` (z = 0.674, 1.645); a well-calibrated scaler scores ≈ 0.5 / 0.9.
- **top-down verdicts** (a catalog that declares a hierarchy, `mpx.metrics.topdown`): ``verdict_*``, the
  level-1 and level-2 bottleneck read from the estimated metric-windows against the true one, serious
  misses, shares out of range, and the whole-run verdict (`mpx.scoring.verdicts`); ``Scores.verdicts`` keeps the
  level-1 confusion. None for a catalog without a hierarchy.

Every summary number is a finite float or None (not applicable; ``Scores.notes`` says why) — never inf
or NaN. Tidy tables (pandas) carry provenance columns: config hash, dataset checksum, code version,
seed, workload, scheduler, scaler, quantum, read window.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from mpx.errors import ConfigError
from mpx.scoring.measures import (MEASURES, METRIC_MEASURES, charge, coverage, masked_mean, masked_median, set_measures,
                          window_sets)
from mpx.trace import SECONDS_PER_UNIT

__all__ = ["METRIC_WINDOW_ARRAYS", "WINDOW_ARRAYS", "Scores", "score", "true_windows"]

Z50 = 0.6744897501960817
Z90 = 1.6448536269514722

#: the per-window arrays of `Scores.windows`, in the column order of `Scores.rows`
WINDOW_ARRAYS = ("truth", "estimate", "std", "flagged", "missing", "meaningful", "abs_error", "rel_error")
#: the per-metric-window arrays of `Scores.metric_windows`, in the column order of `Scores.metric_rows`
METRIC_WINDOW_ARRAYS = ("truth", "estimate", "missing", "meaningful", "abs_error", "rel_error")


@dataclass(frozen=True, eq=False)
class Scores:
    """Scores of one estimate, as arrays: ``summary`` (name → finite float or None); ``event_names`` and
    the window ``edges[W+1]``; ``windows`` (`WINDOW_ARRAYS` name → ``[W, E]``); ``per_event`` (column →
    ``[E]``, the columns of the ``events`` table); ``metric_names``, ``metric_windows`` (name → ``[W, M]``)
    and ``per_metric`` (column → ``[M]``; all empty without a catalog); ``provenance`` (once, for every
    table) and ``notes``.

    The tidy tables (pandas) are made from the arrays on first use: ``rows`` (one row per event and
    window), ``events``, ``metric_rows``, ``metrics``, each with the provenance columns."""

    summary: dict[str, float | int | None]
    provenance: dict[str, Any]
    event_names: tuple[str, ...]
    edges: np.ndarray
    windows: dict[str, np.ndarray]
    per_event: dict[str, np.ndarray]
    metric_names: tuple[str, ...] = ()
    metric_windows: dict[str, np.ndarray] = field(default_factory=dict)
    per_metric: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = field(default=())
    #: the top-down verdicts per window (`mpx.scoring.verdicts.verdict_scores`, the level-1 confusion among them) when
    #: the catalog declares a hierarchy, else None
    verdicts: dict | None = None

    @cached_property
    def rows(self) -> Any:
        """One row per event and read window (window-major), with the provenance columns."""
        import pandas as pd

        names, edges = list(self.event_names), self.edges
        w, e = len(edges) - 1 if len(edges) else 0, len(names)
        win = np.repeat(np.arange(w), e)
        cols: dict[str, Any] = {
            "event": pd.Categorical(np.tile(np.asarray(names, dtype=object), w), categories=names),
            "window": win,
            "start": edges[:-1][win] if w else np.zeros(0),
            "end": edges[1:][win] if w else np.zeros(0),
        }
        cols.update({k: self.windows[k].ravel() for k in WINDOW_ARRAYS})
        return pd.DataFrame({**cols, **self.provenance}, index=pd.RangeIndex(w * e))

    @cached_property
    def events(self) -> Any:
        """One row per event (`per_event`), with the provenance columns."""
        import pandas as pd

        return pd.DataFrame({"event": list(self.event_names), **self.per_event, **self.provenance},
                            index=pd.RangeIndex(len(self.event_names)))

    @cached_property
    def metric_rows(self) -> Any:
        """One row per metric and window (empty without metrics), with the provenance columns."""
        import pandas as pd

        names = list(self.metric_names)
        if not names:
            return pd.DataFrame(columns=["metric", "window", *METRIC_WINDOW_ARRAYS, *self.provenance])
        w = self.metric_windows["truth"].shape[0]
        cols: dict[str, Any] = {
            "metric": pd.Categorical(np.tile(np.asarray(names, dtype=object), w), categories=names),
            "window": np.repeat(np.arange(w), len(names)),
        }
        cols.update({k: self.metric_windows[k].ravel() for k in METRIC_WINDOW_ARRAYS})
        return pd.DataFrame({**cols, **self.provenance}, index=pd.RangeIndex(w * len(names)))

    @cached_property
    def metrics(self) -> Any:
        """One row per metric (`per_metric`; empty without metrics), with the provenance columns."""
        import pandas as pd

        names = list(self.metric_names)
        if not names:
            return pd.DataFrame(columns=["metric", "n_windows", "n_meaningful", "n_missing", "window_mape",
                                         *self.provenance])
        return pd.DataFrame({"metric": names, **self.per_metric, **self.provenance}, index=pd.RangeIndex(len(names)))

    def summary_row(self) -> Any:
        """The summary as a one-row DataFrame with the provenance columns."""
        import pandas as pd

        return pd.DataFrame([{**self.provenance, **self.summary}])

    def __repr__(self) -> str:
        def fmt(v: Any) -> str:
            return "n/a" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))

        keys = ("window_mape", "window_mape_ran", "total_error", "metric_mape", "flagged_share", "missing_share")
        body = ", ".join(f"{k}={fmt(self.summary.get(k))}" for k in keys)
        return f"Scores({self.provenance.get('scaler')}: {body})"


def true_windows(trace: Any, events: Iterable[str], edges: np.ndarray) -> np.ndarray:
    """True counts ``[W, E]`` of ``events`` over windows ``edges[W+1]`` (apportioned like the
    multiplexer: uniform rate inside a trace interval)."""
    events = list(events)
    index = {n: i for i, n in enumerate(trace.events)}
    missing = [e for e in events if e not in index]
    if missing:
        raise ConfigError(f"score: the trace has no event(s) {missing[:10]}")
    t_edges = np.asarray(trace.edges, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    span = max(abs(t_edges[-1] - t_edges[0]), 1e-300)
    if edges.size < 1 or abs(edges[0] - t_edges[0]) > 1e-9 * span or abs(edges[-1] - t_edges[-1]) > 1e-9 * span:
        raise ConfigError(f"score: the estimate's windows span {edges[0]:g}..{edges[-1]:g}, the trace "
                          f"{t_edges[0]:g}..{t_edges[-1]:g}: not the trace the observation was made from")
    if edges.size == 1:
        return np.zeros((0, len(events)))
    return trace.rebin(events, edges)


def _finite_or_none(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _config_hash(meta: Mapping[str, Any]) -> str:
    keys = ("scaler", "scaler_params", "scheduler", "scheduler_params", "quantum", "read_every", "seed", "noise",
            "trace_checksum")
    blob = json.dumps({k: meta.get(k) for k in keys}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _nanmean_or_none(values: np.ndarray) -> float | None:
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else None


def score(
    estimate: Any,
    trace: Any,
    catalog: Any = None,
    *,
    metrics: Iterable[str] | None = None,
    literals: Mapping[str, Any] | None = None,
    floor_abs: float = 1.0,
    floor_rel: float = 0.01,
    metric_floor_abs: float = 1e-9,
    seconds_per_unit: float | None = None,
    config_hash: str | None = None,
    check_trace: bool = True,
    truth: np.ndarray | None = None,
    truth_metrics: dict[str, Any] | None = None,
) -> Scores:
    """Compare ``estimate`` with the truth in ``trace`` (see the module docstring for every definition).

    ``catalog`` (a `mpx.metrics.Catalog`) enables metric-level errors for ``metrics`` (default: every
    metric computable from the estimate's events); ``literals`` are passed to metric evaluation.
    ``config_hash`` defaults to a hash of the scaler, scheduler, their parameters, quantum, read window,
    seed, noise and trace checksum. ``check_trace=False`` skips the trace-checksum check (only for a
    trace known to be the same data under another checksum). ``truth``: the true windows ``[W, E]`` of
    the estimate's events over its edges when the caller binned them already (`true_windows`; one replay
    scored with several scalers bins them once); ``truth_metrics``: a dict the scores of one replay
    (same trace, windows, catalog and literals) share, where the true metric values are kept once
    evaluated."""
    meta, notes = _checked_inputs(estimate, trace, check_trace, floor_abs, floor_rel, metric_floor_abs)
    events = list(estimate.events)
    edges = np.asarray(estimate.edges, dtype=np.float64)
    truth = true_windows(trace, events, edges) if truth is None else np.asarray(truth, dtype=np.float64)
    est = np.asarray(estimate.counts, dtype=np.float64)
    if truth.shape != est.shape:
        raise ConfigError(f"score: the true windows have shape {truth.shape}, the estimate {est.shape}")
    w, e = est.shape
    flagged = np.asarray(estimate.not_estimated, dtype=bool)
    ran = np.asarray(estimate.ran, dtype=bool) if estimate.ran is not None else ~flagged
    std = None if estimate.std is None else np.asarray(estimate.std, dtype=np.float64)
    windows, per_event = _window_errors(estimate, est, truth, std, flagged, ran, floor_abs, floor_rel)
    cal50, cal90, per_event["calibration_50"], per_event["calibration_90"] = _calibration(est, truth, std)
    if std is None:
        notes.append("the estimate has no std: calibration not applicable")
    sets = window_sets(ran)
    per_event.update(_set_measures(est, truth, sets, per_event["floor"], windows["meaningful"], floor_abs))
    never = per_event["never_estimated"]
    notes += _left_out_notes(events, never, per_event["window_mape"], per_event["total_true"])

    m_names, m_windows, m_table, metric_mape, metric_missing, metric_sets = _score_metrics(
        catalog, metrics, literals, events, est, truth, edges, meta, seconds_per_unit, floor_rel, metric_floor_abs,
        notes, {ev for ev, n in zip(events, never) if n}, ran, getattr(trace, "time_unit", None), truth_metrics)

    verdict_cols, verdicts = _score_verdicts(catalog, m_names, m_windows, events, per_event["total_true"],
                                             per_event["total_estimate"], edges, meta, literals, seconds_per_unit,
                                             getattr(trace, "time_unit", None))
    summary = _summary(per_event, windows, sets, {"metric_mape": metric_mape, "metric_missing_share": metric_missing},
                       cal50, cal90, {"fallback_share": _finite_or_none(meta.get("fallback_share")), **metric_sets,
                                      **verdict_cols})
    return Scores(summary=summary, provenance=_provenance(estimate, meta, config_hash), event_names=tuple(events),
                  edges=edges, windows=windows, per_event=per_event, metric_names=tuple(m_names),
                  metric_windows=m_windows, per_metric=m_table, notes=tuple(notes), verdicts=verdicts)


def _checked_inputs(estimate: Any, trace: Any, check_trace: bool, *floors: float) -> tuple[dict, list[str]]:
    """The estimate's meta and the first notes, after checking the estimate's type, the floors and that the
    trace is the one the observation was made from."""
    from mpx.scalers.base import Estimate

    if not isinstance(estimate, Estimate):
        raise ConfigError(f"score expects a mpx.scalers.base.Estimate, got {type(estimate).__name__}")
    for k, v in zip(("floor_abs", "floor_rel", "metric_floor_abs"), floors):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ConfigError(f"score: {k} must be a finite number >= 0, got {v!r}")
    meta = dict(estimate.meta)
    notes: list[str] = []
    if check_trace and meta.get("trace_checksum"):
        if trace.checksum() != meta["trace_checksum"]:
            raise ConfigError("score: the trace's checksum differs from the one the observation was made from "
                              f"({meta['trace_checksum'][:12]}...): scoring against the wrong truth")
    elif check_trace:
        notes.append("the estimate carries no trace checksum: the trace could not be checked")
    return meta, notes


def _window_errors(estimate: Any, est: np.ndarray, truth: np.ndarray, std: np.ndarray | None, flagged: np.ndarray,
                   ran: np.ndarray, floor_abs: float, floor_rel: float
                   ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The per-window arrays (truth, estimate, std, flags, errors) and the per-event errors on meaningful
    windows (above the floor) and of the whole-run totals."""
    w, e = est.shape
    has = np.isfinite(est)
    missing = ~has
    med = np.median(truth, axis=0) if w else np.zeros(e)
    floor = np.maximum(floor_abs, floor_rel * med)
    meaningful = truth >= floor[None, :]
    meaningful &= truth > 0
    abs_err = np.abs(est - truth)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(meaningful & has, abs_err / np.where(truth > 0, truth, 1.0), np.nan)
    scored = meaningful & has
    small = ~meaningful
    tot_true = truth.sum(axis=0)
    tot_est = np.nan_to_num(estimate.totals(), nan=0.0)  # the tool's own whole-run count; none printed: 0
    tot_windows = estimate.window_totals()
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = np.where(tot_true > 0, tot_true, 1.0)
        ev_total = np.where(tot_true > 0, np.abs(tot_est - tot_true) / denom, np.nan)
        ev_total_windows = np.where(tot_true > 0, np.abs(tot_windows - tot_true) / denom, np.nan)
    windows = {"truth": truth, "estimate": est, "std": std if std is not None else np.full((w, e), np.nan),
               "flagged": flagged, "missing": missing, "meaningful": meaningful, "abs_error": abs_err,
               "rel_error": rel}
    per_event = {
        "floor": floor,
        "n_windows": np.full(e, w),
        "n_meaningful": meaningful.sum(axis=0),
        "n_small": small.sum(axis=0),
        "n_flagged": flagged.sum(axis=0),
        "never_estimated": flagged.all(axis=0) if w else np.zeros(e, dtype=bool),
        "n_missing": missing.sum(axis=0),
        "window_mape": masked_mean(rel, scored),
        "window_mape_ran": masked_mean(rel, scored & ran),
        "flagged_mape": masked_mean(rel, scored & flagged),
        "small_mae": masked_mean(abs_err, small & has),
        "total_true": tot_true,
        "total_estimate": tot_est,
        "total_error": ev_total,
        "total_windows": tot_windows,
        "total_error_windows": ev_total_windows,
    }
    return windows, per_event


def _set_measures(est: np.ndarray, truth: np.ndarray, sets: dict[str, np.ndarray], floor: np.ndarray,
                  meaningful: np.ndarray, floor_abs: float) -> dict[str, np.ndarray]:
    """Every measure per event on the common window sets (missing values charged, coverage beside), and
    Mathur & Cook's share of meaningful windows off by more than 10 % (``over10_all``)."""
    measured = set_measures(est, truth, sets, floor, c=max(floor_abs, 1e-12))
    ev_sets = {f"{m}_{name}": v for name, got in measured.items() for m, v in got.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        charged_rel = np.abs(charge(est) - truth) / np.where(truth > 0, truth, 1.0)
    ev_sets["over10_all"] = masked_mean((charged_rel > 0.1).astype(float), meaningful)
    return ev_sets


def _calibration(est: np.ndarray, truth: np.ndarray, std: np.ndarray | None
                 ) -> tuple[float | None, float | None, np.ndarray, np.ndarray]:
    """Share of truths inside the 50 % and 90 % intervals of the reported std: overall, then per event
    (None and NaN without a std)."""
    e = est.shape[1]
    if std is None:
        return None, None, np.full(e, np.nan), np.full(e, np.nan)
    ok = np.isfinite(est) & np.isfinite(std)
    d = np.abs(est - truth)
    in50 = np.where(std > 0, d <= Z50 * std, d == 0)
    in90 = np.where(std > 0, d <= Z90 * std, d == 0)
    cal50 = float(in50[ok].mean()) if ok.any() else None
    cal90 = float(in90[ok].mean()) if ok.any() else None
    return cal50, cal90, masked_mean(in50.astype(float), ok), masked_mean(in90.astype(float), ok)


def _provenance(estimate: Any, meta: dict, config_hash: str | None) -> dict[str, Any]:
    """Where the scores come from: configuration hash, trace checksum, code version, scaler and replay."""
    import mpx

    return {
        "config_hash": config_hash or _config_hash(meta),
        "dataset_checksum": meta.get("trace_checksum"),
        "code_version": mpx.__version__,
        "seed": meta.get("seed"),
        "workload": meta.get("workload"),
        "scheduler": meta.get("scheduler"),
        "scaler": estimate.scaler or meta.get("scaler"),
        "scaler_params": json.dumps(estimate.params, sort_keys=True, default=repr),
        "causal": bool(estimate.causal),
        "quantum": meta.get("quantum"),
        "read_window": meta.get("read_window"),
        "time_unit": meta.get("time_unit"),
    }


def _left_out_notes(events: list[str], never: np.ndarray, ev_mape: np.ndarray, tot_true: np.ndarray) -> list[str]:
    """What the summary means leave out, and why: events never estimated, without a meaningful window, with a
    true total of 0."""
    notes = []
    if never.any():
        notes.append(f"{int(never.sum())} event(s) flagged not estimated in every window (never counted, nothing "
                     f"to go on), left out of every summary mean: {[ev for ev, n in zip(events, never) if n][:10]}")
    keep = ~never
    no_meaningful = [ev for ev, m, k in zip(events, ev_mape, keep) if k and not np.isfinite(m)]
    if no_meaningful:
        notes.append(f"{len(no_meaningful)} event(s) without a meaningful window holding a value, left out of "
                     f"window_mape: {no_meaningful[:10]}")
    zero_total = [ev for ev, t, k in zip(events, tot_true, keep) if k and not t > 0]
    if zero_total:
        notes.append(f"{len(zero_total)} event(s) with a true total of 0, left out of total_error: {zero_total[:10]}")
    return notes


def _summary(per_event: dict[str, np.ndarray], windows: dict[str, np.ndarray], sets: dict[str, np.ndarray],
             metric: dict[str, Any], cal50: float | None, cal90: float | None, extra: dict[str, Any]
             ) -> dict[str, float | int | None]:
    """One number per measure: the means over the events estimated at least once (every event for the
    window-set measures: their denominator never shrinks), shares of cells, calibration, metric and verdict
    columns."""
    w, e = windows["estimate"].shape
    never = per_event["never_estimated"]
    keep = ~never
    n_cells = max(w * e, 1)
    summary: dict[str, float | int | None] = {
        "n_events": e,
        "n_windows": w,
        "n_events_never_estimated": int(never.sum()),
        "window_mape": _nanmean_or_none(per_event["window_mape"][keep]),
        "window_mape_ran": _nanmean_or_none(per_event["window_mape_ran"][keep]),
        "flagged_mape": _nanmean_or_none(per_event["flagged_mape"][keep]),
        "total_error": _nanmean_or_none(per_event["total_error"][keep]),
        "total_error_windows": _nanmean_or_none(per_event["total_error_windows"][keep]),
        **metric,
        "meaningful_share": float(windows["meaningful"].sum() / n_cells),
        "small_share": float((~windows["meaningful"]).sum() / n_cells),
        "flagged_share": float(windows["flagged"].sum() / n_cells),
        "missing_share": float(windows["missing"].sum() / n_cells),
        "calibration_50": _finite_or_none(cal50),
        "calibration_90": _finite_or_none(cal90),
        **extra,
    }
    has = ~windows["missing"]
    for name, mask in sets.items():  # every event, never-counted ones too: the denominator never shrinks
        for m in MEASURES:
            summary[f"{m}_{name}"] = _nanmean_or_none(per_event[f"{m}_{name}"])
        n_set = int(mask.sum())
        summary[f"coverage_{name}"] = (float((has & mask).sum() / n_set) if n_set else None)
    summary["over10_all"] = _nanmean_or_none(per_event["over10_all"])
    for k, v in summary.items():
        if isinstance(v, float) and not math.isfinite(v):  # pragma: no cover - guarded above
            raise AssertionError(f"non-finite summary value {k}={v}")
    return summary


def _score_verdicts(catalog: Any, names: tuple, m_windows: dict, events: list[str], tot_true: np.ndarray,
                    tot_est: np.ndarray, edges: np.ndarray, meta: Mapping[str, Any], literals: Mapping[str, Any] | None,
                    seconds_per_unit: float | None, time_unit: str | None) -> tuple[dict, dict | None]:
    """The top-down verdict columns (`mpx.scoring.verdicts`) when the catalog declares a hierarchy, per window and
    for the whole run (the metrics of the run's totals: the tool's own whole-run counts); None otherwise."""
    from mpx.metrics.topdown import TopDown
    from mpx.scoring.verdicts import verdict_summary

    td = TopDown.from_catalog(catalog) if catalog is not None and names else None
    if td is None or not set(td.nodes) <= set(names):
        return verdict_summary(None, (), np.empty((0, 0)), np.empty((0, 0)))
    from mpx.metrics import evaluate_metrics

    factor = seconds_per_unit if seconds_per_unit is not None else SECONDS_PER_UNIT.get(meta.get("time_unit") or time_unit)
    span = {"duration_time": np.array([(edges[-1] - edges[0]) * factor])} if factor is not None and len(edges) else {}
    run = [evaluate_metrics(catalog, {**{ev: np.array([v]) for ev, v in zip(events, tot)}, **span}, literals,
                            names=td.nodes, missing="skip") for tot in (tot_true, tot_est)]
    return verdict_summary(td, tuple(names), m_windows["truth"], m_windows["estimate"],
                           {k: float(v[0]) for k, v in run[0].items()}, {k: float(v[0]) for k, v in run[1].items()})


def _score_metrics(catalog: Any, names: Iterable[str] | None, literals: Mapping[str, Any] | None,
                   events: list[str], est: np.ndarray, truth: np.ndarray, edges: np.ndarray, meta: Mapping[str, Any],
                   seconds_per_unit: float | None, floor_rel: float, floor_abs: float, notes: list[str],
                   never: set[str], ran: np.ndarray, time_unit: str | None = None,
                   memo: dict[str, Any] | None = None) -> tuple:
    """Metric-level scores: ``(names, per-window arrays, per-metric columns, metric_mape, missing share,
    summary of the metric window sets)``; empty names and dicts when no metric can be scored."""
    empty: tuple = ((), {}, {}, None, None, {})
    if catalog is None:
        notes.append("no metric catalog given: metric-level error not computed")
        return empty
    from mpx.metrics import Catalog, evaluate_metrics

    if not isinstance(catalog, Catalog):
        raise ConfigError(f"score: catalog must be a mpx.metrics.Catalog, got {type(catalog).__name__}")
    have = set(events)
    if names is None:
        names = [n for n, m in catalog.metrics.items() if m.events and m.events <= have]
        blind = [n for n in names if catalog.metrics[n].events & never]
        if blind:
            notes.append(f"{len(blind)} metric(s) need an event never estimated, left out: {blind[:10]}")
        names = [n for n in names if n not in blind]
        if not names:
            notes.append("no metric of the catalog can be computed from the estimate's events")
            return empty
    else:
        names = list(names)
        lacking = {n: sorted(catalog.metric(n).events - have) for n in names}
        lacking = {n: v for n, v in lacking.items() if v}
        if lacking:
            raise ConfigError(f"score: metric(s) need events the estimate lacks: {lacking}")
    w = est.shape[0]
    dur = np.diff(edges)
    unit = meta.get("time_unit") or time_unit
    factor = seconds_per_unit if seconds_per_unit is not None else SECONDS_PER_UNIT.get(unit)

    def env(values: np.ndarray) -> dict[str, np.ndarray]:
        d = {ev: values[:, i] for i, ev in enumerate(events)}
        if factor is not None:
            d.setdefault("duration_time", dur * factor)
        return d

    if memo is None:
        true_m = evaluate_metrics(catalog, env(truth), literals, names=names, missing="skip")
    else:  # one replay's scores share the true metric values: each is evaluated once (None: cannot be)
        todo = [n for n in names if n not in memo]
        if todo:
            got = evaluate_metrics(catalog, env(truth), literals, names=todo, missing="skip")
            memo.update({n: got.get(n) for n in todo})
        true_m = {n: memo[n] for n in names if memo[n] is not None}
    est_m = evaluate_metrics(catalog, env(np.where(np.isfinite(est), est, np.nan)), literals, names=names,
                             missing="skip")
    skipped = [n for n in names if n not in true_m or n not in est_m]
    if skipped:
        notes.append(f"{len(skipped)} metric(s) could not be evaluated (missing literal or pseudo-event): "
                     f"{skipped[:10]}")
    done = [n for n in names if n in true_m and n in est_m]
    if not done:
        return empty
    tm = np.column_stack([true_m[n] for n in done])
    em = np.column_stack([est_m[n] for n in done])
    t_ok = np.isfinite(tm)
    miss = ~np.isfinite(em) & t_ok
    med = np.nan_to_num(masked_median(np.abs(tm), t_ok), nan=0.0)  # 0 where no true value is defined
    mfloor = np.maximum(floor_abs, floor_rel * med)
    meaningful = t_ok & (np.abs(np.where(t_ok, tm, 0.0)) >= mfloor[None, :]) & (np.abs(np.where(t_ok, tm, 0.0)) > 0)
    abs_err = np.abs(em - tm)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(meaningful & ~miss, abs_err / np.where(meaningful, np.abs(tm), 1.0), np.nan)
    m_mape = masked_mean(rel, meaningful & ~miss)
    nm = len(done)
    # the metric-windows of the count window sets (a metric "ran" where every event of it ran), scored
    # with the values a user gets from the charged counts (a value still undefined there is charged as 0)
    charged = evaluate_metrics(catalog, env(np.where(np.isfinite(est), est, 0.0)), literals, names=done,
                               missing="skip")
    em_charged = np.column_stack([np.where(np.isfinite(em[:, j]), em[:, j], charged[n]) for j, n in enumerate(done)])
    index = {ev: i for i, ev in enumerate(events)}
    ran_m = np.column_stack([ran[:, [index[ev] for ev in sorted(catalog.metric(n).events)]].all(axis=1)
                             for n in done])
    msets = {"ran": ran_m & t_ok, "all": t_ok}
    got = set_measures(np.where(np.isfinite(em_charged), em_charged, np.nan), np.where(t_ok, np.abs(tm), 0.0),
                       msets, mfloor, c=floor_abs)
    for name, mask in msets.items():  # |metric| as the truth: set_measures scores non-negative truths
        with np.errstate(invalid="ignore"):
            got[name]["coverage"] = coverage(np.where(np.isfinite(em), em, np.nan), mask)
    m_sets = {f"{m}_{name}": v for name, d in got.items() for m, v in d.items() if m in METRIC_MEASURES}
    m_windows = {"truth": tm, "estimate": em, "missing": miss, "meaningful": meaningful, "abs_error": abs_err,
                 "rel_error": rel}
    table = {
        "n_windows": np.full(nm, w),
        "n_meaningful": meaningful.sum(axis=0),
        "n_missing": miss.sum(axis=0),
        "window_mape": m_mape,
        **m_sets,
    }
    undefined = int((~t_ok).sum())
    if undefined:
        notes.append(f"{undefined} metric-windows where the true metric is undefined (e.g. 0/0) are not scored")
    denom = int(t_ok.sum())
    summary = {f"metric_{k}": _nanmean_or_none(v) for k, v in m_sets.items()}
    return (done, m_windows, table, _nanmean_or_none(m_mape), (float(miss.sum() / denom) if denom else None),
            summary)
