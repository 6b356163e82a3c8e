"""How far can *any* estimator of the unmeasured quanta go? Oracle ceilings for issue 7's halving target.

An analysis, not a scaler: every oracle below **reads the ground truth** of the scored workload (other
events' true counts, or the event's own true counts in neighbouring quanta) — information no schedule
and no scaler has. Nothing in `mpx.scalers` uses it. If even an oracle cannot halve the best baseline's
error, the target needs information the counters do not give, not a better model of the same samples.

Setup as `bench_fusion.py` (18 callgrind events of the 9 shipped workloads, perf's rotation on
``generic-K``, quantum = one median interval, a read every 10 quanta, leave-one-workload-out; held-out
traces fitted on the 9 shipped ones). For every event, a window's estimate = its counted quanta exactly +
a prediction for the quanta it did not run (as `fusion` does). Predictions:

- ``fusion | others known``: the fusion model (learned as `fusion` is) with every *other* event observed
  in every quantum (their true log-rates) — the most the learned linear-Gaussian cross-event structure
  can give; causal (``fusion``) and offline (``fusion_smooth``) passes.
- ``fusion | trained in-sample``: `fusion` / `fusion_smooth` fitted on the scored workload's own ground
  truth as well (is what is learned from *other* programs the limit?).
- ``gbm | X``: scikit-learn ``HistGradientBoostingRegressor`` (absolute-error loss) on quantum log-rates,
  trained on the other workloads' ground truth, predicting the event's log-rate in a quantum from X =
  ``neighbours`` (its own true log-rates in the quanta just before and after), ``others`` (every other
  event's true log-rate in that quantum), or ``both``.

Errors (`fusion.per_workload`): the headline measure of ``docs/scoring.md`` (``wape_all``: WAPE on every
read window, mean over events, then over workloads) and ``ran`` (relative error per event and read window
where the event ran and the truth is meaningful; mean over windows, events, workloads), each also as a
ratio to linear scaling's.

The in-sample oracle trains on the scored trace on purpose: `mpx.scalers.base.Scaler.estimate` refuses that
(a scaler fitted on the trace it estimates), so `in_sample` lifts the guard for that one oracle, by name.

Run: ``python experiments/analyses/fusion_bound.py [--counters 4] [--heldout datasets/heldout/traces/*.npz]
[--json FILE]`` (~4 min per counter count on an idle 2-core machine); ``--baselines`` prints only the
baselines' headline per workload (linear, DIRA, DCAM, CAM, TAM: the best of them is what the halving target
is set against).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fusion as bf  # noqa: E402

from mpx import scalers  # noqa: E402

from mpx.datasets import shipped as datasets
from mpx.scoring.score import score, true_windows  # noqa: E402
from mpx.scoring.measures import HEADLINE_COLUMN  # noqa: E402
from mpx.metrics import builtin  # noqa: E402
from mpx.multiplex import multiplex  # noqa: E402
from mpx.scalers.base import Estimate, sum_quanta  # noqa: E402
from mpx.scalers.inference.kalman import rts_smoother  # noqa: E402

FEATURES = ("neighbours", "others", "both")


def fill(obs, pred: np.ndarray, name: str, causal: bool) -> Estimate:
    """Window estimates: counted quanta exactly, ``pred`` (counts per quantum) elsewhere."""
    ok = np.asarray(obs.quanta.running, dtype=bool)
    c = np.asarray(obs.quanta.counts, dtype=float)
    bounds = np.asarray(obs.reads.quanta, dtype=np.intp)
    counts = sum_quanta(np.where(ok, c, pred), bounds)
    ran = sum_quanta(ok.astype(float), bounds) > 0
    return Estimate(events=tuple(obs.events), edges=np.asarray(obs.reads.edges, dtype=float), counts=counts,
                    not_estimated=~ran, scaler=name, causal=causal, meta=dict(obs.meta))


def fusion_others_known(obs, truth: np.ndarray, train, smooth: bool) -> np.ndarray:
    """Per event, the fusion model's prediction with every other event's truth observed in every quantum."""
    s = scalers.get("fusion_smooth" if smooth else "fusion").fit(train)
    events = tuple(obs.events)
    quantum = float(obs.quantum)
    eps = 0.5 / quantum
    st = s.structure_.stats(events, quantum, float(s.noise_share), str(obs.time_unit))
    dur = np.diff(np.asarray(obs.quanta.edges, dtype=float))[:, None]
    ok = np.asarray(obs.quanta.running, dtype=bool)
    c = np.asarray(obs.quanta.counts, dtype=float)
    y_true = np.log(truth / dur + eps)
    y_obs = np.where(ok, np.log(np.where(ok, c, 0.0) / dur + eps), np.nan)
    ends = None if smooth else np.asarray(obs.reads.quanta, dtype=np.intp)[1:] - 1
    pred = np.zeros_like(c)
    for e in range(c.shape[1]):
        y = y_true.copy()
        y[:, e] = y_obs[:, e]
        m, _, _ = rts_smoother(y, np.broadcast_to(st["R"], y.shape), st["mu"], st["Sigma"], st["Q"],
                               segment_ends=ends, cov=False)
        pred[:, e] = dur[:, 0] * np.maximum(np.exp(np.minimum(m[:, e], st["top"][e])) - eps, 0.0)
    return pred


def in_sample(s):
    """An oracle, not a scaler: ``s`` fitted on the scored trace too, with the guard that refuses to estimate
    a training trace (`mpx.scalers.base.Scaler.estimate`) lifted for it alone."""
    s.training_checksums_ = frozenset()
    return s


def features(z: np.ndarray, e: int, kind: str) -> np.ndarray:
    """Rows for quanta 1 .. Q-2 of log-rates ``z[Q, E]``: the predictors of event ``e``."""
    own = [z[:-2, e:e + 1], z[2:, e:e + 1]]
    other = [np.delete(z[1:-1], e, axis=1)]
    return np.hstack({"neighbours": own, "others": other, "both": other + own}[kind])


def gbm(z_test: np.ndarray, z_train: list[np.ndarray], dur: np.ndarray, eps: float, kind: str) -> np.ndarray:
    from sklearn.ensemble import HistGradientBoostingRegressor

    pred = np.zeros_like(z_test)
    for e in range(z_test.shape[1]):
        a = np.vstack([features(z, e, kind) for z in z_train])
        b = np.concatenate([z[1:-1, e] for z in z_train])
        model = HistGradientBoostingRegressor(max_iter=200, loss="absolute_error", early_stopping=False).fit(a, b)
        p = np.full(z_test.shape[0], float(np.median(b)))  # the first and last quantum: no neighbours
        p[1:-1] = model.predict(features(z_test, e, kind))
        pred[:, e] = dur[:, 0] * np.maximum(np.exp(p) - eps, 0.0)
    return pred


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--counters", default="4")
    ap.add_argument("--read-every", type=int, default=10)
    ap.add_argument("--heldout", nargs="*", default=[])
    ap.add_argument("--json")
    ap.add_argument("--baselines", action="store_true",
                    help="print only the baselines' headline measure per workload (linear, DIRA, DCAM, CAM, TAM)")
    args = ap.parse_args()
    cat = builtin("callgrind")
    shipped = {n: datasets.load(n) for n in datasets.names()}
    held = {Path(p).stem: bf.load_trace(p) for p in args.heldout}
    ev = list(shipped[next(iter(shipped))].events)
    out: dict = {}
    for k in (int(x) for x in args.counters.split(",") if x):
        cache = {}
        for wl, tr in list(shipped.items()) + list(held.items()):
            tr = tr.select(ev) if wl in held else tr
            q = float(np.median(np.diff(tr.edges)))
            obs = multiplex(tr, bf.bench_problem(ev, k, cat), "perf", quantum=q, read_every=args.read_every)
            truth = true_windows(tr, ev, obs.quanta.edges)  # the trace's counts per quantum
            dur = np.diff(np.asarray(obs.quanta.edges, dtype=float))[:, None]
            cache[wl] = (tr, obs, truth, dur, np.log(truth / dur + 0.5 / q))
        if args.baselines:  # the best baseline on the headline, to set the oracles against
            for wl, (tr, obs, *_) in cache.items():
                got = {s: 100 * score(scalers.get(s).estimate(obs), tr).summary[HEADLINE_COLUMN]
                       for s in ("linear", "dira", "dcam", "cam", "tam")}
                print(f"  k={k} {wl}: " + ", ".join(f"{s} {v:.1f}%" for s, v in got.items()), flush=True)
            continue
        res = {}
        for wl, (tr, obs, truth, dur, z) in cache.items():
            train_names = [n for n in shipped if n != wl]
            train = [shipped[n] for n in train_names]
            eps = 0.5 / float(obs.quantum)
            ests = {"linear": scalers.get("linear").estimate(obs),
                    "fusion": scalers.get("fusion").fit(train).estimate(obs),
                    "fusion_smooth": scalers.get("fusion_smooth").fit(train).estimate(obs),
                    "fusion | trained in-sample": in_sample(scalers.get("fusion").fit(train + [tr])).estimate(obs),
                    "fusion_smooth | trained in-sample": in_sample(scalers.get("fusion_smooth").fit(train + [tr]))
                    .estimate(obs),
                    "fusion | others known": fill(obs, fusion_others_known(obs, truth, train, False), "o1", True),
                    "fusion_smooth | others known": fill(obs, fusion_others_known(obs, truth, train, True), "o2",
                                                         False)}
            for kind in FEATURES:
                pred = gbm(z, [cache[n][4] for n in train_names], dur, eps, kind)
                ests[f"gbm | {kind}"] = fill(obs, pred, kind, False)
            res[wl] = bf.per_workload(tr, obs, ests, cat)
            print(f"  k={k} {wl}: " + ", ".join(f"{lb} {100 * r['headline']:.1f}% / {100 * r['ran']:.1f}%"
                                                 for lb, r in res[wl].items()), flush=True)
        out[k] = res
        for group, names in (("shipped", list(shipped)), ("held-out", list(held))):
            if not names:
                continue
            print(f"\n### {group} ({len(names)} workloads), {k} counters: means over workloads\n")
            print("| estimate of the unmeasured quanta | reads the truth | headline (wape_all) | / linear | "
                  "ran | / linear |")
            print("|---|---|---|---|---|---|")
            lin = {m: np.mean([res[w]["linear"][m] for w in names]) for m in ("headline", "ran")}
            for lb in res[names[0]]:
                v = {m: np.mean([res[w][lb][m] for w in names]) for m in ("headline", "ran")}
                print(f"| {lb} | {'yes' if '|' in lb else 'no'} | {100 * v['headline']:.1f}% | "
                      f"{v['headline'] / lin['headline']:.2f} | {100 * v['ran']:.1f}% | {v['ran'] / lin['ran']:.2f} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
