"""Linear scaling as the tools do it: perf stat (``linear``) and PAPI's kernel multiplexing (``papi``).

Both work on the read view of an Observation (per read window and event: Δraw, ΔE = Δtime_enabled,
ΔR = Δtime_running) and estimate ``count = raw · E / R``: the event is assumed to have counted at the
same rate while it was off the counters as while it was on.

- **perf** (``tools/lib/perf/evsel.c: perf_counts_values__scale``; ``perf stat -I`` first takes deltas
  of value, enabled and running, ``evsel__compute_deltas``, then scales): ``run == 0`` → value 0 and
  ``<not counted>``; ``run < ena`` → ``(u64)(val * ena / run)`` (truncated; perf before 5.x added 0.5);
  ``run == ena`` → unscaled. perf's end-of-run count is the same formula on the whole run's value and
  times, ``Σraw · ΣE / ΣR`` (`Estimate.run_totals`), not the sum of its interval lines.
- **PAPI** (``src/components/perf_event/perf_event.c``, ``_pe_read``): ``scale = (enabled*100LL)/running``
  in integer arithmetic, ``count = scale*raw/100LL``, so the factor is truncated to 1/100;
  ``running == enabled`` → unscaled; ``running == 0`` → the raw value (0). ``PAPI_read`` returns counts
  since ``PAPI_start`` scaled with the *cumulative* times, so a user who reads every interval and takes
  differences gets ``Δ(scaled cumulative)`` — this is ``cumulative=True`` (the default). Differences of
  separately scaled cumulative values can be negative (the scale factor can fall between two reads).

Windows where an event did not run at all (ΔR = 0), the ``fill`` option, broken reads and NeoMPX's
fixes are the read-window base's (`mpx.scalers.reads`), shared with every read-window scaler.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.scalers.reads import FILLS, ReadScaler, read_constraints

__all__ = ["LinearScaler", "PapiScaler"]


class LinearScaler(ReadScaler):
    """perf stat's scaling per read window: ``Δraw · ΔE / ΔR`` (``<not counted>`` when ΔR = 0).

    ``fill`` (default ``"nan"``, faithful to perf) says what goes into not-counted windows; ``integer``
    truncates like libperf's ``(u64)`` cast."""

    name: ClassVar[str] = "linear"
    source: ClassVar[str] = ("Linux perf: tools/lib/perf/evsel.c perf_counts_values__scale; "
                             "tools/perf/util/stat.c process_counter_values (deltas, then scale)")

    def __init__(self, fill: str = "nan", integer: bool = True, te_fix: bool = False, outlier_fix: bool = False,
                 missing_fix: bool = False):
        self.fill = fill
        self.integer = integer
        self.te_fix = te_fix
        self.outlier_fix = outlier_fix
        self.missing_fix = missing_fix

    @staticmethod
    def scale(raw: np.ndarray, enabled: np.ndarray, running: np.ndarray) -> np.ndarray:
        """perf's formula elementwise, before the ``(u64)`` truncation: ``raw · E / R`` where
        ``0 < R < E``, ``raw`` where ``R >= E`` (``R == 0``: the raw value, 0, printed ``<not counted>``)."""
        ran = running > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ran & (running < enabled), raw * enabled / np.where(ran, running, 1.0), raw)

    def _core(self, raw, enabled, running, observation):
        return self.scale(raw, enabled, running), None

    def _run_totals(self, raw, enabled, running):
        r = running.sum(axis=0)
        return np.where(r > 0, self.scale(raw.sum(axis=0), enabled.sum(axis=0), r), np.nan)


class PapiScaler(ReadScaler):
    """PAPI's kernel-multiplexing scaling with its integer-percent factor:
    ``scale = ⌊enabled·100/running⌋``, ``count = ⌊scale·raw/100⌋`` (``running == enabled``: raw).

    ``cumulative=True`` (default, what ``PAPI_read`` returns): the formula is applied to the counts and
    times since the start, and a window's estimate is the difference of two successive scaled reads —
    causal, may be negative, and in windows where the event did not run it still moves (the factor
    grows with ΔE): that is ``fill="formula"``. ``cumulative=False`` applies the formula to each
    window's deltas (``running == 0`` → the raw value, 0)."""

    name: ClassVar[str] = "papi"
    source: ClassVar[str] = ("PAPI src/components/perf_event/perf_event.c _pe_read (scale = enabled*100LL/running); "
                             "papi_accurate_multiplexing.c estimation() in NeoMPX (github.com/SJTU-HPC/NeoMPX)")
    fills: ClassVar[tuple[str, ...]] = FILLS
    param_constraints: ClassVar[dict] = {**read_constraints(FILLS), "cumulative": "boolean"}

    def __init__(self, cumulative: bool = True, fill: str = "formula", integer: bool = True, te_fix: bool = False,
                 outlier_fix: bool = False, missing_fix: bool = False):
        self.cumulative = cumulative
        self.fill = fill
        self.integer = integer
        self.te_fix = te_fix
        self.outlier_fix = outlier_fix
        self.missing_fix = missing_fix

    @staticmethod
    def scale(raw: np.ndarray, enabled: np.ndarray, running: np.ndarray, integer: bool = True) -> np.ndarray:
        """PAPI's formula elementwise (``running == 0`` or ``running == enabled`` → raw)."""
        ok = (running > 0) & (enabled > 0) & (running != enabled)
        safe_run = np.where(ok, running, 1.0)
        factor = enabled * 100.0 / safe_run
        if integer:
            factor = np.floor(factor)
            out = np.floor(factor * raw / 100.0)
        else:
            out = factor * raw / 100.0
        return np.where(ok, out, np.floor(raw) if integer else raw)

    def _core(self, raw, enabled, running, observation):
        if not self.cumulative:
            est = self.scale(raw, enabled, running, self.integer)
            return est, est
        cum = self.scale(np.cumsum(raw, axis=0), np.cumsum(enabled, axis=0), np.cumsum(running, axis=0),
                         self.integer)
        est = np.diff(cum, axis=0, prepend=np.zeros((1, raw.shape[1])))
        return est, est
