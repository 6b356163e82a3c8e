"""Error measures on named window sets: every scaler of a comparison scored on the same windows.

A scaler may leave a window without a value (perf's ``<not counted>``); a measure that simply skipped
those windows would score each scaler on the windows it chose to fill. Here the windows are fixed first
— a **window set**, the same for every scaler of one replay because it depends on the schedule only —
and a window of the set without a value is **charged** as an estimate of 0 (what a user summing perf's
output gets); the share of the set a scaler did fill is its **coverage**, reported beside its error.

Window sets (per event and read window): ``ran`` — the event was counted in the window (some quantum of
it); ``unran`` — it was not (every value there is inferred); ``all`` — both.

Measures, per event over the windows of a set (``est`` charged, ``true`` the truth, ``floor`` the
event's floor of `mpx.scoring.score`):

- ``mape``: mean of ``|est − true| / true`` over the windows with ``true ≥ floor`` (relative errors of
  near-zero truths are noise, not information);
- ``wape``: ``Σ |est − true| / Σ true`` over every window of the set — errors weighted by counts, so a
  handful of near-empty windows cannot dominate it;
- ``mdape``: the median of ``|est − true| / true`` over the windows with ``true ≥ floor``;
- ``lnq``: mean of ``|ln((est⁺ + c) / (true + c))|`` over every window of the set, the log accuracy
  ratio (Tofallis, J. Oper. Res. Soc. 66, 2015) with ``c`` = the absolute floor (1 count by default)
  so that empty windows are defined and ``est⁺ = max(est, 0)``: symmetric in over- and under-estimation.

Each measure is NaN for an event whose set has no window it can use (``docs/scoring.md``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["HEADLINE", "HEADLINE_COLUMN", "MEASURES", "METRIC_MEASURES", "WINDOW_SETS", "charge", "coverage", "emd",
           "event_measures", "masked_mean", "masked_median", "set_measures", "window_sets"]

WINDOW_SETS = ("ran", "unran", "all")
MEASURES = ("mape", "wape", "mdape", "lnq")
#: the measures of metric-windows, with their coverage (``lnq`` is for counts: a metric has no natural
#: offset ``c``)
METRIC_MEASURES = ("mape", "wape", "mdape", "coverage")
#: the headline measure and window set of every ranking (``docs/scoring.md`` says why): WAPE on every
#: window — count-weighted, so near-empty windows cannot decide it; every window, so a scaler is charged
#: for the windows it leaves empty and every scaler is scored on the same windows
HEADLINE: tuple[str, str] = ("wape", "all")
#: the score column of the headline measure (``{measure}_{set}``)
HEADLINE_COLUMN = "_".join(HEADLINE)


def window_sets(ran: np.ndarray) -> dict[str, np.ndarray]:
    """The window sets of a ``[W, E]`` mask of windows where each event was counted."""
    ran = np.asarray(ran, dtype=bool)
    return {"ran": ran, "unran": ~ran, "all": np.ones_like(ran)}


def charge(est: np.ndarray) -> np.ndarray:
    """``est`` with every window left without a value (NaN) charged as an estimate of 0."""
    est = np.asarray(est, dtype=np.float64)
    return np.where(np.isfinite(est), est, 0.0)


def coverage(est: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per event: the share of the windows of ``mask`` where ``est`` has a value (NaN for an empty set)."""
    mask = np.asarray(mask, dtype=bool)
    n = mask.sum(axis=0)
    have = (np.isfinite(np.asarray(est, dtype=np.float64)) & mask).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, have / np.maximum(n, 1), np.nan)


def masked_mean(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per column the mean of ``x`` over the rows of ``mask`` (NaN where the mask is empty)."""
    n = mask.sum(axis=0)
    s = np.where(mask, x, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)


def masked_median(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per column the median of the non-NaN ``x`` over the rows of ``mask`` (NaN where there is none):
    ``np.nanmedian``'s value (the mean of the two middle values of an even count), computed with one sort
    of the whole matrix instead of a masked array per column."""
    if x.shape[0] == 0:
        return np.full(x.shape[1], np.nan)
    vals = np.sort(np.where(mask, x, np.nan), axis=0)  # NaNs sort last
    n = (~np.isnan(vals)).sum(axis=0)
    cols = np.arange(x.shape[1])
    lo = vals[np.maximum((n - 1) // 2, 0), cols]
    hi = vals[np.maximum(n // 2, 0), cols]
    with np.errstate(invalid="ignore"):
        med = (lo + hi) / 2.0
    return np.where(n > 0, med, np.nan)


def set_measures(est: np.ndarray, truth: np.ndarray, sets: Mapping[str, np.ndarray], floor: np.ndarray,
                 c: float = 1.0) -> dict[str, dict[str, np.ndarray]]:
    """Every measure of `MEASURES` and the coverage, per event, of ``est`` (not yet charged) against
    ``truth`` over the windows of each mask of ``sets`` (all ``[W, E]``): ``{set: {measure: [E]}}``.
    ``floor[E]`` is the relative-error floor, ``c`` the offset of ``lnq``. The per-window errors are
    computed once for all sets."""
    charged = charge(est)
    truth = np.asarray(truth, dtype=np.float64)
    floor = np.asarray(floor, dtype=np.float64)
    err = np.abs(charged - truth)
    above = (truth >= floor[None, :]) & (truth > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(above, err / np.where(truth > 0, truth, 1.0), np.nan)
        lnq = np.abs(np.log((np.maximum(charged, 0.0) + c) / (np.maximum(truth, 0.0) + c)))
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, mask in sets.items():
        mask = np.asarray(mask, dtype=bool)
        rel_ok = mask & above
        tot = np.where(mask, truth, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            wape = np.where(tot > 0, np.where(mask, err, 0.0).sum(axis=0) / np.where(tot > 0, tot, 1.0), np.nan)
        out[name] = {"mape": masked_mean(rel, rel_ok), "wape": wape, "mdape": masked_median(rel, rel_ok),
                     "lnq": masked_mean(lnq, mask), "coverage": coverage(est, mask)}
    return out


def event_measures(est: np.ndarray, truth: np.ndarray, mask: np.ndarray, floor: np.ndarray,
                   c: float = 1.0) -> Mapping[str, np.ndarray]:
    """Every measure of `MEASURES`, per event, over the windows of one ``mask`` (`set_measures`)."""
    got = set_measures(est, truth, {"set": mask}, floor, c)["set"]
    return {m: got[m] for m in MEASURES}


def emd(est: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Earth Mover's Distance between the distributions of an event's per-window counts, estimated and
    true, divided by the true mean per-window count (so events of any rate compare): ``[E]``.

    Fuse's measure of profile (dis)similarity (Neill, Drebes & Pop, TACO 2017 §5: the EMD of per-task count
    distributions), on read windows instead of tasks. Windows without an estimate are charged as 0
    (`charge`). Blind to *when* counts happen: a method can score 0 with every window in the wrong place,
    which is why it stands beside the window measures, never alone."""
    from scipy.stats import wasserstein_distance

    e = charge(est)
    out = np.full(truth.shape[1], np.nan)
    for k in range(truth.shape[1]):
        mean = truth[:, k].mean()
        if mean > 0:
            out[k] = wasserstein_distance(e[:, k], truth[:, k]) / mean
    return out
