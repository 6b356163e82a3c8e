"""Fair terms in `mpx report` (issue 34): the headline with each side on its own best schedule beside the
same-schedule one (`fair_table`), every scaler against its null baselines (`null_table`, `null_nulls`), schedulers
whose scores are identical folded into one (`merge_identical`), and collapsed values marked in the scaler ×
scheduler table. The statistics are `mpx.studies.compare`'s (`fair_headline`, `null_baselines`,
`identical_schedulers`); the null baselines themselves are scalers (`mpx.scalers.null`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mpx.scoring.measures import HEADLINE_COLUMN
from mpx.studies.compare import COLLAPSED, fair_headline, identical_schedulers

__all__ = ["COLLAPSED", "SETTINGS_SHOWN", "fair_table", "merge_identical", "null_nulls", "null_table"]


def _own_methods(ok: pd.DataFrame) -> list[str]:
    """The learned scalers among the rows (mpx's own estimators, `fusion`): the fair headline's default methods
    when the config lists none under ``[output] headline``."""
    from mpx import scalers

    names = [n for n in sorted(ok["scaler"].dropna().unique()) if n in scalers.available()]
    return [n for n in names if scalers.REGISTRY.tags(n).learned]


def merge_identical(ok: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """The rows with every scheduler whose scores equal another's bit for bit
    (`mpx.studies.compare.identical_schedulers`) folded into that one, renamed ``"a = b"``: the same schedule is
    never listed as two methods. Returns the rows and later name → kept name."""
    if HEADLINE_COLUMN not in ok or "scheduler" not in ok:
        return ok, {}
    same = identical_schedulers(ok)
    if not same:
        return ok, {}
    keep = ok[~ok["scheduler"].isin(list(same))].copy()
    label = {a: " = ".join([a, *sorted(b for b, x in same.items() if x == a)]) for a in set(same.values())}
    keep["scheduler"] = keep["scheduler"].replace(label)
    return keep, same


def null_nulls(ok: pd.DataFrame) -> dict[str, list[str]]:
    """Per scaler of the rows, the null baselines it must beat (`mpx.scalers.null`): the constant rate of its
    own causality (``constant_rate_causal`` for a causal scaler, ``constant_rate`` otherwise) and its
    fill-matched baseline when it fills windows where an event did not run."""
    import json

    from mpx import scalers
    from mpx.scalers.null import NULL_BASELINES, fill_matched

    out: dict[str, list[str]] = {}
    causal = ok.groupby("scaler")["causal"].first().astype(bool)
    params = ok.groupby("scaler")["scaler_params"].first() if "scaler_params" in ok else pd.Series(dtype=object)
    for name in causal.index:
        if name in NULL_BASELINES:
            continue
        names = ["constant_rate_causal" if causal[name] else "constant_rate"]
        try:
            p = json.loads(params.get(name) or "{}")
            inst = scalers.get(name, **{k: v for k, v in p.items() if k != "relations"})
        except Exception:  # noqa: BLE001 - a plugin gone or params it no longer takes: no fill-matched baseline
            inst = None
        fm = fill_matched(inst) if inst is not None else None
        if fm:
            names.append(fm)
        out[name] = names
    return out


def null_table(nt: pd.DataFrame, where: str = "") -> dict[str, Any]:
    """`mpx.studies.compare.null_baselines` as a table: per scaler and null baseline, each on its own best
    schedule, the ratio with its interval and the verdict."""
    t = pd.DataFrame({
        "scaler": nt["scaler"], "on": nt["scheduler"], "%": (100 * nt["error"]).round(2), "null": nt["null"],
        "null on": nt["null_scheduler"], "null %": (100 * nt["null_error"]).round(2), "ratio": nt["ratio"].round(2),
        "95% CI": [f"[{a:.2f}, {b:.2f}]" for a, b in zip(nt["ratio_lo"], nt["ratio_hi"])],
        "verdict": nt["verdict"]}).set_index(["scaler", "null"])
    return {f"null baselines: does each scaler beat the constant rate (whole-run, or so far for a causal scaler) and "
            f"its fill-matched linear scaling? each on its own best schedule ({HEADLINE_COLUMN}, mean over workloads; "
            f"ratio < 1: better than the null, 95% paired bootstrap interval, both schedules re-chosen in each "
            f"resample; mpx.scalers.null){where}": t}


def _not_beating(nt: pd.DataFrame) -> set[str]:
    return set(nt.loc[nt["verdict"] == "does not beat", "scaler"]) if not nt.empty else set()


def _mark_pivot(piv: pd.DataFrame, nt: pd.DataFrame) -> pd.DataFrame:
    """The scaler × scheduler table in %, a collapsed value (`COLLAPSED`) printed with ``!`` and a scaler that
    does not beat a null baseline named with ``~``."""
    best = piv.min(axis=0)
    bad = piv.gt(COLLAPSED * best, axis=1)
    t = (piv * 100).round(2)
    if bad.any().any():
        t = t.astype(object)
        for c in t.columns:
            t[c] = [f"{v:.2f} !" if b else v for v, b in zip(t[c], bad[c])]
    weak = _not_beating(nt)
    if weak:
        t.index = [f"{n} ~" if n in weak else n for n in t.index]
        t.index.name = "scaler"
    return t


def _collapse_note(piv: pd.DataFrame, nt: pd.DataFrame, same: dict[str, str]) -> str:
    notes = []
    if piv.gt(COLLAPSED * piv.min(axis=0), axis=1).any().any():
        notes.append(f"! collapsed: more than {COLLAPSED:g}x the best scaler under that scheduler")
    if _not_beating(nt):
        notes.append("~: does not beat one of its null baselines (table below)")
    if same:
        notes.append("a = b: schedulers whose scores are identical bit for bit, listed once ("
                     + ", ".join(f"{b} is {a}" for b, a in same.items()) + ")")
    return ("; " + "; ".join(notes)) if notes else ""


def fair_table(ok: pd.DataFrame, methods: list[str]) -> dict[str, Any]:
    """The fair-terms headline (`mpx.studies.compare.fair_headline`) from the ``done`` score rows: each method on
    its own best schedule against the best other scaler on its own, causal against causal, the same-schedule
    ratio beside it, labelled; and which schedule each side won on."""
    if not methods or HEADLINE_COLUMN not in ok:
        return {}
    ok, _ = merge_identical(ok)
    h = fair_headline(ok, methods)
    if h.empty:
        return {}
    levels = [c for c in ("set", "counters", *SETTINGS_SHOWN) if c in h and h[c].nunique(dropna=False) > 1]
    h = h.assign(set=[f"{s} ({n})" for s, n in zip(h["set"], h["workloads"])])
    ci = lambda lo, hi: [f"[{a:.2f}, {b:.2f}]" if np.isfinite(a) else "n/a" for a, b in zip(lo, hi)]  # noqa: E731
    nan = pd.Series(np.nan, index=h.index)
    t = pd.DataFrame({
        "causal": h["causal"], "method %": (100 * h["method_error"]).round(2),
        "best baseline": h["baseline"], "baseline %": (100 * h["baseline_error"]).round(2),
        "FAIR ratio": h["ratio"].round(2), "95% CI": ci(h["ratio_lo"], h["ratio_hi"]),
        "same-schedule ratio": h.get("same_ratio", nan).round(2),
        "same 95% CI": ci(h.get("same_ratio_lo", nan), h.get("same_ratio_hi", nan))})
    index = pd.MultiIndex.from_frame(h[[*levels, "method"]]) if levels else pd.Index(h["method"], name="method")
    t.index = index
    won = pd.DataFrame({
        "method on": h["method_scheduler"], "kept %": (100 * h["method_p"]).round(1),
        "baseline": h["baseline"], "baseline on": h["baseline_scheduler"], "kept % ": (100 * h["baseline_p"]).round(1),
        "same-schedule baseline": h.get("same_baseline", nan),
        "fallback %": (100 * h.get("method_fallback", nan)).round(1)})
    won.index = index
    n = f"{h['workloads'].iloc[0]} workloads, {h['set'].iloc[0].split(' ')[0]}" if not levels else "per row"
    return {f"headline on FAIR TERMS ({n}): {', '.join(methods)} on its own best schedule against the best other "
            f"scaler on its own best schedule (causal against causal, offline against all; {HEADLINE_COLUMN}, "
            "mean over workloads; 95% paired bootstrap interval over workloads with both schedules re-chosen in each resample); "
            "beside it, labelled, the SAME-SCHEDULE ratio (the best other scaler under the method's best schedule)": t,
            "the schedule each side of the fair headline won on (the lowest mean over workloads; kept %: how often "
            "the choice holds in the paired resamples), the same-schedule ratio's baseline, and the share of the "
            "method's event-windows from its coverage guard's fallback (mpx.scalers.fusion)": won}


#: the swept settings the fair table's index names (the others are constant within a report's rows)
SETTINGS_SHOWN = ("read_every", "quantum", "noise_rel_sigma", "noise_read_overhead", "read_window", "quantum_ms")
