"""Which top-down verdict can a user trust, and which indicator says when? (issue 26; `docs/verdicts.md`)

On the shipped gem5 datasets with the gem5 catalog (TMA level 1 and 2 defined exactly on full-simulator
counts), every (counters, scheduler, scaler) replay is scored for its top-down verdicts (`mpx.scoring.verdicts`):
per read window, the level-1 bottleneck read from the estimate against the true one, the level-2 verdict
under it, serious misses (the named node's true share more than 10 points below the bottleneck's), and
the whole-run verdict. Means over the workloads with 95 % bootstrap intervals (workloads resampled).

Then the indicators a tool could show beside a value, scored as predictors of that value's true error
(event-windows whose truth is meaningful, relative error):

- ``mux share``: 1 - the share of the window the event ran (toplev's ``[xx%]``, perf's running %);
- ``interval``: the relative half-width of the scaler's 90 % interval (BayesPerf, fusion, Tintin's σ);
- each scored by Spearman's rank correlation with the error and the AUC of flagging values more than 10 %
  off; ``caught``: the share of the values more than 10 % off that the tool's own flag marks (VTune's
  reliability below 0.7 is read as a running share below 0.7, its nearest documented quantity: VTune's own
  formula is not public; an interval flags when its half-width exceeds 10 %).
- for the verdicts: the probability a scaler with intervals gives its level-1 verdict (normal draws of the
  counts, as `mpx.scalers.trust`), against how often that verdict is right (Brier score, and the accuracy in
  bins of the stated probability).

    python experiments/analyses/verdicts.py                # counters 2, 4 and 8 (a few minutes)
    python experiments/analyses/verdicts.py --counters 4 --datasets gem5-phases gem5-xz   # a slice
    python experiments/analyses/verdicts.py --set steady   # the four 50 ms steady-state recordings, 0.4 ms reads
    python experiments/analyses/verdicts.py --json out.json

The learned scaler (fusion) is trained on the other gem5 datasets (leave-one-workload-out), as `mpx run`
does. Nothing here reads ground truth before scoring: the scalers see only the observation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scipy.stats import norm, spearmanr  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from mpx.datasets import shipped as datasets  # noqa: E402
from mpx.metrics import evaluate_metrics, resolve_catalog  # noqa: E402
from mpx.metrics.topdown import TopDown  # noqa: E402
from mpx.multiplex import multiplex  # noqa: E402
from mpx.problem import Problem  # noqa: E402
from mpx.scoring.replay import other_workloads, score_scalers  # noqa: E402

SCHEDULERS = ("perf", "round_robin", "hypergraph")
SCALERS = ("linear", "dcam", "bayesperf", "tintin", "fusion")
GEM5 = datasets.names("gem5")  # the 5 ms start-up recordings (collection main)
STEADY = datasets.names("gem5", "gem5-long")  # the 50 ms steady-state recordings
#: the two gem5 sets: their datasets (also the learned scaler's training pool) and quanta per read (one
#: quantum per dump)
SETS = {"start": (GEM5, 10), "steady": (STEADY, 8)}  # reads of 50 us (10 x 5 us) and 0.4 ms (8 x 50 us)
BOOT = 2000
Z90 = float(norm.ppf(0.95))


def interval(values: list[float], seed: int = 0) -> tuple[float, float, float]:
    """Mean over workloads and its 95 % bootstrap interval (workloads resampled)."""
    a = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if a.size == 0:
        return (np.nan, np.nan, np.nan)
    idx = np.random.default_rng(seed).integers(0, a.size, (BOOT, a.size))
    m = a[idx].mean(axis=1)
    return float(a.mean()), float(np.percentile(m, 2.5)), float(np.percentile(m, 97.5))


def verdict_probability(td: TopDown, catalog, events: list[str], est: np.ndarray, std: np.ndarray,
                        edges: np.ndarray, draws: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Per window: the estimate's level-1 verdict (index into td.level1, -1 none) and the probability of it
    from normal draws of the counts within the scaler's std (truncated at 0)."""
    w = est.shape[0]
    counts = {e: est[:, i] for i, e in enumerate(events)}
    point = evaluate_metrics(catalog, counts, names=td.level1, missing="skip")
    if len(point) < len(td.level1):
        return np.full(w, -1), np.full(w, np.nan)
    shares = np.vstack([point[n] for n in td.level1])
    ok = np.all(np.isfinite(shares), axis=0)
    verdict = np.where(ok, np.argmax(np.where(np.isfinite(shares), shares, -np.inf), axis=0), -1)
    sd = np.nan_to_num(std)
    drawn = {e: np.maximum(est[None, :, i] + sd[None, :, i] * rng.standard_normal((draws, w)), 0.0).ravel()
             for i, e in enumerate(events)}
    s = evaluate_metrics(catalog, drawn, names=td.level1, missing="skip")
    arr = np.stack([s[n].reshape(draws, w) for n in td.level1])
    best = np.argmax(np.where(np.isfinite(arr), arr, -np.inf), axis=0)
    prob = np.where(verdict >= 0, (best == verdict[None, :]).mean(axis=0), np.nan)
    return verdict, prob


def run(counters: list[int], names: list[str], schedulers: list[str], scalers_: list[str], draws: int,
        pool: list[str] = GEM5, read_every: int = 10) -> dict:
    catalog = resolve_catalog("gem5")
    td = TopDown.from_catalog(catalog)
    events = sorted(catalog.used_events)
    traces = {n: datasets.load(n) for n in names}
    every = {n: datasets.load(n) for n in pool}  # fusion trains on the others of the same set
    verdict_rows, values, probs = [], [], []
    rng = np.random.default_rng(0)
    for c in counters:
        pmu = "gem5-o3-g4" if c == 4 else ("gem5-o3-g8" if c == 8 else None)
        for name, tr in traces.items():
            problem = Problem(events, pmu) if pmu else Problem(events, _resized(c))
            for sched in schedulers:
                obs = multiplex(tr, problem, sched, quantum=tr.edges[1] - tr.edges[0], read_every=read_every)
                share = np.asarray(obs.reads.running, float) / np.maximum(np.asarray(obs.reads.enabled, float), 1e-300)
                train = other_workloads(every.values(), tr.meta.get("workload"), lambda t: t.meta.get("workload"))
                for res in score_scalers(obs, tr, [(s, {}) for s in scalers_], catalog, train=train):
                    if res.status != "done":
                        print(f"not scored: {c} counters, {name}, {sched}, {res.name}: {res.reason}", file=sys.stderr)
                        continue
                    sm, sc = res.scores.summary, res.scores
                    verdict_rows.append({"counters": c, "workload": name, "scheduler": sched, "scaler": res.name,
                                         **{k: sm.get(k) for k in sm if k.startswith("verdict_")},
                                         "confusion": None if sc.verdicts is None
                                         else sc.verdicts["l1_confusion"].tolist()})
                    win = sc.windows
                    truth, est, std = win["truth"], win["estimate"], win["std"]
                    ok = win["meaningful"] & np.isfinite(est)
                    err = np.abs(est - truth) / np.where(truth > 0, truth, 1.0)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        width = Z90 * std / np.abs(est)
                    values.append({"counters": c, "scheduler": sched, "scaler": res.name, "workload": name,
                                   "err": err[ok], "share": share[ok] if share.shape == ok.shape else None,
                                   "width": width[ok] if np.isfinite(std).any() else None})
                    if np.isfinite(std).any():
                        v, p = verdict_probability(td, catalog, list(sc.event_names), est, std, sc.edges, draws, rng)
                        tm = sc.metric_windows["truth"]
                        col = {n: j for j, n in enumerate(sc.metric_names)}
                        if all(n in col for n in td.level1):
                            t1 = np.vstack([tm[:, col[n]] for n in td.level1])
                            tv = np.where(np.all(np.isfinite(t1), axis=0), np.argmax(np.nan_to_num(t1, nan=-1), axis=0), -1)
                            keep = (v >= 0) & (tv >= 0) & np.isfinite(p)
                            probs.append({"counters": c, "scheduler": sched, "scaler": res.name,
                                          "p": p[keep], "right": (v == tv)[keep]})
    return {"verdicts": verdict_rows, "values": values, "probs": probs}


def _resized(c: int):
    from mpx.pmu import preset

    return preset("gem5-o3-g4").with_generic_counters(c)


def predictor(err: np.ndarray, score: np.ndarray, flag: np.ndarray) -> dict:
    ok = np.isfinite(err) & np.isfinite(score)
    e, s, f = err[ok], score[ok], flag[ok]
    bad = e > 0.10
    out = {"n": int(ok.sum()), "bad_share": float(bad.mean()) if ok.any() else np.nan}
    out["spearman"] = float(spearmanr(s, e).statistic) if ok.sum() > 2 and np.ptp(s) > 0 else np.nan
    out["auc"] = float(roc_auc_score(bad, s)) if 0 < bad.sum() < bad.size else np.nan
    out["caught"] = float(f[bad].mean()) if bad.any() else np.nan
    out["flagged"] = float(f.mean()) if ok.any() else np.nan
    return out


def tables(res: dict) -> str:
    lines = []
    rows = res["verdicts"]
    keys = sorted({(r["counters"], r["scheduler"], r["scaler"]) for r in rows})
    lines.append("Top-down verdicts on the gem5 datasets (gem5 catalog; share of read windows, mean over workloads "
                 "[95 % bootstrap interval]; run = whole-run level-1 verdict right, share of workloads)")
    lines.append(f"{'counters':>8}  {'scheduler':<12} {'scaler':<10} {'L1 right':>22} {'L2 right':>22} "
                 f"{'L1 serious':>22} {'no verdict':>10} {'out of range':>12} {'run L1':>7}")
    for c, s, a in keys:
        sel = [r for r in rows if (r["counters"], r["scheduler"], r["scaler"]) == (c, s, a)]

        def iv(k: str) -> str:
            m, lo, hi = interval([r.get(k) for r in sel])
            return "-" if not np.isfinite(m) else f"{100 * m:5.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}]"
        oor = interval([r.get("verdict_out_of_range") for r in sel])[0]
        nov = interval([r.get("verdict_no_verdict") for r in sel])[0]
        run_ = interval([r.get("verdict_run_l1") for r in sel])[0]
        lines.append(f"{c:>8}  {s:<12} {a:<10} {iv('verdict_l1_agreement'):>22} {iv('verdict_l2_agreement'):>22} "
                     f"{iv('verdict_l1_serious'):>22} {'-' if not np.isfinite(nov) else f'{100 * nov:.1f}':>10} "
                     f"{'-' if not np.isfinite(oor) else f'{100 * oor:.1f}':>12} "
                     f"{'-' if not np.isfinite(run_) else f'{100 * run_:.0f}':>7}")
    lines.append("")
    lines.append(constant_table(rows))
    lines.append("")
    lines.append("perf + linear, the whole-run level-1 verdict per workload (the pmu-tools#370 question): right / wrong")
    for c in sorted({r["counters"] for r in rows}):
        sel = [r for r in rows if r["counters"] == c and r["scheduler"] == "perf" and r["scaler"] == "linear"]
        wrong = [r["workload"] for r in sel if r.get("verdict_run_l1") == 0.0]
        none = [r["workload"] for r in sel if r.get("verdict_run_l1") is None]
        lines.append(f"  {c} counters: {len(sel) - len(wrong) - len(none)} right, {len(wrong)} wrong "
                     f"({', '.join(wrong) or '-'}), {len(none)} without a verdict")
    lines.append("")
    lines.append("Indicators as predictors of a value's true error (event-windows with a meaningful truth; values "
                 "more than 10 % off are 'bad')")
    lines.append(f"{'counters':>8}  {'scheduler':<12} {'scaler':<10} {'indicator':<18} {'bad %':>6} {'Spearman':>9} "
                 f"{'AUC':>6} {'caught %':>9} {'flagged %':>10}")
    groups = sorted({(v["counters"], v["scheduler"], v["scaler"]) for v in res["values"]})
    for c, s, a in groups:
        sel = [v for v in res["values"] if (v["counters"], v["scheduler"], v["scaler"]) == (c, s, a)]
        err = np.concatenate([v["err"] for v in sel])
        cand = []
        if all(v["share"] is not None for v in sel):
            sh = np.concatenate([v["share"] for v in sel])
            cand.append(("mux share (<0.7)", 1 - sh, sh < 0.7))
        if all(v["width"] is not None for v in sel):
            wd = np.concatenate([v["width"] for v in sel])
            cand.append(("interval (>10 %)", wd, wd > 0.10))
        for label, score, flag in cand:
            p = predictor(err, score, flag)
            lines.append(f"{c:>8}  {s:<12} {a:<10} {label:<18} {100 * p['bad_share']:6.1f} {p['spearman']:9.2f} "
                         f"{p['auc']:6.2f} {100 * p['caught']:9.1f} {100 * p['flagged']:10.1f}")
    if res["probs"]:
        lines.append("")
        lines.append("The stated probability of the level-1 verdict against how often it is right (scalers with "
                     "intervals; Brier score, lower is better; accuracy per bin of the stated probability)")
        for c, s, a in sorted({(p["counters"], p["scheduler"], p["scaler"]) for p in res["probs"]}):
            sel = [p for p in res["probs"] if (p["counters"], p["scheduler"], p["scaler"]) == (c, s, a)]
            pr = np.concatenate([p["p"] for p in sel])
            rt = np.concatenate([p["right"] for p in sel]).astype(float)
            if pr.size == 0:
                continue
            brier = float(np.mean((pr - rt) ** 2))
            bins = [(0.0, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01)]
            parts = []
            for lo, hi in bins:
                m = (pr >= lo) & (pr < hi)
                if m.any():
                    parts.append(f"p {lo:.2f}-{min(hi, 1):.2f}: {100 * rt[m].mean():.0f} % right of {int(m.sum())}")
            lines.append(f"  {c} counters, {s}, {a}: Brier {brier:.3f}; " + "; ".join(parts))
    return "\n".join(lines)


def constant_table(rows: list[dict]) -> str:
    """The null baseline of a per-window verdict: perf + linear's whole-run level-1 verdict named in every read
    window (``verdict_const_*`` of its rows), beside every (scheduler, scaler), on all windows and on the contested
    ones (`mpx.scoring.verdicts.contested`); a row that does not beat the constant on contested windows is marked."""
    out = ["The constant verdict (perf + linear's whole-run level-1 verdict in every window) against each replay: "
           "level-1 right, % of read windows, all and contested (true top two < 5 points apart, or the true "
           "bottleneck changed), mean over workloads [95 % bootstrap interval]",
           f"{'counters':>8}  {'scheduler':<12} {'scaler':<18} {'contested %':>11} {'L1 right':>22} "
           f"{'L1 right, contested':>22} {'vs constant, contested':>22}"]
    for c in sorted({r["counters"] for r in rows}):
        base = {r["workload"]: r for r in rows if r["counters"] == c and r["scheduler"] == "perf"
                and r["scaler"] == "linear"}
        if not base:
            continue

        def iv(vals: list) -> str:
            m, lo, hi = interval(vals)
            return "-" if not np.isfinite(m) else f"{100 * m:5.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}]"
        const_c = [base[w].get("verdict_const_l1_contested") for w in sorted(base)]
        share = interval([base[w].get("verdict_contested_share") for w in sorted(base)])[0]
        out.append(f"{c:>8}  {'perf':<12} {'linear: constant':<18} {100 * share:11.1f} "
                   f"{iv([base[w].get('verdict_const_l1') for w in sorted(base)]):>22} {iv(const_c):>22} {'':>22}")
        for s, a in sorted({(r["scheduler"], r["scaler"]) for r in rows if r["counters"] == c}):
            sel = {r["workload"]: r for r in rows if (r["counters"], r["scheduler"], r["scaler"]) == (c, s, a)}
            ws = sorted(set(sel) & set(base))
            diff = [None if sel[w].get("verdict_l1_contested") is None or base[w].get("verdict_const_l1_contested")
                    is None else sel[w]["verdict_l1_contested"] - base[w]["verdict_const_l1_contested"] for w in ws]
            m, k = interval(diff), sum(d is not None for d in diff)
            mark = "-" if not np.isfinite(m[0]) else (f"{100 * m[0]:+5.1f} [{100 * m[1]:+5.1f}, {100 * m[2]:+5.1f}]"
                                                     + ("" if m[1] > 0 and k > 1 else " *") + f" ({k})")
            out.append(f"{c:>8}  {s:<12} {a:<18} {'':>11} {iv([sel[w].get('verdict_l1_agreement') for w in ws]):>22} "
                       f"{iv([sel[w].get('verdict_l1_contested') for w in ws]):>22} {mark:>22}")
    out.append("(vs constant: the row's L1 right on contested windows minus the constant's, points, paired per "
               "workload, (k) the workloads with contested windows; * = its 95 % interval does not lie above 0, or one "
               "workload only: not shown to beat the constant verdict)")
    return "\n".join(out)


def markdown(rows: list[dict], command: str) -> str:
    """The study's verdict and constant-verdict table as markdown for docs/verdicts.md, under the header
    `experiments/doc_tables.py` splices (block ``verdicts-<set>``, ``command``, the commit)."""
    def pct(vals: list, ci: bool = True) -> str:
        m, lo, hi = interval(vals)
        return "-" if not np.isfinite(m) else (f"{100 * m:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]" if ci
                                               else f"{100 * m:.1f} %")
    out = [command,
           "| counters | scheduler | scaler | level 1 right | level 1 and 2 right | serious misses | no verdict "
           "| contested windows | level 1 right, contested | constant verdict, contested | beats the constant |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in sorted({r["counters"] for r in rows}):
        base = {r["workload"]: r for r in rows if r["counters"] == c and r["scheduler"] == "perf"
                and r["scaler"] == "linear"}
        if base:
            ws = sorted(base)
            out.append(f"| {c} | perf | constant (linear's whole-run verdict) | "
                       f"{pct([base[w].get('verdict_const_l1') for w in ws])} | - | - | 0 % | "
                       f"{pct([base[w].get('verdict_contested_share') for w in ws], False)} | "
                       f"{pct([base[w].get('verdict_const_l1_contested') for w in ws])} | - | - |")
        for s, a in sorted({(r["scheduler"], r["scaler"]) for r in rows if r["counters"] == c}):
            sel = {r["workload"]: r for r in rows if (r["counters"], r["scheduler"], r["scaler"]) == (c, s, a)}
            ws = sorted(sel)
            diff = [None if sel[w].get("verdict_l1_contested") is None or w not in base
                    or base[w].get("verdict_const_l1_contested") is None
                    else sel[w]["verdict_l1_contested"] - base[w]["verdict_const_l1_contested"] for w in ws]
            m, k = interval(diff), sum(d is not None for d in diff)
            beats = "-" if not np.isfinite(m[0]) else (
                f"{'yes' if m[1] > 0 and k > 1 else ('no' if m[2] < 0 and k > 1 else 'not shown')} "
                f"({100 * m[0]:+.1f} points [{100 * m[1]:+.1f}, {100 * m[2]:+.1f}], {k} of {len(ws)} programs)")
            out.append(f"| {c} | {s} | {a} | {pct([sel[w].get('verdict_l1_agreement') for w in ws])} | "
                       f"{pct([sel[w].get('verdict_l2_agreement') for w in ws])} | "
                       f"{pct([sel[w].get('verdict_l1_serious') for w in ws])} | "
                       f"{pct([sel[w].get('verdict_no_verdict') for w in ws], False)} | "
                       f"{pct([sel[w].get('verdict_contested_share') for w in ws], False)} | "
                       f"{pct([sel[w].get('verdict_l1_contested') for w in ws])} | "
                       f"{pct([base[w].get('verdict_const_l1_contested') for w in ws if w in base])} | {beats} |")
    return "\n".join(out)


def figure(res: dict, td: TopDown, path: str, counters: int) -> None:
    """The level-1 confusion (true node x estimated node, rows normalised) per scheduler x scaler, summed over
    the workloads, at ``counters``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in res["verdicts"] if r["counters"] == counters and r["confusion"] is not None]
    scheds = sorted({r["scheduler"] for r in rows})
    scals = sorted({r["scaler"] for r in rows})
    short = [n.replace("tma_", "").replace("_", " ") for n in td.level1] + ["none"]
    fig, axes = plt.subplots(len(scheds), len(scals), figsize=(6.3, 1.5 * len(scheds) + 0.6), squeeze=False)
    for i, s in enumerate(scheds):
        for j, a in enumerate(scals):
            ax = axes[i][j]
            sel = [np.asarray(r["confusion"]) for r in rows if r["scheduler"] == s and r["scaler"] == a]
            if j == 0:
                ax.set_ylabel(f"{s}\ntrue", fontsize=6)
            if not sel:
                ax.set_xticks([])
                ax.set_yticks([])
                ax.text(0.5, 0.5, "no verdict scored", ha="center", va="center", fontsize=6, transform=ax.transAxes)
                continue
            m = np.sum(sel, axis=0).astype(float)
            m = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
            ax.imshow(m, vmin=0, vmax=1, cmap="Greys")
            ax.set_xticks(range(len(short)))
            ax.set_yticks(range(len(td.level1)))
            ax.set_xticklabels(short if i == len(scheds) - 1 else [], rotation=90, fontsize=5)
            ax.set_yticklabels(short[:-1] if j == 0 else [], fontsize=5)
            if i == 0:
                ax.set_title(a, fontsize=7)
    fig.suptitle(f"Level-1 verdict, true (rows) vs estimated (columns), {counters} counters, gem5 datasets",
                 fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--counters", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--set", choices=sorted(SETS), default="start", help="start: the ten 5 ms start-up traces, a "
                    "read every 50 us; steady: the four 50 ms steady-state recordings, a read every 0.4 ms")
    ap.add_argument("--datasets", nargs="+", help="a subset of the set's datasets (default: all of them)")
    ap.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS))
    ap.add_argument("--scalers", nargs="+", default=list(SCALERS))
    ap.add_argument("--draws", type=int, default=200, help="normal draws per window for the verdict probability")
    ap.add_argument("--json", metavar="OUT", help="also write the per-workload verdict rows as JSON")
    ap.add_argument("--markdown", metavar="OUT.md", help="also write the verdict and constant-verdict tables as "
                    "markdown (what docs/verdicts.md splices in: experiments/doc_tables.py)")
    ap.add_argument("--from-json", metavar="IN", help="render the tables of a previous --json run (verdict rows "
                    "only: no indicator tables) instead of replaying")
    ap.add_argument("--at", metavar="COMMIT", help="with --from-json: the commit the JSON's run was made at (the "
                    "markdown header names it; default: this checkout's)")
    ap.add_argument("--figure", metavar="OUT.png", help="also draw the level-1 confusion per scheduler x scaler "
                    "(at 4 counters, or the first of --counters)")
    args = ap.parse_args(argv)
    header = _doc_header(args)
    if args.from_json:
        rows = json.loads(Path(args.from_json).read_text())
        if args.markdown:
            _write_markdown(args.markdown, markdown(rows, header))
        if args.markdown != "-":
            print(constant_table(rows))
        return 0
    t0, c0 = time.time(), time.process_time()
    pool, read_every = SETS[args.set]
    res = run(args.counters, args.datasets or pool, args.schedulers, args.scalers, args.draws, pool, read_every)
    if args.markdown != "-":
        print(tables(res))
        print(f"\n({len(res['verdicts'])} replays scored in {time.time() - t0:.0f} s wall, "
              f"{time.process_time() - c0:.0f} s CPU)")
    if args.json:
        Path(args.json).write_text(json.dumps(res["verdicts"], indent=1, default=float))
    if args.markdown:
        _write_markdown(args.markdown, markdown(res["verdicts"], header))
    if args.figure:
        figure(res, TopDown.from_catalog(resolve_catalog("gem5")), args.figure,
               4 if 4 in args.counters else args.counters[0])
    return 0


def _doc_header(args: argparse.Namespace) -> str:
    """The generated-block header of this run's markdown: the command that prints the same table on stdout
    (the study's settings, ``--markdown -``) and the commit (`experiments/doc_tables.py`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import doc_tables

    cmd = ["python experiments/analyses/verdicts.py", "--set", args.set]
    if args.counters != [2, 4, 8]:
        cmd += ["--counters", *map(str, args.counters)]
    for flag, val, default in (("--datasets", args.datasets, None), ("--schedulers", args.schedulers, list(SCHEDULERS)),
                               ("--scalers", args.scalers, list(SCALERS))):
        if val and val != default:
            cmd += [flag, *val]
    if args.draws != 200:
        cmd += ["--draws", str(args.draws)]
    at = args.at if args.from_json and args.at else doc_tables.commit()
    return doc_tables.block_header(f"verdicts-{args.set}", " ".join(cmd) + " --markdown -", at)


def _write_markdown(where: str, text: str) -> None:
    if where == "-":
        print(text)
    else:
        Path(where).write_text(text + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
