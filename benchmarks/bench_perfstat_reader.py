"""Time read_perf_stat on a large synthetic perf stat -I file (T intervals x E events x C CPUs)."""
import random, sys, time, tempfile, os
from mpx.readers.perfstat import read_perf_stat
T, E, C = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(0)
rows = []
for t in range(T):
    ts = f"{(t + 1) * 0.1:.9f}"
    for e in range(E):
        for c in range(C):
            run = rng.randint(1, 10**8)
            rows.append(f"{ts};CPU{c};{rng.randint(0, 10**9)};;event{e};{run};{rng.randint(1, 100)}.00;1.23;insn per cycle")
fd, path = tempfile.mkstemp(suffix=".csv"); os.close(fd)
open(path, "w").write("\n".join(rows) + "\n")
for fmt in ("csv",):
    t0 = time.perf_counter(); r = read_perf_stat(path); t1 = time.perf_counter()
    df = r.to_dataframe(); t2 = time.perf_counter()
    print(f"{len(rows)} rows ({os.path.getsize(path)/1e6:.1f} MB): read {t1-t0:.2f} s ({len(rows)/(t1-t0)/1e3:.0f} k rows/s), to_dataframe {t2-t1:.2f} s; shape {r.value.shape}")
os.remove(path)
