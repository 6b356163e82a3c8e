"""The dumps of a gem5 stats file, collected as they are parsed (memory bounded by the data).

`Dumps` takes the parsed rows block by block, follows the Begin/End markers, checks each dump for a stat
printed twice when its End marker arrives and stores it in chunks of about a million rows: a chunk is
**dense** (dumps × columns known when it is sealed: values and line offsets) when its dumps print most of
those stats — a periodic series, where every dump prints the same stats — and **sparse** (one entry per
printed row) when stats come and go. Memory is therefore at most ~16 bytes per printed row, never dumps ×
every name the file ever uses. Dumps before the selection are not stored; reading stops after it.

Errors keep the order the whole-file reader gave them: a malformed line (raised while parsing, anywhere in
the file) first, then the marker structure (an End without Begin, a Begin inside a dump, a truncated last
dump), then a stat outside a dump, then the dump selection, then a stat printed twice (or `Clash`, to read
the file again telling apart two stats gem5 printed under one name). `Table` gives the selected dumps to
the assembly (`mpx.readers.gem5.assemble`).
"""

from __future__ import annotations

import mmap
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.readers.gem5.lines import COL_BEGIN, Chunk, Stats

#: Rows per storage chunk (about 6 MiB while it is being filled).
CHUNK_ROWS = 1 << 18
#: A chunk is stored dense when dumps × columns is at most this many times its rows.
DENSE_RATIO = 1.5


class Clash(Exception):
    """Names printed twice in one dump, to be told apart by description on a second reading."""

    def __init__(self, names: frozenset[bytes]) -> None:
        self.names = names


def mapped(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A zeroed array in its own anonymous memory map: returned to the OS when it is dropped. (From the
    heap, the long-lived parts would sit between the blocks freed after parsing, and glibc could not give
    those back: ~100 MB more resident on the periodic series.)"""
    n_bytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return np.frombuffer(mmap.mmap(-1, max(n_bytes, 1)), dtype=dtype, count=int(np.prod(shape))).reshape(shape)


def copy(a: np.ndarray, dtype: Any) -> np.ndarray:
    """``a`` as ``dtype`` in a `mapped` array."""
    out = mapped(a.shape, dtype)
    out[...] = a
    return out


class Part:
    """One sealed storage chunk: dumps ``k0 .. k0 + nd - 1`` (stored indices)."""

    __slots__ = ("k0", "nd", "width", "values", "offs", "dump", "cols", "vals")

    def __init__(self, k0: int, nd: int, width: int) -> None:
        self.k0, self.nd, self.width = k0, nd, width
        self.values: np.ndarray | None = None  # dense: [nd, width], 0 where absent
        self.offs: np.ndarray | None = None  # dense: line offset from the dump's Begin, 0 where absent
        self.dump = self.cols = self.vals = None  # sparse: one entry per row (offs then per row too)


class Dumps:
    """Rows in, dumps out (see the module docstring). ``keep_from``: first dump index to store;
    ``stop``: stop after this many dumps of the file (None: read to the end)."""

    def __init__(self, path: Any, stats: Stats, keep_from: int, stop: int | None, allow_clash: bool) -> None:
        self.path, self.stats, self.keep_from, self.stop, self.allow_clash = path, stats, keep_from, stop, allow_clash
        self.in_dump = False
        self.begin_of: list[int] = []  # Begin line of every dump of the file
        self.ends = 0
        self.error: FormatError | None = None
        self.outside: tuple[int, int] | None = None
        self.repeats: list[tuple[int, tuple[int, int, int, int], list[int]]] = []  # (dump, where, cols)
        self.open: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # dump, col, value, line
        self.open_rows = 0
        self.parts: list[Part] = []
        self.stored = 0  # dumps sealed into parts
        self.exact: dict[tuple[int, int], int] = {}

    @property
    def n_file(self) -> int:
        return len(self.begin_of)

    @property
    def done(self) -> bool:
        """Has the last dump to read been seen?"""
        return self.stop is not None and self.ends >= self.stop

    def feed(self, chunk: Chunk) -> None:
        """Take the parsed rows of one block (markers and stats, in file order)."""
        if self.error is not None or self.done:
            return
        lines, cols, vals = chunk.lines, chunk.cols, chunk.vals
        marks = np.flatnonzero(cols < 0)
        seg_dump = []  # dump of the stats before each marker (and after the last): -1 outside a dump
        cut = len(cols)
        for m in marks.tolist():
            seg_dump.append(self.n_file - 1 if self.in_dump else -1)
            self.marker(int(cols[m]), int(lines[m]))
            if self.error is not None or self.done:
                cut = m
                break
        else:
            seg_dump.append(self.n_file - 1 if self.in_dump else -1)
        bounds = np.concatenate([[-1], marks[:len(seg_dump) - 1], [cut]])
        lengths = np.diff(bounds) - 1  # segment i lies strictly between bounds i and i + 1
        dump = np.repeat(np.array(seg_dump, dtype=np.int64), lengths)
        stat = np.flatnonzero(cols[:cut] >= 0)
        if dump.size != stat.size:  # pragma: no cover - a bookkeeping error, never the file's
            raise AssertionError("gem5 reader: segment bookkeeping")
        if self.outside is None and dump.size and dump.min() < 0:
            i = int(stat[np.argmax(dump < 0)])
            self.outside = (int(lines[i]), int(cols[i]))
        take = dump >= self.keep_from
        if take.any():
            rows = stat[take]
            self.open.append((dump[take], cols[rows], vals[rows], lines[rows]))
            self.open_rows += rows.size
            for r, value in chunk.exact.items():
                j = int(np.searchsorted(stat, r))
                if r < cut and j < stat.size and stat[j] == r and dump[j] >= self.keep_from:
                    self.exact[(int(dump[j]) - self.keep_from, int(cols[r]))] = value
        if self.open_rows >= CHUNK_ROWS:
            self.pack()

    def marker(self, kind: int, line: int) -> None:
        if kind == COL_BEGIN:
            if self.in_dump:
                self.error = FormatError(self.path, line, f"a dump begins here but the dump begun at line "
                                                          f"{self.begin_of[-1]} has no End marker")
                return
            self.in_dump = True
            self.begin_of.append(line)
            return
        if not self.in_dump:
            self.error = FormatError(self.path, line, "End marker without a Begin marker")
            return
        self.in_dump = False
        self.ends += 1

    def pack(self) -> None:
        """Seal the complete dumps read so far into a dense or sparse `Part`."""
        complete = self.ends  # dumps 0 .. ends - 1 are complete
        nd = complete - self.keep_from - self.stored
        if nd <= 0:
            return
        if not self.open:
            self.open = [(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.int64))]
        dump = np.concatenate([o[0] for o in self.open])
        cols = np.concatenate([o[1] for o in self.open])
        vals = np.concatenate([o[2] for o in self.open])
        lines = np.concatenate([o[3] for o in self.open])
        split = int(np.searchsorted(dump, complete))
        self.open = [(dump[split:], cols[split:], vals[split:], lines[split:])] if split < dump.size else []
        self.open_rows = dump.size - split
        k0 = self.stored
        dump, cols, vals = dump[:split] - (self.keep_from + k0), cols[:split], vals[:split]
        begins = np.array(self.begin_of[self.keep_from + k0:self.keep_from + k0 + nd], dtype=np.int64)
        offs = lines[:split] - begins[dump]
        width = int(cols.max()) + 1 if cols.size else 0
        key = dump * width + cols
        if cols.size:
            if nd * width <= 4 * cols.size:
                twice = np.flatnonzero(np.bincount(key, minlength=nd * width) > 1)
            else:
                ordered = np.sort(key)
                twice = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
            for k in np.unique(twice // width).tolist():
                self.repeat(k0 + k, cols[dump == k], offs[dump == k], int(begins[k]))
        part = Part(k0, nd, width)
        if cols.size and nd * width <= DENSE_RATIO * cols.size:
            part.values = mapped((nd, width), np.float64)  # 0 where absent (see `Table.cells`)
            part.values.reshape(-1)[key] = vals
            part.offs = mapped((nd, width), np.uint16 if offs.max() < 2**16 else np.int64)
            part.offs.reshape(-1)[key] = offs
        else:
            part.dump, part.cols, part.vals = copy(dump, np.int32), copy(cols, np.int32), copy(vals, np.float64)
            part.offs = copy(offs, np.int64)
        self.parts.append(part)
        self.stored += nd

    def repeat(self, k: int, cols: np.ndarray, offs: np.ndarray, begin: int) -> None:
        """Note stored dump ``k``: it prints a stat twice."""
        seen: dict[int, int] = {}
        for i, c in enumerate(cols.tolist()):
            if c in seen:
                where = (c, int(offs[i]) + begin, begin, int(offs[seen[c]]) + begin)
                break
            seen[c] = i
        self.repeats.append((self.keep_from + k, where, np.flatnonzero(np.bincount(cols) > 1).tolist()))

    def finish(self, select: slice, stopped: bool) -> Table:
        """Raise what the file's structure, the selection or a repeated stat makes wrong; else the
        selected dumps."""
        if self.error is not None:
            raise self.error
        if self.n_file == 0:
            raise FormatError(self.path, None, "no gem5 dump in the file (no '---------- Begin Simulation "
                                               "Statistics ----------' line): empty or not a gem5 stats.txt")
        if self.in_dump and not stopped:
            raise FormatError(self.path, self.begin_of[-1], "the dump begun here has no End marker "
                                                            "(truncated file?)")
        if self.outside is not None:
            line, col = self.outside
            raise FormatError(self.path, line, f"stat {self.stats.names[col]!r} outside a dump "
                                               "(before a Begin or after an End marker)")
        picked = range(self.ends)[select]
        if len(picked) == 0:
            raise ConfigError(f"dumps selection {select} selects none of the file's {self.ends} dumps")
        self.pack()
        chosen = [r for r in self.repeats if picked.start <= r[0] < picked.stop]
        if chosen:
            if self.allow_clash:
                raise Clash(frozenset(self.stats.names[c].encode() for r in chosen for c in r[2]))
            c, line, begin, first = chosen[0][1]
            raise FormatError(self.path, line, f"stat {self.stats.names[c]!r} appears twice in the dump begun "
                                               f"at line {begin} (first at line {first})")
        lo = picked.start - self.keep_from
        table = Table(self.parts, np.array(self.begin_of[self.keep_from:], dtype=np.int64), lo, len(picked),
                      len(self.stats.names),
                      {(k - lo, c): v for (k, c), v in self.exact.items() if lo <= k < lo + len(picked)})
        table.first_dump, table.n_file = picked.start, self.ends
        self.parts = []
        return table


class Table:
    """The selected dumps: ``n`` dumps × ``n_cols`` stats, read by columns or blocks of columns."""

    def __init__(self, parts: list[Part], begins: np.ndarray, lo: int, n: int, n_cols: int,
                 exact: dict[tuple[int, int], int]) -> None:
        self.parts = [p for p in parts if p.k0 < lo + n and p.k0 + p.nd > lo]
        self.begins = begins[lo:lo + n]
        self.lo, self.n, self.n_cols, self.exact = lo, n, n_cols, exact
        self.first_dump, self.n_file = lo, n  # in the file (set by `Dumps.finish`)

    def spans(self, rows: np.ndarray) -> Any:
        """(part, positions in ``rows``, dumps inside the part) for the sorted selected ``rows``."""
        absolute = rows + self.lo
        for p in self.parts:
            i0, i1 = np.searchsorted(absolute, [p.k0, p.k0 + p.nd])
            if i1 > i0:
                yield p, slice(int(i0), int(i1)), absolute[i0:i1] - p.k0

    def cells(self, cols: Any, fill: float = np.nan, rows: Any = None, lines: bool = False,
              out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Values ``[len(rows), len(cols)]`` (``fill`` where a dump did not print the stat; into ``out``
        when given) and, when asked, the line of each (-1 where absent). ``rows``: sorted dump indices
        (default: all). Dense parts hold 0 where a stat is absent, so ``fill=0`` needs no mask."""
        cols = np.asarray(cols, dtype=np.int64)
        rows = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.int64)
        if out is None:
            out = np.empty((rows.size, cols.size))
        out[...] = fill
        where = np.full((rows.size, cols.size), -1, dtype=np.int64) if lines else None
        for p, at, local in self.spans(rows):
            if p.values is not None:
                ok = np.flatnonzero(cols < p.width)
                sub = cols[ok]
                span = local[-1] - local[0] + 1 == local.size  # consecutive dumps: a view, not a copy
                pick = slice(int(local[0]), int(local[-1]) + 1) if span else local
                whole = ok.size == cols.size and out[at].flags.c_contiguous
                # straight into out ('clip': unbuffered; every index of sub is inside the part)
                block = p.values[pick].take(sub, axis=1, out=out[at] if whole else None, mode="clip")
                offs = got = None
                if fill != 0 or where is not None:
                    offs = p.offs[pick].take(sub, axis=1)
                    got = offs > 0
                    if fill != 0:
                        block[~got] = fill  # NaN for aux values
                if not whole:
                    out[at, ok] = block
                if where is not None:
                    ln = np.where(got, offs + self.begins[local + p.k0 - self.lo][:, None], -1)
                    where[at, ok] = ln
            else:
                pos = np.full(max(p.width, 1), -1, dtype=np.int64)
                inside = cols < p.width
                pos[cols[inside]] = np.flatnonzero(inside)
                row_of = np.full(p.nd, -1, dtype=np.int64)
                row_of[local] = np.arange(at.start, at.stop)
                r, c = row_of[p.dump], pos[p.cols]
                take = (r >= 0) & (c >= 0)
                out[r[take], c[take]] = p.vals[take]
                if where is not None:
                    where[r[take], c[take]] = p.offs[take] + self.begins[p.dump[take] + p.k0 - self.lo]
        return out, where

    def take(self, add_cols: list[int], aux_cols: list[int], rows: list[int], release: bool
             ) -> tuple[np.ndarray, np.ndarray]:
        """The counts (0 where absent) and aux values (NaN where absent) of dumps ``rows``; with
        ``release``, each storage part is dropped as soon as it is copied (peak memory: the parts plus
        what of the output is filled, not both in full)."""
        keep = np.asarray(rows, dtype=np.int64)
        counts = np.empty((keep.size, len(add_cols)))
        aux = np.empty((keep.size, len(aux_cols)))
        parts, kept = self.parts, []
        for i, part in enumerate(parts):
            parts[i] = None  # type: ignore[call-overload]
            self.parts = [part]
            for _, at, _ in self.spans(keep):
                self.cells(add_cols, fill=0.0, rows=keep[at], out=counts[at])
                self.cells(aux_cols, rows=keep[at], out=aux[at])
            if not release:
                kept.append(part)
            del part
        self.parts = kept
        return counts, aux

    def release(self) -> None:
        """Drop the stored dumps."""
        self.parts = []

    def column(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        """Values of stat ``c`` in every dump (NaN where absent) and where it was printed."""
        vals, where = self.cells([c], lines=True)
        assert where is not None
        return vals[:, 0], where[:, 0] >= 0

    def line(self, k: int, c: int) -> int:
        """Line of stat ``c`` in dump ``k``, -1 when the dump did not print it."""
        _, where = self.cells([c], rows=[k], lines=True)
        assert where is not None
        return int(where[0, 0])

    def present_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per stat: in how many dumps it is printed ``[n_cols]``; per dump: how many stats ``[n]``."""
        per_col = np.zeros(self.n_cols, dtype=np.int64)
        per_dump = np.zeros(self.n, dtype=np.int64)
        for p, at, local in self.spans(np.arange(self.n)):
            if p.values is not None:
                got = p.offs[local] > 0
                per_col[:p.width] += got.sum(axis=0)
                per_dump[at] = got.sum(axis=1)
            else:
                inside = np.isin(p.dump, local)
                per_col += np.bincount(p.cols[inside], minlength=self.n_cols)
                per_dump[at] = np.bincount(p.dump[inside], minlength=p.nd)[local]
        return per_col, per_dump

    def first_bad(self, cols: list[int]) -> dict[int, int]:
        """For each of ``cols`` printing nan, inf or a negative value somewhere: the first such dump."""
        found: dict[int, int] = {}
        step = max(1, (1 << 19) // max(len(cols), 1))  # about 4 MiB of values at a time
        for k0 in range(0, self.n, step):
            block, _ = self.cells(cols, fill=0.0, rows=np.arange(k0, min(self.n, k0 + step)))
            with np.errstate(invalid="ignore"):
                wrong = ~(block >= 0) | np.isinf(block)
            for j in np.flatnonzero(wrong.any(axis=0)).tolist():
                if cols[j] not in found:
                    found[cols[j]] = k0 + int(np.argmax(wrong[:, j]))
        return found
