"""The top-down verdict tables of a results store (`mpx report`, the site's verdict page): the level-1
bottleneck's agreement per scaler x scheduler, every verdict measure for one scheduler with intervals, and the
constant verdict on all and on contested windows (`mpx.scoring.verdicts`, docs/verdicts.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mpx.studies.compare import paired_bootstrap, per_workload, varying_settings

__all__ = ["CONSTANT_COLUMNS", "VERDICT_COLUMNS", "verdict_tables"]

#: the verdict columns of a score row (`mpx.scoring.verdicts.SUMMARY_KEYS`) as the report names them
VERDICT_COLUMNS = {"verdict_l1_agreement": "L1 %", "verdict_l2_agreement": "L2 %", "verdict_l1_serious": "serious %",
                   "verdict_no_verdict": "none %", "verdict_out_of_range": "outside %",
                   "verdict_out_of_range_true": "true outside %", "verdict_run_l1": "run L1 %",
                   "verdict_run_l2": "run L2 %"}
#: the constant verdict and the contested windows (`mpx.scoring.verdicts`): their own table, every scheduler
CONSTANT_COLUMNS = {"verdict_l1_agreement": "L1 %", "verdict_const_l1": "constant L1 %",
                    "verdict_contested_share": "contested %", "verdict_l1_contested": "L1 contested %",
                    "verdict_const_l1_contested": "constant contested %"}


def verdict_tables(ok: pd.DataFrame, preferred: str = "perf") -> dict[str, Any]:
    """The top-down verdicts (`mpx.scoring.verdicts`) of the ``done`` score rows of a catalog with a hierarchy:
    the level-1 bottleneck's agreement per scaler × scheduler, and for one scheduler (perf's rotation when
    present) every verdict measure per scaler with a 95 % bootstrap interval over workloads on the level-1
    agreement. Means over workloads (seeds averaged first); a swept setting gets its own tables. Empty when no
    row carries verdicts (callgrind's catalog declares no hierarchy)."""
    if "verdict_l1_agreement" not in ok:
        return {}
    v = ok[pd.to_numeric(ok["verdict_l1_agreement"], errors="coerce").notna()]
    if v.empty:
        return {}
    out: dict[str, Any] = {}
    varying = varying_settings(v)
    groups = v.groupby(varying, dropna=False) if varying else [((), v)]
    for values, part in groups:
        values = values if isinstance(values, tuple) else (values,)
        where = f" [{', '.join(f'{k} = {x}' for k, x in zip(varying, values))}]" if varying else ""
        per = per_workload(part, "verdict_l1_agreement", ("scaler", "scheduler"))
        mean = (100 * per.mean(axis=1)).unstack("scheduler").round(1)
        mean = mean.loc[mean.mean(axis=1).sort_values(ascending=False).index]
        n_w = part["workload"].nunique()
        out[f"top-down verdicts: level-1 bottleneck right, % of read windows (mean over {n_w} workloads): scaler x "
            f"scheduler{where}"] = mean
        sched = preferred if preferred in set(part["scheduler"]) else sorted(set(part["scheduler"]))[0]
        one = part[part["scheduler"] == sched]
        cols = [c for c in VERDICT_COLUMNS if c in one]
        t = pd.DataFrame({VERDICT_COLUMNS[c]: 100 * per_workload(one, c).mean(axis=1) for c in cols}).round(1)
        l1 = per_workload(one, "verdict_l1_agreement").loc[t.index]
        boot = paired_bootstrap(l1)  # a scaler without a verdict on some workload: NaN, no interval
        with np.errstate(invalid="ignore"):
            lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
        t.insert(1, "95% CI", [f"[{100 * a:.1f}, {100 * b:.1f}]" if np.isfinite(a) else "n/a" for a, b in zip(lo, hi)])
        t = t.sort_values("L1 %", ascending=False)
        out[f"top-down verdicts, scheduler {sched}: % of read windows whose verdict is right (L1: the level-1 "
            "node with the largest share, with its 95% paired bootstrap interval over workloads; L2: and its "
            "largest child), wrong by more than 10 points of true share (serious), without a verdict (none); % of "
            "node values outside [0, 1], estimated and true; run: % of workloads whose whole-run verdict is right; "
            f"means over {n_w} workloads (docs/verdicts.md){where}"] = t
        cols = [c for c in CONSTANT_COLUMNS if c in part and pd.to_numeric(part[c], errors="coerce").notna().any()]
        if "verdict_const_l1" in cols:
            c = pd.DataFrame({CONSTANT_COLUMNS[k]: 100 * per_workload(part, k, ("scheduler", "scaler")).mean(axis=1)
                              for k in cols}).round(1)
            out["top-down verdicts against the constant verdict (the row's own whole-run level-1 verdict named in "
                "every window; perf + linear's is the null baseline): L1 right, % of read windows, on all windows and "
                "on the contested ones (true top two level-1 shares < 5 points apart, or the true bottleneck changed; "
                f"mean over the workloads that have them); means over {n_w} workloads (docs/verdicts.md){where}"] = c
    return out
