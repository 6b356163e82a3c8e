"""Does BayesPerf beat linear scaling when its premise holds? (issue 28 item 3; claim 1: 5.28x in the paper)

Reads the store of ``mpx run experiments/bayesperf_premise.toml`` (two experiments: ``premise_relations``,
BayesPerf with the five exact identities of a problem closed under them, and ``premise_none``, the same
replays without relations) and prints, per counter count and scheduler, the mean over workloads of the
headline measure (``wape_all``) and of claim 1's measure (the metrics' mean relative error,
``metric_mape_all``) for linear scaling, DCAM and BayesPerf with and without the identities, and the ratio
linear / BayesPerf with a 95 % paired bootstrap interval over workloads (`mpx.studies.compare`).

    python experiments/analyses/bayesperf_premise.py results/bayesperf_premise [--figure OUT.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mpx.experiment.store import open_store  # noqa: E402
from mpx.studies.compare import paired_bootstrap, per_workload  # noqa: E402
from mpx.studies.decompose import decompose, pair_table  # noqa: E402

MEASURES = {"wape_all": "WAPE, all windows", "metric_mape_all": "metric mean relative error (claim 1)"}
PAPER = 5.28  # BayesPerf, ASPLOS 2021: linear 40.1 % -> BayesPerf 7.6 %


def rows(store) -> pd.DataFrame:
    """The done score rows of both experiments, BayesPerf's renamed by its relations."""
    parts = []
    for exp, tag in (("premise_relations", "bayesperf+identities"), ("premise_none", "bayesperf")):
        t = store.table("scores", exp)
        t = t[t["status"] == "done"].copy()
        if exp == "premise_none":
            t = t[t["scaler"] == "bayesperf"]  # linear and DCAM are the same replays in both
        t["method"] = np.where(t["scaler"] == "bayesperf", tag, t["scaler"])
        parts.append(t)
    out = pd.concat(parts, ignore_index=True)
    for m in MEASURES:
        out[m] = pd.to_numeric(out[m], errors="coerce")
    out["counters"] = pd.to_numeric(out["counters"], errors="coerce")
    return out


def ratio(per: pd.DataFrame, a: str, b: str) -> tuple[float, float, float]:
    """Mean over workloads of ``a`` / mean of ``b``, with a 95 % paired bootstrap interval."""
    pair = per.loc[[a, b]].dropna(axis=1)
    boot = paired_bootstrap(pair)
    r = boot[:, 0] / boot[:, 1]
    return float(pair.loc[a].mean() / pair.loc[b].mean()), float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5))


def table(df: pd.DataFrame) -> str:
    lines = []
    for measure, label in MEASURES.items():
        lines += [f"### {label} (`{measure}`), mean over workloads", "",
                  "| counters | scheduler | linear | DCAM | BayesPerf, no relations | BayesPerf + identities | "
                  "linear / BayesPerf + identities | identities' gain (no relations / + identities) |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for (k, sched), g in df.groupby(["counters", "scheduler"], sort=True):
            per = per_workload(g, measure, ("method",))
            if not {"linear", "bayesperf+identities", "bayesperf"} <= set(per.index):
                continue
            mean = per.mean(axis=1)
            r, lo, hi = ratio(per, "linear", "bayesperf+identities")
            gr, glo, ghi = ratio(per, "bayesperf", "bayesperf+identities")
            lines.append(f"| {k:.0f} | {sched} | {100 * mean['linear']:.1f} % | "
                         f"{100 * mean.get('dcam', np.nan):.1f} % | "
                         f"{100 * mean['bayesperf']:.1f} % | {100 * mean['bayesperf+identities']:.1f} % | "
                         f"{r:.2f}x [{lo:.2f}, {hi:.2f}] | {gr:.2f}x [{glo:.2f}, {ghi:.2f}] |")
        lines.append("")
    lines += ["### The paper's pairing decomposed (`mpx.studies.decompose`: perf + linear against BayesPerf's "
              "schedule + BayesPerf + identities, the 2 x 2 of schedule and estimator)", "",
              "| counters | measure | perf + linear | perf + BayesPerf | BayesPerf's schedule + linear "
              "| both BayesPerf's "
              "| the pairing | schedule factor | estimator factor | estimator on its own schedule |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    rel = df[df["method"] != "bayesperf"]  # BayesPerf with the identities (premise_relations), linear, DCAM
    for k, g in rel.groupby("counters", sort=True):
        for measure, label in MEASURES.items():
            try:
                d = decompose(pair_table(g, measure), ("perf", "linear"), ("bayesperf", "bayesperf"))
            except KeyError:
                continue
            c = list(d.cells.values())
            lines.append(f"| {k:.0f} | {label} | {100 * c[0]:.1f} % | {100 * c[1]:.1f} % | {100 * c[2]:.1f} % | "
                         f"{100 * c[3]:.1f} % | {d.ratio[0]:.2f}x [{d.ratio[1]:.2f}, {d.ratio[2]:.2f}] | "
                         f"{d.schedule:.2f}x | {d.estimator:.2f}x | {d.same_schedule:.2f}x |")
    lines.append("")
    n_w = df["workload"].nunique()
    lines.append(f"({n_w} workloads; the paper's linear / BayesPerf: {PAPER}x)")
    return "\n".join(lines)


def figure(df: pd.DataFrame, out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mpx.figures.style import WIDTH, style

    style()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 2.8), sharey=True)
    for ax, (measure, label) in zip(axes, MEASURES.items()):
        labels, vals = [], []
        for (k, sched), g in df.groupby(["counters", "scheduler"], sort=True):
            per = per_workload(g, measure, ("method",))
            if not {"linear", "bayesperf+identities"} <= set(per.index):
                continue
            labels.append(f"{k:.0f} ctr\n{sched}")
            vals.append(ratio(per, "linear", "bayesperf+identities"))
        x = np.arange(len(vals))
        ax.errorbar(x, [v[0] for v in vals], yerr=[[v[0] - v[1] for v in vals], [v[2] - v[0] for v in vals]],
                    fmt="o", color="black", capsize=3)
        ax.axhline(1.0, color="#888888", linewidth=0.8)
        ax.axhline(PAPER, color="#D55E00", linestyle="--", linewidth=0.8)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_title(label, fontsize=8)
    axes[0].set_ylabel("linear / BayesPerf + identities")
    axes[0].text(0, PAPER, " the paper's 5.28x", color="#D55E00", fontsize=7, va="bottom")
    fig.savefig(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", help="results folder of mpx run experiments/bayesperf_premise.toml")
    ap.add_argument("--figure", metavar="OUT.png")
    args = ap.parse_args(argv)
    with open_store(args.store) as st:
        df = rows(st)
    print(table(df))
    if args.figure:
        figure(df, args.figure)
        print(f"wrote {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
