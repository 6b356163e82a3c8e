"""Which gem5 stats are additive counts (events of a Trace) and which are not (the side table)."""

from __future__ import annotations

import re

#: gem5's unit vocabulary (``src/base/stats/units.hh``); rates print as ``(A/B)``.
UNIT_ATOMS = ("Cycle", "Tick", "Second", "Bit", "Byte", "Volt", "Joule", "Watt", "Celsius", "Count",
              "Ratio", "Unspecified")
ADDITIVE_UNITS = frozenset({"Count", "Tick", "Cycle", "Byte", "Bit", "Joule"})

#: Top-level stats of gem5's root and CPU groups, by role (both naming eras).
GLOBAL_STATS: dict[str, str] = {
    **dict.fromkeys(("finalTick", "final_tick", "simTicks", "sim_ticks"), "time"),
    **dict.fromkeys(("simInsts", "sim_insts", "simOps", "sim_ops", "hostMemory", "hostMemUsage",
                     "host_mem_usage"), "never_reset"),
    **dict.fromkeys(("simSeconds", "sim_seconds", "simFreq", "sim_freq", "hostSeconds", "host_seconds",
                     "hostInstRate", "host_inst_rate", "hostOpRate", "host_op_rate", "hostTickRate",
                     "host_tick_rate"), "global_formula"),
}

#: Parts of a distribution that do not add across intervals (the rest — samples, under/overflows,
#: buckets, total — do); ``bucket_size``/``min_bucket``/``max_bucket`` are its settings (oneline dists).
DIST_MOMENTS = frozenset({"mean", "gmean", "stdev", "min_value", "max_value", "bucket_size", "min_bucket",
                          "max_bucket"})
DIST_COUNTS = frozenset({"samples", "underflows", "overflows"})
# Moments are never counts, even when a filtered file kept ``x::mean`` without ``x::samples``.
MOMENTS_ALWAYS = frozenset({"mean", "gmean", "stdev", "min_value", "max_value"})

#: Formulas printed with a count-like unit: ``idleFraction * numCycles`` and its complement
#: (gem5 ``src/cpu/simple/exec_context.hh``); fractional, and they may decrease in cumulative dumps.
KNOWN_FORMULAS = frozenset({"numIdleCycles", "numBusyCycles", "num_idle_cycles", "num_busy_cycles"})

NONADDITIVE_DESC = re.compile(
    r"""\b(average|avg|mean|rate|ratio|fraction|cpi|ipc|voltage|frequency|accuracy|coverage|maximum|minimum
        |peak)\b
      | percent | utili[sz]ation | bandwidth | clock\s+period | occupied\s+blocks | warm-?up
      | \bper\s+(cycle|second|tick|inst|instruction)s?\b | /s\) | \(m?W\)""",
    re.IGNORECASE | re.VERBOSE,
)
NONADDITIVE_NAME = re.compile(
    r"""(^|_)(avg|average|rate|ratio|ipc|cpi|pct|percent|util|utilization|fraction|bandwidth|voltage
        |clock|frequency)(_|$)
      | [a-z0-9](Avg|Average|Rate|Ratio|Pct|Percent|Util|Utilization|Fraction|BW|Bandwidth)([A-Z_]|$)
      | ^(avg|average)[A-Z]
      | ^bw_(read|write|total|inst_read)$""",
    re.VERBOSE,
)


def classify(name: str, unit: str | None, desc: str, distribution: bool = False) -> tuple[bool, str]:
    """Is stat ``name`` an additive counter? Returns ``(additive, reason)``.

    ``unit`` is the printed unit (None before gem5 v21.1 or when descriptions are off), ``desc`` the
    description, ``distribution`` whether the part before the last ``::`` is a distribution (has a
    ``::samples`` row somewhere in the file). Order: gem5's global stats by name; distribution parts;
    `KNOWN_FORMULAS`; descriptions that say mean/rate/ratio/percentage/bandwidth/gauge/setting (they
    overrule a ``Count`` unit: gem5 labels occupancies and prefetcher accuracy ``Count``); the unit;
    finally, without a unit or with ``Unspecified``, the name (``avgGap``, ``missRate``, ``peakBW``,
    ``ipc``, ``m_avg_stall_time`` ...). Verified on the six files of ``../shared/data/gem5`` and the
    four periodic series (see ``tests/readers/test_gem5.py``).
    """
    role = GLOBAL_STATS.get(name)
    if role is not None:
        return False, role
    base, sep, part = name.rpartition("::")
    if sep:
        if part in DIST_MOMENTS and (distribution or part in MOMENTS_ALWAYS):
            return False, "distribution_moment"
        if part in DIST_COUNTS or distribution:
            return True, "distribution_count"
    leaf = (base if sep else name).rsplit(".", 1)[-1]
    if leaf in KNOWN_FORMULAS:
        return False, "known_formula"
    if desc and NONADDITIVE_DESC.search(desc):
        return False, "nonadditive_description"
    if unit is not None and unit != "Unspecified":
        if unit in ADDITIVE_UNITS:
            return True, "additive_unit"
        return False, "nonadditive_unit"
    if NONADDITIVE_NAME.search(leaf):
        return False, "nonadditive_name"
    return True, "counter_by_name"
