"""A toy cycle-level dispatch stage instrumented with `mpx.stats`, one stat per RISC-V ``PerfCount`` counter.

The slot classification follows ``seeds/tma-profiling.md`` (``Dispatch.cpp::comb_fire``): for each of the
``FETCH_WIDTH`` slots of a cycle

- fired → ``slots_issued``;
- valid but not fired → ``slots_backend_bound``, then: ROB full with a memory instruction at its head →
  ``slots_mem_ext_bound`` (cache miss) or ``slots_mem_l1_bound``; ROB full otherwise →
  ``slots_core_bound_rob``; dispatch failed on a full LDQ/STQ → ``slots_mem_l1_bound``; on a full IQ →
  ``slots_core_bound_iq`` (memory-bound slots also count in ``slots_mem_bound_lsu``);
- not valid → ``slots_frontend_bound``, then ``slots_fetch_latency`` if the I-cache is busy, else
  ``slots_fetch_bandwidth``;

and ``slots_bad_speculation = slots_issued - commit_num`` is a formula, as in ``PerfCount``. The machine
state each cycle (fetched instructions, I-cache busy, ROB full, head is a missing load, queues full) is
drawn at random with probabilities that change between a compute phase and a memory phase; wrong-path
instructions are squashed at dispatch and correct-path ones commit immediately — a toy, so that
``slots_issued - commit_num`` is a valid per-interval counter (a real pipeline commits later, and the
difference over a short interval can be negative: declare it ``additive=False`` there).

The stats are dumped every ``period`` cycles (dump, then reset) as ``mpx-stats`` JSON lines and read back
with `mpx.read_trace`. Run: ``python examples/toy_riscv_tma.py [OUT.jsonl] [--cycles N] [--period P]``.
"""

from __future__ import annotations

import argparse
import os
import random
from typing import IO

from mpx.stats import PeriodicDumper, StatGroup

FETCH_WIDTH = 4

PERFCOUNT = (
    "slots_issued",
    "slots_backend_bound",
    "slots_frontend_bound",
    "slots_bad_speculation",
    "slots_fetch_latency",
    "slots_fetch_bandwidth",
    "slots_mem_bound_lsu",
    "slots_mem_l1_bound",
    "slots_mem_ext_bound",
    "slots_core_bound_rob",
    "slots_core_bound_iq",
    "commit_num",
)
"""The ``PerfCount`` counters of the RISC-V simulator (``back-end/include/PerfCount.h``)."""

# per-phase probabilities: I-cache busy, fetch delivers a full group, ROB full, head is memory,
# head misses, LSQ full, IQ full, wrong path
PHASES = {
    "compute": dict(icache=0.05, full=0.8, rob=0.05, head_mem=0.3, miss=0.2, lsq=0.02, iq=0.15, wrong=0.05),
    "memory": dict(icache=0.02, full=0.9, rob=0.45, head_mem=0.8, miss=0.6, lsq=0.15, iq=0.05, wrong=0.02),
}


class PerfCount:
    """The counters of ``PerfCount.h`` as an `mpx.stats.StatGroup` (names one-to-one)."""

    def __init__(self, parent: StatGroup) -> None:
        g = self.group = parent.group("perf", "TMA slot counters (PerfCount)")
        self.cycles = g.scalar("cycles", "simulated cycles", unit="Cycle")
        for name in PERFCOUNT:
            if name != "slots_bad_speculation":
                setattr(self, name, g.scalar(name, unit="Count"))
        self.slots_bad_speculation = g.formula(
            "slots_bad_speculation", "issued but not committed (slots_issued - commit_num)",
            lambda: self.slots_issued.value - self.commit_num.value, unit="Count", additive=True,
        )
        self.total_slots = g.formula(
            "total_slots", "FETCH_WIDTH x cycles", lambda: FETCH_WIDTH * self.cycles.value,
            unit="Count", additive=True,
        )
        # perf_print_tma()'s level-1 percentages: ratios, so aux values in the trace, not events
        for name in ("frontend_bound", "backend_bound", "retiring"):
            counter = {"frontend_bound": "slots_frontend_bound", "backend_bound": "slots_backend_bound",
                       "retiring": "commit_num"}[name]
            g.formula(f"{name}_pct", f"{name} share of slots (%)",
                      lambda c=getattr(self, counter): 100.0 * c.value / self.total_slots.value, unit="%")


def dispatch_cycle(pc: PerfCount, rng: random.Random, p: dict[str, float]) -> None:
    """Classify the ``FETCH_WIDTH`` slots of one cycle (the logic of ``Dispatch.cpp::comb_fire``)."""
    pc.cycles.inc()
    icache_busy = rng.random() < p["icache"]
    n_valid = FETCH_WIDTH if rng.random() < p["full"] else rng.randrange(FETCH_WIDTH)
    if icache_busy:
        n_valid = 0
    rob_ready = rng.random() >= p["rob"]
    head_is_memory = rng.random() < p["head_mem"]
    head_is_miss = rng.random() < p["miss"]
    blocked = False  # in-order dispatch: once a slot fails, the later ones cannot fire
    for i in range(FETCH_WIDTH):
        if i >= n_valid:
            pc.slots_frontend_bound.inc()
            (pc.slots_fetch_latency if icache_busy else pc.slots_fetch_bandwidth).inc()
            continue
        is_mem = rng.random() < 0.3
        if not blocked and rob_ready:
            queue_full = rng.random() < (p["lsq"] if is_mem else p["iq"])
            if not queue_full:
                pc.slots_issued.inc()
                if rng.random() >= p["wrong"]:
                    pc.commit_num.inc()
                continue
            blocked = True
            pc.slots_backend_bound.inc()
            if is_mem:
                pc.slots_mem_bound_lsu.inc()
                pc.slots_mem_l1_bound.inc()
            else:
                pc.slots_core_bound_iq.inc()
            continue
        pc.slots_backend_bound.inc()
        if not rob_ready:
            if head_is_memory:
                pc.slots_mem_bound_lsu.inc()
                (pc.slots_mem_ext_bound if head_is_miss else pc.slots_mem_l1_bound).inc()
            else:
                pc.slots_core_bound_rob.inc()
        elif is_mem:  # blocked behind an earlier failed slot
            pc.slots_mem_bound_lsu.inc()
            pc.slots_mem_l1_bound.inc()
        else:
            pc.slots_core_bound_iq.inc()


def simulate(
    out: str | os.PathLike | IO[str], cycles: int = 50_000, period: int = 5_000, phase_length: int = 12_000,
    seed: int = 0,
) -> StatGroup:
    """Run the toy for ``cycles`` cycles, dumping every ``period`` cycles to ``out`` (path or stream)."""
    root = StatGroup("")  # unnamed root: events are "perf.slots_issued", ...
    pc = PerfCount(root)
    rng = random.Random(seed)
    dumper = PeriodicDumper(root, out, "cycles", period=period,
                            meta={"simulator": "toy-riscv-dispatch", "workload": f"random phases (seed {seed})",
                                  "config": {"FETCH_WIDTH": FETCH_WIDTH, "phase_length": phase_length}})
    names = list(PHASES)
    for cycle in range(cycles):
        dispatch_cycle(pc, rng, PHASES[names[(cycle // phase_length) % len(names)]])
        dumper.advance(cycle + 1)  # cycle `cycle` occupies [cycle, cycle + 1)
    dumper.close(cycles)
    return root


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="toy_tma.jsonl")
    ap.add_argument("--cycles", type=int, default=50_000)
    ap.add_argument("--period", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    simulate(args.out, args.cycles, args.period, seed=args.seed)

    from mpx import read_trace

    trace = read_trace(args.out)
    print(trace.summary())
    t = trace.totals()
    total = t["perf.total_slots"]
    for name in ("slots_frontend_bound", "slots_backend_bound", "slots_bad_speculation", "commit_num"):
        print(f"  {name:<24} {100 * t['perf.' + name] / total:6.2f} % of {total:,.0f} slots")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
