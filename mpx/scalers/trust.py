"""What a user can trust in a real multiplexed run: every re-estimated value with its coverage and an
interval, values the counter saw whole shown as counted, and the top-down bottleneck with its probability.

`trust_report` takes a real ``perf stat -I`` run (`mpx.readers.perfstat.PerfStatRun`) and a scaler's
`mpx.scalers.base.Estimate` of it, and adds, per interval and counter:

- **coverage**: the share of the interval the counter ran (perf's ``time_running / time_enabled``,
  printed as a percentage by perf and toplev);
- **counted values stay counted**: where the counter ran for the whole interval (perf printed 100 %),
  the value is perf's own, whatever the scaler's formula gives there (NeoMPX's DCAM and CAM, cumulative
  PAPI and TAM interpolate across windows even for a window counted whole: the scaler's own number is
  kept beside it, ``scaler_estimate``, and the count of values changed is noted);
- **an interval** at ``level`` (90 %), normal approximation, from the scaler's standard deviation where it
  gives one; otherwise from Tintin's uncertainty rule over the last `RECENT_WINDOWS` measured read windows
  (`recent_sigma`: σ = √V × the time the counter was enabled but not running, V the time-weighted variance of
  those windows' rates; OSDI 2025, ``../shared/peers/tintin``). mpx's sliding variant: Tintin's kernel takes
  every window so far (`tintin_sigma`), so a steady phase keeps the spread of every earlier one and its 90 %
  band covers far more than 90 % — causal, and said in the notes (``interval_from``);
- **the interval is one a user can trust** (`trusted_interval`): it holds the estimate and perf's counted
  extrapolation, the counts the measured rates just before and (at a phase change the reads saw) just after the
  window give its unseen time, and never reaches below the count already seen in the interval (nor 0);
- **negative values** (a derived or scaled value below 0, as papi#539 and pmu-tools#488 report) are
  counted and noted, never clipped silently;
- **units**: a value perf prints with an amount unit (``msec`` of a clock, ``Joules``, ``MiB``) adds up over
  an interval and is scaled as a count, which the notes say; one printed as a rate (``M/sec``, ``GHz``, ``%``,
  `is_rate_unit`) is not a count, so no scaler re-estimates it and perf's value stays;
- for a catalog that declares a top-down hierarchy (`mpx.metrics.topdown`), **the bottleneck** per
  interval: the level-1 node with the largest share, and the probability of each node being it, from
  ``draws`` samples of the counts within their intervals (independent normals, truncated at 0); where an
  input has no interval yet, the verdict without a probability. perf's own values give their verdict beside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.metrics.catalog import evaluate_metrics
from mpx.metrics.topdown import TopDown

__all__ = ["RECENT_WINDOWS", "TrustReport", "following_rate_count", "is_rate_unit", "previous_rate_count",
           "recent_sigma", "tintin_sigma", "trust_report", "trusted_interval"]

#: how many measured windows `recent_sigma` keeps: the fewest whose coverage of the windows where the rate changes
#: >2x, averaged over linear, DCAM, TAM and PAPI, reaches 85 % on the tuning traces of
#: ``experiments/interval_coverage.py --tune --summary`` (never the ten 5 ms gem5 traces it reports; docs/verdicts.md)
RECENT_WINDOWS = 11


@dataclass
class TrustReport:
    """Per interval (rows) and counter (columns), see the module docstring."""

    times: np.ndarray
    labels: list[str]
    perf: np.ndarray
    estimate: np.ndarray
    scaler_estimate: np.ndarray
    coverage: np.ndarray
    counted: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    level: float
    interval_from: str = ""
    verdicts: list[list[tuple[str, float | None]]] | None = None
    perf_verdicts: list[str | None] | None = None
    notes: list[str] = field(default_factory=list)
    #: [E] True for a counter perf printed as a rate (`is_rate_unit`): never re-estimated, no interval, no total
    rate: np.ndarray | None = None

    def to_json(self) -> dict[str, Any]:
        def f(v: float) -> float | None:
            return float(v) if np.isfinite(v) else None

        rows = []
        for t in range(self.times.size):
            for i, lab in enumerate(self.labels):
                rows.append({"time": float(self.times[t]), "counter": lab, "perf": f(self.perf[t, i]),
                             "estimate": f(self.estimate[t, i]), "scaler_estimate": f(self.scaler_estimate[t, i]),
                             "coverage": f(self.coverage[t, i]), "counted": bool(self.counted[t, i]),
                             "lo": f(self.lo[t, i]), "hi": f(self.hi[t, i]),
                             "rate": bool(self.rate is not None and self.rate[i])})
        out: dict[str, Any] = {"level": self.level, "interval_from": self.interval_from, "notes": list(self.notes),
                               "rows": rows}
        if self.verdicts is not None:
            out["bottleneck"] = [{"time": float(self.times[t]), "perf": (self.perf_verdicts or [None] * len(self.verdicts))[t],
                                  "nodes": [{"node": n, "probability": p} for n, p in v]}
                                 for t, v in enumerate(self.verdicts)]
        return out


#: how a per-event unit perf prints says the value is a rate (per time, a percentage), not a quantity that adds
#: up over an interval (counts, msec of a clock, Joules, MiB)
_RATE_MARKS = ("/", "%", "hz", "per ")


def is_rate_unit(unit: str) -> bool:
    """Is a unit perf printed beside an event's value a rate (``M/sec``, ``GHz``, ``%``) rather than an amount
    (``msec``, ``Joules``, ``MiB``, or none: a count)?"""
    u = unit.strip().lower()
    return bool(u) and any(m in u for m in _RATE_MARKS)


def trust_report(run: Any, estimate: Any, *, catalog: Any = None, level: float = 0.90, draws: int = 1000,
                 seed: int = 0, window: int | None = None) -> TrustReport:
    """The trust report of ``estimate`` (a scaler's estimate of ``run``'s read view), module docstring.
    ``window``: the measured windows `recent_sigma` keeps (default `RECENT_WINDOWS`)."""
    from scipy.stats import norm

    labels = list(run.labels)
    counted_cells = np.asarray(run.counted, dtype=bool)
    perf = np.where(counted_cells, np.asarray(run.value, dtype=np.float64), np.nan)
    raw_est = np.array(estimate.counts, dtype=np.float64)  # a copy: rate columns are replaced below
    whole = counted_cells & (np.asarray(run.pct_running, dtype=np.float64) >= 100.0)
    est = np.where(whole, perf, raw_est)
    notes = []
    changed = whole & ~np.isclose(raw_est, perf, rtol=1e-9, atol=0.5)
    if changed.any():
        notes.append(f"{int(changed.sum())} values the counter saw for the whole interval shown as counted "
                     f"(perf's value; the scaler's formula gave another there: scaler_estimate)")
    view = run.read_view()
    enabled = np.asarray(view.enabled, dtype=np.float64)
    running = np.asarray(run.running_ns, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        coverage = np.where(counted_cells & (enabled > 0), np.minimum(running / enabled, 1.0), np.nan)
    coverage = np.where(whole, 1.0, coverage)
    units = tuple(getattr(run, "units", ()) or ("",) * len(labels))
    rates = [j for j, u in enumerate(units) if is_rate_unit(u)]
    if rates:  # a rate is no count: no scaler's formula applies; perf's own value stays, not estimated
        for j in rates:
            est[:, j] = perf[:, j]
            raw_est[:, j] = perf[:, j]
        named = ", ".join(f"{labels[j]} [{units[j]}]" for j in rates)
        notes.append(f"{len(rates)} counter(s) printed as a rate ({named}): "
                     "a rate is not a count, so no scaler re-estimates it; perf's value is shown where it counted")
    quantities = sorted({u for u in units if u and not is_rate_unit(u)})
    if quantities:
        notes.append(f"values in {', '.join(quantities)}: quantities that add up over time like counts, scaled as "
                     "counts; perf's metric column (rates such as IPC or GHz) is never scaled: a catalog's metrics "
                     "are recomputed from the re-estimated counts")
    neg = np.isfinite(est) & (est < 0)
    if neg.any():
        notes.append(f"{int(neg.sum())} negative values (shown as given, not clipped)")
    if estimate.std is not None:
        std, source = np.asarray(estimate.std, dtype=np.float64), f"the scaler ({estimate.scaler})"
    else:
        k = RECENT_WINDOWS if window is None else window
        std = recent_sigma(view.raw, view.enabled, view.running, k)
        source = f"Tintin's rule over the last {k} measured windows (mpx's sliding variant)"
        notes.append(f"scaler {estimate.scaler or '?'} gives no uncertainty: intervals from Tintin's rule over the "
                     f"last {k} measured windows (sigma = sqrt(V) x time not running, V the time-weighted variance of "
                     f"their rates; Tintin's kernel takes every window so far, earlier phases included)")
    std = np.where(whole, 0.0, std)
    rate = np.zeros(len(labels), dtype=bool)
    rate[rates] = True
    std = np.where(rate[None, :], np.nan, std)
    z = float(norm.ppf(0.5 + level / 2))
    counted_raw = np.where(counted_cells, np.asarray(view.raw, dtype=np.float64), np.nan)
    extrapolated = perf  # perf's value is its own extrapolation; a tool that prints raw counts is extrapolated here
    if not getattr(run, "scaled", True):
        with np.errstate(invalid="ignore", divide="ignore"):
            extrapolated = np.where(counted_cells & (running > 0), counted_raw * enabled / running, np.nan)
    lo, hi = trusted_interval(est, est - z * std, est + z * std, counted_raw, extrapolated,
                              previous_rate_count(view.raw, view.enabled, view.running),
                              following_rate_count(view.raw, view.enabled, view.running))
    rep = TrustReport(np.asarray(run.timestamps, dtype=np.float64), labels, perf, est, raw_est, coverage, whole,
                      lo, hi, level, interval_from=source, notes=notes, rate=rate)
    td = TopDown.from_catalog(catalog) if catalog is not None else None
    if td is not None:
        _bottlenecks(rep, td, catalog, std, draws, seed)
    return rep


def trusted_interval(estimate: Any, lo: Any, hi: Any, counted: Any, extrapolated: Any,
                     previous: Any = None, following: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The interval a user can trust around ``estimate`` from a band ``[lo, hi]`` (docs/verdicts.md, "Intervals
    a user can trust"): it holds the estimate and the counted extrapolation (perf's ``counted * enabled /
    running``: where a scaler departs from what was counted, as at a phase change, the band spans the gap
    instead of being narrowest there), and never reaches below what was counted in the interval (nor 0: a
    count cannot be smaller than the events already seen). NaN bands (no uncertainty known) stay NaN;
    cells without a count or an extrapolation keep the band, floored at 0. ``previous`` (optional, causal): the
    count the previous window's measured rate gives this window (counted + that rate x the time not running);
    a rate that changed within the window puts the truth between the two rates, so the band holds it too.
    ``following`` (optional, `following_rate_count`): the same with the next window's measured rate, where the
    rates measured on either side of the window differ by more than 2x (a phase change the reads saw)."""
    est = np.asarray(estimate, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    ext = np.asarray(extrapolated, dtype=np.float64)
    seen = np.nan_to_num(np.asarray(counted, dtype=np.float64), nan=0.0)
    known = np.isfinite(lo) & np.isfinite(hi)
    with np.errstate(invalid="ignore"):
        new_lo = np.fmin(np.fmin(lo, est), ext)
        new_hi = np.fmax(np.fmax(hi, est), ext)
        for extra in (previous, following):
            if extra is not None:
                x = np.asarray(extra, dtype=np.float64)
                new_lo, new_hi = np.fmin(new_lo, x), np.fmax(new_hi, x)
        new_lo = np.maximum(new_lo, np.maximum(seen, 0.0))
        new_hi = np.maximum(new_hi, new_lo)
    return np.where(known, new_lo, np.nan), np.where(known, new_hi, np.nan)


def previous_rate_count(raw: Any, enabled: Any, running: Any) -> np.ndarray:
    """[T, E] the count of each window if the unseen time ran at the rate last measured before it: counted +
    rate(previous measured window) x (enabled - running). NaN where no earlier window measured the event."""
    raw, ena, run, rate, ok = _measured_rates(raw, enabled, running)
    return np.nan_to_num(raw) + _carried(rate, ok) * np.maximum(ena - run, 0.0)


def _measured_rates(raw: Any, enabled: Any, running: Any) -> tuple[np.ndarray, ...]:
    """raw, enabled, running as float arrays, the measured rate raw/running (NaN where not measured), and where."""
    raw = np.asarray(raw, dtype=np.float64)
    ena = np.asarray(enabled, dtype=np.float64)
    run = np.asarray(running, dtype=np.float64)
    ok = np.isfinite(raw) & (run > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(ok, raw / np.where(ok, run, 1.0), np.nan)
    return raw, ena, run, rate, ok


def _carried(rate: np.ndarray, ok: np.ndarray, backwards: bool = False) -> np.ndarray:
    """[T, E] the rate last measured strictly before each window (``backwards``: first measured after it)."""
    out = np.full(rate.shape, np.nan)
    carry = np.full(rate.shape[1], np.nan)
    for t in (range(rate.shape[0] - 1, -1, -1) if backwards else range(rate.shape[0])):
        out[t] = carry
        carry = np.where(ok[t], rate[t], carry)
    return out


def following_rate_count(raw: Any, enabled: Any, running: Any, jump: float = 2.0) -> np.ndarray:
    """[T, E] the count of each window if its unseen time ran at the rate measured next after it: counted +
    rate(next measured window) x (enabled - running), where the rates measured before and after the window differ
    by more than ``jump`` (a phase change the reads saw: the unseen time ran at rates between the two, so the truth
    lies between this count and `previous_rate_count`'s). NaN elsewhere (steady windows keep their band), and where
    no window before or after measured the event. Uses the next read: not causal."""
    raw, ena, run, rate, ok = _measured_rates(raw, enabled, running)
    before, after = _carried(rate, ok), _carried(rate, ok, backwards=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        changed = np.maximum(before / after, after / before) > jump  # NaN (no rate on a side) compares False
    return np.where(changed, np.nan_to_num(raw) + after * np.maximum(ena - run, 0.0), np.nan)


def tintin_sigma(raw: Any, enabled: Any, running: Any) -> np.ndarray:
    """Tintin's uncertainty per read window and event, σ = √V · (ΔE − ΔR): V is the time-weighted population
    variance of the rates raw/ΔR of the windows measured so far (this one included), weighted by ΔR
    (``tintin_update_variance_by_Welfords_method``, kernel ``tintin_uncertainty.c:166-171``: "variance in
    rate, weighted by time"). The kernel multiplies √V by the run's total unmonitored time to bound the
    running total (``tintin_uncertainty_extrapolated``, ``tintin_estimation.c:157-164``); per window, the
    window's own unmonitored time is the same rule for that window's count. NaN until two windows were
    measured (one rate has no spread: the kernel would say 0, which would read as certainty). Causal."""
    raw = np.asarray(raw, dtype=np.float64)
    ena = np.asarray(enabled, dtype=np.float64)
    run = np.asarray(running, dtype=np.float64)
    ok = np.isfinite(raw) & (run > 0)
    wt = np.where(ok, run, 0.0)
    rate = np.where(ok, raw / np.where(ok, run, 1.0), 0.0)
    s0, s1, s2 = (np.cumsum(wt * rate ** k, axis=0) for k in (0, 1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / s0
        var = np.maximum(s2 / s0 - mean ** 2, 0.0)
    seen = np.cumsum(ok, axis=0)
    return np.where(seen >= 2, np.sqrt(var) * np.maximum(ena - run, 0.0), np.nan)


def recent_sigma(raw: Any, enabled: Any, running: Any, window: int | None = None) -> np.ndarray:
    """`tintin_sigma` over the last ``window`` measured windows of each event (this one included; default
    `RECENT_WINDOWS`) instead of all of them: σ = √V_k · (ΔE − ΔR), V_k the time-weighted population variance of
    those windows' rates. Why: Tintin's variance keeps every earlier phase (``Welfords_variance``,
    ``tintin_uncertainty.c:166-220``), so a steady phase after a busy start keeps the start's spread and its 90 %
    band covers far more than 90 %; the spread of the recent rates is the one of the phase the window is in.
    Tintin's authors wrote the same idea, a sliding window of ``tintin_count_window_size`` (10,
    ``tintin_vector.c:6``) measurements, left disabled (``tintin_update_variance_by_Welfords_method_sliding``,
    ``tintin_uncertainty.c:222-343``, "need to reimplement"): this is mpx's rule, not Tintin's. NaN until two
    windows were measured; a phase change the reads saw is held by `trusted_interval`'s rules 3-4. Causal."""
    k = RECENT_WINDOWS if window is None else int(window)
    if k < 2:
        raise ValueError(f"recent_sigma: window must be at least 2 measured windows (got {k})")
    raw, ena, run, rate, ok = _measured_rates(raw, enabled, running)
    out = np.full(raw.shape, np.nan)
    for e in range(raw.shape[1]):
        at = np.flatnonzero(ok[:, e])
        if at.size < 2:
            continue
        n = np.cumsum(ok[:, e])  # measured windows up to each window, this one included
        lag = np.arange(k)[None, :]
        pick = n[:, None] - 1 - lag  # [T, k] positions in ``at`` of the last k measured windows
        use = pick >= 0
        pos = at[np.maximum(pick, 0)]
        r, w = np.where(use, rate[pos, e], 0.0), np.where(use, run[pos, e], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (w * r).sum(axis=1) / w.sum(axis=1)
            var = (w * (r - mean[:, None]) ** 2).sum(axis=1) / w.sum(axis=1)
        out[:, e] = np.where(n >= 2, np.sqrt(var) * np.maximum(ena[:, e] - run[:, e], 0.0), np.nan)
    return out


def _level1(catalog: Any, td: TopDown, counts: dict[str, np.ndarray]) -> np.ndarray | None:
    vals = evaluate_metrics(catalog, counts, names=td.level1, missing="skip")
    if len(vals) < len(td.level1):
        return None
    return np.vstack([vals[n] for n in td.level1])


def _bottlenecks(rep: TrustReport, td: TopDown, catalog: Any, std: np.ndarray, draws: int, seed: int) -> None:
    w = rep.times.size
    counts = {lab: rep.estimate[:, i] for i, lab in enumerate(rep.labels)}
    shares = _level1(catalog, td, counts)
    if shares is None:
        rep.notes.append(f"catalog {getattr(catalog, 'name', '?')}: its level-1 nodes need events this run did not "
                         f"count; no bottleneck")
        return
    perf_shares = _level1(catalog, td, {lab: rep.perf[:, i] for i, lab in enumerate(rep.labels)})
    rep.perf_verdicts = [None if perf_shares is None or not np.all(np.isfinite(perf_shares[:, t]))
                         else td.level1[int(np.argmax(perf_shares[:, t]))] for t in range(w)]
    used = set().union(*(catalog.metric(n).events for n in td.level1)) & set(rep.labels)
    cols = [rep.labels.index(lab) for lab in used]
    sure = np.all(np.isfinite(std[:, cols]) | ~np.isfinite(rep.estimate[:, cols]), axis=1)  # [W]
    rng = np.random.default_rng(seed)
    sampled = {}
    for i, lab in enumerate(rep.labels):
        mu, sd = rep.estimate[:, i], np.nan_to_num(std[:, i])
        sampled[lab] = np.maximum(mu[None, :] + sd[None, :] * rng.standard_normal((draws, w)), 0.0).ravel()
    s = _level1(catalog, td, sampled).reshape(len(td.level1), draws, w)
    ok = np.all(np.isfinite(s), axis=0)
    best = np.argmax(np.where(np.isfinite(s), s, -np.inf), axis=0)
    rep.verdicts = []
    for t in range(w):
        n_ok = int(ok[:, t].sum())
        if n_ok == 0:
            rep.verdicts.append([])
            continue
        if not sure[t]:  # an input without an interval: the verdict, but no probability
            rep.verdicts.append([(td.level1[int(np.argmax(shares[:, t]))], None)] if np.all(np.isfinite(shares[:, t]))
                                else [])
            continue
        p = np.bincount(best[ok[:, t], t], minlength=len(td.level1)) / n_ok
        order = np.argsort(-p, kind="stable")
        rep.verdicts.append([(td.level1[k], float(p[k])) for k in order if p[k] > 0])
