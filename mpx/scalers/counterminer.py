"""CounterMiner's data cleaning over any read-window scaler (``counterminer``).

Source: Lv, Sun, Luo, Wang, Yu, Qian, "CounterMiner: Mining Big Performance Data from Hardware Counters",
MICRO 2018: its first component cleans the sampled counter series before any analysis, *replacing
outliers* found with an extreme-value (Gumbel) test and *filling missing values*; with 10 events
multiplexed on 4 counters it reports the average error falling from 28.3 % to 7.7 %. CounterMiner has no
public code. Only the abstract and this summary (``../shared/reference/multiplexing-methods.md``) were
available to this implementation, so every detail below that the summary leaves open is mpx's choice and
is named as such.

The wrapper runs the ``base`` read-window scaler (``linear`` by default: perf's scaling, the series CounterMiner
cleaned) and cleans its estimate per event, with ``variant="paper"`` on the window *rates* ``estimate / ΔE`` (so that
windows of different lengths compare), then multiplies back by ΔE. Windows the base flags as not estimated stay
flagged (scoring counts them apart); their value is the filled one.

``variant="paper"`` (offline: whole-run statistics and values after the window):

- **outliers** (mpx's choices: a one-sided test on the upper tail, the Gumbel distribution of maxima
  fitted by the method of moments, scale β = s·√6/π, location μ = mean − 0.5772·β, over the event's
  estimated windows; a window is an outlier when its upper-tail probability ``1 − exp(−exp(−(x − μ)/β))``
  is below ``alpha``), replaced by the mean rate of the event's other windows (mpx's choice; the summary
  says "replaced");
- **missing values** (windows the base could not estimate, NaN): filled by linear interpolation in time
  between the nearest estimated windows, constant beyond the ends (mpx's choice; the summary says
  "filled").

``variant="tintin"``: what Tintin's re-implementation intended (``arch/x86/events/core.c``, read for mpx in
``../shared/peers/tintin/kernel/arch-x86-events-core.c.lines40-240``, which holds the original lines 40-240: cited
here by the original line, the shared file's line + 39): once an event has more than 10 values (``counterminer_count >
10``, ``arch/x86/events/core.c:181``), a trailing window of ``counterminer_length`` = (max − min)/√n values
(``arch/x86/events/core.c:182-184``, at most 10,000, ``arch/x86/events/core.c:186-189``) gives a mean and a standard
deviation (``arch/x86/events/core.c:198-214``), and a value above mean + 5σ is replaced by the mean
(``arch/x86/events/core.c:217-220``); the cleaned value is what enters the history (``arch/x86/events/core.c:222``);
nothing is filled. As written, that code changes no count: the loop ``for (ii = index; ii < index − L; ii--)``
(``arch/x86/events/core.c:191-194``) never runs, and the value rewritten is the raw register value returned after the
delta was already added to the count (``arch/x86/events/core.c:173, 240``). mpx computes the intended rule (population
σ over the window; ``window`` fixes L instead of the max/min rule) on the base's per-window *counts*, the kind of
value the kernel keeps (a count read at each update, never a rate), so the rule does not depend on the trace's time
unit (on rates, ``(max − min)/√n`` and hence L would change with the unit). Causal when the base is.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mpx.errors import ConfigError
from mpx.params import Interval, StrOptions
from mpx.scalers.base import Estimate, Scaler

__all__ = ["CounterMinerScaler", "gumbel_outliers", "tintin_clean"]

EULER_GAMMA = 0.5772156649015329


def gumbel_outliers(x: np.ndarray, alpha: float) -> np.ndarray:
    """Upper-tail outliers of ``x`` (finite values) under a Gumbel fitted by moments: True where
    ``1 − F(x) < alpha``. Fewer than 3 values or no spread: none."""
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape, dtype=bool)
    ok = np.isfinite(x)
    if ok.sum() < 3:
        return out
    s = float(np.std(x[ok], ddof=1))
    if not s > 0:
        return out
    beta = s * np.sqrt(6.0) / np.pi
    mu = float(np.mean(x[ok])) - EULER_GAMMA * beta
    tail = -np.expm1(-np.exp(-(x[ok] - mu) / beta))
    out[ok] = tail < alpha
    return out


def tintin_clean(x: np.ndarray, window: int | None = None, k: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """The rule Tintin's CounterMiner code intended (module docstring), in order over ``x``: returns the
    cleaned values and which were replaced. NaN values are skipped (they enter no history)."""
    x = np.asarray(x, dtype=float)
    y = x.copy()
    replaced = np.zeros(x.shape, dtype=bool)
    hist: list[float] = []
    for i, v in enumerate(x):
        if not np.isfinite(v):
            continue
        if len(hist) > 10:
            if window is None:
                spread = max(hist) - min(hist)
                length = int(spread / np.sqrt(len(hist)))
            else:
                length = int(window)
            length = min(max(length, 1), 10000, len(hist))
            tail = np.asarray(hist[-length:])
            mean, sd = float(tail.mean()), float(tail.std())
            if v > mean + k * sd:
                v = mean
                replaced[i] = True
        y[i] = v
        hist.append(v)
    return y, replaced


class CounterMinerScaler(Scaler):
    """CounterMiner's cleaning of a read-window scaler's estimate (see the module docstring).

    Parameters
    ----------
    base:
        A registered read-window scaler whose estimate is cleaned (default ``linear``).
    variant:
        ``"paper"`` (Gumbel outliers replaced, missing values filled; offline), ``"tintin"`` (Tintin's
        intended one-sided mean + 5σ over a trailing window, no filling) or ``"fill"`` (the paper's filling
        alone, no outlier test: the base with the same interpolated fill, the fill-matched baseline that
        separates the filling's share of the cleaning's gain from the outlier test's).
    alpha:
        Upper-tail probability under which a window is an outlier (``variant="paper"``; mpx's choice).
    window:
        Trailing window length (``variant="tintin"``); None: Tintin's ``(max − min)/√n`` rule.
    """

    name: ClassVar[str] = "counterminer"
    view: ClassVar[str] = "read"
    source: ClassVar[str] = ("CounterMiner, Lv et al., MICRO 2018 (data cleaning: Gumbel outliers replaced, missing "
                             "values filled); variant='tintin': Tintin's arch/x86/events/core.c:180-235 as intended")
    param_constraints: ClassVar[dict] = {"base": [str], "variant": StrOptions(("paper", "tintin", "fill")),
                                         "alpha": Interval(float, 0, 1, closed="neither"),
                                         "window": [None, Interval(int, 1, None)]}

    def __init__(self, base: str = "linear", variant: str = "paper", alpha: float = 0.01,
                 window: int | None = None) -> None:
        self.base = base
        self.variant = variant
        self.alpha = alpha
        self.window = window

    def _base(self) -> Scaler:
        from mpx import scalers

        b = scalers.get(self.base)
        if b.view != "read" or b.learned:
            raise ConfigError(f"counterminer: base {self.base!r} must be a read-window scaler that learns nothing")
        return b

    @property
    def causal(self) -> bool:  # type: ignore[override]
        return self.variant == "tintin" and bool(self._base().causal)

    @property
    def fills_like(self) -> str | None:
        """The `mpx.scalers.reads` fill its missing-value filling matches (``"interpolate"``: the rate
        interpolated in time; variant ``"tintin"`` fills nothing): its fill-matched baseline, `mpx.scalers.null`."""
        return "interpolate" if self.variant in ("paper", "fill") else None

    def _estimate(self, observation: Any) -> Estimate:
        base = self._base().estimate(observation)
        ena = np.asarray(observation.reads.enabled, dtype=float)
        counts = np.array(base.counts, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(ena > 0, counts / np.where(ena > 0, ena, 1.0), np.nan)
        edges = np.asarray(observation.reads.edges, dtype=float)
        mid = 0.5 * (edges[:-1] + edges[1:])
        n_out = n_fill = 0
        for j in range(rate.shape[1]):
            r = rate[:, j]
            if self.variant == "tintin":  # on counts: unit-free (module docstring)
                c2, rep = tintin_clean(counts[:, j], self.window)
                n_out += int(rep.sum())
                rate[:, j] = np.where(ena[:, j] > 0, c2 / np.where(ena[:, j] > 0, ena[:, j], 1.0), np.nan)
                continue
            out = gumbel_outliers(r, float(self.alpha)) if self.variant == "paper" else np.zeros(r.size, dtype=bool)
            keep = np.isfinite(r) & ~out
            if out.any() and keep.any():
                r[out] = r[keep].mean()
                n_out += int(out.sum())
            miss = ~np.isfinite(r)
            have = np.isfinite(r)
            if miss.any() and have.any():
                r[miss] = np.interp(mid[miss], mid[have], r[have])
                n_fill += int(miss.sum())
            rate[:, j] = r
        est = np.where(np.isfinite(rate), rate * ena, counts)
        notes = list(base.notes) + [f"counterminer ({self.variant}) over {self.base}: {n_out} outlier windows replaced"
                                    + (f", {n_fill} missing windows filled" if self.variant != "tintin" else "")]
        return self.make_estimate(observation, est, not_estimated=base.not_estimated | ~np.isfinite(est), notes=notes)
