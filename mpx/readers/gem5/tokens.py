"""The compiled tokenizer of gem5's ``stats.txt``: one pass of machine code over a decompressed block.

The pure-Python fast parser (`mpx.readers.gem5.lines.fast_chunk`) spends ~1 µs per line on ``bytes.split``,
a dict lookup and a list append: 13 million lines of the periodic series took 14-18 s while ``xz -dc`` takes
2 s. Here a numba kernel walks the bytes once per line and finds, per line, the name, the
value and what follows it:

- **names** are matched byte for byte against the stats already known (`NameTable`): first against the
  stat that followed the previous line's stat last time (gem5 prints every dump in the same order), then
  through an open-addressing hash table. A name seen for the first time is handed to Python (`Stats.add`
  validates and registers it), so nothing is accepted that the strict parser would not register;
- **values** are converted exactly where that is cheap: an optional sign, at most 2**53 - 1 as decimal
  mantissa and a power of ten of at most 22 in magnitude — Clinger's fast path (W. D. Clinger, "How to
  read floating point numbers accurately", PLDI 1990, §4): both operands are exact doubles, so one IEEE
  multiplication or division gives the correctly rounded value, the same double as Python's ``float``;
  ``nan``, ``inf``, ``-inf`` too. Any other token goes to `mpx.readers.gem5.lines.parse_value`;
- **tails**: a lone ``# description`` passes; anything else (pdf/cdf columns, a second ``#``) is checked
  by Python against `mpx.readers.gem5.lines.PCT_TAIL`, and a ``)`` directly followed by text by
  `mpx.readers.gem5.lines.glued_unit` — the same acceptance as the Python fast parser.

Whatever the kernel does not recognise (a dump marker that is not exactly gem5's, a name without a value,
a one-line vector ``|``) makes it give up on the block; the caller then parses the block with the Python
parsers, which read it or raise the exact `~mpx.errors.FormatError`. Without numba (or with
``MPX_NO_NUMBA=1``) `available` is False and the reader uses the Python parsers only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mpx.readers.gem5.lines import (COL_BEGIN, COL_END, PCT_TAIL, Bad, Chunk, Stats, glued_unit,
                                    parse_value)

from mpx.util.jit import HAVE_NUMBA as available
from mpx.util.jit import njit

if available:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def memeq(typingctx: Any, a: Any, i: Any, b: Any, j: Any, n: Any) -> Any:
        """``a[i:i + n] == b[j:j + n]`` by the C library's ``memcmp`` (many bytes per instruction), as
        machine code that numba can cache (a ctypes function pointer would be a dynamic global)."""
        sig = types.boolean(a, types.intp, b, types.intp, types.intp)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            byte_ptr = ir.IntType(8).as_pointer()
            pa = builder.gep(builder.bitcast(context.make_array(signature.args[0])(context, builder, args[0]).data,
                                             byte_ptr), [args[1]])
            pb = builder.gep(builder.bitcast(context.make_array(signature.args[2])(context, builder, args[2]).data,
                                             byte_ptr), [args[3]])
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.IntType(32), [byte_ptr, byte_ptr, ir.IntType(64)]), "memcmp")
            return builder.icmp_signed("==", builder.call(fn, [pa, pb, args[4]]), ir.Constant(ir.IntType(32), 0))

        return sig, codegen
else:  # pragma: no cover
    def memeq(a: np.ndarray, i: int, b: np.ndarray, j: int, n: int) -> bool:
        return bytes(a[i:i + n]) == bytes(b[j:j + n])

BEGIN_BYTES = np.frombuffer(b"---------- Begin Simulation Statistics ----------", dtype=np.uint8)
END_BYTES = np.frombuffer(b"---------- End Simulation Statistics   ----------", dtype=np.uint8)
POW10 = np.array([10.0**k for k in range(23)])  # every one an exact double
UNKNOWN = -10  # column code of a name the kernel does not know (Python resolves it)
FAIL = -1
# flags of a row that Python must finish
F_NAME, F_VALUE, F_TAIL, F_GLUE = 1, 2, 4, 8
SLOTS = 2  # next_col[0]: after a marker; next_col[1]: after an unknown name; next_col[c + 2]: after stat c


def jit(fn: Any) -> Any:
    """`mpx.util.jit.njit`, inlined into the callers (the kernels below call many small helpers)."""
    return njit(fn, inline=True)


@jit
def is_ws(c: int) -> bool:
    """ASCII whitespace as ``bytes.split`` sees it (space, \\t, \\n, \\v, \\f, \\r)."""
    return c == 32 or 9 <= c <= 13


@jit
def name_hash(buf: np.ndarray, s: int, e: int) -> int:
    """FNV-1a of ``buf[s:e]``, folded to 62 bits (positive)."""
    h = np.uint64(14695981039346656037)
    for i in range(s, e):
        h = (h ^ np.uint64(buf[i])) * np.uint64(1099511628211)
    return int(h >> np.uint64(2))


@jit
def same(a: np.ndarray, s: int, e: int, b: np.ndarray, bs: int, be: int) -> bool:
    if e - s != be - bs:
        return False
    for i in range(e - s):
        if a[s + i] != b[bs + i]:
            return False
    return True


@jit
def insert(names: np.ndarray, offs: np.ndarray, slots: np.ndarray, col: int) -> None:
    """Enter stat ``col`` (bytes ``names[offs[col]:offs[col + 1]]``) into the hash table ``slots``."""
    mask = len(slots) - 1
    j = name_hash(names, offs[col], offs[col + 1]) & mask
    while slots[j] >= 0:
        j = (j + 1) & mask
    slots[j] = col


@jit
def lookup(data: np.ndarray, s: int, e: int, names: np.ndarray, offs: np.ndarray, slots: np.ndarray) -> int:
    mask = len(slots) - 1
    j = name_hash(data, s, e) & mask
    while slots[j] >= 0:
        c = slots[j]
        if same(data, s, e, names, offs[c], offs[c + 1]):
            return c
        j = (j + 1) & mask
    return UNKNOWN


@jit
def number(data: np.ndarray, s: int, e: int) -> tuple[float, bool]:
    """(value, True) for a token Clinger's fast path converts exactly (see module docstring), else
    (0, False). Trailing zeros of a fraction are not digits of the mantissa (``2188800000.00000000``)."""
    i = s
    neg = False
    if data[i] == 43 or data[i] == 45:  # + -
        neg = data[i] == 45
        i += 1
    if e - i == 3:
        a, b, c = data[i], data[i + 1], data[i + 2]
        if a == 110 and b == 97 and c == 110:  # nan
            return np.nan, True
        if a == 105 and b == 110 and c == 102:  # inf
            return -np.inf if neg else np.inf, True
    m = 0
    j = i
    while j < e and 48 <= data[j] <= 57 and j - i < 15:  # the usual case: an integer of at most 15 digits
        m = m * 10 + (data[j] - 48)
        j += 1
    if j == e and j > i:
        return (-float(m) if neg else float(m)), True
    m = 0
    digits = 0
    frac = 0
    while i < e and 48 <= data[i] <= 57:
        m = m * 10 + (data[i] - 48)
        digits += 1
        i += 1
        if m >= 9007199254740992:
            return 0.0, False
    if i < e and data[i] == 46:  # .
        i += 1
        zeros = 0
        while i < e and 48 <= data[i] <= 57:
            d = data[i] - 48
            digits += 1
            i += 1
            if d == 0:
                zeros += 1
                continue
            while zeros:
                m *= 10
                frac += 1
                zeros -= 1
                if m >= 9007199254740992:
                    return 0.0, False
            m = m * 10 + d
            frac += 1
            if m >= 9007199254740992:
                return 0.0, False
    if digits == 0:
        return 0.0, False
    exp = 0
    if i < e and (data[i] == 101 or data[i] == 69):  # e E
        i += 1
        eneg = False
        if i < e and (data[i] == 43 or data[i] == 45):
            eneg = data[i] == 45
            i += 1
        if i == e:
            return 0.0, False
        while i < e and 48 <= data[i] <= 57:
            exp = exp * 10 + (data[i] - 48)
            i += 1
            if exp > 400:
                return 0.0, False
        if eneg:
            exp = -exp
    if i != e:
        return 0.0, False
    p = exp - frac
    if p > 22 or p < -22:
        return 0.0, False
    v = float(m)
    v = v * POW10[p] if p >= 0 else v / POW10[-p]
    return (-v if neg else v), True


@jit
def percent(data: np.ndarray, i: int, e: int) -> int:
    """End of a pdf/cdf column ``-?(\\d+\\.?\\d*|nan|inf)%`` starting at ``i`` (lower case only), else -1."""
    if i < e and data[i] == 45:
        i += 1
    if i + 3 <= e and ((data[i] == 110 and data[i + 1] == 97 and data[i + 2] == 110)
                       or (data[i] == 105 and data[i + 1] == 110 and data[i + 2] == 102)):
        i += 3
    else:
        j = i
        while i < e and 48 <= data[i] <= 57:
            i += 1
        if i == j:
            return -1
        if i < e and data[i] == 46:
            i += 1
            while i < e and 48 <= data[i] <= 57:
                i += 1
    if i < e and data[i] == 37:
        return i + 1
    return -1


@jit
def pct_columns(data: np.ndarray, i: int, e: int) -> int:
    """After the pdf column at ``i`` (and the cdf column, when there is one) and the blanks that follow:
    where the rest of the tail starts, or -1 when no percentage starts at ``i``."""
    j = percent(data, i, e)
    if j < 0:
        return -1
    k = j
    while k < e and (data[k] == 32 or data[k] == 9):
        k += 1
    if k > j:
        j2 = percent(data, k, e)
        if j2 >= 0:
            k = j2
    while k < e and (data[k] == 32 or data[k] == 9 or data[k] == 13):
        k += 1
    return k


@jit
def usual_tail(data: np.ndarray, i: int, e: int) -> bool:
    """Does ``data[i:e]`` (a non-empty tail after the value) match `PCT_TAIL` or a lone ``# description``?
    A conservative subset: False sends the line to the regular expression."""
    if data[i] != 35:
        k = pct_columns(data, i, e)
        if k < 0:
            return False
        if k == e:
            return True
        if data[k] != 35:
            return False
        i = k
    i += 1
    while i < e:
        if data[i] == 35:
            return False
        i += 1
    return True


@jit
def marker(data: np.ndarray, s: int, e: int) -> int:
    """COL_BEGIN or COL_END for gem5's exact dump markers (whitespace around allowed), else FAIL."""
    while e > s and is_ws(data[e - 1]):
        e -= 1
    if same(data, s, e, BEGIN_BYTES, 0, len(BEGIN_BYTES)):
        return COL_BEGIN
    if same(data, s, e, END_BYTES, 0, len(END_BYTES)):
        return COL_END
    return FAIL


@jit
def same_bytes(a: np.ndarray, i: int, b: np.ndarray, j: int, n: int) -> bool:
    """``a[i:i + n] == b[j:j + n]`` (the C library's memcmp: many bytes per instruction; the callers check
    that both ranges lie inside their arrays)."""
    return memeq(a, i, b, j, n)


@jit
def skip_spaces(data: np.ndarray, i: int, end: int) -> int:
    """The first byte at or after ``i`` that is a newline or not whitespace."""
    while i < end and data[i] == 32:
        i += 1
    while i < end and data[i] != 10 and is_ws(data[i]):
        i += 1
    return i


@jit
def scan(data: np.ndarray, start: int, end: int, first: int, known: tuple,
         out: tuple, flag_row: np.ndarray, flags: np.ndarray, spans: np.ndarray) -> tuple[int, int, int, int]:
    """Rows of the lines of ``data[start:end]`` (line ``first`` onwards) until the output arrays are full;
    returns (rows, flagged rows, where it stopped, its line number), or rows = FAIL when a line needs
    the Python parsers. ``known``: the `NameTable` arrays; ``out``: line, column and value per row."""
    names, offs, slots, next_col, paren, descs, desc_at, desc_len, desc_used, stats_col = known
    out_line, out_col, out_val = out
    i = start
    line = first
    r = 0
    nf = 0
    prev = 0
    n_known = len(offs) - 1
    cap = len(out_line)
    while i < end and r < cap:
        ls = i
        i = skip_spaces(data, i, end)
        if i >= end or data[i] == 10:  # blank line
            i += 1
            line += 1
            continue
        ns = i
        if data[i] == 45:  # '-': a dump marker or nothing gem5 prints
            while i < end and data[i] != 10:
                i += 1
            kind = marker(data, ns, i)
            if kind == FAIL:
                return FAIL, 0, ls, line
            out_line[r] = line
            out_col[r] = kind
            out_val[r] = 0.0
            r += 1
            prev = 0
            i += 1
            line += 1
            continue
        col = UNKNOWN
        guess = next_col[prev]
        if 0 <= guess < n_known:  # the name printed after the previous one last time
            gs = offs[guess]
            n = offs[guess + 1] - gs
            if i + n < end and is_ws(data[i + n]) and same_bytes(data, i, names, gs, n):
                col = guess
                i += n
        if col < 0:
            while i < end and not is_ws(data[i]):
                i += 1
            col = lookup(data, ns, i, names, offs, slots)
        ne = i
        i = skip_spaces(data, i, end)
        if i >= end or data[i] == 10 or data[i] == 124:  # no value, or a one-line vector '|'
            return FAIL, 0, ls, line
        vs = i
        while i < end and not is_ws(data[i]):
            i += 1
        ve = i
        value, ok = number(data, vs, ve)
        i = skip_spaces(data, i, end)
        ts = i
        known_desc = False
        if col >= 0 and desc_len[col] >= 0 and i < end and data[i] != 10:
            # the tail seen before for this stat, once checked: its description compared 8 bytes at a time
            h = i
            if data[h] != 35:  # pdf and cdf columns first (see usual_tail)
                h = pct_columns(data, h, end)
            if h >= 0 and h < end and data[h] == 35:
                n = desc_len[col]
                if h + n <= end and (h + n == end or data[h + n] == 10) and same_bytes(
                        data, h, descs, desc_at[col], n):
                    known_desc = True
                    i = h + n
        glue = False
        odd = False
        if not known_desc:
            hashes = 0
            first_hash = -1
            while i < end:
                c = data[i]
                if c == 10:
                    break
                if c == 35:
                    hashes += 1
                    if first_hash < 0:
                        first_hash = i
                elif c == 41 and i + 1 < end:  # ')' followed by text: maybe a glued unit
                    d = data[i + 1]
                    if not (is_ws(d) or d == 47 or d == 41):
                        glue = True
                i += 1
            # usual: nothing, or a lone '# description', or pdf/cdf columns first (see usual_tail)
            odd = i > ts and not (hashes == 1 and data[ts] == 35) and not usual_tail(data, ts, i)
            if hashes == 1 and not odd:  # a description ending in a number may hold the next stat's line
                k = i - 1                # (lines.MERGED_TAIL decides, in the strict parser)
                while k > first_hash and is_ws(data[k]):
                    k -= 1
                if 48 <= data[k] <= 57 or data[k] == 37:
                    odd = True
            if col >= 0 and hashes == 1 and not odd and not glue and not paren[col]:
                n = i - first_hash  # remember the checked description of this stat
                if desc_used[0] + n <= len(descs) - 16:
                    descs[desc_used[0]:desc_used[0] + n] = data[first_hash:i]
                    desc_at[col] = desc_used[0]
                    desc_len[col] = n
                    desc_used[0] += n
        flag = 0
        if col < 0:
            flag |= F_NAME | F_GLUE
            prev = 1
        else:
            next_col[prev] = col
            prev = col + SLOTS
            if paren[col]:
                flag |= F_GLUE
        if not ok:
            flag |= F_VALUE | F_GLUE
        if odd:
            flag |= F_TAIL
        if glue:
            flag |= F_GLUE
        out_line[r] = line
        out_col[r] = stats_col[col] if col >= 0 else UNKNOWN
        out_val[r] = value
        if flag:
            flag_row[nf] = r
            flags[nf] = flag
            spans[nf, 0] = ns
            spans[nf, 1] = ne
            spans[nf, 2] = vs
            spans[nf, 3] = ve
            spans[nf, 4] = ts
            spans[nf, 5] = i
            nf += 1
        r += 1
        i += 1
        line += 1
    return r, nf, min(i, end), line


class NameTable:
    """The known stat names as the kernel sees them: their bytes, a hash table, the order last seen, and
    the description each printed last (once checked), to compare instead of checking again."""

    def __init__(self) -> None:
        self.names = np.zeros(1 << 16, dtype=np.uint8)
        self.offs = np.zeros(1, dtype=np.int64)
        self.slots = np.full(1 << 12, -1, dtype=np.int32)
        self.cols: list[int] = []  # kernel index → Stats column
        self.next_col = np.full(SLOTS + (1 << 10), -1, dtype=np.int32)
        self.paren = np.zeros(1 << 10, dtype=np.bool_)
        self.descs = np.zeros(1 << 18, dtype=np.uint8)
        self.desc_at = np.zeros(1 << 10, dtype=np.int64)
        self.desc_len = np.full(1 << 10, -1, dtype=np.int64)
        self.desc_used = np.zeros(1, dtype=np.int64)
        self.stats_col = np.zeros(1 << 10, dtype=np.int32)  # kernel index → Stats column
        self.col_of: dict[int, int] = {}  # Stats column → kernel index
        self.bytes_per_row = 64.0  # sizes the kernel's output arrays
        self.flag_row = np.empty(0, dtype=np.int64)
        self.flags = np.empty(0, dtype=np.uint8)
        self.spans = np.empty((0, 6), dtype=np.int64)

    def known(self) -> tuple:
        """The arrays the kernel reads (and the descriptions it writes)."""
        if self.desc_used[0] > len(self.descs) // 2:  # room for more descriptions
            self.descs = np.concatenate([self.descs, np.zeros(len(self.descs), dtype=np.uint8)])
        return (self.names, self.offs, self.slots, self.next_col, self.paren, self.descs, self.desc_at,
                self.desc_len, self.desc_used, self.stats_col)

    def scratch(self, cap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Work arrays for the flagged rows of ``cap`` rows, reused from block to block."""
        if len(self.flags) < cap:
            self.flag_row = np.empty(cap, dtype=np.int64)
            self.flags = np.empty(cap, dtype=np.uint8)
            self.spans = np.empty((cap, 6), dtype=np.int64)
        return self.flag_row[:cap], self.flags[:cap], self.spans[:cap]

    def add(self, name: bytes, col: int) -> None:
        """Make stat ``col`` (registered under ``name`` in `Stats.index`) known to the kernel."""
        k = len(self.cols)
        end = int(self.offs[-1]) + len(name)
        if end > len(self.names):
            self.names = np.concatenate([self.names, np.zeros(len(self.names) + len(name), dtype=np.uint8)])
        self.names[end - len(name):end] = np.frombuffer(name, dtype=np.uint8)
        self.offs = np.append(self.offs, end)
        if k >= len(self.paren):
            grow = len(self.paren)
            self.paren = np.concatenate([self.paren, np.zeros(grow, dtype=np.bool_)])
            self.next_col = np.concatenate([self.next_col, np.full(grow, -1, dtype=np.int32)])
            self.desc_at = np.concatenate([self.desc_at, np.zeros(grow, dtype=np.int64)])
            self.desc_len = np.concatenate([self.desc_len, np.full(grow, -1, dtype=np.int64)])
            self.stats_col = np.concatenate([self.stats_col, np.zeros(grow, dtype=np.int32)])
        self.paren[k] = b")" in name
        self.stats_col[k] = col
        self.cols.append(col)
        self.col_of[col] = k
        if 2 * (k + 1) > len(self.slots):
            self.slots = np.full(2 * len(self.slots), -1, dtype=np.int32)
            for j in range(k + 1):
                insert(self.names, self.offs, self.slots, j)
        else:
            insert(self.names, self.offs, self.slots, k)


def block_rows(data: np.ndarray, start: int, end: int, first: int, stats: Stats, table: NameTable
               ) -> tuple[Chunk, int] | None:
    """Rows of the lines in ``data[start:end]`` (``first`` is the number of its first line) and the number
    of those lines, or None when the Python parsers must read them (see the module docstring). New names
    are registered in ``stats`` and entered in ``table``."""
    pieces = []
    pos, line = start, first
    while pos < end:
        got = piece(data, pos, end, line, stats, table)
        if got is None:
            return None
        chunk, used, pos, line = got
        pieces.append(chunk)
        table.bytes_per_row = max(used / max(len(chunk.cols), 1), 8.0)
    n_lines = line - first + (start == end or data[end - 1] == 10)  # the kernel counts lines it ended
    if len(pieces) == 1:
        return pieces[0], n_lines
    if not pieces:
        return Chunk(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0), {}), n_lines
    exact, offset = {}, 0
    for p in pieces:
        exact.update({offset + r: v for r, v in p.exact.items()})
        offset += len(p.cols)
    return Chunk(np.concatenate([p.lines for p in pieces]), np.concatenate([p.cols for p in pieces]),
                 np.concatenate([p.vals for p in pieces]), exact), n_lines


def piece(data: np.ndarray, pos: int, end: int, line: int, stats: Stats, table: NameTable
          ) -> tuple[Chunk, int, int, int] | None:
    """One call of the kernel (output sized from the bytes per row seen so far), its flagged rows finished
    by Python: (rows, bytes consumed, where it stopped, line number there), or None."""
    cap = int((end - pos) / (0.8 * table.bytes_per_row)) + 64
    for _attempt in range(2):
        out_line = np.empty(cap, dtype=np.int32 if line + cap < 2**31 - 1 else np.int64)
        out_col = np.empty(cap, dtype=np.int32)
        out_val = np.empty(cap, dtype=np.float64)
        flag_row, flags, spans = table.scratch(cap)
        n, nf, stop, stop_line = scan(data, pos, end, line, table.known(), (out_line, out_col, out_val),
                                      flag_row, flags, spans)
        if n == FAIL:
            return None
        before = len(table.cols)
        exact: dict[int, int] = {}
        try:
            finish(data, stats, table, out_col, out_val, flag_row[:nf], flags[:nf], spans[:nf], exact)
        except Bad:
            return None
        if nf < 1000 or len(table.cols) == before:  # else: once more, now knowing the new names
            break
    return Chunk(out_line[:n], out_col[:n], out_val[:n], exact), stop - pos, stop, stop_line


def finish(data: np.ndarray, stats: Stats, table: NameTable, out_col: np.ndarray, out_val: np.ndarray,
           rows: np.ndarray, flags: np.ndarray, spans: np.ndarray, exact: dict[int, int]) -> None:
    """The rows the kernel flagged, through the Python grammar (raises `Bad` when the block must be
    parsed by the Python parsers)."""
    raw = data.data if isinstance(data, np.ndarray) else memoryview(data)
    for r, flag, (ns, ne, vs, ve, ts, le) in zip(rows.tolist(), flags.tolist(), spans.tolist()):
        line = bytes(raw[ns:le])
        if flag & F_GLUE and glued_unit(line):
            raise Bad("glued unit")
        if flag & F_TAIL and not PCT_TAIL.match(line[ts - ns:]):
            raise Bad("unusual tail")
        if flag & F_VALUE:
            value, big = parse_value(line[vs - ns:ve - ns])
            out_val[r] = value
            if big is not None:
                exact[r] = big
        if flag & F_NAME:
            name = line[:ne - ns]
            col = stats.index.get(name)
            if col is None:
                col = stats.add(name, line)
            if name in stats.index and col not in table.col_of:  # not a name gem5 gave to two stats
                table.add(name, col)
            out_col[r] = col
