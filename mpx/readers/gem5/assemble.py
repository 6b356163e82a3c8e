"""From parsed dumps to a `~mpx.trace.Trace`: dump selection, cumulative or per-dump values, additive
stats as events and the rest in the side table."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.readers.gem5.classify import classify
from mpx.readers.gem5.lines import COL_BEGIN, COL_END, MODES, NAME, Chunk, Stats
from mpx.trace import Trace

class Clash(Exception):
    """Names printed twice in one dump, to be told apart by description on a second reading."""

    def __init__(self, names: frozenset[bytes]) -> None:
        self.names = names


def selection(dumps: Any) -> slice:
    if dumps is None:
        return slice(None)
    if isinstance(dumps, range):
        if dumps.step != 1:
            raise ConfigError(f"dumps must be contiguous (step 1), got {dumps!r}")
        return slice(dumps.start, dumps.stop)
    if isinstance(dumps, tuple) and len(dumps) == 2:
        return slice(*dumps)
    if isinstance(dumps, slice):
        if dumps.step not in (None, 1):
            raise ConfigError(f"dumps must be contiguous (step 1), got {dumps!r}")
        return dumps
    raise ConfigError(f"dumps must be a slice, a (start, stop) pair or a range, got {dumps!r}")


def check_mode(mode: Any) -> str | list[str]:
    if isinstance(mode, str):
        if mode != "auto" and mode not in MODES:
            raise ConfigError(f"mode must be 'auto', 'delta', 'cumulative' or a list of those, got {mode!r}")
        return mode
    modes = list(mode)
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ConfigError(f"per-dump modes must be 'delta' or 'cumulative', got {bad[0]!r}")
    return modes


def assemble(path: Any, stats: Stats, rows: Chunk, stopped: bool, select: slice,
              mode: str | list[str], stop: int | None, allow_clash: bool) -> Trace:
    line, col, val = rows.lines, rows.cols, rows.vals
    is_b, is_e = col == COL_BEGIN, col == COL_END
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
    expect = np.where(np.arange(marks.size) % 2 == 0, COL_BEGIN, COL_END)
    wrong = np.flatnonzero(kinds != expect)
    if wrong.size:
        j = int(wrong[0])
        if kinds[j] == COL_BEGIN:
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
        raise ConfigError(f"dumps selection {select} selects none of the file's {n_file} dumps")
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
            raise Clash(names)
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
    build = Build(path, stats, line, begin_lines[first_dump:first_dump + n_dumps], first_dump, n_file,
                   values, present, first_row.reshape(n_dumps, n_cols), exact, mode)
    build.stopped = stopped
    return build.trace()


class Build:
    """From the dump × stat table to the Trace: classification, modes, time axis, increments."""

    def __init__(self, path: Any, stats: Stats, line: np.ndarray, begin_lines: np.ndarray, first_dump: int,
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
            raise ConfigError(f"mode lists {len(forced)} dump modes but {n} dumps are selected")
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
