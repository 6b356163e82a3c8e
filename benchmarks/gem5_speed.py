"""gem5's simulation speed on this machine, per CPU model: instructions per host second of the atomic, timing
and out-of-order (O3) CPUs, on one program (what plans the long steady-state recordings: issue 25).

    MPX_GEM5=/path/gem5.fast python benchmarks/gem5_speed.py [--ff 20000000] [--o3 2000000] [--workload xz]

Two gem5 runs of ``mpx/data/gem5/se_periodic.py`` on the shipped machine (`mpx.recording.gem5.HARDWARE`):
the program runs ``--ff`` instructions on the atomic CPU (resp. the timing CPU; caches attached, as in a
recording's fast-forward), then ``--o3`` instructions on the O3 core (the warm-up phase), and the
configuration prints the host seconds of each phase. Host seconds are wall time: say the load (``uptime``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mpx.recording.callgrind import CLEAN_ENV
from mpx.recording.gem5 import CONFIG, HARDWARE, find_gem5, gem5_command

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = {
    # name: (setup commands run in the work folder, program argv)
    "xz": ([[sys.executable, str(ROOT / "datasets" / "generate.py"), "text", "--seed", "11", "--bytes", "3000000",
             "-o", "text.txt"]], ["/usr/bin/xz", "-6", "-T1", "-c", "text.txt"]),
    "phases": ([["gcc", "-O2", "-o", "kernels5", str(ROOT / "datasets" / "gem5" / "workloads" / "kernels5.c")]],
               ["./kernels5", "phases"]),
}


def run(binary: str, work: Path, argv: list[str], ff: int, o3: int, ff_cpu: str) -> dict:
    hw = work / "hw.json"
    hw.write_text(json.dumps(HARDWARE))
    out = work / f"m5out-{ff_cpu}"
    cmd = gem5_command(binary, out, hw, 100_000, work, [str((work / argv[0]).resolve()) if argv[0].startswith("./")
                                                       else argv[0], *argv[1:]], CLEAN_ENV, max_dumps=1,
                       fast_forward_insts=ff, warmup_insts=o3, stdout="out.txt")
    cmd.insert(cmd.index("--"), "--ff-cpu")
    cmd.insert(cmd.index("--"), ff_cpu)
    t0, c0 = time.time(), os.times()
    res = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=dict(CLEAN_ENV))
    wall, c1 = time.time() - t0, os.times()
    m = re.search(r"host seconds: fast-forward \((\w+)\) ([0-9.]+), warm-up ([0-9.]+)", res.stdout)
    if res.returncode != 0 or not m:
        sys.exit(f"gem5 failed ({res.returncode}):\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    ff_s, o3_s = float(m.group(2)), float(m.group(3))
    return {"ff_cpu": ff_cpu, "ff_insts": ff, "ff_host_s": ff_s, "ff_insts_per_s": ff / ff_s,
            "o3_insts": o3, "o3_host_s": o3_s, "o3_insts_per_s": o3 / o3_s, "wall_s": round(wall, 1),
            "cpu_s": round(c1.children_user + c1.children_system - c0.children_user - c0.children_system, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ff", type=int, default=20_000_000, help="instructions on the atomic / timing CPU")
    p.add_argument("--o3", type=int, default=2_000_000, help="instructions on the O3 core after the switch")
    p.add_argument("--workload", choices=sorted(WORKLOADS), default="xz")
    p.add_argument("--cpus", default="atomic,timing", help="which CPUs fast-forward (comma-separated)")
    a = p.parse_args()
    binary = find_gem5()
    print(f"gem5 {binary}; config {CONFIG.name}; load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    setup, argv = WORKLOADS[a.workload]
    with tempfile.TemporaryDirectory(prefix="mpx-gem5-speed-") as tmp:
        work = Path(tmp)
        for step in setup:
            subprocess.run(step, cwd=work, check=True, capture_output=True)
        for ff_cpu in a.cpus.split(","):
            r = run(binary, work, argv, a.ff, a.o3, ff_cpu)
            print(f"{a.workload}: {ff_cpu:6s} {r['ff_insts']:,} insts in {r['ff_host_s']:.1f} s = "
                  f"{r['ff_insts_per_s'] / 1e6:.2f} M inst/s;  O3 {r['o3_insts']:,} insts in {r['o3_host_s']:.1f} s = "
                  f"{r['o3_insts_per_s'] / 1e3:.0f} k inst/s  (run: {r['wall_s']} s wall, {r['cpu_s']} s CPU)")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
