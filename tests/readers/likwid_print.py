"""likwid-perfctr's printing code, ported line by line to write hand-made test outputs from chosen counts.

From RRZE-HPC/likwid ``src/applications/likwid.lua`` (master, d9c523b1): ``num2str``, ``get_spaces``,
``printtable``, ``printcsv``, ``tableMinMaxAvgSum``, ``printOutput``; and ``likwid-perfctr.lua``'s timeline loop
(the ``# HWThreads`` / ``# GID|...`` headers and one line per read).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

_LUA_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def num2str(value: float | str) -> str:
    """``likwid.num2str``: integers as integers, else ``%.4f`` when short and non-zero, else ``%e``."""
    if isinstance(value, str):
        return value
    if value != value:
        return "nan"
    if value == 0:
        return "0"
    if float(value).is_integer():
        return str(int(value))
    s = f"{value:.4f}"
    if len(s) < 12 and float(s) != 0:
        return s
    return f"{value:e}"


def _spaces(s: str, max_space: int) -> tuple[str, str]:
    back = 0 if _LUA_NUMBER.match(s) else math.ceil((max_space - len(s)) / 2)
    front = max_space - back - len(s)
    if front < back:
        front, back = back, front
    return " " * front, " " * back


def printtable(tab: list[list[str]]) -> list[str]:
    """``likwid.printtable``: ``tab`` is a list of columns, each header first."""
    widths = [max(len(str(x)) for x in col) for col in tab]
    hline = "".join("+-" + "-" * w + "-" for w in widths) + "+"
    out = [hline]
    head = []
    for col, w in zip(tab, widths):
        f, b = _spaces(str(col[0]), w)
        head.append(f + str(col[0]) + b)
    out.append("| " + " | ".join(head) + " |")
    out.append(hline)
    for j in range(1, len(tab[0])):
        row = "| "
        for i, (col, w) in enumerate(zip(tab, widths)):
            f, b = _spaces(str(col[j]), w)
            row += f + str(col[j]) + b + (" | " if i < len(tab) - 1 else " |")
        out.append(row)
    if len(tab[0]) > 1:
        out.append(hline)
    out.append("")
    return out


def printcsv(tab: list[list[str]], linelength: int) -> list[str]:
    """``likwid.printcsv``: rows of the columns, padded with commas to ``linelength`` fields."""
    out = []
    for j in range(len(tab[0])):
        s = ",".join(str(col[j]) for col in tab)
        if len(tab) < linelength:
            s += "," * (linelength - len(tab))
        out.append(s)
    return out


def min_max_avg_sum(tab: list[list[str]], skip_cols: int, skip_lines: int) -> list[list[str]]:
    """``likwid.tableToMinMaxAvgSum``: the STAT table (Sum, Min, Max, Avg over the thread columns)."""
    n_lines = len(tab[0])
    sums, mins, maxs = ["Sum"], ["Min"], ["Max"]
    avgs = ["Avg"]
    for i in range(skip_lines, n_lines):
        nums = [float(tab[j][i]) for j in range(skip_cols, len(tab)) if _LUA_NUMBER.match(str(tab[j][i]))]
        sums.append(num2str(sum(nums)))
        mins.append(num2str(min(nums)))
        maxs.append(num2str(max(nums)))
        avgs.append(num2str(sum(nums) / (len(tab) - skip_cols)))
    first = [tab[0][0]] + [f"{x} STAT" for x in tab[0][1:]]
    return [first] + [list(tab[i]) for i in range(1, skip_cols)] + [sums, mins, maxs, avgs]


@dataclass
class Group:
    """One group's results as printOutput gets them: events (name, counter), counts[event][thread], runtime."""

    name: str
    events: list[tuple[str, str]]
    counts: list[list[float | str]]
    runtime: float  # getRuntimeOfGroup (wrapper mode)
    metrics: list[tuple[str, list[float]]] = field(default_factory=list)  # metric name, per thread
    region_time: list[float] | None = None  # markerRegionTime per thread (marker mode)
    calls: list[int] | None = None


def print_output(groups: list[Group], cpus: list[int], *, csv: bool = False, region: str | None = None,
                 thread: str = "HWThread", stats: bool = False) -> list[str]:
    """``likwid.printOutput`` (5.1+ layout: the runtime row only for groups without metrics)."""
    out: list[str] = []
    for g, grp in enumerate(groups, start=1):
        info: list[list[str]] = []
        if region is not None:
            info = [["Region Info", "RDTSC Runtime [s]", "call count"]]
            for c, cpu in enumerate(cpus):
                info.append([f"{thread} {cpu}", f"{grp.region_time[c]:.6f}", str(grp.calls[c])])
        first = [["Event"], ["Counter"]]
        if not grp.metrics:
            first[0].append("Runtime (RDTSC) [s]")
            first[1].append("TSC")
        for name, ctr in grp.events:
            first[0].append(name)
            first[1].append(ctr)
        for c, cpu in enumerate(cpus):
            col = [f"{thread} {cpu}"]
            if not grp.metrics:
                col.append(f"{grp.runtime if region is None else grp.region_time[c]:e}")
            col.extend(num2str(grp.counts[e][c]) for e in range(len(grp.events)))
            first.append(col)
        first_c = min_max_avg_sum(first, 2, 1) if len(cpus) > 1 or stats else []
        second: list[list[str]] = []
        second_c: list[list[str]] = []
        if grp.metrics:
            second = [["Metric"] + [m for m, _ in grp.metrics]]
            for c, cpu in enumerate(cpus):
                second.append([f"{thread} {cpu}"] + [num2str(v[c]) for _, v in grp.metrics])
            second_c = min_max_avg_sum(second, 1, 1) if len(cpus) > 1 or stats else []
        width = max(len(first), len(first_c), len(second), len(second_c))
        if csv:
            out.append("STRUCT,Info,3" + "," * (width - 3))
            out.append("CPU name:,Test CPU" + "," * (width - 2))
            out.append("CPU type:,Test" + "," * (width - 2))
            out.append("CPU clock:,2.5 GHz" + "," * (width - 2))
            rows = len(first[0]) - 1
            out.append(f"TABLE,Group {g} Raw,{grp.name},{rows}" + "," * (width - 4) if region is None else
                       f"TABLE,Region {region},Group {g} Raw,{grp.name},{rows}" + "," * (width - 5))
            if info:
                out.extend(printcsv(info, width))
            out.extend(printcsv(first, width))
        else:
            out.append(f"Group {g}: {grp.name}" if region is None else f"Region {region}, Group {g}: {grp.name}")
            if info:
                out.extend(printtable(info))
            out.extend(printtable(first))
        tables = ([("Raw STAT", first_c)] if first_c else []) + ([("Metric", second)] if second else []) + \
            ([("Metric STAT", second_c)] if second and second_c else [])
        for kind, tab in tables:
            if csv:
                pre = f"TABLE,Group {g} {kind}" if region is None else f"TABLE,Region {region},Group {g} {kind}"
                pad = width - (4 if region is None else 5)
                out.append(f"{pre},{grp.name},{len(tab[0]) - 1}" + "," * pad)
                out.extend(printcsv(tab, width))
            else:
                out.extend(printtable(tab))
    return out


def lua_tostring(v: float) -> str:
    """Lua 5.3's ``tostring`` of a float (``%.14g``, a ``.0`` added to integral values)."""
    s = f"{v:.14g}"
    return s + ".0" if re.fullmatch(r"-?\d+", s) else s


def timeline(groups: list[tuple[list[str], list[list[list[float]]]]], cpus: list[int], times: list[float],
             active: list[int], *, outfile: bool = False, csv: bool = False) -> list[str]:
    """likwid-perfctr -t: headers (stdout) and one line per read (stderr), merged as ``2>&1`` saves them.

    ``groups``: per group (event names, per read counts[event][thread]); ``active``: the group (1-based) of each
    read, ``times``: its seconds since the start (cumulative ``getClock(start, stop)``)."""
    delim, word = ("|", ": ") if not outfile else (("," if csv else " "),) * 2
    tdelim = "," if csv else " "
    out = ["# HWThreads" + word + delim.join(str(c) for c in cpus)]
    for names, _ in groups:
        out.append("# " + delim.join(["GID", "EventCount", "CpuCount", "Total runtime [s]"] + names))
    reads = {g: 0 for g in range(1, len(groups) + 1)}
    for t, g in zip(times, active):
        names, per_read = groups[g - 1]
        vals = per_read[reads[g]]
        reads[g] += 1
        fields = [str(g), str(len(names)), str(len(cpus)), lua_tostring(t)]
        fields += [lua_tostring(float(vals[e][c])) for e in range(len(names)) for c in range(len(cpus))]
        out.append(tdelim.join(fields))
    return out
