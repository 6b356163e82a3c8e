"""Time the gem5 reader on every real stats file: ``../shared/data/gem5/`` and ``../shared/data/gem5-periodic/``.

Each file is read in a fresh subprocess (best of ``--repeat`` runs), so the peak resident memory reported is
that file's alone. Files that are absent are skipped; files the reader refuses in ``mode='auto'`` (no tick
stats) are reported with the reason. Usage::

    python benchmarks/bench_gem5_reader.py [--repeat 3] [--shared ../shared] [--only memory]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_WORKER = r"""
import json, resource, sys, time
from mpx.errors import FormatError
from mpx.readers import gem5
t0 = time.perf_counter()
try:
    tr = gem5.read(sys.argv[1])
    out = dict(ok=True, intervals=tr.n_intervals, events=tr.n_events, aux=len(tr.aux_names),
               dumps=tr.meta["n_dumps_read"], modes=tr.meta["dump_modes"])
except FormatError as exc:
    out = dict(ok=False, error=exc.message[:70])
out["seconds"] = time.perf_counter() - t0
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def measure(path: Path, repeat: int) -> dict:
    best: dict | None = None
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", _WORKER, str(path)], capture_output=True, text=True,
                              cwd=REPO, check=True)
        run = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is None or run["seconds"] < best["seconds"]:
            best = run
    assert best is not None
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", type=Path, default=Path(os.environ.get("MPX_SHARED", REPO.parent / "shared")))
    p.add_argument("--repeat", type=int, default=1, help="runs per file; the fastest is reported")
    p.add_argument("--only", default="", help="only files whose name contains this")
    args = p.parse_args(argv)
    files = []
    for folder in ("gem5", "gem5-periodic"):
        d = args.shared / "data" / folder
        if not d.is_dir():
            print(f"skipped (absent): {d}")
            continue
        files += sorted(f for f in d.iterdir() if f.is_file() and (f.name.endswith((".txt", ".txt.xz", ".txt.gz")))
                        and args.only in f.name)
    header = f"{'file':<32} {'MB':>7} {'dumps':>6} {'events':>6} {'aux':>5} {'seconds':>8} {'peak MB':>8}  note"
    print(header)
    print("-" * len(header))
    for f in files:
        r = measure(f, args.repeat)
        size = f.stat().st_size / 1e6
        if r["ok"]:
            modes = ",".join(f"{m}x{n}" for m, n in r["modes"])
            print(f"{f.name:<32} {size:>7.2f} {r['dumps']:>6} {r['events']:>6} {r['aux']:>5} "
                  f"{r['seconds']:>8.3f} {r['peak_mb']:>8.0f}  {modes}")
        else:
            print(f"{f.name:<32} {size:>7.2f} {'':>6} {'':>6} {'':>5} {r['seconds']:>8.3f} {r['peak_mb']:>8.0f}  "
                  f"refused: {r['error']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
