"""Where trace alignment loses, event by event: per-event WAPE (all read windows of the reference run) of
the best aligner against the best one-run multiplexing scaler, on the repeated runs of datasets/runs/,
the settings of experiments/alignment.toml (estimated-cycle axis, perf stat -e of 14 events, a read
every 10 quanta), medians over references 0-2.
    python experiments/analyses/alignment_events.py [--counters 4] [--markdown -]

``--markdown -`` prints the table as the generated block of docs/alignment.md (`experiments/doc_tables.py`)."""

import argparse
import sys
from pathlib import Path

import numpy as np

from mpx import aligners, scalers
from mpx.scoring.measures import event_measures
from mpx.multiplex import multiplex, resolve_quantum
from mpx.problem import Problem
from mpx.aligners.measure import measure_runs, plan_runs
from mpx.recording.runset import RunSet

EVENTS = ["Ir", "Dr", "Dw", "Bc", "Bi", "Bcm", "Bim", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Ge"]
RUNS = Path(__file__).resolve().parents[2] / "datasets" / "runs"
#: the best of each road per set at 4 counters in experiments/alignment.toml's report
BEST = {"pywc": (("dtw", "Ir"), "dcam"), "plwc": (("naive", "time"), "bayesperf"), "xz-t2": (("dtw", "Ir"), "dcam")}


def wape(est, trace) -> np.ndarray:
    truth = trace.rebin(est.events, est.edges)
    return event_measures(est.counts, truth, np.ones(truth.shape, bool), np.zeros(truth.shape[1]))["wape"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counters", type=int, default=4)
    ap.add_argument("--markdown", metavar="OUT", help="the table as a markdown block ('-': stdout)")
    args = ap.parse_args()
    k = args.counters
    problem = Problem(EVENTS, f"generic-{k}")
    cols = {}
    for name, ((aligner, anchor), scaler) in BEST.items():
        rs = RunSet.load(RUNS / f"{name}.runs").on_estimated_cycles()
        al, mx = [], []
        for ref in range(3):
            truth = rs.traces[ref]
            q = resolve_quantum({"quantum_intervals": 1}, truth)[0]
            plan = plan_runs(problem, "round_robin", anchor)
            exact = [scalers.get("linear").estimate(o) for o in measure_runs(rs, problem, plan, q, 10, ref)]
            al.append(wape(aligners.get(aligner).align(exact, anchor), truth))
            mx.append(wape(scalers.get(scaler).estimate(multiplex(truth, problem, "perf", q, 10)), truth))
        cols[name] = (f"{aligner}@{anchor}", scaler, np.median(al, axis=0), np.median(mx, axis=0))
    if args.markdown:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import doc_tables

        cmd = ("python experiments/analyses/alignment_events.py" + (f" --counters {k}" if k != 4 else "")
               + " --markdown -")
        lines = [doc_tables.block_header(f"alignment-events-{k}", cmd, doc_tables.commit()),
                 f"{k} counters, per event: WAPE % of the best alignment / of the best one-run multiplexing (medians "
                 "over references 0-2); * where alignment is worse", "",
                 "| event | " + " | ".join(f"{n}: {a} / {s}" for n, (a, s, _, _) in cols.items()) + " |",
                 "| --- |" + " --- |" * len(cols)]
        for i, e in enumerate(EVENTS):
            lines.append(f"| {e} | " + " | ".join(f"{100 * x[i]:.1f} / {100 * y[i]:.1f}{' *' if x[i] > y[i] else ''}"
                                                  for _, _, x, y in cols.values()) + " |")
        text = "\n".join(lines) + "\n"
        if args.markdown == "-":
            print(text)
        else:
            Path(args.markdown).write_text(text)
        return
    print(f"{k} counters; per event: alignment WAPE % / multiplexing WAPE % (medians over references 0-2); "
          "* where alignment is worse")
    print(f"{'set':6} {'method':22} " + " ".join(f"{e:>11}" for e in EVENTS))
    for name, (a_label, scaler, a, m) in cols.items():
        cells = [f"{100 * x:4.1f}/{100 * y:4.1f}{'*' if x > y else ' '}" for x, y in zip(a, m)]
        print(f"{name:6} {a_label + ' / ' + scaler:22} " + " ".join(f"{c:>11}" for c in cells))


if __name__ == "__main__":
    main()
