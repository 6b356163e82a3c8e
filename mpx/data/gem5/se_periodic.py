"""gem5 (v24.0) configuration of `mpx record --simulator gem5`: one out-of-order X86 core, classic caches,
one DDR4 channel, syscall emulation; the whole stats tree is dumped and reset every period.

Run by gem5, not by Python:  gem5.fast --outdir=OUT se_periodic.py --hardware HW.json --period-ps P
    [--max-dumps N] [--fast-forward-insts F [--warmup-insts W]] [--cwd DIR] [--stdin F] [--stdout F]
    [--env K=V ...] -- PROGRAM ARGS

Every hardware parameter is set here explicitly from the JSON file ``--hardware`` (no gem5 default is
relied on: see ``HARDWARE`` in `mpx.recording.gem5`, which writes that file and stores the same dict in the
trace's metadata). Built only from ``m5.objects`` (no standard library), so it runs on a build without Ruby.
With ``--max-dumps N`` the simulation stops at tick N × period (deterministic), otherwise when the
program exits; gem5 then writes one last dump for the partial interval, which the recorder drops.

**Fast-forward** (``--fast-forward-insts F``, as gem5's ``configs/common/Simulation.py`` does with
``--fast-forward``): the program starts on an ``X86AtomicSimpleCPU`` (``system.ff_cpu``, which owns the
interrupt controller and drives the same caches, so they are warm) until one thread has retired F
instructions (``max_insts_any_thread``); ``m5.switchCpus`` then hands the thread, the MMU (TLBs, walkers),
the interrupt controller and the cache ports to the out-of-order core ``system.cpu`` (created
``switched_out``). With ``--warmup-insts W`` the O3 core then runs W more instructions (branch predictor,
prefetchers, caches and TLBs warm up on the detailed core; ``scheduleInstStop``) before the stats are reset
and the periodic dumps start; the intervals are W instructions past the switch. The caches, buses and
their stats keep the names they have without fast-forward (children of ``system.cpu``); the script prints
one ``se_periodic.py: measured from`` line with what was skipped.

**Checkpoint** (``--checkpoint-dir D``, with a fast-forward): the first run stops at the end of the
fast-forward, writes a gem5 checkpoint into D (``m5.checkpoint``) and exits; every recording then restores
it (``m5.instantiate(D)``) and goes on from the switch to the out-of-order core, so a recording killed after
the fast-forward restarts from D and gives the same dumps. gem5's classic caches are not in a checkpoint
(they are written back, then empty after the restore): with a checkpoint, the caches are warmed by the
warm-up on the out-of-order core alone, not by the fast-forward, so a recipe that uses one says so.
"""
import argparse
import json
import os
import sys
import time

import m5
from m5.objects import (AddrRange, Cache, DDR4_2400_8x8, L2XBar, MemCtrl, Process, Root, SEWorkload,
                        SimpleBTB, SrcClockDomain, StridePrefetcher, System, SystemXBar, TournamentBP,
                        ReturnAddrStack, VoltageDomain, X86AtomicSimpleCPU, X86O3CPU, X86TimingSimpleCPU)

p = argparse.ArgumentParser()
p.add_argument("--hardware", required=True)
p.add_argument("--period-ps", type=int, required=True)
p.add_argument("--max-dumps", type=int, default=0)
p.add_argument("--fast-forward-insts", type=int, default=0)
p.add_argument("--warmup-insts", type=int, default=0)
p.add_argument("--ff-cpu", choices=("atomic", "timing"), default="atomic")
p.add_argument("--cwd", default=None)
p.add_argument("--stdin", default=None)
p.add_argument("--stdout", default=None)
p.add_argument("--env", action="append", default=[])
p.add_argument("--checkpoint-dir", default=None)
p.add_argument("cmd", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
if not cmd:
    sys.exit("se_periodic.py: no program given")
if a.fast_forward_insts < 0 or a.warmup_insts < 0 or (a.warmup_insts and not a.fast_forward_insts):
    sys.exit("se_periodic.py: --fast-forward-insts and --warmup-insts must be >= 0, warm-up only after a "
             "fast-forward")
ff = a.fast_forward_insts > 0
if a.checkpoint_dir and not ff:
    sys.exit("se_periodic.py: --checkpoint-dir needs --fast-forward-insts (the checkpoint is taken at its end)")
restoring = bool(a.checkpoint_dir) and os.path.isfile(os.path.join(a.checkpoint_dir, "m5.cpt"))
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
system.mem_mode = "atomic" if ff and a.ff_cpu == "atomic" else "timing"  # switchCpus sets the O3 core's timing mode
system.mem_ranges = [AddrRange(hw["memory"]["size"])]

core = hw["core"]
cpu = X86O3CPU(switched_out=True, cpu_id=0) if ff else X86O3CPU()  # same id: the APIC moves over
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
if not ff:
    cpu.addTwoLevelCacheHierarchy(cache(caches["l1i"], is_read_only=True), cache(caches["l1d"]), l2,
                                  xbar=L2XBar(width=hw["l2_bus_width_bytes"]))
    system.membus = SystemXBar(width=hw["membus_width_bytes"])
    cpu.createInterruptController()
    cpu.connectAllPorts(system.membus.cpu_side_ports, system.membus.cpu_side_ports,
                        system.membus.mem_side_ports)
else:
    # The same hierarchy as addTwoLevelCacheHierarchy builds, owned by system.cpu (same stat names) but
    # connected to the atomic CPU, which starts; switchCpus moves the ports to the O3 core (takeOverFrom).
    ff_class = X86AtomicSimpleCPU if a.ff_cpu == "atomic" else X86TimingSimpleCPU
    # restored at the end of the fast-forward: no instruction limit left to run
    ffc = ff_class(cpu_id=0) if restoring else ff_class(max_insts_any_thread=a.fast_forward_insts, cpu_id=0)
    ffc.mmu.itb.size = hw["tlb"]["itb_entries"]
    ffc.mmu.dtb.size = hw["tlb"]["dtb_entries"]
    system.ff_cpu = ffc
    cpu.icache = cache(caches["l1i"], is_read_only=True)
    cpu.dcache = cache(caches["l1d"])
    ffc.icache_port = cpu.icache.cpu_side
    ffc.dcache_port = cpu.dcache.cpu_side
    cpu.toL2Bus = L2XBar(width=hw["l2_bus_width_bytes"])
    cpu.icache.mem_side = cpu.toL2Bus.cpu_side_ports
    cpu.dcache.mem_side = cpu.toL2Bus.cpu_side_ports
    ffc.mmu.connectWalkerPorts(cpu.toL2Bus.cpu_side_ports, cpu.toL2Bus.cpu_side_ports)
    cpu.l2cache = l2
    cpu.toL2Bus.mem_side_ports = cpu.l2cache.cpu_side
    system.membus = SystemXBar(width=hw["membus_width_bytes"])
    cpu.l2cache.mem_side = system.membus.cpu_side_ports
    ffc.createInterruptController()
    ffc.connectUncachedPorts(system.membus.cpu_side_ports, system.membus.mem_side_ports)
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
if ff:
    ffc.workload = proc
    ffc.createThreads()
    cpu.isa = ffc.isa  # as Simulation.py: the switched CPUs share the ISA objects
cpu.workload = proc
cpu.createThreads()

root = Root(full_system=False, system=system)
m5.instantiate(a.checkpoint_dir if restoring else None)
if ff:
    t0 = time.time()
    if restoring:
        print(f"se_periodic.py: restored the checkpoint {a.checkpoint_dir} at tick {m5.curTick()}")
    else:
        ev = m5.simulate()
        if ev.getCause() != "a thread reached the max instruction count":
            sys.exit(f"se_periodic.py: the program ended during the fast-forward of {a.fast_forward_insts} "
                     f"instructions (tick {m5.curTick()}: {ev.getCause()})")
        if a.checkpoint_dir:
            m5.checkpoint(a.checkpoint_dir)
            print(f"se_periodic.py: checkpoint written to {a.checkpoint_dir} at tick {m5.curTick()}")
            sys.exit(0)
    t1 = time.time()
    switch_tick = m5.curTick()
    m5.switchCpus(system, [(ffc, cpu)])
    if a.warmup_insts:
        cpu.scheduleInstStop(0, a.warmup_insts, "mpx warm-up done")
        ev = m5.simulate()
        if ev.getCause() != "mpx warm-up done":
            sys.exit(f"se_periodic.py: the program ended during the warm-up of {a.warmup_insts} "
                     f"instructions (tick {m5.curTick()}: {ev.getCause()})")
    t2 = time.time()
    m5.stats.reset()
    print(f"se_periodic.py: measured from tick {m5.curTick()}: fast-forward {a.fast_forward_insts} "
          f"instructions to tick {switch_tick}, warm-up {a.warmup_insts} instructions")
    print(f"se_periodic.py: host seconds: fast-forward ({a.ff_cpu}) {t1 - t0:.3f}, warm-up {t2 - t1:.3f}")
m5.stats.periodicStatDump(a.period_ps)
if a.max_dumps:
    ev = m5.simulate(a.max_dumps * a.period_ps + a.period_ps // 2)
else:
    ev = m5.simulate()
print(f"se_periodic.py: exit at tick {m5.curTick()}: {ev.getCause()} (code {ev.getCode()})")
