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
import os
import subprocess
import sys
from pathlib import Path

from mpx.schedulers.arm_topdown import optimize_event_groups

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "metrics" / "arm-telemetry"

CHILD = r"""
import json, sys
spec = json.load(open(sys.argv[1]))
ev = spec["events"]
def key(name):
    e = ev[name]
    code = e.get("code")
    code = int(code, 16) if isinstance(code, str) else code
    return (name, e.get("title"), e.get("description"), code)
stages = spec["methodologies"]["topdown_methodology"]["metric_grouping"]
metrics = []
for g in stages["stage_1"] + stages["stage_2"]:
    for m in sorted(spec["groups"]["metrics"][g]["metrics"]):
        metrics.append(tuple(key(e) for e in sorted(spec["metrics"][m]["events"])))
order = list({g: None for g in set(metrics)})
print(json.dumps([[k[0] for k in t] for t in order]))
"""


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
            env = {**os.environ, "PYTHONHASHSEED": str(seed)}
            out = subprocess.run([sys.executable, "-c", CHILD, f], env=env, capture_output=True, text=True,
                                 check=True).stdout
            order = [tuple(t) for t in json.loads(out)]
            counts[len(optimize_event_groups(order, 6))] += 1
        dist = ", ".join(f"{k} groups: {v}" for k, v in sorted(counts.items()))
        print(f"{Path(f).name}: listed order {listed} groups; over {n} hash seeds: {dist}")


if __name__ == "__main__":
    main()
