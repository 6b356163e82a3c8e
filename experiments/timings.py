"""Measure the experiments' run times and rewrite the table of experiments/README.md with them.

Each named config (default: every row of the table) is run from scratch (`mpx run CONFIG --out TMP
--no-figures --jobs N`) in a fresh process, so numba's on-disk cache is the only thing carried over
(say ``--cold`` to point it — ``MPX_NUMBA_CACHE``, `mpx.util.jit` — at an empty folder too, as on a fresh machine). The wall time
and the number of cells replace the row's last two columns, with the date; ``--dry`` prints without
writing. Rows not measured keep their old figures.

    python experiments/timings.py [CONFIG ...] [--jobs 1] [--cold] [--dry]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
ROW = re.compile(r"^\| `(?P<config>[\w./-]+\.toml)` \| (?P<study>.*) \| (?P<cells>[^|]*) \| (?P<time>[^|]*) \|$")


def measure(config: Path, jobs: int, cold: bool) -> tuple[float, int]:
    """Wall time (s) and cells of a fresh ``mpx run`` of ``config``."""
    with tempfile.TemporaryDirectory(prefix="mpx-timing-") as tmp:
        env = dict(os.environ)
        if cold:
            env["MPX_NUMBA_CACHE"] = env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "mpx", "run", str(config), "--out", str(Path(tmp) / "out"),
                               "--no-figures", "--no-progress", "--jobs", str(jobs)], env=env, cwd=HERE.parent,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{config}: mpx run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        with sqlite3.connect(Path(tmp) / "out" / "results.sqlite") as db:
            cells = db.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    return seconds, cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", help="configs to measure (default: every row of the table)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cold", action="store_true", help="an empty numba cache (a fresh machine's first run)")
    ap.add_argument("--dry", action="store_true", help="print, do not rewrite experiments/README.md")
    args = ap.parse_args()
    lines = README.read_text().splitlines()
    rows = {m["config"]: i for i, ln in enumerate(lines) if (m := ROW.match(ln))}
    wanted = [Path(c).name if Path(c).parent in (Path("."), Path("experiments")) else c for c in args.configs] or list(rows)
    unknown = [c for c in wanted if c not in rows]
    if unknown:
        raise SystemExit(f"not in the table of {README}: {unknown} (rows: {list(rows)})")
    today = dt.date.today().isoformat()
    for c in wanted:
        seconds, cells = measure(HERE / c, args.jobs, args.cold)
        m = ROW.match(lines[rows[c]])
        how = f"{seconds:.0f} s ({today}{', cold' if args.cold else ''}{f', --jobs {args.jobs}' if args.jobs > 1 else ''})"
        lines[rows[c]] = f"| `{c}` | {m['study']} | {cells} | {how} |"
        print(f"{c}: {cells} cells, {seconds:.1f} s")
    if not args.dry:
        README.write_text("\n".join(lines) + "\n")
        print(f"rewrote {README}")


if __name__ == "__main__":
    main()
