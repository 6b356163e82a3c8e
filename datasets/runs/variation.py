"""How much the repeated runs of datasets/runs/ differ: per event, the coefficient of variation (CV) across
runs of its whole-run total and (median over ten phases of each run's progress) of its count per phase; and
of the runs' lengths on callgrind's axis (instructions) and on the estimated-cycle axis.
    python datasets/runs/variation.py [RUNSET ...]      (default: every *.runs folder here)"""

import sys
from pathlib import Path

from mpx.recording.runset import RunSet

EVENTS = ("Ir", "Dr", "Dw", "Bc", "Bcm", "I1mr", "D1mr", "D1mw", "DLmr", "DLmw", "Ge")


def main(paths: list[str]) -> None:
    paths = paths or sorted(str(p) for p in Path(__file__).parent.glob("*.runs"))
    print(f"{'set':8} {'runs':>4} {'len CV % (instr)':>16} {'len CV % (cycles)':>17}  "
          + "  ".join(f"{e:>11}" for e in EVENTS))
    for p in paths:
        rs = RunSet.load(p)
        v, vc = rs.variation(EVENTS), rs.on_estimated_cycles().variation(EVENTS)
        cells = [f"{100 * t:5.2f}/{100 * ph:5.2f}" for t, ph in zip(v["total_cv"], vc["phase_cv"])]
        print(f"{rs.workload:8} {len(rs):4} {100 * v['length_cv']:16.3f} {100 * vc['length_cv']:17.3f}  "
              + "  ".join(f"{c:>11}" for c in cells))
    print("cells: CV % of the event's whole-run total / median CV % of its count per tenth of the run "
          "(estimated-cycle axis)")


if __name__ == "__main__":
    main(sys.argv[1:])
