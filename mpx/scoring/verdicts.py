"""Top-down verdicts, estimated against true: is the bottleneck a multiplexed run names the right one?

What a user of toplev or the Arm tool reads is not a count but a verdict: the level-1 node with the largest
share (Frontend Bound, Bad Speculation, Backend Bound, Retiring), then the level-2 child with the largest
share under it. `verdict_scores` compares the verdicts read from estimated metric values with those read
from the true ones, window by window (and for the whole run when given the totals as one window):

- ``l1_agreement``: the share of windows whose estimated level-1 bottleneck is the true one;
  ``l2_agreement``: ... whose level-1 *and* level-2 verdicts are both right (the level-2 verdict is read
  under the level-1 node each side chose, as a user reads it);
- ``l1_serious``: the share of windows where the estimate names a node whose *true* share is more than
  ``margin`` (10 points) below the true bottleneck's — a wrong verdict that matters, as opposed to a tie;
- ``no_verdict``: windows where the estimate leaves a level-1 share undefined (a scaler that fills nothing
  there); they count as wrong in the agreement rates, as a missing window is charged in the error measures;
- ``out_of_range``: the share of estimated node values outside the range of a share, below 0 or above 1
  (toplev marks values outside -5 %…105 % as mismeasured; the strict range is reported, the truth's own
  share beside it as ``out_of_range_true`` — the gem5 catalog's approximate level-2 nodes can leave it);
- ``l1_confusion``: counts, true node × estimated node (the last column: no verdict);
- ``contested_share`` and ``l1_contested``: the share of scored windows that are *contested* (`contested`: the
  true top two level-1 shares less than ``contest`` (5 points) apart, or the true bottleneck not the previous
  scored window's), and the level-1 agreement on them alone — where a per-window verdict is at stake;
- ``const_l1`` and ``const_l1_contested`` (given a ``constant`` verdict): the agreement of naming that one
  node in every window, on all scored windows and on the contested ones — the null baseline of a per-window
  verdict when ``constant`` is the whole-run verdict of the tool's own totals (`verdict_summary`).

Windows whose true level-1 shares are undefined (no slots) are not scored.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mpx.metrics.topdown import TopDown

__all__ = ["CONTEST", "SUMMARY_KEYS", "VERDICT_MEASURES", "confusion_counts", "confusion_text", "contested",
           "verdict_scores", "verdict_summary"]

#: the scalar measures `verdict_scores` returns, in report order
VERDICT_MEASURES = ("l1_agreement", "l2_agreement", "l1_serious", "no_verdict", "out_of_range",
                    "out_of_range_true", "n_verdict_windows", "contested_share", "l1_contested", "const_l1",
                    "const_l1_contested")
#: the true margin (share points) between the top two level-1 nodes below which a window is contested
CONTEST = 0.05


def contested(true_l1: np.ndarray, *, contest: float = CONTEST) -> np.ndarray:
    """Per window, whether its true level-1 verdict is contested: the top two true shares (rows of ``true_l1``
    ``[nodes, W]``) less than ``contest`` apart, or the true bottleneck not that of the previous window with a
    verdict (the first such window is not a change). Windows without a true verdict: False. A property of the
    truth alone, so no estimator is favoured by it (docs/verdicts.md argues the rule)."""
    lt = _argmax(true_l1)
    scored = lt >= 0
    out = np.zeros(lt.size, dtype=bool)
    if true_l1.shape[0] >= 2 and scored.any():
        top2 = np.sort(true_l1[:, scored], axis=0)[-2:]
        out[scored] = (top2[1] - top2[0]) < contest
    idx = np.flatnonzero(scored)
    if idx.size > 1:
        out[idx[1:]] |= lt[idx[1:]] != lt[idx[:-1]]
    return out


def _stack(values: Mapping[str, np.ndarray], names: tuple[str, ...], n: int) -> np.ndarray:
    return np.vstack([np.asarray(values.get(k, np.full(n, np.nan)), dtype=float).reshape(n) for k in names]) \
        if names else np.empty((0, n))


def _argmax(x: np.ndarray) -> np.ndarray:
    """Row index of the largest value per column; -1 where any value of the column is undefined."""
    ok = np.all(np.isfinite(x), axis=0)
    out = np.full(x.shape[1], -1)
    if x.shape[0]:
        out[ok] = np.argmax(x[:, ok], axis=0)
    return out


def _level2(td: TopDown, values: Mapping[str, np.ndarray], l1: np.ndarray, n: int) -> np.ndarray:
    """The level-2 verdict under each window's level-1 verdict: an index into ``td.nodes``, -1 for none."""
    out = np.full(n, -1)
    index = {name: i for i, name in enumerate(td.nodes)}
    for p, parent in enumerate(td.level1):
        kids = td.children.get(parent, ())
        sel = l1 == p
        if not kids or not sel.any():
            continue
        best = _argmax(_stack(values, kids, n))
        out[sel] = np.where(best[sel] >= 0, [index[kids[b]] if b >= 0 else -1 for b in best[sel]], -1)
    return out


def verdict_scores(td: TopDown, true: Mapping[str, np.ndarray], est: Mapping[str, np.ndarray], *,
                   margin: float = 0.10, contest: float = CONTEST, constant: str | None = None) -> dict:
    """The verdict measures (module docstring) of estimated metric values ``est`` against ``true``: each a
    mapping node name -> values per window (the same windows on both sides; missing names are undefined);
    ``constant``: a level-1 node named in every window, scored beside the estimate (NaN when None)."""
    n = len(np.asarray(next(iter(true.values())))) if true else 0
    t1, e1 = _stack(true, td.level1, n), _stack(est, td.level1, n)
    lt, le = _argmax(t1), _argmax(e1)
    scored = lt >= 0
    m = int(scored.sum())
    out: dict = {"n_verdict_windows": m}
    confusion = np.zeros((len(td.level1), len(td.level1) + 1), dtype=int)
    np.add.at(confusion, (lt[scored], np.where(le[scored] >= 0, le[scored], len(td.level1))), 1)
    out["l1_confusion"] = confusion
    out["l1_nodes"] = td.level1
    if m == 0:
        out.update({k: float("nan") for k in VERDICT_MEASURES if k != "n_verdict_windows"})
        return out
    right1 = scored & (lt == le)
    out["l1_agreement"] = float(right1.sum() / m)
    hot = contested(t1, contest=contest)
    out["contested_share"] = float(hot.sum() / m)
    out["l1_contested"] = float(right1[hot].sum() / hot.sum()) if hot.any() else float("nan")
    const = scored & (lt == td.level1.index(constant)) if constant in td.level1 else np.zeros(n, dtype=bool)
    out["const_l1"] = float(const.sum() / m) if constant in td.level1 else float("nan")
    out["const_l1_contested"] = float(const[hot].sum() / hot.sum()) if constant in td.level1 and hot.any() \
        else float("nan")
    out["no_verdict"] = float((scored & (le < 0)).sum() / m)
    cols = np.arange(n)
    picked = np.where(le >= 0, t1[np.clip(le, 0, None), cols], np.nan)
    gap = t1[lt.clip(0), cols] - picked
    out["l1_serious"] = float((scored & (le >= 0) & (gap > margin)).sum() / m)
    if td.children:
        l2t, l2e = _level2(td, true, lt, n), _level2(td, est, le, n)
        out["l2_agreement"] = float((right1 & (l2t == l2e)).sum() / m)
    else:
        out["l2_agreement"] = float("nan")
    nodes_e = _stack(est, td.nodes, n)[:, scored]
    nodes_t = _stack(true, td.nodes, n)[:, scored]
    out["out_of_range"] = _outside(nodes_e)
    out["out_of_range_true"] = _outside(nodes_t)
    return out


def confusion_text(scores: Mapping) -> str:
    """The level-1 confusion of `verdict_scores` as one JSON text (a stored score row's ``verdict_l1_confusion``,
    beside the summary's numbers):
    ``{"nodes": [...], "counts": [[...]]}``, rows the true node, columns the estimated one and a last column
    for windows without a verdict (`confusion_counts` reads it back)."""
    import json

    return json.dumps({"nodes": list(scores["l1_nodes"]), "counts": np.asarray(scores["l1_confusion"]).tolist()})


def confusion_counts(text: str) -> tuple[list[str], np.ndarray]:
    """``(nodes, counts[true, estimated + none])`` from a ``verdict_l1_confusion`` text."""
    import json

    d = json.loads(text)
    return list(d["nodes"]), np.asarray(d["counts"], dtype=np.int64)


def _outside(x: np.ndarray) -> float:
    fin = np.isfinite(x)
    return float(((x < 0) | (x > 1))[fin].sum() / fin.sum()) if fin.any() else float("nan")


#: the summary columns `verdict_summary` adds to a score (None where the catalog declares no hierarchy)
SUMMARY_KEYS = ("verdict_l1_agreement", "verdict_l2_agreement", "verdict_l1_serious", "verdict_no_verdict",
                "verdict_out_of_range", "verdict_out_of_range_true", "verdict_run_l1", "verdict_run_l2",
                "verdict_contested_share", "verdict_l1_contested", "verdict_const_l1", "verdict_const_l1_contested")


def verdict_summary(td: TopDown | None, names: tuple[str, ...], true_windows: np.ndarray, est_windows: np.ndarray,
                    true_run: Mapping[str, float] | None = None, est_run: Mapping[str, float] | None = None,
                    *, margin: float = 0.10) -> tuple[dict[str, float | None], dict | None]:
    """The verdict columns of a score: per window from the metric windows ``[W, M]`` (``names`` their
    metrics), and for the whole run from the metrics of the run's totals (``true_run``/``est_run``: node ->
    value; ``verdict_run_l1``/``_l2`` are 1 when the whole-run verdict is right, 0 when not; ``verdict_const_*``:
    the estimate's whole-run level-1 verdict named in every window, the constant verdict — for perf + linear,
    the null baseline of every per-window verdict). Returns
    ``(summary, window scores with the confusion)``; every column None and no scores when ``td`` is None or a
    node was not scored."""
    out: dict[str, float | None] = dict.fromkeys(SUMMARY_KEYS)
    if td is None or not set(td.nodes) <= set(names):
        return out, None
    col = {n: j for j, n in enumerate(names)}
    constant = None
    if est_run is not None:
        run_l1 = _argmax(_stack({n: np.array([est_run.get(n, np.nan)]) for n in td.level1}, td.level1, 1))
        constant = td.level1[run_l1[0]] if run_l1[0] >= 0 else None
    s = verdict_scores(td, {n: true_windows[:, col[n]] for n in td.nodes},
                       {n: est_windows[:, col[n]] for n in td.nodes}, margin=margin, constant=constant)
    for k in ("l1_agreement", "l2_agreement", "l1_serious", "no_verdict", "out_of_range", "out_of_range_true",
              "contested_share", "l1_contested", "const_l1", "const_l1_contested"):
        v = s[k]
        out[f"verdict_{k}"] = float(v) if np.isfinite(v) else None
    if true_run is not None and est_run is not None:
        r = verdict_scores(td, {n: np.array([true_run.get(n, np.nan)]) for n in td.nodes},
                           {n: np.array([est_run.get(n, np.nan)]) for n in td.nodes}, margin=margin)
        if r["n_verdict_windows"]:
            out["verdict_run_l1"] = r["l1_agreement"]
            out["verdict_run_l2"] = r["l2_agreement"] if np.isfinite(r["l2_agreement"]) else None
    return out, s
