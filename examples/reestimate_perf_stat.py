"""Re-estimate a real ``perf stat -I`` run with other scalers than perf's, from Python.

A real run has no ground truth, so this is a comparison, not a score: each interval's count as perf scaled
it (Δraw·ΔE/ΔR) beside what NeoMPX's DCAM and PAPI's formula make of the same reads. The same as
``mpx estimate FILE --scaler dcam``, step by step:

1. `mpx.readers.perfstat.read_perf_stat` reads the CSV (``-x SEP``) or JSON (``-j``) output;
2. ``run.read_view()`` is what a scaler sees: per interval and counter, Δraw, Δenabled, Δrunning (ns);
3. `mpx.observation.Observation.from_read_view` wraps it (no PMU declared: read-view scalers need none);
4. ``scalers.get(name).estimate(obs)`` — every read-view scaler works on it.

Run: ``python examples/reestimate_perf_stat.py [PERF_STAT_OUTPUT]`` (default: a multiplexed run shipped
with the tests, ``tests/data/perfstat/mux_global_semicolon.csv``: 10 hardware events at ~40 %).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mpx import scalers
from mpx.observation import Observation
from mpx.readers.perfstat import read_perf_stat

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "perfstat" / "mux_global_semicolon.csv"


def main(path: str | Path = DEFAULT, show: int = 4) -> dict[str, np.ndarray]:
    run = read_perf_stat(path)
    obs = Observation.from_read_view(run.read_view(), meta={"workload": str(path), "source": "perf stat -I"})
    perf = np.where(np.asarray(run.counted, bool), np.asarray(run.value, float), np.nan)
    out = {"perf": perf}
    for name in ("linear", "papi", "dcam"):
        out[name] = scalers.get(name).estimate(obs).counts
    labels = list(run.labels)
    print(f"{path}: {len(run.timestamps)} intervals, {len(labels)} counters")
    for i, label in enumerate(labels[:show]):
        print(f"\n{label} (running {np.nanmean(run.pct_running[:, i]):.0f} % of the time)")
        print(f"  {'time s':>8} " + " ".join(f"{k:>14}" for k in out))
        for t in range(len(run.timestamps)):
            row = " ".join(f"{v[t, i]:>14,.0f}" if np.isfinite(v[t, i]) else f"{'<not counted>':>14}"
                           for v in out.values())
            print(f"  {run.timestamps[t]:8.3f} {row}")
    return out


if __name__ == "__main__":
    main(*sys.argv[1:2])
