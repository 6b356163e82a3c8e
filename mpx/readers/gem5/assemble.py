"""From parsed dumps to a `~mpx.trace.Trace`: dump selection, cumulative or per-dump values, additive
stats as events and the rest in the side table."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.readers.gem5.classify import classify
from mpx.readers.gem5.dumps import Table
from mpx.readers.gem5.lines import MODES, NAME, Stats
from mpx.trace import Trace
from mpx.trace_file import MAX_MEMBER_BYTES

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


def assemble(path: Any, stats: Stats, table: Table, stopped: bool, mode: str | list[str]) -> Trace:
    """The Trace of the selected dumps (``table``, from `mpx.readers.gem5.scan.parse`)."""
    build = Build(path, stats, table, mode)
    build.stopped = stopped
    return build.trace()


class Build:
    """From the dump × stat table to the Trace: classification, modes, time axis, increments."""

    def __init__(self, path: Any, stats: Stats, table: Table, mode: str | list[str]) -> None:
        self.path, self.stats, self.table, self.mode = path, stats, table, mode
        self.begin_lines, self.first_dump, self.n_file = table.begins, table.first_dump, table.n_file
        self.n, self.exact = table.n, table.exact
        self.per_col, self.per_dump = table.present_counts()
        self.col_of = {name: i for i, name in enumerate(stats.names)}
        self.dropped: list[dict[str, str]] = []
        self.stopped = False

    def where(self, k: int, c: int) -> int:
        """Line of stat ``c`` in dump ``k`` (or of the dump's Begin marker when the stat is absent)."""
        line = self.table.line(k, c)
        return line if line >= 0 else int(self.begin_lines[k])

    def dump_label(self, k: int) -> str:
        return f"dump {self.first_dump + k + 1} (begun at line {int(self.begin_lines[k])})"

    def ints(self, c: int | None) -> list[int | None]:
        """Exact integer values of stat ``c`` per dump (None where absent)."""
        if c is None:
            return [None] * self.n
        out: list[int | None] = []
        values, present = self.table.column(c)
        for k in range(self.n):
            if not present[k]:
                out.append(None)
                continue
            big = self.exact.get((k, c))
            v = values[k]
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
            if n in self.col_of and self.per_col[self.col_of[n]] > 0:
                return self.col_of[n]
        return None

    def trace(self) -> Trace:
        stats, table = self.stats, self.table
        used = np.flatnonzero(self.per_col > 0)
        additive = {}
        reasons = {}
        for c in used.tolist():
            name = stats.names[c]
            base = name.rpartition("::")[0]
            additive[c], reasons[c] = classify(name, stats.units[c], stats.descs[c], base in stats.dist_bases)
        self.reclassify(used, additive, reasons)
        add_cols = [c for c in used.tolist() if additive[c]]
        aux_cols = [c for c in used.tolist() if not additive[c]]

        keep, modes, edges, unit, axis = self.intervals(add_cols)
        cum = [j for j, m in enumerate(modes) if m == "cumulative"]
        exact = self.exact_differences(cum, keep, add_cols)
        meta = self.meta(keep, modes, add_cols, aux_cols, reasons, axis)
        for what, width in (("events", len(add_cols)), ("aux values", len(aux_cols))):
            if len(keep) * width * 8 > MAX_MEMBER_BYTES:
                raise FormatError(self.path, None, (
                    f"{len(keep):,} intervals × {width:,} {what} would take {len(keep) * width * 8 / 2**30:.1f} GiB, "
                    f"more than a trace may hold ({MAX_MEMBER_BYTES / 2**30:g} GiB per array, the native format's "
                    "limit): stats that come and go make the table that wide; read fewer dumps with dumps="))
        # without cumulative dumps the table is emptied as counts and aux fill (no error can need it)
        counts, aux = table.take(add_cols, aux_cols, keep, release=not cum)
        first_neg: tuple[int, int, float, float] | None = None
        for j in reversed(cum):  # row j - 1 still holds the printed values of dump keep[j - 1]
            less = np.flatnonzero(counts[j] < counts[j - 1])
            if less.size:
                e = int(less[0])
                first_neg = (j, e, float(counts[j - 1, e]), float(counts[j, e]))
            counts[j] -= counts[j - 1]
        for (j, e), (a, b) in exact.items():
            counts[j, e] = float(a - b)
            if a < b and (first_neg is None or (j, e) < first_neg[:2]):
                first_neg = (j, e, float(b), float(a))
        if first_neg is not None:
            j, e, before, now = first_neg
            k, cc = keep[j], add_cols[e]
            raise FormatError(self.path, self.where(k, cc), (
                f"{stats.names[cc]} decreases from {before:.17g} to {now:.17g} in "
                f"{self.dump_label(k)}, which the ticks make cumulative: a counter cannot decrease"))
        table.release()
        self.table = None  # type: ignore[assignment]
        counts.setflags(write=False)  # handed over to the Trace without a copy
        aux.setflags(write=False)
        return Trace(events=[stats.names[c] for c in add_cols], counts=counts, edges=edges, time_unit=unit,
                     meta=meta, aux_names=[stats.names[c] for c in aux_cols], aux=aux)

    def reclassify(self, used: np.ndarray, additive: dict[int, bool], reasons: dict[int, str]) -> None:
        """An additive-looking stat printing nan/inf or a negative value is no counter: move it to aux."""
        cols = [c for c in used.tolist() if additive[c]]
        bad = self.table.first_bad(cols)
        for c in cols:
            if c in bad:
                k = bad[c]
                value = self.table.cells([c], rows=[k])[0][0, 0]
                self.dropped.append({
                    "what": f"event {self.stats.names[c]}",
                    "why": f"looks additive ({reasons[c]}) but prints {value!r} at line {self.where(k, c)}; "
                           "kept in aux instead",
                })
                additive[c], reasons[c] = False, "reclassified_nonfinite_or_negative"
        # without a unit or description only the value can tell a formula (a rate) from a count: a count is whole
        named = [c for c in cols if reasons[c] == "counter_by_name" and additive[c]]
        if named:
            step = max(1, (1 << 19) // len(named))
            for k0 in range(0, self.n, step):
                block, _ = self.table.cells(named, fill=0.0, rows=np.arange(k0, min(self.n, k0 + step)))
                with np.errstate(invalid="ignore"):
                    frac = np.isfinite(block) & (block != np.floor(block))
                for j in np.flatnonzero(frac.any(axis=0)).tolist():
                    c = named[j]
                    if not additive[c]:
                        continue
                    k = k0 + int(np.argmax(frac[:, j]))
                    self.dropped.append({
                        "what": f"event {self.stats.names[c]}",
                        "why": f"no unit or description, and prints the non-integer {float(block[k - k0, j])!r} at "
                               f"line {self.where(k, c)}: a formula (a rate or ratio), not a count; kept in aux",
                    })
                    additive[c], reasons[c] = False, "reclassified_non_integer"

    def exact_differences(self, cum: list[int], keep: list[int], add_cols: list[int]
                          ) -> dict[tuple[int, int], tuple[int, int]]:
        """Cumulative differences to redo exactly where a value exceeds float64's integer range:
        (interval, event) → (value, previous value)."""
        out: dict[tuple[int, int], tuple[int, int]] = {}
        if not self.exact or not cum:
            return out
        where = {c: e for e, c in enumerate(add_cols)}
        touching: dict[int, list[tuple[int, int, int]]] = {}
        for j in cum:
            k, p = keep[j], keep[j - 1]
            touching.setdefault(k, []).append((j, k, p))
            touching.setdefault(p, []).append((j, k, p))
        for k, c in list(self.exact):
            e = where.get(c)
            if e is None:
                continue
            for j, kk, pp in touching.get(k, ()):
                a, b = self.exact_value(kk, c), self.exact_value(pp, c)
                if a is not None and b is not None:
                    out[(j, e)] = (a, b)
        return out

    def exact_value(self, k: int, c: int) -> int | None:
        if k < 0 or k >= self.n:
            return None
        big = self.exact.get((k, c))
        if big is not None:
            return big
        values, where = self.table.cells([c], rows=[k], lines=True)
        if where[0, 0] < 0:
            return 0
        v = values[0, 0]
        return int(v) if np.isfinite(v) and v == int(v) else None

    def intervals(self, add_cols: list[int]) -> tuple[list[int], list[str], np.ndarray, str, str]:
        """Dumps kept, their modes, the edges, the time unit and how the axis was made."""
        n = self.n
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
                row = self.table.cells(add_cols, fill=0.0, rows=[k])[0][0]
                nonzero = np.flatnonzero(row)
                if nonzero.size:
                    cc = add_cols[int(nonzero[0])]
                    raise FormatError(self.path, self.where(k, cc), (
                        f"{self.dump_label(k)} covers zero ticks ({self.stats.names[c_sim]} 0) but "
                        f"{self.stats.names[cc]} is {row[nonzero[0]]:g}"))
                self.dropped.append({"what": self.dump_label(k), "why": f"zero length (reset and dump at tick "
                                     f"{fin[k]}); all its counters are 0"})
                continue
            keep.append(k)
        if not keep:
            raise FormatError(self.path, int(self.begin_lines[0]), "every selected dump has zero length")
        modes = ["first"]
        for p, k in zip(keep, keep[1:]):
            if fin[k] <= fin[p]:
                raise FormatError(self.path, self.where(k, c_fin), (
                    f"ticks go backwards: {self.stats.names[c_fin]} {fin[k]} of {self.dump_label(k)} is not after "
                    f"{fin[p]} of the previous dump"))
            if start[k] == fin[p]:
                modes.append("delta")
            elif start[k] == start[p]:
                modes.append("cumulative")
            elif start[k] > fin[p]:
                raise FormatError(self.path, self.where(k, c_sim), (
                    f"gap: {self.dump_label(k)} starts at tick {start[k]} but the previous dump ended at "
                    f"{fin[p]} (stats were reset after it, e.g. at a region of interest): the events in between "
                    f"are unknown; read the dumps before and after the gap separately with dumps=(start, stop)"))
            else:
                raise FormatError(self.path, self.where(k, c_sim), (
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
        if c_sim is not None and c_fin is None and self.table.column(c_sim)[1].all():
            # sim_ticks is exact where sim_seconds is rounded (%g)
            axis = (f"gem5 ticks from {self.stats.names[c_sim]} (no finalTick/final_tick in the file): the first "
                    "dump is assumed to start at 0 and the dumps to be contiguous")
            return list(range(n)), modes, self._window_edges(c_sim, modes, "ticks"), "ticks", axis
        c_sec = self.find("simSeconds", "sim_seconds")
        if c_sec is not None and self.table.column(c_sec)[1].all():
            axis = (f"seconds from {self.stats.names[c_sec]} (no finalTick/simTicks in the file): the first dump "
                    "is assumed to start at 0 and the dumps to be contiguous")
            return list(range(n)), modes, self._window_edges(c_sec, modes, "s"), "s", axis
        axis = "dump index (no finalTick/simTicks and no simSeconds in the file)"
        return list(range(n)), modes, np.arange(n + 1, dtype=np.float64), "intervals", axis


    def _window_edges(self, col: int, modes: list[str], unit: str) -> np.ndarray:
        """Edges from a per-dump window stat (sim_ticks, sim_seconds): its value per dump, or the difference
        from the previous dump where that dump is cumulative; a window that is not positive is an error."""
        window, _ = self.table.column(col)
        n = len(modes)
        length = np.array([window[k] - window[k - 1] if modes[k] == "cumulative" else window[k] for k in range(n)])
        bad = np.flatnonzero(~(length > 0))
        if bad.size:
            k = int(bad[0])
            raise FormatError(self.path, self.where(k, col), (
                f"{self.dump_label(k)} would last {float(length[k]):g} {unit} by {self.stats.names[col]} "
                f"and mode {modes[k]!r}: intervals must have positive length"))
        return np.concatenate([[0.0], np.cumsum(length)])
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
                raise FormatError(self.path, self.where(int(np.argmax(self.table.column(c_freq)[1])), c_freq),
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
            "dumps": [self.first_dump, self.first_dump + self.n],
            "dump_modes": rle,
            "stats_per_dump": self.per_dump[keep].astype(int).tolist(),
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
