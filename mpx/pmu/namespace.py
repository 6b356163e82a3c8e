"""Event namespaces: whose events a name belongs to (Intel, Arm PMUv3, gem5 stats, callgrind), so that a
Problem can notice events written for another machine than its PMU (an Intel catalog on ``neoverse-n1``,
callgrind events on ``skylake``). Generic counters take any name, so nothing else would say so.

The rules are deliberately few and only recognise names that cannot be mistaken; everything else
(perf's generic ``cycles``/``instructions``, raw ``r00c4`` codes, uncore names, made-up test events) is
in no namespace and never warns:

- ``gem5``: full stat names from the root, ``system.…`` (gem5 ``stats.txt``).
- ``callgrind``: the event names of Cachegrind/Callgrind (Valgrind manual, "Cachegrind: a cache and
  branch-prediction profiler", section "Output": Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim;
  Callgrind adds Ge, global bus events).
- ``arm``: the Armv8/v9 PMUv3 common architectural and microarchitectural event mnemonics (Arm ARM
  D17.10 / Arm Neoverse PMU guides: ``CPU_CYCLES``, ``INST_RETIRED``, ``L1D_CACHE_REFILL``, …) and the
  ``…_SPEC`` family of speculatively executed operations, which only Arm names so.
- ``intel``: perf pmu-events JSON names ``FAMILY.UMASK`` in capitals (``INST_RETIRED.ANY``,
  ``CPU_CLK_UNHALTED.THREAD``; tools/perf/pmu-events/arch/x86) and LIKWID's spellings of the
  architectural events (its fixed counters ``INSTR_RETIRED_ANY``, ``CPU_CLK_UNHALTED_CORE``,
  ``CPU_CLK_UNHALTED_REF``, and the families of Intel SDM vol. 3B table "architectural performance
  events" written with underscores: ``BR_INST_RETIRED_…``, ``BR_MISP_RETIRED_…``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["NAMESPACES", "event_namespace", "namespace_of"]

NAMESPACES = ("arm", "callgrind", "gem5", "intel")

_CALLGRIND = frozenset("Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim Ge".split())
_ARM = frozenset("""
SW_INCR L1I_CACHE_REFILL L1I_TLB_REFILL L1D_CACHE_REFILL L1D_CACHE L1D_TLB_REFILL LD_RETIRED ST_RETIRED
INST_RETIRED EXC_TAKEN EXC_RETURN CID_WRITE_RETIRED PC_WRITE_RETIRED BR_IMMED_RETIRED BR_RETURN_RETIRED
UNALIGNED_LDST_RETIRED BR_MIS_PRED CPU_CYCLES BR_PRED MEM_ACCESS L1I_CACHE L1D_CACHE_WB L2D_CACHE
L2D_CACHE_REFILL L2D_CACHE_WB BUS_ACCESS MEMORY_ERROR INST_SPEC TTBR_WRITE_RETIRED BUS_CYCLES CHAIN
L1D_CACHE_ALLOCATE L2D_CACHE_ALLOCATE BR_RETIRED BR_MIS_PRED_RETIRED STALL_FRONTEND STALL_BACKEND L1D_TLB
L1I_TLB L2I_CACHE L2I_CACHE_REFILL L3D_CACHE_ALLOCATE L3D_CACHE_REFILL L3D_CACHE L3D_CACHE_WB L2D_TLB_REFILL
L2I_TLB_REFILL L2D_TLB L2I_TLB REMOTE_ACCESS LL_CACHE LL_CACHE_MISS DTLB_WALK ITLB_WALK LL_CACHE_RD
LL_CACHE_MISS_RD MEM_ACCESS_RD MEM_ACCESS_WR OP_RETIRED OP_SPEC STALL STALL_SLOT STALL_SLOT_BACKEND
STALL_SLOT_FRONTEND L1D_CACHE_RD L1D_CACHE_WR L1D_CACHE_REFILL_RD L1D_CACHE_REFILL_WR L2D_CACHE_RD
L2D_CACHE_WR L2D_CACHE_REFILL_RD L2D_CACHE_REFILL_WR BUS_ACCESS_RD BUS_ACCESS_WR
""".split())
_INTEL_JSON = re.compile(r"^[A-Z][A-Z0-9_]*\.[A-Z0-9_.]+(:[a-z]+)?$")
_INTEL_LIKWID = re.compile(r"^(INSTR_RETIRED_ANY|CPU_CLK_UNHALTED_(CORE|REF)|BR_INST_RETIRED_|BR_MISP_RETIRED_)")


_PMU_QUALIFIED = re.compile(r"^[A-Za-z0-9_]+/([^/,=]+)/$")


def event_namespace(name: str) -> str | None:
    """The namespace of one event name (one of `NAMESPACES`), or None when the name does not say. A
    name qualified by its PMU (``cpu_core/INST_RETIRED.ANY/`` of a hybrid Intel catalog) is read
    without the PMU."""
    q = _PMU_QUALIFIED.match(name)
    if q:
        name = q.group(1)
    if name.startswith("system."):
        return "gem5"
    if name in _CALLGRIND:
        return "callgrind"
    if name in _ARM or (name.endswith("_SPEC") and name.isupper()):
        return "arm"
    if _INTEL_JSON.match(name) or _INTEL_LIKWID.match(name):
        return "intel"
    return None


def namespace_of(names: Iterable[str]) -> tuple[str | None, list[str]]:
    """The namespace most of the recognised ``names`` belong to (None when none is recognised), with
    up to three of its names as examples."""
    spaces = {n: event_namespace(n) for n in names}
    votes = Counter(s for s in spaces.values() if s is not None)
    if not votes:
        return None, []
    best = votes.most_common(1)[0][0]
    return best, [n for n, s in spaces.items() if s == best][:3]
