"""How long loading each shipped dataset takes (target: < 0.2 s each).

Run: ``/work/venv/bin/python benchmarks/bench_datasets.py [--repeat N]``. Measures, per dataset, the
first load in this process and the median of N further loads (``mpx.datasets.shipped.load``: manifest read,
sha256 check of the file, `Trace.load`), plus the one-off cost of importing ``mpx.datasets.shipped`` (numpy
included) in a fresh interpreter. Exits 1 if any load exceeds the target.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

TARGET_S = 0.2


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=20)
    args = p.parse_args()

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mpx.datasets.shipped"], check=True)
    t_import_proc = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    t_empty_proc = time.perf_counter() - t0

    from mpx.datasets import shipped as datasets

    rows = []
    worst = 0.0
    for name in datasets.names():
        t0 = time.perf_counter()
        trace = datasets.load(name)
        first = time.perf_counter() - t0
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            datasets.load(name)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        worst = max(worst, first, max(times))
        size = datasets.path(name).stat().st_size
        rows.append((name, trace.n_intervals, trace.n_events, size, first, med, max(times)))

    print(f"{'dataset':<10} {'intervals':>9} {'events':>6} {'file bytes':>10} {'first ms':>9} {'median ms':>9} {'max ms':>7}")
    for name, t, e, size, first, med, mx in rows:
        print(f"{name:<10} {t:>9,} {e:>6} {size:>10,} {first * 1e3:>9.1f} {med * 1e3:>9.1f} {mx * 1e3:>7.1f}")
    print(f"import mpx.datasets.shipped in a fresh interpreter: {1e3 * (t_import_proc - t_empty_proc):.0f} ms "
          f"(interpreter start-up {1e3 * t_empty_proc:.0f} ms not included)")
    print(f"slowest load: {worst * 1e3:.1f} ms (target < {TARGET_S * 1e3:.0f} ms): {'OK' if worst < TARGET_S else 'TOO SLOW'}")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
