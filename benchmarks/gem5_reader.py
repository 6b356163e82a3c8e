"""The gem5 reader against the decompression alone, side by side (issue 17 item 4).

Reads a gem5 ``stats.txt.xz`` with `mpx.readers.gem5.read` in a fresh child process and times
``xz -dc FILE > /dev/null`` on the same machine, alternating the two ``--repeat`` times so that both see
the same load (the development machine has 2 cores shared with other jobs); prints every repetition, the
medians, their ratio and the reader's peak resident memory (``ru_maxrss`` of the child from ``os.wait4``:
that process alone, interpreter included). One untimed read first fills numba's on-disk cache, so no
repetition pays the compilation of the tokenizer. The goal: within 3× of ``xz -dc`` and under 400 MB
(``--max-ratio``, ``--max-mb``; the exit status is 1 when a median misses either). Usage::

    python benchmarks/gem5_reader.py [FILE] [--repeat 5] [--json]

``FILE`` defaults to ``../shared/data/gem5-periodic/memory.stats.txt.xz`` (9,000 dumps × 1,584 stats).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO.parent / "shared" / "data" / "gem5-periodic" / "memory.stats.txt.xz"

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from mpx.readers import gem5
t1 = time.perf_counter()
trace = gem5.read(sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "read_s": t2 - t1, "shape": list(trace.counts.shape),
                  "aux": len(trace.aux_names)}))
"""


def run_reader(path: Path) -> dict:
    """One read in a child process: its wall time (start to exit), the read alone, peak RSS in MB."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, cwd=REPO)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"the reader failed on {path} (exit {proc.returncode})")
    got = json.loads(out.decode().strip().splitlines()[-1])
    got.update(wall_s=wall, peak_mb=usage.ru_maxrss / 1024)
    return got


def run_xz(path: Path) -> float:
    """Wall time of ``xz -dc FILE > /dev/null``."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(["xz", "-dc", str(path)], stdout=sink, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    p.add_argument("--repeat", type=int, default=5, help="alternating repetitions (default 5)")
    p.add_argument("--max-ratio", type=float, default=3.0)
    p.add_argument("--max-mb", type=float, default=400.0)
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = p.parse_args(argv)
    if not args.file.is_file():
        print(f"skipped: {args.file} is absent")
        return 0
    if shutil.which("xz") is None:
        print("skipped: no xz on PATH")
        return 0
    run_reader(args.file)  # fills numba's cache; not timed
    rows = []
    for _ in range(args.repeat):
        xz = run_xz(args.file)
        reader = run_reader(args.file)
        rows.append({"xz_s": xz, **reader})
    med = {k: statistics.median(r[k] for r in rows) for k in ("xz_s", "wall_s", "read_s", "peak_mb")}
    ratio = med["wall_s"] / med["xz_s"]
    ok = ratio <= args.max_ratio and med["peak_mb"] <= args.max_mb
    if args.json:
        print(json.dumps({"file": str(args.file), "repeats": rows, "median": med, "ratio": ratio, "ok": ok}))
        return 0 if ok else 1
    print(f"{args.file.name}: {rows[0]['shape'][0]:,} intervals × {rows[0]['shape'][1]:,} events, "
          f"{rows[0]['aux']} aux; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'run':>3} {'xz -dc s':>9} {'mpx s':>7} {'(read s)':>9} {'peak MB':>8}")
    for i, r in enumerate(rows, 1):
        print(f"{i:>3} {r['xz_s']:>9.2f} {r['wall_s']:>7.2f} {r['read_s']:>9.2f} {r['peak_mb']:>8.0f}")
    print(f"median: xz -dc {med['xz_s']:.2f} s, mpx {med['wall_s']:.2f} s (process start to exit; the read "
          f"alone {med['read_s']:.2f} s), ratio {ratio:.2f}× (goal ≤ {args.max_ratio:g}×), "
          f"peak RSS {med['peak_mb']:.0f} MB (goal < {args.max_mb:g} MB)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
