"""`mpx schedule` on every real catalog of ``shared/data/metrics`` with a fitting PMU preset: one table.

    /work/venv/bin/python experiments/analyses/schedule_catalogs.py [--json]

PMU choices: LIKWID skylake groups need HT off (PORT_USAGE uses PMC0-7); Neoverse V1 has the same
6-counter PMUv3 layout as the V2 preset; hperf's Cascade Lake core is Skylake's; Kunpeng 920 gets 12
generic counters (hperf's available_GP). hperf's own available_GP is used for its catalogs, as
``mpx schedule`` does. Online schedulers run on the synthetic trace of ``mpx schedule`` (seed 0).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from mpx import schedulers
from mpx.metrics import load_catalog
from mpx.pmu import preset
from mpx.problem import Problem
from mpx.scoring.schedules import score_schedulers

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "metrics"

CASES = [
    ("likwid/skylake", "skylake-htoff"),
    ("likwid/ICL", "icelake"),
    ("likwid/arm8_n1", "neoverse-n1"),
    ("arm-telemetry/neoverse-n1.json", "neoverse-n1"),
    ("arm-telemetry/neoverse-v1.json", "neoverse-v2"),
    ("arm-telemetry/neoverse-v2.json", "neoverse-v2"),
    ("hperf/intel_cascadelake.json", "skylake"),
    ("hperf/intel_icelake.json", "icelake"),
    ("hperf/arm.json", "neoverse-n1"),
    ("hperf/arm_kunpeng.json", "generic-12"),
    ("linux-perf/x86/skylake", "skylake"),
    ("linux-perf/arm64", "yitian710-drw"),
]


def fmt(v):
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def main() -> None:
    out = []
    for rel, pmu_name in CASES:
        cat = load_catalog(str(SHARED / rel))
        problem = Problem.from_catalog(cat, preset(pmu_name))
        params = {}
        gp = cat.platform.get("available_GP")
        if isinstance(gp, int):
            params["hperf"] = {"available_gp": gp}
        t0 = time.time()
        rows = score_schedulers(problem, schedulers.available(), params=params)
        for r in rows:
            r["catalog"], r["pmu"] = rel, pmu_name
        out += rows
        print(f"# {rel} on {pmu_name}: {problem.n_events} events ({len(problem.free)} free), "
              f"{len(problem.metrics)} metrics, {len(problem.groups)} groups ({problem.meta['groups_from']}), "
              f"{problem.n_counters()} counters; {time.time() - t0:.1f} s", file=sys.stderr)
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1, default=str))
        return
    print("| catalog | PMU | scheduler | groups | util | mean SR | min SR | mean co-sched | errors |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in out:
        if r["skipped"]:
            print(f"| {r['catalog']} | {r['pmu']} | {r['scheduler']} | skipped: {r['skipped'][:110]} | | | | | |")
        else:
            print(f"| {r['catalog']} | {r['pmu']} | {r['scheduler']} | {r['groups']} | {fmt(r['utilization'])} | "
                  f"{fmt(r['mean_sampling_ratio'])} | {fmt(r['min_sampling_ratio'])} | "
                  f"{fmt(r['mean_coschedule_ratio'])} | {len(r['errors'])} |")


if __name__ == "__main__":
    main()
