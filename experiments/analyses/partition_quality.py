"""Quality and speed of `mpx.partition` on ibm01, on event-grouping instances and on the event hypergraphs
of the real metric catalogs, side by side with the real KaHyPar and Mt-KaHyPar; and the ``hypergraph``
scheduler against ``hperf`` and ``optimal`` on every real catalog. Writes tables (CSV + markdown) and a
figure (PNG + PDF) into ``--out``.

Run: ``python experiments/analyses/partition_quality.py [--seeds 5] [--ks 2,8,32] [--compare] [--out DIR]``
(``--compare`` needs ``pip install kahypar mtkahypar``, the optional extra ``mpx[kahypar]``; default
``--out results/analyses/partition``). ``--skip-ibm01``, ``--skip-events``, ``--skip-catalogs``,
``--skip-schedulers`` leave sections out.

Targets (issue 4): on ISPD98 ibm01 with ε = 0.03 the mean km1 over the seeds lies within 5 % of KaHyPar's
published mean (210.4 / 899.3 / 2196.2 for k = 2 / 8 / 32, kahypar/experimental-results jea20/km1); k = 8
takes at most 5× KaHyPar's time measured in the same run; event-grouping instances (≤ 2,000 events) never
exceed the caps, reach a km1 no worse than Mt-KaHyPar QUALITY (best of the same number of seeds) and take
under 1 s each. Synthetic event instances: n events, n metrics, each metric 2–4 distinct events drawn
uniformly (instance seed 0); caps C·k = n exactly, so every group is full. Catalog instances: the event
hypergraph of `mpx.grouping.partitioned` (one per PMU unit: schedulable events, metrics as nets) with k = ⌈n/C⌉ and
cap C = usable counters. mpx runs with the configuration `mpx.grouping.partitioned` uses (`grouping_context`) on
event instances and with the defaults on ibm01.

Times are wall-clock seconds of one `partition` call after a warm-up call that loads the compiled kernels
(the first call in a fresh checkout compiles them: reported separately). Both external tools run in a
subprocess each (KaHyPar calls exit() on infeasible caps and would take this process with it); their time is
measured around their partition call only. The machine is shared: compare ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("MPX_SHARED", REPO.parent / "shared"))
IBM01 = SHARED / "data" / "hypergraphs" / "ISPD98_ibm01.hgr"
METRICS = SHARED / "data" / "metrics"
KAHYPAR_INI = SHARED / "data" / "hypergraphs" / "kahypar-configs" / "km1_kKaHyPar_sea20.ini"
PUBLISHED = {2: 210.4, 8: 899.3, 32: 2196.2}   # KaHyPar-K, mean of 10 seeds (JEA 2020 results)
EVENT_CASES = [(200, 4, 50), (1000, 8, 125), (2000, 8, 250)]
TOOLS = ("mpx", "kahypar", "mtkahypar")


def event_nets(n: int, seed: int) -> list[list[int]]:
    """n metrics of 2–4 distinct events out of n, uniformly at random (`mpx.grouping.instances`)."""
    from mpx.grouping.instances import random_event_nets

    return random_event_nets(n, seed)


def catalog_cases() -> list[tuple[str, str]]:
    """(catalog, PMU preset) pairs of every real catalog (the table of ``bench_schedule_catalogs.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from schedule_catalogs import CASES

    return list(CASES)


# --- external tools, each in its own process (mpx.partition.external) ------------------------------

def run_tool(tool: str, job: dict) -> dict:
    """Run ``tool`` on ``job`` in a fresh interpreter; a crash or exit() becomes {'error': ...}."""
    from mpx.partition.external import run_external

    return run_external(tool, {"ini": str(KAHYPAR_INI), "preset": "quality", **job})


def tools_available() -> list[str]:
    from mpx.partition.external import TOOLS, tool_status

    return [t for t in TOOLS if tool_status(t)[0] is not None]


# --- measurements ------------------------------------------------------------------------------------

def measure_ibm01(ks: list[int], seeds: int, tools: list[str], threads: int) -> list[dict]:
    from mpx.partition import imbalance, partition, read_hmetis

    hg = read_hmetis(IBM01)
    rows = []
    for k in ks:
        for seed in range(seeds):
            res = partition(hg, k, epsilon=0.03, seed=seed)
            rows.append({"section": "ibm01", "case": f"ibm01 k={k}", "tool": "mpx", "k": k, "seed": seed,
                         "km1": res.km1, "seconds": res.seconds, "imbalance": res.imbalance,
                         "feasible": res.imbalance <= 0.03 + 1e-12})
            for tool in tools:
                r = run_tool(tool, {"path": str(IBM01), "n": hg.num_vertices, "k": k, "seed": seed, "epsilon": 0.03,
                                    "threads": threads})
                if "error" not in r:
                    r["imbalance"] = imbalance(hg, r.pop("blocks"), k)
                    r["feasible"] = r["imbalance"] <= 0.03 + 1e-12
                rows.append({"section": "ibm01", "case": f"ibm01 k={k}", "tool": tool, "k": k, "seed": seed, **r})
            print(_row_line(rows[-1 - len(tools):]), flush=True)
    return rows


def _capped(section: str, case: str, hg, nets: list[list[int]], weights: list[int] | None, cap: int, k: int,
            seeds: int, tools: list[str], threads: int) -> list[dict]:
    """mpx (grouping configuration) and the tools on one capped instance, ``seeds`` seeds each."""
    from mpx.grouping.partitioned import grouping_context
    from mpx.partition import block_weights, km1, partition

    rows = []
    n = hg.num_vertices
    for seed in range(seeds):
        res = partition(hg, k, seed=seed, max_block_weights=[cap] * k, context=grouping_context(n))
        rows.append({"section": section, "case": case, "tool": "mpx", "n": n, "cap": cap, "k": k, "seed": seed,
                     "km1": res.km1, "seconds": res.seconds, "max_block": int(res.block_weights.max()),
                     "feasible": int(res.block_weights.max()) <= cap})
        for tool in tools:
            r = run_tool(tool, {"nets": nets, "weights": weights, "n": n, "k": k, "seed": seed, "epsilon": 0.03,
                                "caps": [cap] * k, "threads": threads})
            if "error" not in r:
                blocks = r.pop("blocks")
                r["max_block"] = int(block_weights(hg, blocks, k).max())
                r["feasible"] = r["max_block"] <= cap
                r["km1_check"] = km1(hg, blocks, k)
            rows.append({"section": section, "case": case, "tool": tool, "n": n, "cap": cap, "k": k, "seed": seed,
                         **r})
        print(_row_line(rows[-1 - len(tools):]), flush=True)
    return rows


def measure_events(seeds: int, tools: list[str], threads: int) -> list[dict]:
    from mpx.partition import Hypergraph

    rows = []
    for n, cap, k in EVENT_CASES:
        nets = event_nets(n, 0)
        hg = Hypergraph.from_nets(nets, num_vertices=n)
        rows += _capped("events", f"events n={n} C={cap} k={k}", hg, nets, None, cap, k, seeds, tools, threads)
    return rows


def measure_catalogs(seeds: int, tools: list[str], threads: int) -> list[dict]:
    """The event hypergraph of every real catalog (per PMU unit), k = ⌈n/C⌉ (skipped when k < 2)."""
    from mpx.grouping.partitioned import event_hypergraph, metric_importance
    from mpx.metrics import load_catalog
    from mpx.pmu import preset
    from mpx.problem import Problem

    rows = []
    for rel, pmu_name in catalog_cases():
        problem = Problem.from_catalog(load_catalog(str(METRICS / rel)), preset(pmu_name))
        sched = [e for e in problem.events if e not in problem.free and problem.countable(e) and problem.fits([e])]
        for unit in dict.fromkeys(problem.unit(e) for e in sched):
            events = [e for e in sched if problem.unit(e) == unit]
            cap = problem.n_counters(unit)
            hg, _, _ = event_hypergraph(events, [m.events for m in problem.metrics], metric_importance(problem))
            k = -(-len(events) // cap)
            case = f"{rel} ({pmu_name}) n={len(events)} C={cap} k={k}"
            if k < 2 or hg.num_nets == 0:
                print(f"{case}: skipped (k < 2 or no net of 2+ events)", flush=True)
                continue
            rows += _capped("catalogs", case, hg, hg.nets(), hg.net_weights.tolist(), cap, k, seeds, tools, threads)
    return rows


def measure_schedulers() -> list[dict]:
    """hypergraph vs hperf vs optimal on every real catalog (`mpx.scoring.schedules.score_schedulers`)."""
    from mpx.metrics import load_catalog
    from mpx.pmu import preset
    from mpx.problem import Problem
    from mpx.scoring.schedules import score_schedulers

    rows = []
    for rel, pmu_name in catalog_cases():
        cat = load_catalog(str(METRICS / rel))
        problem = Problem.from_catalog(cat, preset(pmu_name))
        params = {}
        gp = cat.platform.get("available_GP")
        if isinstance(gp, int) and not isinstance(gp, bool):
            params["hperf"] = {"available_gp": gp}  # as `mpx schedule` does
        for r in score_schedulers(problem, ["hypergraph", "hperf", "optimal"], params=params):
            rows.append({"section": "schedulers", "catalog": rel, "pmu": pmu_name, "scheduler": r["scheduler"],
                         "groups": r["groups"], "utilization": r["utilization"],
                         "mean_sampling_ratio": r["mean_sampling_ratio"],
                         "mean_coschedule_ratio": r["mean_coschedule_ratio"], "errors": len(r["errors"]),
                         "skipped": (r["skipped"] or "")[:160]})
        show = {r["scheduler"]: r for r in rows[-3:]}
        print(f"{rel} on {pmu_name}: " + "  ".join(
            f"{s} " + (f"util={r['utilization']:.3f} SR={r['mean_sampling_ratio']:.3f} "
                       f"co={r['mean_coschedule_ratio']:.3f}" if not r["skipped"] else "skipped")
            for s, r in show.items()), flush=True)
    return rows


# --- reporting ---------------------------------------------------------------------------------------

def _row_line(rows: list[dict]) -> str:
    parts = [f"{rows[0]['case']} seed {rows[0]['seed']}:"]
    for r in rows:
        parts.append(f"{r['tool']} " + (f"km1={r['km1']} {r['seconds']:.2f}s" if "km1" in r else r["error"]))
    return "  ".join(parts)


def summary_rows(rows: list[dict]) -> list[dict]:
    """One row per case and tool: mean/min km1, mean/max seconds, feasibility, and the targets."""
    out = []
    part = [r for r in rows if r["section"] != "schedulers"]
    for case in dict.fromkeys(r["case"] for r in part):
        sel_case = [r for r in part if r["case"] == case and "km1" in r]
        stats = {}
        for tool in dict.fromkeys(r["tool"] for r in sel_case):
            sel = [r for r in sel_case if r["tool"] == tool]
            q = np.array([r["km1"] for r in sel], dtype=float)
            t = np.array([r["seconds"] for r in sel])
            stats[tool] = (q, t, all(r.get("feasible", False) for r in sel))
        for tool, (q, t, feas) in stats.items():
            row = {"section": sel_case[0]["section"], "case": case, "tool": tool, "runs": int(q.size),
                   "mean_km1": float(q.mean()), "min_km1": int(q.min()), "mean_seconds": float(t.mean()),
                   "max_seconds": float(t.max()), "all_feasible": feas, "target": ""}
            if tool == "mpx" and row["section"] == "ibm01":
                k = sel_case[0]["k"]
                ref = PUBLISHED.get(k)
                notes = []
                if ref:
                    notes.append(f"km1 ≤ {1.05 * ref:.1f}: {'met' if q.mean() <= 1.05 * ref else 'MISSED'} "
                                 f"({(q.mean() / ref - 1) * 100:+.1f} % vs published {ref})")
                if k == 8 and "kahypar" in stats:
                    kt = stats["kahypar"][1].mean()
                    notes.append(f"time ≤ 5 × KaHyPar ({5 * kt:.2f} s): {'met' if t.mean() <= 5 * kt else 'MISSED'} "
                                 f"({t.mean() / kt:.2f}×)")
                row["target"] = "; ".join(notes)
            elif tool == "mpx":
                notes = [f"< 1 s: {'met' if t.max() < 1 else 'MISSED'}", f"caps: {'met' if feas else 'MISSED'}"]
                if "mtkahypar" in stats:
                    best = stats["mtkahypar"][0].min()
                    notes.append(f"best ≤ Mt-KaHyPar best ({int(best)}): {'met' if q.min() <= best else 'MISSED'}")
                row["target"] = "; ".join(notes)
            out.append(row)
    return out


def scheduler_targets(rows: list[dict]) -> list[dict]:
    """Per catalog: hypergraph's figures minus hperf's (target: ≥ 0 each), and optimal's where it solved."""
    out = []
    sched = [r for r in rows if r["section"] == "schedulers"]
    for cat in dict.fromkeys(r["catalog"] for r in sched):
        by = {r["scheduler"]: r for r in sched if r["catalog"] == cat}
        h, p, o = by.get("hypergraph"), by.get("hperf"), by.get("optimal")
        row = {"catalog": cat, "pmu": h["pmu"]}
        for key in ("utilization", "mean_sampling_ratio", "mean_coschedule_ratio"):
            for name, r in (("hypergraph", h), ("hperf", p), ("optimal", o)):
                row[f"{name}_{key}"] = None if r is None or r["skipped"] else r[key]
        ok = all(row[f"hypergraph_{k}"] is not None and (row[f"hperf_{k}"] is None
                                                          or row[f"hypergraph_{k}"] >= row[f"hperf_{k}"] - 1e-12)
                 for k in ("utilization", "mean_sampling_ratio", "mean_coschedule_ratio"))
        row["at_least_hperf"] = ok
        row["optimal_skipped"] = o["skipped"] if o is not None else "not run"
        out.append(row)
    return out


def _markdown(rows: list[dict], cols: list[str]) -> str:
    def fmt(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3f}"
        return str(v).replace("|", "/")
    lines = ["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def write_outputs(out: Path, rows: list[dict], warm: float) -> None:
    import csv

    out.mkdir(parents=True, exist_ok=True)
    summ = summary_rows(rows)
    targets = scheduler_targets(rows)
    (out / "rows.json").write_text(json.dumps({"warmup_seconds": warm, "rows": rows}, indent=1, default=str))
    md = []
    if summ:
        cols = list(summ[0])
        with open(out / "partition.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols)
            w.writeheader()
            w.writerows(summ)
        md += ["## Partitioners (km1, seconds)", "", _markdown(summ, cols), ""]
    sched = [r for r in rows if r["section"] == "schedulers"]
    if sched:
        cols = ["catalog", "pmu", "scheduler", "groups", "utilization", "mean_sampling_ratio",
                "mean_coschedule_ratio", "errors", "skipped"]
        with open(out / "schedulers.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            w.writerows(sched)
        md += ["## Schedulers on the real catalogs", "", _markdown(sched, cols), "",
               "hypergraph at least hperf on utilization, mean sampling ratio and mean co-scheduling ratio: " +
               ", ".join(f"{t['catalog']}: {'yes' if t['at_least_hperf'] else 'NO'}" for t in targets), ""]
    (out / "summary.md").write_text("\n".join(md))
    print("\n".join(md))
    figure(out, summ, targets)


def figure(out: Path, summ: list[dict], targets: list[dict]) -> None:
    """Three panels: km1 relative to a reference per case (ibm01: KaHyPar's published mean; capped
    instances: Mt-KaHyPar's best), seconds per case, and the schedulers' mean co-scheduling ratio."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(17, 5.5))
    cases = list(dict.fromkeys(r["case"] for r in summ))
    colors = {"mpx": "C0", "kahypar": "C1", "mtkahypar": "C2"}
    width = 0.27
    for ax, what in ((axes[0], "km1"), (axes[1], "seconds")):
        for j, tool in enumerate(TOOLS):
            xs, ys = [], []
            for i, case in enumerate(cases):
                sel = {r["tool"]: r for r in summ if r["case"] == case}
                if tool not in sel:
                    continue
                if what == "km1":
                    if case.startswith("ibm01"):
                        ref = PUBLISHED.get(int(case.split("=")[1]))
                    else:
                        ref = sel["mtkahypar"]["min_km1"] if "mtkahypar" in sel else sel["mpx"]["min_km1"]
                    if not ref:
                        continue
                    ys.append(sel[tool]["mean_km1"] / ref)
                else:
                    ys.append(sel[tool]["mean_seconds"])
                xs.append(i + (j - 1) * width)
            ax.bar(xs, ys, width, label=tool, color=colors[tool])
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels([c.split(" (")[0].replace("events ", "ev ") for c in cases], rotation=60, ha="right",
                           fontsize=7)
        ax.legend(fontsize=8)
    axes[0].axhline(1.0, color="k", lw=0.8)
    axes[0].set_ylabel("mean km1 / reference")
    axes[0].set_title("km1 / (ibm01: KaHyPar published mean; others: Mt-KaHyPar best)", fontsize=8)
    lo = min((b.get_height() for b in axes[0].patches), default=0.9)
    axes[0].set_ylim(max(0.0, lo - 0.05), None)
    axes[1].set_ylabel("mean seconds per run")
    axes[1].set_yscale("log")
    ax = axes[2]
    for j, name in enumerate(("hypergraph", "hperf", "optimal")):
        ys = [t[f"{name}_mean_coschedule_ratio"] for t in targets]
        xs = [i + (j - 1) * width for i, y in enumerate(ys) if y is not None]
        ax.bar(xs, [y for y in ys if y is not None], width, label=name, color=f"C{j + 3}")
    ax.set_xticks(range(len(targets)))
    ax.set_xticklabels([t["catalog"] for t in targets], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("mean metric co-scheduling ratio")
    ax.legend(fontsize=8)
    fig.suptitle("mpx.partition vs KaHyPar / Mt-KaHyPar, and the hypergraph scheduler (experiments/analyses/partition_quality.py)",
                 fontsize=10)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(out / f"bench_partition.{ext}", dpi=130)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--ks", default="2,8,32", help="k values for ibm01 (default 2,8,32)")
    ap.add_argument("--compare", action="store_true", help="also run KaHyPar and Mt-KaHyPar (if installed)")
    ap.add_argument("--threads", type=int, default=1, help="Mt-KaHyPar threads (default 1)")
    ap.add_argument("--skip-ibm01", action="store_true")
    ap.add_argument("--skip-events", action="store_true")
    ap.add_argument("--skip-catalogs", action="store_true")
    ap.add_argument("--skip-schedulers", action="store_true")
    ap.add_argument("--out", default=str(REPO / "results" / "analyses" / "partition"),
                    help="folder for the tables and the figure (default results/analyses/partition)")
    args = ap.parse_args()
    t = time.perf_counter()
    from mpx.grouping.partitioned import grouping_context
    from mpx.partition import Hypergraph, partition

    partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2)
    partition(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), 2, max_block_weights=[2, 2], context=grouping_context(4))
    warm = time.perf_counter() - t
    print(f"import + first calls (load or compile the numba kernels): {warm:.2f} s", flush=True)
    tools = tools_available() if args.compare else []
    if args.compare:
        print(f"external tools: {', '.join(tools) or 'none installed'}", flush=True)
    rows: list[dict] = []
    if not args.skip_ibm01:
        if IBM01.exists():
            rows += measure_ibm01([int(x) for x in args.ks.split(",")], args.seeds, tools, args.threads)
        else:
            print(f"skipping ibm01: {IBM01} not found", flush=True)
    if not args.skip_events:
        rows += measure_events(args.seeds, tools, args.threads)
    if not (args.skip_catalogs and args.skip_schedulers) and not METRICS.exists():
        print(f"skipping the catalogs: {METRICS} not found", flush=True)
    else:
        if not args.skip_catalogs:
            rows += measure_catalogs(args.seeds, tools, args.threads)
        if not args.skip_schedulers:
            rows += measure_schedulers()
    print()
    write_outputs(Path(args.out), rows, warm)
    print(f"\nwrote {args.out}/summary.md, partition.csv, schedulers.csv, rows.json, bench_partition.png/.pdf")


if __name__ == "__main__":
    main()
