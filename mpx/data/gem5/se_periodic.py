"""gem5 (v24.0) configuration of `mpx record --simulator gem5`: one out-of-order X86 core, classic caches,
one DDR4 channel, syscall emulation; the whole stats tree is dumped and reset every period.

Run by gem5, not by Python:  gem5.fast --outdir=OUT se_periodic.py --hardware HW.json --period-ps P
    [--max-dumps N] [--cwd DIR] [--stdin F] [--stdout F] [--env K=V ...] -- PROGRAM ARGS

Every hardware parameter is set here explicitly from the JSON file ``--hardware`` (no gem5 default is
relied on: see ``HARDWARE`` in `mpx.recording.gem5`, which writes that file and stores the same dict in the
trace's metadata). Built only from ``m5.objects`` (no standard library), so it runs on a build without Ruby.
With ``--max-dumps N`` the simulation stops at tick N × period (deterministic), otherwise when the
program exits; gem5 then writes one last dump for the partial interval, which the recorder drops.
"""
import argparse
import json
import sys

import m5
from m5.objects import (AddrRange, Cache, DDR4_2400_8x8, L2XBar, MemCtrl, Process, Root, SEWorkload,
                        SimpleBTB, SrcClockDomain, StridePrefetcher, System, SystemXBar, TournamentBP,
                        ReturnAddrStack, VoltageDomain, X86O3CPU)

p = argparse.ArgumentParser()
p.add_argument("--hardware", required=True)
p.add_argument("--period-ps", type=int, required=True)
p.add_argument("--max-dumps", type=int, default=0)
p.add_argument("--cwd", default=None)
p.add_argument("--stdin", default=None)
p.add_argument("--stdout", default=None)
p.add_argument("--env", action="append", default=[])
p.add_argument("cmd", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
if not cmd:
    sys.exit("se_periodic.py: no program given")
with open(a.hardware) as fh:
    hw = json.load(fh)


def cache(spec, **extra):
    c = Cache(size=spec["size"], assoc=spec["assoc"], tag_latency=spec["tag_latency"],
              data_latency=spec["data_latency"], response_latency=spec["response_latency"],
              mshrs=spec["mshrs"], tgts_per_mshr=spec["tgts_per_mshr"],
              writeback_clean=spec["writeback_clean"], **extra)
    if spec.get("prefetcher") == "stride":
        c.prefetcher = StridePrefetcher(degree=spec["prefetch_degree"])
    elif spec.get("prefetcher") not in (None, "none"):
        sys.exit(f"se_periodic.py: unknown prefetcher {spec['prefetcher']!r}")
    return c


system = System()
system.cache_line_size = hw["cache_line_bytes"]
system.clk_domain = SrcClockDomain(clock=hw["clock"], voltage_domain=VoltageDomain())
system.mem_mode = "timing"
system.mem_ranges = [AddrRange(hw["memory"]["size"])]

core = hw["core"]
cpu = X86O3CPU()
for key in ("fetchWidth", "decodeWidth", "renameWidth", "dispatchWidth", "issueWidth", "wbWidth",
            "commitWidth", "squashWidth", "fetchBufferSize", "fetchQueueSize", "numROBEntries",
            "numIQEntries", "LQEntries", "SQEntries", "numPhysIntRegs", "numPhysFloatRegs",
            "numPhysVecRegs", "trapLatency"):
    setattr(cpu, key, core[key])
bp = core["branch_predictor"]
if bp["type"] != "TournamentBP":
    sys.exit(f"se_periodic.py: unsupported branch predictor {bp['type']!r}")
cpu.branchPred = TournamentBP(
    localPredictorSize=bp["localPredictorSize"], localCtrBits=bp["localCtrBits"],
    localHistoryTableSize=bp["localHistoryTableSize"], globalPredictorSize=bp["globalPredictorSize"],
    globalCtrBits=bp["globalCtrBits"], choicePredictorSize=bp["choicePredictorSize"],
    choiceCtrBits=bp["choiceCtrBits"],
    btb=SimpleBTB(numEntries=bp["btb_entries"], tagBits=bp["btb_tag_bits"]),
    ras=ReturnAddrStack(numEntries=bp["ras_entries"]))
cpu.mmu.itb.size = hw["tlb"]["itb_entries"]
cpu.mmu.dtb.size = hw["tlb"]["dtb_entries"]
system.cpu = cpu

caches = hw["caches"]
l2 = cache(caches["l2"], clusivity=caches["l2"]["clusivity"])
cpu.addTwoLevelCacheHierarchy(cache(caches["l1i"], is_read_only=True), cache(caches["l1d"]), l2,
                              xbar=L2XBar(width=hw["l2_bus_width_bytes"]))
system.membus = SystemXBar(width=hw["membus_width_bytes"])
cpu.createInterruptController()
cpu.connectAllPorts(system.membus.cpu_side_ports, system.membus.cpu_side_ports,
                    system.membus.mem_side_ports)
system.system_port = system.membus.cpu_side_ports

mem = hw["memory"]
if mem["dram"] != "DDR4_2400_8x8":
    sys.exit(f"se_periodic.py: unsupported DRAM {mem['dram']!r}")
system.mem_ctrl = MemCtrl(dram=DDR4_2400_8x8(range=system.mem_ranges[0]))
system.mem_ctrl.port = system.membus.mem_side_ports

system.workload = SEWorkload.init_compatible(cmd[0])
proc = Process(pid=100)
proc.executable = cmd[0]
proc.cmd = cmd
proc.env = list(a.env)
if a.cwd:
    proc.cwd = a.cwd
if a.stdin:
    proc.input = a.stdin
if a.stdout:
    proc.output = a.stdout
cpu.workload = proc
cpu.createThreads()

root = Root(full_system=False, system=system)
m5.instantiate()
m5.stats.periodicStatDump(a.period_ps)
if a.max_dumps:
    ev = m5.simulate(a.max_dumps * a.period_ps + a.period_ps // 2)
else:
    ev = m5.simulate()
print(f"se_periodic.py: exit at tick {m5.curTick()}: {ev.getCause()} (code {ev.getCode()})")
