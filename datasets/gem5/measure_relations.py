#!/usr/bin/env python3
"""Measure how often each relation of the gem5 catalog holds on the shipped gem5 datasets.

    python datasets/gem5/measure_relations.py           # print the table
    python datasets/gem5/measure_relations.py --write   # also rewrite the [relations.*] of
                                                        # mpx/metrics/builtin/gem5.toml and relations.json

A relation that holds in every interval of every gem5 dataset is marked ``[exact]`` in its description and
goes to the ``gem5`` catalog (mpx relations are constraints that hold in every interval: BayesPerf treats
them so, and a near-identity among them contradicts the exact ones — its solve failed with a singular
matrix); the others are marked ``[approximate N%]``, N the share of intervals (all datasets together)
where they hold, and go to the relations-only catalog ``gem5_near`` (for estimators that take soft
constraints, and for the record). The per-dataset rates go to ``datasets/gem5/relations.json``, which
tests/metrics/test_gem5_catalog.py checks against the data. Events a trace lacks count 0 there.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mpx.datasets import shipped as datasets  # noqa: E402
from mpx.metrics import Relation, vector_total_relations  # noqa: E402

HERE = Path(__file__).resolve().parent
CATALOG = HERE.parents[1] / "mpx" / "metrics" / "builtin" / "gem5.toml"
NEAR = HERE.parents[1] / "mpx" / "metrics" / "builtin" / "gem5_near.toml"
RESULT = HERE / "relations.json"
MARK = "# -- relations -"
W = 8  # literal width of the catalog

C = "system.cpu."
RELATIONS: list[tuple[str, str, str]] = [
    ("rename_stage_cycles",
     f"{C}rename.idleCycles + {C}rename.blockCycles + {C}rename.runCycles + {C}rename.unblockCycles + "
     f"{C}rename.squashCycles + {C}rename.serializeStallCycles + {C}idleCycles == {C}numCycles",
     "rename is in exactly one state (idle, blocked, running, unblocking, squashing, serialize stall) in every "
     "cycle the core ticks; the core stops ticking when no stage has work (system.cpu.idleCycles). Without "
     "the idle cycles the stage states add up to the cycles only where the core never idled"),
    ("decode_stage_cycles",
     f"{C}decode.idleCycles + {C}decode.blockedCycles + {C}decode.runCycles + {C}decode.unblockCycles + "
     f"{C}decode.squashCycles + {C}idleCycles == {C}numCycles",
     "decode is in exactly one state in every cycle the core ticks (plus the core's idle cycles)"),
    ("rename_stage_cycles_ticking",
     f"{C}rename.idleCycles + {C}rename.blockCycles + {C}rename.runCycles + {C}rename.unblockCycles + "
     f"{C}rename.squashCycles + {C}rename.serializeStallCycles <= {C}numCycles",
     "rename's states cover at most every cycle"),
    ("rename_stage_cycles_near",
     f"{C}rename.idleCycles + {C}rename.blockCycles + {C}rename.runCycles + {C}rename.unblockCycles + "
     f"{C}rename.squashCycles + {C}rename.serializeStallCycles == {C}numCycles",
     "the near-identity a PMU without an idle-cycles counter would see: the rename states add up to the "
     "cycles in every interval where the core never idled"),
    ("iew_stage_cycles",
     f"{C}iew.idleCycles + {C}iew.blockCycles + {C}iew.squashCycles + {C}iew.unblockCycles <= {C}numCycles",
     "IEW's non-running states take at most every cycle (it has no running-cycles stat)"),
    ("fetch_stage_cycles",
     f"{C}fetch.cycles + {C}fetchStats0.icacheStallCycles + {C}fetch.tlbCycles + "
     f"{C}fetch.miscStallCycles + {C}fetch.pendingTrapStallCycles <= {C}numCycles",
     "fetch's running and stall states take at most every cycle (idle and blocked cycles are not counted; "
     "squash cycles overlap running cycles and are left out)"),
    ("tma_slots",
     f"#width * {C}rename.idleCycles + #width * {C}rename.runCycles + #width * {C}rename.unblockCycles + "
     f"#width * {C}rename.squashCycles + #width * {C}rename.blockCycles + #width * {C}rename.serializeStallCycles "
     f"+ #width * {C}idleCycles == #width * {C}numCycles",
     "TMA level 1: frontend + bad speculation + backend + retiring slots = width x cycles (the four "
     "numerators add up to width x (rename stage cycles + core idle cycles) by construction)"),
    ("uops_issued_le_rename_capacity",
     f"{C}rename.renamedInsts <= #width * {C}rename.runCycles + #width * {C}rename.unblockCycles",
     "rename renames at most width micro-ops per running or unblocking cycle (frontend bound >= 0)"),
    ("uops_retired_le_slots", f"{C}commitStats0.numOps <= #width * {C}numCycles",
     "commit retires at most width micro-ops per cycle (retiring <= 1)"),
    ("uops_retired_le_issued", f"{C}commitStats0.numOps <= {C}rename.renamedInsts",
     "every retired micro-op was renamed, in this interval or an earlier one (bad speculation >= 0)"),
    ("insts_le_uops", f"{C}commitStats0.numInsts <= {C}commitStats0.numOps",
     "an x86 instruction is one or more micro-ops"),
    ("mem_refs", f"{C}commitStats0.numMemRefs == {C}commitStats0.numLoadInsts + {C}commitStats0.numStoreInsts",
     "retired memory references are loads plus stores"),
    ("inst_type_total", f"{C}commitStats0.committedInstType::total == {C}commitStats0.numOps",
     "retired micro-ops by operation class add up to the retired micro-ops"),
    ("branch_misses_le_branches", f"{C}branchPred.mispredicted_0::total <= {C}branchPred.committed_0::total",
     "mispredicted retired branches are retired branches"),
    ("cond_misses_le_cond", f"{C}branchPred.mispredicted_0::DirectCond <= {C}branchPred.committed_0::DirectCond",
     "mispredicted conditional branches are conditional branches"),
    ("branches_committed_control",
     f"{C}branchPred.committed_0::total == {C}commitStats0.committedControl::IsControl",
     "the branch predictor's retired branches are commit's retired control instructions"),
    ("iew_mispredicts", f"{C}iew.branchMispredicts == {C}iew.predictedTakenIncorrect + {C}iew.predictedNotTakenIncorrect",
     "a mispredicted branch was predicted taken or not taken"),
    *[(f"{c}_demand_accesses",
       f"{C}{c}.demandAccesses::total == {C}{c}.demandHits::total + {C}{c}.demandMisses::total",
       f"{c}: demand accesses = hits + misses (a gem5 formula)") for c in ("icache", "dcache", "l2cache")],
    *[(f"{c}_overall_accesses",
       f"{C}{c}.overallAccesses::total == {C}{c}.overallHits::total + {C}{c}.overallMisses::total",
       f"{c}: all accesses (demand and prefetch) = hits + misses") for c in ("icache", "dcache", "l2cache")],
    *[(f"{c}_misses_le_accesses", f"{C}{c}.demandMisses::total <= {C}{c}.demandAccesses::total",
       f"{c}: demand misses <= demand accesses") for c in ("icache", "dcache", "l2cache")],
    *[(f"{c}_demand_le_overall", f"{C}{c}.demandMisses::total <= {C}{c}.overallMisses::total",
       f"{c}: demand misses are part of all misses") for c in ("icache", "dcache", "l2cache")],
    *[(f"{short}_total",
       f"{C}{v}::total == " + " + ".join(f"{C}{v}::{t}" for t in types),
       f"::total of {v} = the sum of its parts (gem5 vector identity)")
      for short, v, types in (
          ("branches", "branchPred.committed_0", ("CallDirect", "CallIndirect", "DirectCond", "DirectUncond", "IndirectCond",
                                      "IndirectUncond", "NoBranch", "Return")),
          ("branch_misses", "branchPred.mispredicted_0", ("CallDirect", "CallIndirect", "DirectCond", "DirectUncond",
                                         "IndirectCond", "IndirectUncond", "NoBranch", "Return")),
          ("l2_accesses", "l2cache.demandAccesses", ("cpu.inst", "cpu.data", "cpu.dcache.prefetcher")),
          ("l2_misses", "l2cache.demandMisses", ("cpu.inst", "cpu.data", "cpu.dcache.prefetcher")))],
    ("dram_bytes_read_total",
     "system.mem_ctrl.dram.bytesRead::total == system.mem_ctrl.dram.bytesRead::cpu.inst + "
     "system.mem_ctrl.dram.bytesRead::cpu.data + system.mem_ctrl.dram.bytesRead::cpu.dcache.prefetcher + "
     "system.mem_ctrl.dram.bytesRead::cpu.l2cache.prefetcher",
     "::total of DRAM bytes read = the sum over requestors (gem5 vector identity)"),
    ("dtlb_read_misses", f"{C}mmu.dtb.rdMisses <= {C}mmu.dtb.rdAccesses", "DTLB read misses <= read accesses"),
    ("dtlb_write_misses", f"{C}mmu.dtb.wrMisses <= {C}mmu.dtb.wrAccesses", "DTLB write misses <= write accesses"),
    ("itlb_misses", f"{C}mmu.itb.rdMisses <= {C}mmu.itb.rdAccesses", "ITLB misses <= accesses"),
    ("l2_inst_le_l1i_misses", f"{C}l2cache.demandAccesses::cpu.inst <= {C}icache.demandMisses::total",
     "every L2 instruction access is an L1I miss (an L1I miss served by an outstanding MSHR makes none)"),
    ("dram_read_bytes", "system.mem_ctrl.dram.bytesRead::total == #line_bytes * system.mem_ctrl.dram.numReads::total",
     "every DRAM read request moves one cache line"),
    ("dram_read_bursts", "system.mem_ctrl.dram.dramBytesRead == #line_bytes * system.mem_ctrl.dram.readBursts",
     "every DRAM read burst moves one cache line"),
    ("dram_reads_le_bursts", "system.mem_ctrl.dram.readBursts <= system.mem_ctrl.readBursts",
     "bursts served by DRAM are at most the bursts requested (the rest hit the write queue)"),
]
LITERALS = {"width": W, "line_bytes": 64}


def gem5_names() -> list[str]:
    return datasets.names("gem5")


def relations() -> list[Relation]:
    return [Relation.from_expr(expr, name, literals=LITERALS, description=desc) for name, expr, desc in RELATIONS]


def counts_of(trace) -> dict:
    class Zero(dict):
        def __missing__(self, key):  # an event the trace lacks was never printed: 0
            return np.zeros(trace.n_intervals)
    d = Zero({e: trace.counts[:, i] for i, e in enumerate(trace.events)})
    return d


def measure(names: list[str]) -> dict:
    rels = relations()
    out: dict = {"datasets": {}, "relations": {}}
    held = {r.name: 0 for r in rels}
    total = 0
    vt_held = vt_all = 0
    for n in names:
        t = datasets.load(n)
        c = counts_of(t)
        total += t.n_intervals
        per = {}
        for r in rels:
            h = r.holds(c)
            held[r.name] += int(h.sum())
            per[r.name] = round(float(h.mean()), 6)
        vt = vector_total_relations(t.events)
        ok = [bool(r.holds(c, rtol=1e-12).all()) for r in vt]
        vt_held += sum(ok)
        vt_all += len(ok)
        out["datasets"][n] = {"intervals": t.n_intervals, "rates": per,
                              "vector_totals": {"relations": len(vt), "hold_in_every_interval": sum(ok)}}
    for r in rels:
        rate = held[r.name] / total if total else float("nan")
        out["relations"][r.name] = {"rate": round(rate, 6), "status": "exact" if held[r.name] == total else "approximate"}
    out["vector_totals"] = {"relations": vt_all, "hold_in_every_interval": vt_held}
    out["intervals"] = total
    return out


def toml_block(result: dict, exact: bool) -> str:
    lines = [f"{MARK}" + "-" * 90, "# Generated by datasets/gem5/measure_relations.py --write: status measured on "
             f"{len(result['datasets'])} gem5 datasets, {result['intervals']:,} intervals.", ""]
    for name, expr, desc in RELATIONS:
        r = result["relations"][name]
        if (r["status"] == "exact") != exact:
            continue
        tag = "[exact]" if r["status"] == "exact" else f"[approximate {100 * r['rate']:.1f}%]"
        lines += [f"[relations.{name}]", f"expr = {json.dumps(expr)}", f"description = {json.dumps(tag + ' ' + desc)}", ""]
    return "\n".join(lines)


NEAR_HEAD = """# Near-identities among gem5 O3 X86 stats: relations that held in most but not all intervals of the shipped
# gem5 datasets (each description starts with [approximate N%], N measured). Kept out of the gem5 catalog,
# whose relations hold in every interval (mpx relations are hard constraints; BayesPerf with these among
# them hit a singular matrix). Generated by datasets/gem5/measure_relations.py --write; do not edit.

[catalog]
name = "gem5_near"
description = "approximate relations among gem5 O3 X86 stats, with the share of intervals where each held"
sources = ["measured on the shipped gem5 datasets (datasets/gem5/relations.json)"]

[literals]
width = 8
line_bytes = 64

"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    names = gem5_names()
    if not names:
        sys.exit("no gem5 dataset in the manifest")
    result = measure(names)
    width = max(len(n) for n, _, _ in RELATIONS)
    print(f"{'relation':<{width}}  {'all':>8}  " + "  ".join(f"{n[5:]:>8}" for n in names))
    for name, _, _ in RELATIONS:
        r = result["relations"][name]
        print(f"{name:<{width}}  {100 * r['rate']:7.2f}%  "
              + "  ".join(f"{100 * result['datasets'][n]['rates'][name]:7.2f}%" for n in names))
    vt = result["vector_totals"]
    print(f"vector ::total identities: {vt['hold_in_every_interval']} of {vt['relations']} hold in every interval")
    if args.write:
        text = CATALOG.read_text()
        head = text[: text.index(MARK)] if MARK in text else text + "\n"
        CATALOG.write_text(head + toml_block(result, exact=True))
        NEAR.write_text(NEAR_HEAD + toml_block(result, exact=False))
        RESULT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        print(f"wrote {CATALOG}, {NEAR} and {RESULT}")


if __name__ == "__main__":
    main()
