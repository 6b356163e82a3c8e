"""How many perf groups the Arm Top-down Tool's merge gives, over Python hash seeds.

The tool (telemetry-solution ``topdown_tool/perf/event_scheduler.py``) merges ``set(metrics)`` in the
set's iteration order, which depends on ``PYTHONHASHSEED``. Its ``Event`` hashes as
``hash((name, title, description, code))``, so a tuple of such 4-tuples hashes exactly like the tool's
tuple of Events: each child process below builds the tool's metric list (stage-1 then stage-2 metric
groups, metric names sorted, each metric's events sorted by name, duplicates kept), puts it in a set
under one hash seed and prints the iteration order; the parent merges in that order with
`mpx.schedulers.arm_topdown.optimize_event_groups` (max_events = 6).

    /work/venv/bin/python experiments/analyses/arm_topdown_order.py [N_SEEDS] [SPEC.json ...]
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from mpx.schedulers.arm_topdown import optimize_event_groups, tool_metric_order

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "metrics" / "arm-telemetry"

def tool_tuples_listed(spec: dict) -> list[tuple[str, ...]]:
    stages = spec["methodologies"]["topdown_methodology"]["metric_grouping"]
    out = []
    for g in stages["stage_1"] + stages["stage_2"]:
        for m in sorted(spec["groups"]["metrics"][g]["metrics"]):
            out.append(tuple(sorted(spec["metrics"][m]["events"])))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    files = sys.argv[2:] or [str(SHARED / f) for f in ("neoverse-n1.json", "neoverse-v1.json", "neoverse-v2.json")]
    for f in files:
        spec = json.loads(Path(f).read_text())
        listed = len(optimize_event_groups(tool_tuples_listed(spec), 6))
        counts: collections.Counter = collections.Counter()
        for seed in range(n):
            counts[len(optimize_event_groups(tool_metric_order(f, seed), 6))] += 1
        dist = ", ".join(f"{k} groups: {v}" for k, v in sorted(counts.items()))
        print(f"{Path(f).name}: listed order {listed} groups; over {n} hash seeds: {dist}")


if __name__ == "__main__":
    main()
