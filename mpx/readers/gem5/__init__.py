"""Reader of gem5 ``stats.txt`` files (any number of dumps; plain, ``.xz``, ``.gz``, ``.bz2``) → `Trace`.

Format (gem5 ``src/base/stats/text.cc``; summary in ``../shared/reference/formats.md``): each dump lies
between ``---------- Begin Simulation Statistics ----------`` and
``---------- End Simulation Statistics   ----------``; a stat line is
``name value [pdf% cdf%] [# description] [(Unit)]`` — gem5 prints the ``#`` only for a non-empty
description and the unit only since v21.1. Nothing else may follow the value: a second number, a ``#``
inside a description or a unit glued to more text are two stat lines merged by a lost newline, an error
(``numCycles 29 119`` never reads as 29). Values are numbers, ``nan``, ``inf`` or ``-inf``. Vectors print
``name::sub`` (plus ``name::total``), 2-D vectors ``name_x::y``, distributions ``name::samples``,
``::mean``, ``::gmean``, ``::stdev``, ``::underflows``, buckets ``::lo-hi``, ``::overflows``,
``::min_value``, ``::max_value``, ``::total``. Vectors flagged ``oneline`` print all bins on one line,
``name |v pdf cdf |v pdf cdf ...`` without subnames: their bins become ``name::0``, ``name::1``, ...

**Events and aux.** Every stat is classified once, by `classify` (counts per reason in
``meta['classification']``): additive counters (units ``Count``, ``Tick``, ``Cycle``, ``Byte``, ``Bit``,
``Joule``; in files without units, and for ``(Unspecified)``, every stat whose name and description do
not mark it as a mean, rate, ratio, percentage, bandwidth, latency average, gauge or setting) and the
additive parts of distributions (samples, under/overflows, buckets, total) are **events**; everything
else — formulas, ratios, rates, ``(Second)``/``(Watt)``/``(Volt)`` values, distribution moments and
extremes, gauges (occupancies per task id, warm-up tick, clock period, prefetcher accuracy/coverage),
the global ``simSeconds``/``simFreq``/``host*`` stats, the time stats ``finalTick``/``simTicks``, the
never-reset stats and the formulas gem5 labels ``(Cycle)`` (``numIdleCycles``/``numBusyCycles`` =
idle fraction × ``numCycles``) — goes to the **aux** table with the value each dump printed (NaN where a dump did not
print it). Vector bins, ``::total`` rows and 2-D bins are separate events (``total = sum of parts`` is
kept for the relations). An additive stat that prints ``nan``/``inf`` or a negative value is not a
counter after all: it is moved to aux as a whole and listed in ``meta['dropped']`` (never counted).

**Stats come and go**: gem5 omits zero ``nozero`` stats, so an event absent from a dump counts 0 there.

**Delta or cumulative, per dump** (formats.md): with start_k = finalTick_k − simTicks_k, dump k is a
*delta* dump (stats were reset at the previous dump) when start_k == finalTick_{k−1} and *cumulative*
(not reset since the previous dump's start) when start_k == start_{k−1}; its interval is always
[finalTick_{k−1}, finalTick_k) and its increments are the values (delta) or the difference from the
previous dump (cumulative; a negative difference is a `FormatError` naming stat and line). Any other
start is an error: start_k > finalTick_{k−1} is a gap (stats reset after the previous dump, e.g. a
region-of-interest reset: what happened in between is unknown — read the dumps on each side of the gap
separately with ``dumps=``), start_k < finalTick_{k−1} an overlap (e.g. two simulations appended to one
file). A dump of zero length (simTicks 0, a reset then a dump at the same tick) carries no interval: it is
dropped (noted in ``meta['dropped']``) if its counters are all 0, else it is an error. Both naming eras
(``finalTick``/``simTicks`` and ``final_tick``/``sim_ticks``) are understood. Aux values are printed
values: in a cumulative dump a formula covers [start_k, finalTick_k), not the interval.

**Never-reset stats** (gem5 ``src/sim/root.cc`` and ``src/cpu/base.cc``, before v21
``src/sim/stat_control.cc``: ``simInsts``/``sim_insts``,
``simOps``/``sim_ops``, ``finalTick``, ``hostMemory``/``hostMemUsage``/``host_mem_usage`` are functors
of live simulator state that ``resetStats`` does not touch) are cumulative even in delta files; they are
kept out of the events (their value at the first dump's start is unknown after a checkpoint restore) and
stored raw in aux. Per-core instruction counts (``committedInsts``, ``commitStats0.numInsts``) are
ordinary events.

**Time axis**: ticks (``time_unit="ticks"``); edges are start_1, finalTick_1, finalTick_2, ... and
``meta['sim_freq']`` is ``simFreq`` (ticks per simulated second). Files without ``finalTick``/``simTicks``
(e.g. stats filtered by a post-processing script) cannot tell delta from cumulative: ``mode='auto'``
refuses them (one dump excepted); pass ``mode='delta'``, ``'cumulative'`` or one mode per dump. Their
time axis is then seconds from ``simSeconds`` (dumps assumed contiguous, the first starting at 0) or,
without it, the dump index (``"intervals"``).

Integers above 2**53 (``finalTick`` of long runs, energies in pJ) are read exactly for the tick arithmetic
and for cumulative differences; the Trace stores float64.

**Name clashes**: gem5 v21 printed two different stats as ``system.cpu.idleCycles`` in one dump (real
file ``muneeb_single.txt``). A name printed twice in a dump with *different* descriptions or units is read
as two stats, the later one named ``name#2`` (``meta['renamed']``); the same line twice is an error.

Every malformed input — empty or truncated file, a dump without End marker, a stat line outside a dump,
a garbage line, a value that is not a number (or longer than any number gem5 prints), text after a
value that gem5 does not print (merged lines), a stat twice in one dump, ticks that go backwards, gaps,
overlaps, negative increments, corrupt compression — raises `FormatError` naming file and line.
Options that make no sense (``mode``, ``dumps``) raise `ConfigError` (a `ValueError`).

Speed and memory: three threads — one decompresses and cuts the text into
blocks of whole lines, one tokenizes each block with compiled code as it arrives (`mpx.readers.gem5.tokens`:
names matched byte for byte against the stats already known, values converted exactly, a description
compared with the one this stat printed before), and the caller's collects the dumps as they end
(`mpx.readers.gem5.dumps`: dense parts for a periodic series, sparse ones where stats come and go — memory
follows the printed rows, not dumps × names). Anything the tokenizer does not recognise goes, block by
block, to the Python parsers of `mpx.readers.gem5.lines` (a bulk fast parser, then a strict line-by-line
one that gives the exact error), so the three agree on every input (tested). A trace wider than the native
format may hold (`mpx.trace_file.MAX_MEMBER_BYTES` per array) is refused before it is allocated. The 1.9 GB,
9,000-dump periodic series (26 MB of xz) reads in 6.3-6.6 s from process start to exit (5.6-5.9 s of it
the read) with a peak of 374-379 MB, against 2.0-2.2 s for ``xz -dc`` alone: 2.98× at a load average of
4.5 on the 2-core development machine (``benchmarks/gem5_reader.py``: side by side, medians of 5; about
5 CPU-seconds against xz's 1.6, so less on an idle machine). The whole-file reader it replaces took
17-18 s and 1.3 GB.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mpx.errors import ConfigError
from mpx.readers.gem5.assemble import assemble, check_mode, selection
from mpx.readers.gem5.dumps import Clash
from mpx.readers.gem5.classify import ADDITIVE_UNITS, DIST_COUNTS, DIST_MOMENTS, KNOWN_FORMULAS, UNIT_ATOMS, classify
from mpx.readers.gem5.lines import BEGIN, END, MODES, NAME
from mpx.readers.gem5.scan import parse
from mpx.trace import Trace

__all__ = ["ADDITIVE_UNITS", "BEGIN", "DIST_COUNTS", "DIST_MOMENTS", "END", "KNOWN_FORMULAS", "MODES", "NAME",
           "UNIT_ATOMS", "classify", "read", "sniff"]


def sniff(path: str | os.PathLike, head: str) -> bool:
    """A gem5 text stats file: the dump marker appears at the top."""
    return BEGIN.decode() in head


def read(
    path: str | os.PathLike,
    *,
    mode: str | Sequence[str] = "auto",
    dumps: slice | tuple[int, int] | range | None = None,
) -> Trace:
    """Read a gem5 ``stats.txt`` (see the module docstring for what becomes an event, aux value,
    interval and error).

    ``mode``: ``"auto"`` (from the tick stats), or ``"delta"``/``"cumulative"`` for every dump, or one of
    them per selected dump (the first entry is not used), for files without ``finalTick``/``simTicks``;
    where the ticks exist they must agree. ``dumps``: which dumps to read (0-based, a slice, a
    ``(start, stop)`` pair or a range, step 1); the first selected dump starts the trace. Dumps after
    the selection are not read.
    """
    select = selection(dumps)
    modes = check_mode(mode)
    stop = select.stop if select.stop is not None and select.stop >= 0 else None
    if stop is not None and (select.start or 0) >= 0 and stop <= (select.start or 0):
        raise ConfigError(f"dumps={dumps!r} selects no dump")
    try:
        return assemble(path, *parse(path, select, stop, frozenset(), allow_clash=True), modes)
    except Clash as clash:  # read again, telling apart the stats that share a name
        return assemble(path, *parse(path, select, stop, clash.names, allow_clash=False), modes)
