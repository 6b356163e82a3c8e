"""Reader of gem5 ``stats.txt`` files (any number of dumps; plain, ``.xz``, ``.gz``, ``.bz2``) → `Trace`.

Format (gem5 ``src/base/stats/text.cc``; summary in ``../shared/reference/formats.md``): each dump lies
between ``---------- Begin Simulation Statistics ----------`` and
``---------- End Simulation Statistics   ----------``; a stat line is
``name value [pdf% cdf%] [# description] [(Unit)]`` — gem5 prints the ``#`` only for a non-empty
description and the unit only since v21.1. Values are numbers, ``nan``, ``inf`` or ``-inf``. Vectors print
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
a garbage line, a value that is not a number, a stat twice in one dump, ticks that go backwards, gaps,
overlaps, negative increments, corrupt compression — raises `FormatError` naming file and line.
Options that make no sense (``mode``, ``dumps``) raise `ValueError`.

Speed: a helper thread decompresses ahead while the main thread parses each 16 MiB block with one
``bytes.split`` per line, a dict lookup per name and one numpy conversion of all values of the block;
a strict line-by-line parser takes over a block only when the fast one meets anything unusual, and gives
the exact error message. The 1.9 GB, 9,000-dump periodic series reads in about 14 s with 1.2 GB peak
memory (``benchmarks/bench_gem5_reader.py``, 2 cores shared with other jobs).
"""

from __future__ import annotations

import lzma
import os
import queue
import re
import threading
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import IO, Any

import numpy as np

from mpx.errors import FormatError
from mpx.readers._io import open_binary
from mpx.trace import Trace

NAME = "gem5"

BEGIN = b"---------- Begin Simulation Statistics ----------"
END = b"---------- End Simulation Statistics   ----------"
_DASHES = b"----------"

# Column codes of non-stat lines (stat columns are >= 0).
_MARK, _BEGIN, _END, _BLANK = -1, -2, -3, -4

_BLOCK = 1 << 24
_EXACT = 2.0**53

MODES = ("delta", "cumulative")

# -- classification ------------------------------------------------------------------------------

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
_MOMENTS_ALWAYS = frozenset({"mean", "gmean", "stdev", "min_value", "max_value"})

#: Formulas printed with a count-like unit: ``idleFraction * numCycles`` and its complement
#: (gem5 ``src/cpu/simple/exec_context.hh``); fractional, and they may decrease in cumulative dumps.
KNOWN_FORMULAS = frozenset({"numIdleCycles", "numBusyCycles", "num_idle_cycles", "num_busy_cycles"})

_NONADDITIVE_DESC = re.compile(
    r"""\b(average|avg|mean|rate|ratio|fraction|cpi|ipc|voltage|frequency|accuracy|coverage|maximum|minimum
        |peak)\b
      | percent | utili[sz]ation | bandwidth | clock\s+period | occupied\s+blocks | warm-?up
      | \bper\s+(cycle|second|tick|inst|instruction)s?\b | /s\) | \(m?W\)""",
    re.IGNORECASE | re.VERBOSE,
)
_NONADDITIVE_NAME = re.compile(
    r"""(^|_)(avg|average|rate|ratio|ipc|cpi|pct|percent|util|utilization|fraction|bandwidth|voltage
        |clock|frequency)(_|$)
      | [a-z0-9](Avg|Average|Rate|Ratio|Pct|Percent|Util|Utilization|Fraction|BW|Bandwidth)([A-Z_]|$)
      | ^(avg|average)[A-Z]""",
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
    four periodic series (see ``tests/test_reader_gem5.py``).
    """
    role = GLOBAL_STATS.get(name)
    if role is not None:
        return False, role
    base, sep, part = name.rpartition("::")
    if sep:
        if part in DIST_MOMENTS and (distribution or part in _MOMENTS_ALWAYS):
            return False, "distribution_moment"
        if part in DIST_COUNTS or distribution:
            return True, "distribution_count"
    leaf = (base if sep else name).rsplit(".", 1)[-1]
    if leaf in KNOWN_FORMULAS:
        return False, "known_formula"
    if desc and _NONADDITIVE_DESC.search(desc):
        return False, "nonadditive_description"
    if unit is not None and unit != "Unspecified":
        if unit in ADDITIVE_UNITS:
            return True, "additive_unit"
        return False, "nonadditive_unit"
    if _NONADDITIVE_NAME.search(leaf):
        return False, "nonadditive_name"
    return True, "counter_by_name"


# -- line-level parsing --------------------------------------------------------------------------


class _Bad(ValueError):
    """A problem in one line; the caller adds file and line."""


_NAME_RE = re.compile(r"[A-Za-z_][!-~]*\Z")
_UNIT_ATOM = "(?:" + "|".join(UNIT_ATOMS) + "|\0)"  # \0 stands for an already reduced rate
_RATE_RE = re.compile(rf"\({_UNIT_ATOM}/{_UNIT_ATOM}\)")
_UNIT_RE = re.compile(_UNIT_ATOM + r"\Z")
_VALUE_RE = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)\Z", re.IGNORECASE)
_INT_RE = re.compile(rb"[+-]?\d+\Z")
_PERCENT_RE = re.compile(rb"-?(?:\d+\.?\d*|nan|inf)%\Z", re.IGNORECASE)

# Bytes the fast path lets numpy convert: numbers, nan, inf (numpy accepts what Python's float accepts;
# on these bytes that is exactly what _VALUE_RE accepts, so both parsers agree).
_VALUE_BYTES = np.zeros(256, dtype=bool)
_VALUE_BYTES[list(b"0123456789.eE+-naif\x00")] = True


def _is_unit(text: str) -> bool:
    """``Count``, ``Tick``, ``(Count/Second)``, ``((Count/Cycle)/Second)`` ... (gem5's vocabulary only)."""
    if "\0" in text:
        return False
    while True:
        reduced = _RATE_RE.sub("\0", text)
        if reduced == text:
            return bool(_UNIT_RE.match(text))
        text = reduced


def _split_tail(rest: bytes) -> tuple[bytes, str | None, str]:
    """``rest`` of a line after name and value → (what precedes the description, unit, description)."""
    text = rest.rstrip()
    unit = None
    if text.endswith(b")"):
        depth, i = 0, len(text) - 1
        while i >= 0:
            ch = text[i]
            depth += (ch == 0x29) - (ch == 0x28)
            if depth == 0:
                break
            i -= 1
        if i >= 0:
            cand = text[i + 1 : -1].decode("utf-8", "replace")
            if _is_unit(cand):
                unit, text = cand, text[:i].rstrip()
    body, hash_, desc = text.partition(b"#")
    return body, unit, desc.decode("utf-8", "replace").strip() if hash_ else ""


def _stat_name(name: bytes) -> str:
    try:
        text = name.decode("ascii")
    except UnicodeDecodeError:
        raise _Bad(f"stat name {name[:60]!r} is not ASCII") from None
    if not _NAME_RE.match(text) or "#" in text or "|" in text:
        raise _Bad(f"{text[:80]!r} is not a gem5 stat name")
    return text


def _value(token: bytes) -> tuple[float, int | None]:
    """A printed value → (float, exact int when it is an integer beyond float64's 2**53)."""
    if not _VALUE_RE.match(token):
        raise _Bad(f"value {token[:40].decode('utf-8', 'replace')!r} is not a number")
    value = float(token)
    if abs(value) >= _EXACT and _INT_RE.match(token):
        return value, int(token)
    return value, None


class _Stats:
    """Stat names seen so far → column, with each stat's unit and description (from its first line).

    A name in ``clashing`` was printed twice in one dump: gem5 gave it to two different stats (seen in
    real v21 files: ``system.cpu.idleCycles`` of the CPU and of its IEW stage). Such lines are told apart
    by (unit, description); the second stat becomes ``name#2`` (gem5 names never contain ``#``).
    """

    def __init__(self, clashing: frozenset[bytes] = frozenset()) -> None:
        self.index: dict[bytes, int] = {_DASHES: _MARK}  # clashing names stay out: add() resolves them
        self.clashing = clashing
        self.variants: dict[bytes, dict[tuple[str | None, str], int]] = {}
        self.names: list[str] = []
        self.units: list[str | None] = []
        self.descs: list[str] = []
        self.dist_bases: set[str] = set()

    def add(self, name: bytes, line: bytes) -> int:
        """Register a stat first met on ``line`` (raises `_Bad` for a name gem5 cannot print)."""
        if name in self.clashing:
            return self.resolve(name, line)
        text = _stat_name(name)
        parts = line.split(None, 2)
        _, unit, desc = _split_tail(parts[2] if len(parts) > 2 else b"")
        return self.register(name, text, unit, desc)

    def resolve(self, name: bytes, line: bytes) -> int:
        """Column of a line whose name gem5 used for several stats (by its unit and description)."""
        text = _stat_name(name)
        parts = line.split(None, 2)
        _, unit, desc = _split_tail(parts[2] if len(parts) > 2 else b"")
        variants = self.variants.setdefault(name, {})
        col = variants.get((unit, desc))
        if col is None:
            label = text if not variants else f"{text}#{len(variants) + 1}"
            col = variants[(unit, desc)] = self.register(None, label, unit, desc)
        return col

    def register(self, key: bytes | None, text: str, unit: str | None, desc: str) -> int:
        col = len(self.names)
        if key is not None:
            self.index[key] = col
        self.names.append(text)
        self.units.append(unit)
        self.descs.append(desc)
        base, sep, part = text.rpartition("::")
        if sep and part == "samples":
            self.dist_bases.add(base)
        return col


class _Chunk:
    """Parsed stat rows of one block of lines: line numbers, columns (or marker codes), values."""

    __slots__ = ("lines", "cols", "vals", "exact")

    def __init__(self, lines: np.ndarray, cols: np.ndarray, vals: np.ndarray, exact: dict[int, int]):
        self.lines, self.cols, self.vals, self.exact = lines, cols, vals, exact


def _fast_chunk(lines: list[bytes], first: int, stats: _Stats) -> _Chunk | None:
    """Parse a block of ordinary lines in bulk; None when anything is unusual (the strict parser then
    redoes the block and says exactly what is wrong). The caller keeps blocks with NUL bytes away:
    numpy would read ``b"1\\x002"`` as 1."""
    get = stats.index.get
    add = stats.add
    cols: list[int] = []
    vals: list[bytes] = []
    put_col, put_val = cols.append, vals.append
    try:
        for line in lines:
            parts = line.split(None, 2)
            if parts:
                col = get(parts[0])
                if col is None:
                    col = add(parts[0], line)
                put_col(col)
                put_val(parts[1])
            else:
                put_col(_BLANK)
                put_val(b"0")
    except (IndexError, _Bad):
        return None
    col_arr = np.array(cols, dtype=np.int32)
    for i in np.flatnonzero(col_arr == _MARK).tolist():
        text = lines[i].strip()
        if text == BEGIN:
            col_arr[i] = _BEGIN
        elif text == END:
            col_arr[i] = _END
        else:
            return None
        vals[i] = b"0"
    raw = np.array(vals, dtype=np.bytes_)
    if not _VALUE_BYTES[raw.view(np.uint8)].all():
        return None
    try:
        val_arr = raw.astype(np.float64)
    except ValueError:
        return None
    keep = col_arr != _BLANK
    rank = np.cumsum(keep) - 1
    exact = {}
    for i in np.flatnonzero(np.abs(val_arr) >= _EXACT).tolist():
        if _INT_RE.match(vals[i]):
            exact[int(rank[i])] = int(vals[i])
    return _Chunk(_line_numbers(first + np.flatnonzero(keep)), col_arr[keep], val_arr[keep], exact)


def _strict_chunk(lines: list[bytes], first: int, stats: _Stats, path: Any) -> _Chunk:
    """Parse a block line by line, validating everything (also reads ``oneline`` vectors)."""
    out_line: list[int] = []
    out_col: list[int] = []
    out_val: list[float] = []
    exact: dict[int, int] = {}
    for i, line in enumerate(lines):
        lineno = first + i
        text = line.strip()
        if not text:
            continue
        if text.startswith(b"---"):
            if text == BEGIN or text == END:
                out_line.append(lineno)
                out_col.append(_BEGIN if text == BEGIN else _END)
                out_val.append(0.0)
                continue
            raise FormatError(path, lineno, f"malformed dump marker {_show(text)}")
        parts = text.split(None, 2)
        try:
            if len(parts) < 2:
                raise _Bad("a stat line needs a name and a value")
            if parts[1].startswith(b"|"):
                entries = _oneline(stats, parts[0], text)
            else:
                col = stats.index.get(parts[0])
                if col is None:
                    col = stats.add(parts[0], text)
                entries = [(col, parts[1])]
            for col, token in entries:
                value, big = _value(token)
                if big is not None:
                    exact[len(out_col)] = big
                out_line.append(lineno)
                out_col.append(col)
                out_val.append(value)
        except _Bad as exc:
            raise FormatError(path, lineno, f"{exc}: {_show(text)}") from None
    return _Chunk(_line_numbers(np.array(out_line, dtype=np.int64)), np.array(out_col, dtype=np.int32),
                  np.array(out_val, dtype=np.float64), exact)


def _oneline(stats: _Stats, name: bytes, text: bytes) -> list[tuple[int, bytes]]:
    """A ``oneline`` vector or distribution-bucket line: ``name |v [pdf% cdf%] |v ...`` → bins
    ``name::0``, ``name::1`` ... (gem5 prints no subnames on such lines)."""
    label = _stat_name(name)
    body, unit, desc = _split_tail(text[len(name):])
    out = []
    for j, entry in enumerate(body.split(b"|")[1:]):
        tokens = entry.split()
        if not tokens or not all(_PERCENT_RE.match(t) for t in tokens[1:]):
            raise _Bad(f"bin {j} of the one-line vector {label!r} is not 'value [pdf% cdf%]'")
        key = name + b"::" + str(j).encode()
        col = stats.index.get(key)
        if col is None:
            col = stats.register(key, f"{label}::{j}", unit, desc)
        out.append((col, tokens[0]))
    if not out:
        raise _Bad(f"one-line vector {label!r} has no bins")
    return out


def _line_numbers(lines: np.ndarray) -> np.ndarray:
    """int32 unless the file has more than 2**31 lines."""
    return lines.astype(np.int32) if not lines.size or lines[-1] < 2**31 - 1 else lines


def _show(text: bytes) -> str:
    return repr(text[:100].decode("utf-8", "replace")) + ("..." if len(text) > 100 else "")


# -- reading the file ------------------------------------------------------------------------------


def _blocks(fh: IO[bytes], path: Any) -> Iterator[bytes]:
    """Decompressed blocks of ``fh``; a helper thread reads ahead (lzma and zlib release the GIL)."""
    stop = threading.Event()
    blocks: queue.Queue = queue.Queue(maxsize=2)

    def put(item: Any) -> None:
        while not stop.is_set():
            try:
                blocks.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def work() -> None:
        try:
            while not stop.is_set():
                block = fh.read(_BLOCK)
                put(block)
                if not block:
                    return
        except BaseException as exc:  # handed to the consumer
            put(exc)

    worker = threading.Thread(target=work, name="mpx-gem5-read", daemon=True)
    worker.start()
    try:
        while True:
            item = blocks.get()
            if isinstance(item, BaseException):
                if isinstance(item, (lzma.LZMAError, EOFError, zlib.error, OSError)):
                    raise FormatError(path, None, f"cannot decompress: {item}") from None
                raise item
            if not item:
                return
            yield item
    finally:
        stop.set()
        worker.join()
        fh.close()


def _parse(path: Any, stop_dumps: int | None, clashing: frozenset[bytes]) -> tuple[_Stats, _Chunk, bool]:
    """All stat rows and markers of the file (or of its first ``stop_dumps`` dumps)."""
    stats = _Stats(clashing)
    chunks: list[_Chunk] = []
    first = 1
    carry = b""
    ends = 0
    stopped = False
    blocks = _blocks(open_binary(path), path)
    try:
        for block in blocks:
            lines = block.split(b"\n")
            lines[0] = carry + lines[0]
            carry = lines.pop()
            if not lines:
                continue
            fast = None if b"\0" in block else _fast_chunk(lines, first, stats)
            chunks.append(fast or _strict_chunk(lines, first, stats, path))
            first += len(lines)
            if stop_dumps is not None:
                ends += int(np.count_nonzero(chunks[-1].cols == _END))
                if ends >= stop_dumps:
                    stopped = True
                    break
    finally:
        blocks.close()
    if carry and not stopped:
        lines = [carry]
        fast = None if b"\0" in carry else _fast_chunk(lines, first, stats)
        chunks.append(fast or _strict_chunk(lines, first, stats, path))
    exact: dict[int, int] = {}
    offset = 0
    for ch in chunks:
        exact.update({offset + i: v for i, v in ch.exact.items()})
        offset += len(ch.cols)
    if chunks:
        rows = _Chunk(np.concatenate([c.lines for c in chunks]), np.concatenate([c.cols for c in chunks]),
                      np.concatenate([c.vals for c in chunks]), exact)
    else:
        rows = _Chunk(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0), {})
    return stats, rows, stopped


# -- public API ------------------------------------------------------------------------------------


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
    select = _selection(dumps)
    modes = _check_mode(mode)
    stop = select.stop if select.stop is not None and select.stop >= 0 else None
    if stop is not None and (select.start or 0) >= 0 and stop <= (select.start or 0):
        raise ValueError(f"dumps={dumps!r} selects no dump")
    stats, rows, stopped = _parse(path, stop, frozenset())
    try:
        return _assemble(path, stats, rows, stopped, select, modes, stop, allow_clash=True)
    except _Clash as clash:  # read again, telling apart the stats that share a name
        stats, rows, stopped = _parse(path, stop, clash.names)
        return _assemble(path, stats, rows, stopped, select, modes, stop, allow_clash=False)


class _Clash(Exception):
    """Names printed twice in one dump, to be told apart by description on a second reading."""

    def __init__(self, names: frozenset[bytes]) -> None:
        self.names = names


def _selection(dumps: Any) -> slice:
    if dumps is None:
        return slice(None)
    if isinstance(dumps, range):
        if dumps.step != 1:
            raise ValueError(f"dumps must be contiguous (step 1), got {dumps!r}")
        return slice(dumps.start, dumps.stop)
    if isinstance(dumps, tuple) and len(dumps) == 2:
        return slice(*dumps)
    if isinstance(dumps, slice):
        if dumps.step not in (None, 1):
            raise ValueError(f"dumps must be contiguous (step 1), got {dumps!r}")
        return dumps
    raise ValueError(f"dumps must be a slice, a (start, stop) pair or a range, got {dumps!r}")


def _check_mode(mode: Any) -> str | list[str]:
    if isinstance(mode, str):
        if mode != "auto" and mode not in MODES:
            raise ValueError(f"mode must be 'auto', 'delta', 'cumulative' or a list of those, got {mode!r}")
        return mode
    modes = list(mode)
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ValueError(f"per-dump modes must be 'delta' or 'cumulative', got {bad[0]!r}")
    return modes


def _assemble(path: Any, stats: _Stats, rows: _Chunk, stopped: bool, select: slice,
              mode: str | list[str], stop: int | None, allow_clash: bool) -> Trace:
    line, col, val = rows.lines, rows.cols, rows.vals
    is_b, is_e = col == _BEGIN, col == _END
    marks = np.flatnonzero(is_b | is_e)
    if stopped:  # drop whatever was read past the last selected dump
        cut = int(np.flatnonzero(is_e)[stop - 1]) + 1
        line, col, val = line[:cut], col[:cut], val[:cut]
        is_b, is_e = is_b[:cut], is_e[:cut]
        marks = marks[marks < cut]
    if marks.size == 0:
        raise FormatError(path, None, "no gem5 dump in the file (no '---------- Begin Simulation "
                                      "Statistics ----------' line): empty or not a gem5 stats.txt")
    kinds = col[marks]
    expect = np.where(np.arange(marks.size) % 2 == 0, _BEGIN, _END)
    wrong = np.flatnonzero(kinds != expect)
    if wrong.size:
        j = int(wrong[0])
        if kinds[j] == _BEGIN:
            raise FormatError(path, int(line[marks[j]]), f"a dump begins here but the dump begun at line "
                                                         f"{int(line[marks[j - 1]])} has no End marker")
        raise FormatError(path, int(line[marks[j]]), "End marker without a Begin marker")
    if marks.size % 2:
        raise FormatError(path, int(line[marks[-1]]), "the dump begun here has no End marker "
                                                      "(truncated file?)")
    depth = np.cumsum(is_b, dtype=np.int32) - np.cumsum(is_e, dtype=np.int32)
    is_stat = col >= 0
    outside = np.flatnonzero(is_stat & (depth != 1))
    if outside.size:
        raise FormatError(path, int(line[outside[0]]), f"stat {stats.names[col[outside[0]]]!r} outside a dump "
                                                       "(before a Begin or after an End marker)")
    n_file = int(is_b.sum())
    begin_lines = line[is_b]
    picked = range(n_file)[select]
    if len(picked) == 0:
        raise ValueError(f"dumps selection {select} selects none of the file's {n_file} dumps")
    first_dump, n_dumps = picked.start, len(picked)
    dump_of = np.cumsum(is_b, dtype=np.int32) - 1
    if n_dumps == n_file:
        rows_sel = np.flatnonzero(is_stat)
    else:
        rows_sel = np.flatnonzero(is_stat & (dump_of >= first_dump) & (dump_of < first_dump + n_dumps))
    del depth, is_stat
    n_cols = len(stats.names)
    key = (dump_of[rows_sel] - first_dump).astype(np.int64)  # dump * n_cols + column, built in place
    del dump_of
    key *= n_cols
    key += col[rows_sel]
    first_row = np.full(n_dumps * n_cols, -1, dtype=np.int64)
    first_row[key[::-1]] = rows_sel[::-1]
    dup = np.flatnonzero(first_row[key] != rows_sel)
    if dup.size:
        names = frozenset(stats.names[i].encode() for i in np.unique(col[rows_sel[dup]]).tolist())
        if allow_clash:
            raise _Clash(names)
        r = rows_sel[dup[0]]
        raise FormatError(path, int(line[r]), f"stat {stats.names[col[r]]!r} appears twice in the dump begun "
                                              f"at line {int(begin_lines[first_dump + key[dup[0]] // n_cols])} "
                                              f"(first at line {int(line[first_row[key[dup[0]]]])})")
    values = np.full(n_dumps * n_cols, np.nan)
    values[key] = val[rows_sel]
    values = values.reshape(n_dumps, n_cols)
    present = (first_row >= 0).reshape(n_dumps, n_cols)
    exact = {}
    if rows.exact:
        big_rows = np.fromiter(rows.exact, dtype=np.int64, count=len(rows.exact))
        at = np.minimum(np.searchsorted(rows_sel, big_rows), max(len(rows_sel) - 1, 0))
        for r, i in zip(big_rows.tolist(), at.tolist()):
            if len(rows_sel) and rows_sel[i] == r:
                exact[divmod(int(key[i]), n_cols)] = rows.exact[r]
    build = _Build(path, stats, line, begin_lines[first_dump:first_dump + n_dumps], first_dump, n_file,
                   values, present, first_row.reshape(n_dumps, n_cols), exact, mode)
    build.stopped = stopped
    return build.trace()


class _Build:
    """From the dump × stat table to the Trace: classification, modes, time axis, increments."""

    def __init__(self, path: Any, stats: _Stats, line: np.ndarray, begin_lines: np.ndarray, first_dump: int,
                 n_file: int, values: np.ndarray, present: np.ndarray, first_row: np.ndarray,
                 exact: dict[tuple[int, int], int], mode: str | list[str]) -> None:
        self.path, self.stats, self.line = path, stats, line
        self.begin_lines, self.first_dump, self.n_file = begin_lines, first_dump, n_file
        self.values, self.present, self.first_row, self.exact, self.mode = values, present, first_row, exact, mode
        self.col_of = {name: i for i, name in enumerate(stats.names)}
        self.dropped: list[dict[str, str]] = []
        self.stopped = False

    def where(self, k: int, c: int) -> int:
        """Line of stat ``c`` in dump ``k`` (or of the dump's Begin marker when the stat is absent)."""
        r = int(self.first_row[k, c])
        return int(self.line[r]) if r >= 0 else int(self.begin_lines[k])

    def dump_label(self, k: int) -> str:
        return f"dump {self.first_dump + k + 1} (begun at line {int(self.begin_lines[k])})"

    def ints(self, c: int | None) -> list[int | None]:
        """Exact integer values of stat ``c`` per dump (None where absent)."""
        if c is None:
            return [None] * self.values.shape[0]
        out: list[int | None] = []
        for k in range(self.values.shape[0]):
            if not self.present[k, c]:
                out.append(None)
                continue
            big = self.exact.get((k, c))
            v = self.values[k, c]
            if big is None and not (np.isfinite(v) and v == int(v)):
                raise FormatError(self.path, self.where(k, c), f"{self.stats.names[c]} must be a whole "
                                                              f"number, got {float(v)!r}")
            tick = big if big is not None else int(v)
            if abs(tick) >= 2**63:
                raise FormatError(self.path, self.where(k, c), f"{self.stats.names[c]} = {tick} is out of range")
            out.append(tick)
        return out

    def find(self, *names: str) -> int | None:
        for n in names:
            if n in self.col_of and self.present[:, self.col_of[n]].any():
                return self.col_of[n]
        return None

    def trace(self) -> Trace:
        stats, values, present = self.stats, self.values, self.present
        used = np.flatnonzero(present.any(axis=0))
        additive = {}
        reasons = {}
        for c in used.tolist():
            name = stats.names[c]
            base = name.rpartition("::")[0]
            additive[c], reasons[c] = classify(name, stats.units[c], stats.descs[c], base in stats.dist_bases)
        self.reclassify(used, additive, reasons)
        add_cols = [c for c in used.tolist() if additive[c]]
        aux_cols = [c for c in used.tolist() if not additive[c]]
        raw = np.where(present[:, add_cols], values[:, add_cols], 0.0)

        keep, modes, edges, unit, axis = self.intervals(raw, add_cols)
        counts = raw[keep].copy()
        cum = [j for j, m in enumerate(modes) if m == "cumulative"]
        if cum:
            cur, prev = np.array([keep[j] for j in cum]), np.array([keep[j - 1] for j in cum])
            counts[cum] = raw[cur] - raw[prev]
            self.exact_differences(counts, cum, cur, prev, add_cols)
            neg = np.argwhere(counts[cum] < 0)
            if neg.size:
                j, e = (int(x) for x in neg[0])
                k, p, cc = int(cur[j]), int(prev[j]), add_cols[e]
                raise FormatError(self.path, self.where(k, cc), (
                    f"{stats.names[cc]} decreases from {raw[p, e]:.17g} to {raw[k, e]:.17g} in "
                    f"{self.dump_label(k)}, which the ticks make cumulative: a counter cannot decrease"))
        aux = values[keep][:, aux_cols]
        meta = self.meta(keep, modes, add_cols, aux_cols, reasons, axis)
        return Trace(events=[stats.names[c] for c in add_cols], counts=counts, edges=edges, time_unit=unit,
                     meta=meta, aux_names=[stats.names[c] for c in aux_cols], aux=aux)

    def reclassify(self, used: np.ndarray, additive: dict[int, bool], reasons: dict[int, str]) -> None:
        """An additive-looking stat printing nan/inf or a negative value is no counter: move it to aux."""
        cols = [c for c in used.tolist() if additive[c]]
        block = self.values[:, cols]
        with np.errstate(invalid="ignore"):
            wrong = self.present[:, cols] & ~(block >= 0) | np.isinf(block)
        for j in np.flatnonzero(wrong.any(axis=0)).tolist():
            c, col = cols[j], block[:, j]
            bad = np.flatnonzero(wrong[:, j])
            if bad.size:
                k = int(bad[0])
                self.dropped.append({
                    "what": f"event {self.stats.names[c]}",
                    "why": f"looks additive ({reasons[c]}) but prints {col[k]!r} at line {self.where(k, c)}; "
                           "kept in aux instead",
                })
                additive[c], reasons[c] = False, "reclassified_nonfinite_or_negative"

    def exact_differences(self, counts: np.ndarray, cum: list[int], cur: np.ndarray, prev: np.ndarray,
                          add_cols: list[int]) -> None:
        """Redo cumulative differences exactly where a value exceeds float64's integer range."""
        if not self.exact:
            return
        where = {c: e for e, c in enumerate(add_cols)}
        touching: dict[int, list[tuple[int, int, int]]] = {}
        for j, k, p in zip(cum, cur.tolist(), prev.tolist()):
            touching.setdefault(k, []).append((j, k, p))
            touching.setdefault(p, []).append((j, k, p))
        for k, c in list(self.exact):
            e = where.get(c)
            if e is None:
                continue
            for j, kk, pp in touching.get(k, ()):
                a, b = self.exact_value(kk, c), self.exact_value(pp, c)
                if a is not None and b is not None:
                    counts[j, e] = float(a - b)

    def exact_value(self, k: int, c: int) -> int | None:
        if k < 0 or k >= self.values.shape[0]:
            return None
        if not self.present[k, c]:
            return 0
        big = self.exact.get((k, c))
        if big is not None:
            return big
        v = self.values[k, c]
        return int(v) if np.isfinite(v) and v == int(v) else None

    def intervals(self, raw: np.ndarray, add_cols: list[int]) -> tuple[list[int], list[str], np.ndarray, str, str]:
        """Dumps kept, their modes, the edges, the time unit and how the axis was made."""
        n = self.values.shape[0]
        c_fin = self.find("finalTick", "final_tick")
        c_sim = self.find("simTicks", "sim_ticks")
        forced = self.mode if isinstance(self.mode, list) else None
        if forced is not None and len(forced) != n:
            raise ValueError(f"mode lists {len(forced)} dump modes but {n} dumps are selected")
        if c_fin is None or c_sim is None:
            return self.intervals_without_ticks(n, c_fin, c_sim)
        fin, sim = self.ints(c_fin), self.ints(c_sim)
        for k in range(n):
            for c, v in ((c_fin, fin[k]), (c_sim, sim[k])):
                if v is None:
                    raise FormatError(self.path, int(self.begin_lines[k]), f"{self.dump_label(k)} has no "
                                      f"{self.stats.names[c]} (other dumps have it): cannot place it in time")
            if sim[k] < 0 or sim[k] > fin[k]:
                raise FormatError(self.path, self.where(k, c_sim), f"{self.stats.names[c_sim]} = {sim[k]} does not "
                                  f"fit {self.stats.names[c_fin]} = {fin[k]} in {self.dump_label(k)}")
        start = [f - s for f, s in zip(fin, sim)]
        keep = []
        for k in range(n):
            if sim[k] == 0:
                nonzero = np.flatnonzero(raw[k])
                if nonzero.size:
                    cc = add_cols[int(nonzero[0])]
                    raise FormatError(self.path, self.where(k, cc), (
                        f"{self.dump_label(k)} covers zero ticks ({self.stats.names[c_sim]} 0) but "
                        f"{self.stats.names[cc]} is {raw[k, nonzero[0]]:g}"))
                self.dropped.append({"what": self.dump_label(k), "why": f"zero length (reset and dump at tick "
                                     f"{fin[k]}); all its counters are 0"})
                continue
            keep.append(k)
        if not keep:
            raise FormatError(self.path, int(self.begin_lines[0]), "every selected dump has zero length")
        modes = ["first"]
        for p, k in zip(keep, keep[1:]):
            where = self.where(k, c_sim)
            if fin[k] <= fin[p]:
                raise FormatError(self.path, self.where(k, c_fin), (
                    f"ticks go backwards: {self.stats.names[c_fin]} {fin[k]} of {self.dump_label(k)} is not after "
                    f"{fin[p]} of the previous dump"))
            if start[k] == fin[p]:
                modes.append("delta")
            elif start[k] == start[p]:
                modes.append("cumulative")
            elif start[k] > fin[p]:
                raise FormatError(self.path, where, (
                    f"gap: {self.dump_label(k)} starts at tick {start[k]} but the previous dump ended at "
                    f"{fin[p]} (stats were reset after it, e.g. at a region of interest): the events in between "
                    f"are unknown; read the dumps before and after the gap separately with dumps=(start, stop)"))
            else:
                raise FormatError(self.path, where, (
                    f"{self.dump_label(k)} starts at tick {start[k]}, inside the previous dump "
                    f"[{start[p]}, {fin[p]}], yet is neither its continuation nor cumulative with it "
                    f"(two runs in one file?)"))
        if forced is not None or self.mode != "auto":
            wanted = forced if forced is not None else [self.mode] * n
            for j, k in enumerate(keep[1:], start=1):
                if wanted[k] != modes[j]:
                    raise FormatError(self.path, self.where(k, c_sim), (
                        f"mode says {self.dump_label(k)} is {wanted[k]} but its ticks say {modes[j]} "
                        f"(start {start[k]}, previous dump [{start[keep[j - 1]]}, {fin[keep[j - 1]]}])"))
        edges = np.array([start[keep[0]]] + [fin[k] for k in keep], dtype=np.float64)
        axis = (f"gem5 ticks: interval k spans finalTick of the previous dump to finalTick of dump k; the first "
                f"starts at finalTick - simTicks = {start[keep[0]]}")
        return keep, modes, edges, "ticks", axis

    def intervals_without_ticks(self, n: int, c_fin: int | None, c_sim: int | None
                                ) -> tuple[list[int], list[str], np.ndarray, str, str]:
        if self.mode == "auto" and n > 1:
            missing = [self.stats.names[c] if c is not None else "" for c in (c_fin, c_sim)]
            raise FormatError(self.path, int(self.begin_lines[0]), (
                "no finalTick/simTicks (final_tick/sim_ticks) in the dumps: cannot tell delta from cumulative "
                f"dumps{' (only ' + ', '.join(m for m in missing if m) + ')' if any(missing) else ''}; "
                "pass mode='delta', mode='cumulative' or one mode per dump"))
        wanted = self.mode if isinstance(self.mode, list) else [self.mode] * n
        modes = ["first"] + [wanted[k] for k in range(1, n)]
        c_sec = self.find("simSeconds", "sim_seconds")
        if c_sec is not None and self.present[:, c_sec].all():
            window = self.values[:, c_sec]
            length = np.array([window[k] - window[k - 1] if modes[k] == "cumulative" else window[k]
                               for k in range(n)])
            bad = np.flatnonzero(~(length > 0))
            if bad.size:
                k = int(bad[0])
                raise FormatError(self.path, self.where(k, c_sec), (
                    f"{self.dump_label(k)} would last {float(length[k]):g} s by {self.stats.names[c_sec]} "
                    f"and mode {modes[k]!r}: intervals must have positive length"))
            edges = np.concatenate([[0.0], np.cumsum(length)])
            axis = (f"seconds from {self.stats.names[c_sec]} (no finalTick/simTicks in the file): the first dump "
                    "is assumed to start at 0 and the dumps to be contiguous")
            return list(range(n)), modes, edges, "s", axis
        axis = "dump index (no finalTick/simTicks and no simSeconds in the file)"
        return list(range(n)), modes, np.arange(n + 1, dtype=np.float64), "intervals", axis

    def meta(self, keep: list[int], modes: list[str], add_cols: list[int], aux_cols: list[int],
             reasons: dict[int, str], axis: str) -> dict[str, Any]:
        stats = self.stats
        names = set(stats.names)
        camel = any(n in names for n in ("finalTick", "simTicks", "simInsts", "simSeconds", "hostSeconds"))
        snake = any(n in names for n in ("final_tick", "sim_ticks", "sim_insts", "sim_seconds", "host_seconds"))
        units = {stats.names[c]: stats.units[c] for c in add_cols + aux_cols if stats.units[c] is not None}
        c_freq = self.find("simFreq", "sim_freq")
        freq = None
        if c_freq is not None:
            got = {v for v in self.ints(c_freq) if v is not None}
            if len(got) > 1:
                raise FormatError(self.path, None, f"{stats.names[c_freq]} changes between dumps: {sorted(got)}")
            freq = got.pop()
            if freq <= 0:
                raise FormatError(self.path, self.where(int(np.argmax(self.present[:, c_freq])), c_freq),
                                  f"{stats.names[c_freq]} = {freq} ticks per second is not positive")
        rle: list[list[Any]] = []
        for m in modes:
            if rle and rle[-1][0] == m:
                rle[-1][1] += 1
            else:
                rle.append([m, 1])
        classes = Counter(reasons[c] for c in add_cols + aux_cols)
        return {
            "source": os.fspath(self.path),
            "format": NAME,
            "simulator": "gem5",
            "naming": ("camelCase (gem5 v21+)" if camel else "snake_case (gem5 before v21)" if snake
                       else "unknown"),
            "units_printed": bool(units),
            "sim_freq": freq,
            "time_axis": axis,
            "n_dumps_read": self.n_file,
            "stopped_after_selection": self.stopped,  # True: whatever follows the selection was not read
            "dumps": [self.first_dump, self.first_dump + self.values.shape[0]],
            "dump_modes": rle,
            "stats_per_dump": self.present[keep].sum(axis=1).astype(int).tolist(),
            "n_events": len(add_cols),
            "n_aux": len(aux_cols),
            "classification": dict(sorted(classes.items())),
            "never_reset": [stats.names[c] for c in aux_cols if reasons[c] == "never_reset"],
            "renamed": [{"stat": stats.names[c], "printed_as": stats.names[c].split("#")[0],
                         "description": stats.descs[c],
                         "why": "gem5 printed two different stats under this name in one dump"}
                        for c in add_cols + aux_cols if "#" in stats.names[c]],
            "units": units,
            "dropped": self.dropped,
        }
