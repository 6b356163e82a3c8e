"""The aligner interface: runs that each counted part of the events → one estimate on the reference's axis.

An aligner gets one `~mpx.scalers.base.Estimate` per run (run 0 is the reference), each on its own run's
read windows: for trace alignment the ``linear`` scaler's reading of a run that counted its group all
the time (exact counts of the group, ``not_estimated`` elsewhere); for the multiplexing road at several
runs, any scaler's estimate of a multiplexed run. Every run also knows the **anchor** in every window:
the time axis (``"time"``) or an event it counted throughout.

One step differs between methods, how windows correspond (``_transfer``): a matrix ``T[W_ref, W_run]``,
the share of each run window's counts that lands in each reference window (naive: overlap of the
anchor-matched boundaries; DTW: the warping path; Fuse: behaviour clusters), and which reference windows
the run covers at all. The rest is shared and lives here: an event's value in reference window ``i`` from
run ``r`` is ``T @ counts_r`` (valid only where every run window it draws on was estimated), and the runs
are merged by ``merge``:

- ``"reference"`` (trace alignment): the reference's own value wherever it has one (it counted the
  event itself), the mean of the other runs' values elsewhere;
- ``"mean"`` (the multiplexing road at several runs): the mean over every run with a value, the
  reference included.

Write one::

    class MyAligner(Aligner):
        name = "mine"
        source = "paper, section"
        def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
            ...   # T [ref.n, run.n], covered [ref.n] (bool)

and add ``"mine": "module:Class"`` to `mpx.aligners.BUILTIN`. Aligners never see ground truth: the
estimates they get carry none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Params, StrOptions
from mpx.aligners.measure import TIME_ANCHOR
from mpx.scalers.base import Estimate


@dataclass(frozen=True)
class AnchorSeries:
    """One run's anchor: ``cumulative[W+1]`` from 0, ``rate[W]`` per unit of time, window ``lengths[W]``."""

    cumulative: np.ndarray
    rate: np.ndarray
    lengths: np.ndarray

    @property
    def n(self) -> int:
        return self.rate.size

    @classmethod
    def of(cls, est: Estimate, anchor: str, run: int) -> AnchorSeries:
        lengths = np.diff(est.edges)
        if anchor == TIME_ANCHOR:
            return cls(est.edges - est.edges[0], np.ones_like(lengths), lengths)
        if anchor not in est.events:
            raise ConfigError(f"run {run} has no anchor {anchor!r} (events: {list(est.events)[:8]}...)")
        k = est.events.index(anchor)
        counts = est.counts[:, k]
        if est.not_estimated[:, k].any() or not np.isfinite(counts).all():
            raise ConfigError(f"run {run} has no value of the anchor {anchor!r} in some read window (not counted, "
                              f"or a scaler left it empty): an anchor must be known throughout every run")
        return cls(np.concatenate([[0.0], np.cumsum(counts)]), counts / lengths, lengths)


@dataclass(frozen=True)
class AlignerTags:
    """What callers may know about an aligner without running it: ``needs_rate`` (it aligns on the anchor's
    rate, so the time axis is refused as anchor); ``exact_on_identical_runs`` (identical runs give every
    window exactly, not only the whole-run totals)."""

    needs_rate: bool
    exact_on_identical_runs: bool


class Aligner(Params):
    """Base class: stores parameters; ``align(runs, anchor)`` is the one verb (see the module docstring)."""

    name: ClassVar[str] = ""
    source: ClassVar[str] = ""
    #: does the method need an anchor whose rate varies (``"time"`` is refused)?
    needs_rate: ClassVar[bool] = False
    #: is every window exact when the runs are identical (False: only whole-run totals; see conformance)
    exact_on_identical_runs: ClassVar[bool] = True
    param_constraints: ClassVar[dict] = {"merge": [StrOptions({"reference", "mean"})]}

    def tags(self) -> AlignerTags:
        """The aligner's capability tags (what callers would otherwise read from its attributes)."""
        return AlignerTags(needs_rate=bool(self.needs_rate), exact_on_identical_runs=bool(self.exact_on_identical_runs))

    def _transfer(self, ref: AnchorSeries, run: AnchorSeries) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def align(self, runs: Sequence[Estimate], anchor: str = TIME_ANCHOR) -> Estimate:
        """Merge ``runs`` (run 0 the reference) onto the reference's read windows."""
        self.validate_params()
        runs = list(runs)
        if not runs:
            raise ConfigError(f"{self.name}: no runs to align")
        ref = runs[0]
        for i, r in enumerate(runs[1:], 1):
            if r.events != ref.events:
                raise ConfigError(f"{self.name}: run {i} estimates other events than the reference")
        if self.tags().needs_rate and anchor == TIME_ANCHOR:
            raise ConfigError(f"{self.name} aligns on the anchor's rate, and the time axis has a constant rate: "
                              f"name an anchor event counted in every run (e.g. instructions)")
        series = [AnchorSeries.of(r, anchor, i) for i, r in enumerate(runs)]
        w, e = ref.counts.shape
        total = np.zeros((w, e))
        n = np.zeros((w, e))
        own = ~ref.not_estimated & np.isfinite(ref.counts)
        for i, run in enumerate(runs):
            if i == 0:
                vals, valid = np.where(own, ref.counts, 0.0), own
            else:
                t, covered = self._transfer(series[0], series[i])
                bad = ~(~run.not_estimated & np.isfinite(run.counts))
                vals = t @ np.where(bad, 0.0, run.counts)
                valid = covered[:, None] & ((t @ bad.astype(float)) == 0)
            if i == 0 and self.merge == "reference":
                continue
            total += np.where(valid, vals, 0.0)
            n += valid
        others = np.divide(total, n, out=np.full((w, e), np.nan), where=n > 0)
        if self.merge == "reference":
            counts = np.where(own, ref.counts, others)
            missing = ~own & (n == 0)
        else:
            counts, missing = others, n == 0
        return Estimate(
            ref.events, ref.edges, counts, missing, ran=ref.ran, scaler=self.name, params=self.get_params(),
            causal=False, meta={**ref.meta, "aligner": self.name, "anchor": anchor, "runs": len(runs)},
            notes=tuple(ref.notes) + (f"{self.name}: {len(runs)} runs merged on anchor {anchor!r} "
                                      f"(merge={self.merge})",),
        )


def overlap_matrix(bounds: np.ndarray, n_run: int) -> np.ndarray:
    """``T[i, j]``: the share of run window ``j`` inside ``[bounds[i], bounds[i+1]]`` (run-window
    coordinates: window ``j`` spans ``[j, j+1]``, counts spread evenly inside it)."""
    j = np.arange(n_run)
    lo = np.maximum(bounds[:-1, None], j[None, :])
    hi = np.minimum(bounds[1:, None], j[None, :] + 1)
    return np.clip(hi - lo, 0.0, None)
