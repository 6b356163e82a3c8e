"""Linear scaling as the tools do it: perf stat (``linear``) and PAPI's kernel multiplexing (``papi``, and
``papi_cumulative`` what differencing ``PAPI_read`` gives).

All work on the read view of an Observation (per read window and event: Δraw, ΔE = Δtime_enabled,
ΔR = Δtime_running) and estimate ``count = raw · E / R``: the event is assumed to have counted at the
same rate while it was off the counters as while it was on.

- **perf** (``tools/lib/perf/evsel.c: perf_counts_values__scale``; ``perf stat -I`` first takes deltas
  of value, enabled and running, ``evsel__compute_deltas``, then scales): ``run == 0`` → value 0 and
  ``<not counted>``; ``run < ena`` → ``(u64)(val * ena / run)`` (truncated; perf before 5.x added 0.5);
  ``run == ena`` → unscaled. perf's end-of-run count is the same formula on the whole run's value and
  times, ``Σraw · ΣE / ΣR`` (`Estimate.run_totals`), not the sum of its interval lines.
- **PAPI** (``src/components/perf_event/perf_event.c``, ``_pe_read_multiplexed``, lines 1233–1250 at
  icl-utk-edu/papi 48842c6, called from ``_pe_read`` line 1328): ``running == enabled`` → the raw value;
  ``running && enabled`` → ``scale = (enabled*100LL)/running; scale = scale*raw; count = scale/100LL``, the
  factor truncated to an integer percent and the product truncated again; otherwise (``running == 0``)
  the raw value. NeoMPX's "PAPI ORI" ``estimation()`` (NeoMPX ``src/papi_accurate_multiplexing.c``
  lines 154–170) is the same formula with ``running == 0`` → 0, applied to cumulative samples.

  ``papi`` (`PapiScaler`) is the **window-level PAPI baseline**: the formula on each read window's own
  Δraw, ΔE, ΔR, as a tool that reads, scales and resets per window would report it.
  ``papi_cumulative`` (`PapiCumulativeScaler`) is what a user of ``PAPI_read`` gets by differencing:
  ``PAPI_read`` returns counts since ``PAPI_start`` scaled with the *cumulative* times, so a window's
  value is ``Δ(scaled cumulative)``; the whole run's count is multiplied by the jump of the cumulative
  factor between two reads, so window values can be far off and negative (3,684 % measured on the quickstart) while
  the last read, the whole-run total, is PAPI's. Both report PAPI's last read as their whole-run total
  (`Estimate.run_totals`): the formula on the run's cumulative value and times.

Windows where an event did not run at all (ΔR = 0), the ``fill`` option, broken reads and NeoMPX's
fixes are the read-window base's (`mpx.scalers.reads`), shared with every read-window scaler. ``integer``
truncates like the C code for count events only (time-valued events keep their fraction, as everywhere).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mpx.scalers.reads import FILLS, ReadScaler, read_constraints

__all__ = ["LinearScaler", "PapiCumulativeScaler", "PapiScaler"]


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

    def _run_totals(self, raw, enabled, running, observation):
        r = running.sum(axis=0)
        return np.where(r > 0, self.scale(raw.sum(axis=0), enabled.sum(axis=0), r), np.nan)


class PapiScaler(ReadScaler):
    """The window-level PAPI baseline: PAPI's kernel-multiplexing formula on each read window's own
    deltas, ``scale = ⌊ΔE·100/ΔR⌋``, ``count = ⌊scale·Δraw/100⌋`` (``ΔR == ΔE``: Δraw; ``ΔR == 0``: Δraw,
    i.e. 0, flagged). PAPI ``perf_event.c`` ``_pe_read_multiplexed`` lines 1233–1250. Causal.

    ``fill="formula"`` (default) keeps what the formula gives where the event did not run (0);
    `PapiCumulativeScaler` (``papi_cumulative``) is the differenced ``PAPI_read`` variant."""

    name: ClassVar[str] = "papi"
    source: ClassVar[str] = ("PAPI src/components/perf_event/perf_event.c _pe_read_multiplexed lines 1233-1250 "
                             "(scale = enabled*100LL/running), on each read window's deltas")
    fills: ClassVar[tuple[str, ...]] = FILLS
    param_constraints: ClassVar[dict] = read_constraints(FILLS)

    def __init__(self, fill: str = "formula", integer: bool = True, te_fix: bool = False, outlier_fix: bool = False,
                 missing_fix: bool = False):
        self.fill = fill
        self.integer = integer
        self.te_fix = te_fix
        self.outlier_fix = outlier_fix
        self.missing_fix = missing_fix

    @staticmethod
    def scale(raw: np.ndarray, enabled: np.ndarray, running: np.ndarray,
              integer: bool | np.ndarray = True) -> np.ndarray:
        """PAPI's formula elementwise (``running == 0`` or ``running == enabled`` → raw). ``integer``: truncate
        like the C code (a bool, or a mask broadcast over the columns: which events are counts)."""
        ok = (running > 0) & (enabled > 0) & (running != enabled)
        safe_run = np.where(ok, running, 1.0)
        exact = enabled * 100.0 / safe_run
        factor = np.where(integer, np.floor(exact), exact)
        out = factor * raw / 100.0
        out = np.where(integer, np.floor(out), out)
        return np.where(ok, out, np.where(integer, np.floor(raw), raw))

    def _integer_mask(self, observation) -> np.ndarray:
        """Per event: truncate (``integer`` and a count event, not a time like ``task-clock``)."""
        return (~self._time_valued(observation) & bool(self.integer))[None, :]

    def _core(self, raw, enabled, running, observation):
        est = self.scale(raw, enabled, running, self._integer_mask(observation))
        return est, est

    def _run_totals(self, raw, enabled, running, observation):
        # PAPI's last PAPI_read: the formula on the run's cumulative value and times
        return self.scale(raw.sum(axis=0), enabled.sum(axis=0), running.sum(axis=0),
                          self._integer_mask(observation)[0])


class PapiCumulativeScaler(PapiScaler):
    """What differencing ``PAPI_read`` gives: PAPI's formula on the counts and times since the start
    (``scale = ⌊ΣE·100/ΣR⌋``, ``count = ⌊scale·Σraw/100⌋``), a window's value the difference of two
    successive scaled reads. Causal; may be negative; in windows where the event did not run it still
    moves (the cumulative factor grows with ΔE): that is ``fill="formula"``. The last window's cumulative
    value is PAPI's whole-run total. `PapiScaler` (``papi``) is the window-level baseline."""

    name: ClassVar[str] = "papi_cumulative"
    source: ClassVar[str] = ("PAPI src/components/perf_event/perf_event.c _pe_read_multiplexed lines 1233-1250 on "
                             "PAPI_read's cumulative values, differenced per window; NeoMPX "
                             "src/papi_accurate_multiplexing.c estimation() (lines 154-170) scales the same "
                             "cumulative samples (github.com/SJTU-HPC/NeoMPX)")

    def _core(self, raw, enabled, running, observation):
        cum = self.scale(np.cumsum(raw, axis=0), np.cumsum(enabled, axis=0), np.cumsum(running, axis=0),
                         self._integer_mask(observation))
        est = np.diff(cum, axis=0, prepend=np.zeros((1, raw.shape[1])))
        return est, est
