"""The base of every read-window scaler (`ReadScaler`): cleaning the reads, and the fill rules for windows
where an event did not run.

A read-window scaler works on the read view of an Observation (per read window and event: Δraw,
ΔE = Δtime_enabled, ΔR = Δtime_running); `mpx.scalers.linear`, `mpx.scalers.interpolation` and
`mpx.scalers.neompx` build on it.

Windows where an event did not run at all (ΔR = 0) are where every per-window formula has nothing to go
on. perf's sliding-window rotation makes them common when the read window is shorter than a rotation.
They are always flagged in ``Estimate.not_estimated``; the value put there is the ``fill`` option:

- ``"nan"``: no value (perf's ``<not counted>``; the default of ``linear``);
- ``"zero"``: 0 (what perf stores behind ``<not counted>`` and what NeoMPX's PAPI estimation writes);
- ``"carry"``: the last observed rate (raw/R of the most recent window where the event ran) × ΔE;
  NaN before the first such window. Causal;
- ``"interpolate"``: the rate linearly interpolated in time between the nearest windows where the
  event ran (nearest one at the ends) × ΔE. Offline (looks ahead);
- ``"formula"`` (``papi`` and ``papi_cumulative`` only, their default): whatever the tool's formula gives
  (window-level PAPI: the raw value, 0; cumulative PAPI: the change of the scaled cumulative value, which
  extrapolates at the run-average rate).

An event that never ran anywhere (``obs.errors``, or never scheduled) has no rate: NaN under every fill
but ``"zero"``/``"formula"``. Non-finite values in the observation (a broken read) make that window
count as not run for that event. NeoMPX's post-processing fixes (``te_fix``, ``outlier_fix``,
``missing_fix``; see `mpx.scalers.fixes`) are options of every read-window scaler; any of them makes the
scaler offline (they use whole-run statistics or later windows).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import StrOptions
from mpx.problem.perf import TIME_EVENTS
from mpx.scalers.base import Estimate, Scaler
from mpx.scalers.fixes import missing_fix, outlier_fix, te_fix

__all__ = ["FILLS", "ReadScaler", "bfill_index", "clean_reads", "ffill_index", "fill_windows", "read_constraints"]

FILLS = ("nan", "zero", "carry", "interpolate", "formula")


def clean_reads(observation: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``raw, enabled, running, broken`` as float copies ``[W, E]``; where any of the three is not
    finite (or running/enabled negative) the window counts as not run for that event (raw = R = 0) and
    ``broken`` is True."""
    r = observation.reads
    raw = np.array(r.raw, dtype=np.float64)
    ena = np.array(r.enabled, dtype=np.float64)
    run = np.array(r.running, dtype=np.float64)
    broken = ~(np.isfinite(raw) & np.isfinite(ena) & np.isfinite(run)) | (run < 0) | (ena < 0)
    if broken.any():
        raw[broken] = 0.0
        run[broken] = 0.0
        ena[~np.isfinite(ena) | (ena < 0)] = 0.0
    return raw, ena, run, broken


def ffill_index(ok: np.ndarray) -> np.ndarray:
    """Per column, the index of the last row <= i where ``ok`` (-1 if none)."""
    w = ok.shape[0]
    idx = np.where(ok, np.arange(w)[:, None], -1)
    return np.maximum.accumulate(idx, axis=0)


def bfill_index(ok: np.ndarray) -> np.ndarray:
    """Per column, the index of the first row >= i where ``ok`` (W if none)."""
    w = ok.shape[0]
    idx = np.where(ok, np.arange(w)[:, None], w)
    return np.minimum.accumulate(idx[::-1], axis=0)[::-1]


def fill_windows(mode: str, raw: np.ndarray, enabled: np.ndarray, running: np.ndarray, ran: np.ndarray,
                 edges: np.ndarray) -> np.ndarray:
    """Values for windows where an event did not run (``~ran``), by ``mode`` (see the module docstring);
    rows where it ran are NaN in the result (the caller keeps its own values there)."""
    w, e = raw.shape
    out = np.full((w, e), np.nan)
    if mode == "nan" or w == 0:
        return out
    if mode == "zero":
        out[~ran] = 0.0
        out[ran] = np.nan
        return out
    rate = np.where(ran, raw / np.where(ran, running, 1.0), np.nan)
    if mode == "carry":
        last = ffill_index(ran)
        got = last >= 0
        carried = np.where(got, np.take_along_axis(rate, np.maximum(last, 0), axis=0), np.nan)
        out = np.where(~ran, carried * enabled, np.nan)
        return out
    if mode == "interpolate":
        mid = 0.5 * (edges[:-1] + edges[1:])
        for j in range(e):
            ok = ran[:, j]
            if not ok.any() or ok.all():
                continue
            r = np.interp(mid, mid[ok], rate[ok, j])  # constant beyond the ends
            out[~ok, j] = r[~ok] * enabled[~ok, j]
        return out
    raise ConfigError(f"unknown fill {mode!r}; choose one of {FILLS}")


def read_constraints(fills: tuple[str, ...]) -> dict[str, Any]:
    """The parameter constraints every read-window scaler shares, with its own ``fills``."""
    return {"fill": StrOptions(fills), "integer": "boolean", "te_fix": "boolean", "outlier_fix": "boolean",
            "missing_fix": "boolean"}


class ReadScaler(Scaler):
    """A scaler on the read view with the shared options: ``fill`` for windows where an event did not
    run, ``integer`` (truncate count estimates to integers like the C tools do; time-valued events,
    `mpx.problem.perf.TIME_EVENTS`, keep their fraction) and NeoMPX's fixes
    ``te_fix`` / ``outlier_fix`` / ``missing_fix``. Subclasses implement ``_core(raw, E, R, obs)``
    returning ``(estimate[W, E], formula_value_where_not_run[W, E] or None)``."""

    view: ClassVar[str] = "read"
    #: causal when used with a causal fill and no fix
    core_causal: ClassVar[bool] = True
    fills: ClassVar[tuple[str, ...]] = ("nan", "zero", "carry", "interpolate")
    param_constraints: ClassVar[dict] = read_constraints(fills)

    @property
    def causal(self) -> bool:  # type: ignore[override]
        return bool(self.core_causal and getattr(self, "fill", "nan") != "interpolate"
                    and not (self.te_fix or self.outlier_fix or self.missing_fix))

    def _core(self, raw: np.ndarray, enabled: np.ndarray, running: np.ndarray,
              observation: Any) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def _run_totals(self, raw: np.ndarray, enabled: np.ndarray, running: np.ndarray,
                    observation: Any) -> np.ndarray | None:
        """The whole-run count per event as the tool reports it at the end of a run (`Estimate.run_totals`),
        from the run's raw counts and times; None (the default): the sum of the scaler's windows."""
        return None

    def _time_valued(self, observation: Any) -> np.ndarray:
        """Per event: a time-valued event (`mpx.problem.perf.TIME_EVENTS`) that the C tools never truncate."""
        return np.isin(np.asarray(observation.events, dtype=object), list(TIME_EVENTS))

    def _estimate(self, observation: Any) -> Estimate:
        raw, ena, run, broken = clean_reads(observation)
        totals = self._run_totals(raw, ena, run, observation)
        if totals is not None and self.integer:
            totals = np.where(self._time_valued(observation), totals, np.trunc(totals))
        notes: list[str] = []
        if broken.any():
            notes.append(f"{int(broken.sum())} event-windows with non-finite or negative reads treated as not run")
        if self.te_fix:
            ena, changed = te_fix(ena)
            notes.append(f"te_fix: {int(changed.sum())} ΔE values replaced by their mode cluster's centre")
        ran = run > 0
        est, formula = self._core(raw, ena, run, observation)
        est = np.array(est, dtype=np.float64)
        flagged = ~ran
        if flagged.any():
            if self.fill == "formula":
                value = formula if formula is not None else np.zeros_like(est)
            else:
                value = fill_windows(self.fill, raw, ena, run, ran, observation.reads.edges)
            est[flagged] = value[flagged]
            notes.append(f"{int(flagged.sum())} event-windows where the event did not run: fill={self.fill!r}")
        if self.integer:  # the C tools truncate counts, never times (task-clock's msec keep their fraction)
            est = np.where(self._time_valued(observation)[None, :], est, np.trunc(est))
        if self.outlier_fix:
            est, clipped = outlier_fix(est, integer=self.integer)
            notes.append(f"outlier_fix: {int(clipped.sum())} window estimates clipped")
        if self.missing_fix:
            est, filled = missing_fix(est, integer=self.integer)
            notes.append(f"missing_fix: {int(filled.sum())} zero/missing windows filled from neighbours")
        return self.make_estimate(observation, est, not_estimated=flagged | ~np.isfinite(est), notes=notes,
                                  run_totals=totals)
