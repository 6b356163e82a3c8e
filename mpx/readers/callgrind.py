"""Valgrind callgrind interval dumps → `Trace`.

``valgrind --tool=callgrind --dump-every-bb=N`` writes one *part* per interval: split into files
``OUT.1 … OUT.N-1`` plus the final part in ``OUT`` itself, or all parts in one file with
``--combine-dumps=yes``. Each part is reset after it is dumped, so parts are per-interval increments.
The format is valgrind's "Callgrind Format Specification" (valgrind manual, chapter "Callgrind Format
Specification"; writer: ``callgrind/dump.c`` and ``callgrind/sim.c``).

What is read, per part: the ``part:`` number (the order; file names are not trusted), the ``events:``
line (must be the same in every part), the ``totals:`` line (trailing zero events are omitted by
callgrind: padded with zeros), ``desc: Timerange: Basic block A - B`` (kept as the aux columns
``bb_start`` / ``bb_stop``: the interval covers blocks ``[A, B)``) and ``desc: Trigger:``. ``summary:``
is not used: it can be off by a few from ``totals:`` in the final part (formats.md); the sum of the
``totals:`` lines over all parts equals valgrind's end-of-run "Collected" line exactly. Cost lines
(per function/line costs) are not parsed.

Time axis (``meta['time_axis']``), chosen with ``time_axis=``:

- ``"instructions"`` (default): edges are the running sum of ``Ir`` (instructions executed) from 0
  at the start of collection. Exact, deterministic, and the analogue of a fixed "instructions
  retired" counter.
- ``"cycles"``: the classic callgrind/KCachegrind cycle estimate
  ``CEst = Ir + 10 * (I1mr + D1mr + D1mw + Bcm + Bim) + 100 * (ILmr + DLmr + DLmw)``
  (KCachegrind's default "Cycle Estimation" formula; events absent from the dump count as 0).
  A model, not a measurement.
- ``"blocks"``: edges are the basic-block numbers of the ``desc: Timerange:`` lines.

An interval that does not advance on the chosen axis (e.g. a final part with no instructions) cannot
be an interval of a strictly increasing axis: if all its counts are 0 it is dropped, otherwise it is
merged into the previous interval; either way it is recorded in ``meta['dropped']``.

**The whole run or an error.** Callgrind marks its last dump: the dump written when the program ends
has ``desc: Trigger: Program termination`` (``callgrind/dump.c``: a dump without a trigger string, the one
``finish()`` in ``callgrind/main.c`` writes); every other dump names what triggered it
(``--dump-every-bb=N``, a client request, ``callgrind_control``). So when the parts carry triggers, the
last part must be that final dump and no other may be: deleted, emptied or garbled final parts, and
a run cut short, are errors rather than a shorter trace. A sibling file whose header names another run
(pid, command) is an error too, unless it is another run's default output ``callgrind.out.<its pid>``.

Malformed input raises `FormatError` naming file and line: missing ``totals:``, non-numeric or
negative totals, more totals than events, a ``totals:`` line whose costs disagree with its part's ``summary:``
(a lost number would shift every event after it; `_same_costs`), numbers callgrind never writes
(`mpx.readers.numbers.callgrind_count`), ``events:`` lines that differ between parts, missing or
duplicate part numbers, gaps between block ranges, a missing final part, a truncated last line.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from mpx.errors import FormatError, TraceError
from mpx.readers.numbers import NumberError, callgrind_count
from mpx.readers.textio import head_text, read_bytes, require_final_newline
from mpx.trace import Trace

NAME = "callgrind"

TIME_AXES = ("instructions", "cycles", "blocks")
"""Accepted values of ``read(..., time_axis=)``."""

#: KCachegrind's "Cycle Estimation": weight of each event in the estimated cycle count.
CYCLE_WEIGHTS = {
    "Ir": 1,
    "I1mr": 10, "D1mr": 10, "D1mw": 10, "Bcm": 10, "Bim": 10,
    "ILmr": 100, "DLmr": 100, "DLmw": 100,
}

#: The trigger of the dump callgrind writes when the program ends (its last part).
FINAL_TRIGGER = "Program termination"

_COMPRESSED = re.compile(r"\.(?:xz|gz|bz2|zst)$")
_KEY_LINE = re.compile(
    rb"^(version|creator|pid|cmd|part|thread|desc|positions|events|event|summary|totals):(.*)$", re.M
)
_DIGITS = re.compile(r"[0-9]{1,24}")  # 24 digits: far beyond any count, far below int()'s limits
_TIMERANGE = re.compile(r"^Timerange: Basic block ([0-9]{1,24}) - ([0-9]{1,24})$")
_CACHE_DESC = re.compile(
    r"^(I1|D1|LL|L2) cache: ([0-9]{1,24}) B, ([0-9]{1,24}) B, (?:([0-9]{1,24})-way associative|(direct-mapped))(, sectored)?$"
)


@dataclass
class _Part:
    """One dumped interval, with where its lines are (for error messages)."""

    path: str
    number: int
    line: int
    events: tuple[str, ...] | None = None
    events_line: int = 0
    totals: list[int] | None = None
    summary: tuple[list[int], int] | None = None  # (values, line) of the part's summary: line
    timerange: tuple[int, int] | None = None
    timerange_line: int = 0
    trigger: str | None = None


@dataclass
class _File:
    """Header of one dump file and the parts it holds."""

    path: str
    creator: str | None = None
    pid: str | None = None
    cmd: str | None = None
    descs: list[str] = field(default_factory=list)
    event_descs: dict[str, str] = field(default_factory=dict)
    parts: list[_Part] = field(default_factory=list)

    @property
    def identity(self) -> tuple:
        return (self.creator, self.pid, self.cmd)


# -- detection --------------------------------------------------------------------------------------


def _looks_like_callgrind(head: str) -> bool:
    first = next((ln.strip() for ln in head.splitlines() if ln.strip()), "")
    if first == "# callgrind format":
        return True
    return bool(re.search(r"^creator: callgrind", head, re.M)) and bool(re.search(r"^events:", head, re.M))


def _head(path: str, n: int = 512) -> str:
    try:
        return head_text(path, n)
    except (OSError, FormatError):  # unreadable or damaged: not a dump this run can use
        return ""


def _dump_files_in_dir(path: str | os.PathLike) -> list[str]:
    out = []
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    for name in names:
        full = os.path.join(path, name)
        if os.path.isfile(full) and _looks_like_callgrind(_head(full)):
            out.append(full)
    return out


def sniff(path: str | os.PathLike, head: str) -> bool:
    """A callgrind dump file (``# callgrind format`` header), or a directory holding some."""
    if os.path.isdir(path):
        return bool(_dump_files_in_dir(path))
    return _looks_like_callgrind(head)


# -- parsing ----------------------------------------------------------------------------------------


def _ints(values: str, path: str, line: int, what: str) -> list[int]:
    try:
        return [callgrind_count(v, what) for v in values.split()]
    except NumberError as exc:
        raise FormatError(path, line, str(exc)) from None


def _parse_file(path: str) -> _File:
    """Keyword lines of one dump file (split part or combined file); cost lines are skipped."""
    data = read_bytes(path)
    f = _File(path=path)
    if not data.strip():
        raise FormatError(path, 1, "empty file")
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    require_final_newline(path, data, n_lines)
    part: _Part | None = None
    pos = 0
    line = 1
    for m in _KEY_LINE.finditer(data):
        line += data.count(b"\n", pos, m.start())
        pos = m.start()
        key = m.group(1).decode()
        value = m.group(2).decode("utf-8", errors="replace").rstrip("\r").strip()
        if key == "version":
            if value != "1":
                raise FormatError(path, line, f"callgrind format version {value!r}; only version 1 is known")
        elif key == "creator":
            f.creator = value
        elif key == "pid":
            f.pid = value
        elif key == "cmd":
            f.cmd = value
        elif key == "thread":
            raise FormatError(
                path, line, "per-thread dumps (--separate-threads=yes) are not supported; record without it"
            )
        elif key == "part":
            if part is not None and part.totals is None:
                raise FormatError(path, line, f"part {part.number} (line {part.line}) has no totals: line")
            if not _DIGITS.fullmatch(value) or int(value) < 1:
                raise FormatError(path, line, f"part: {value!r} is not a positive integer")
            part = _Part(path=path, number=int(value), line=line)
            f.parts.append(part)
        else:
            if part is not None and part.totals is not None:
                raise FormatError(
                    path, line, f"{key}: line after the totals: line of part {part.number} (missing part: line?)"
                )
            per_part = key in ("events", "summary", "totals") or (
                key == "desc" and value.startswith(("Timerange:", "Trigger:"))
            )
            if part is None and per_part:
                part = _Part(path=path, number=1, line=line)  # a file without part: lines holds part 1
                f.parts.append(part)
            if key == "desc":
                if value.startswith("Timerange:"):
                    tm = _TIMERANGE.match(value)
                    if not tm:
                        raise FormatError(path, line, f"cannot read block range {value!r}")
                    a, b = int(tm.group(1)), int(tm.group(2))
                    if b < a:
                        raise FormatError(path, line, f"block range ends before it starts: {value!r}")
                    part.timerange, part.timerange_line = (a, b), line  # type: ignore[union-attr]
                elif value.startswith("Trigger:"):
                    part.trigger = value[len("Trigger:"):].strip()  # type: ignore[union-attr]
                else:
                    f.descs.append(value)
            elif key == "event":
                name, _, desc = value.partition(":")
                f.event_descs[name.strip()] = desc.strip()
            elif key == "positions" or part is None:
                pass
            elif key == "events":
                names = tuple(value.split())
                if not names:
                    raise FormatError(path, line, "events: line names no event")
                if len(set(names)) != len(names):
                    raise FormatError(path, line, f"events: line names an event twice: {value!r}")
                if part.events is not None and part.events != names:
                    raise FormatError(
                        path, line, f"second events: line in part {part.number} differs from line {part.events_line}"
                    )
                part.events, part.events_line = names, line
            elif key == "totals":
                if part.events is None:
                    raise FormatError(path, line, f"totals: before any events: line in part {part.number}")
                values = _ints(value, path, line, "totals")
                if len(values) > len(part.events):
                    raise FormatError(
                        path, line, f"totals: has {len(values)} values but events: names {len(part.events)}"
                    )
                _same_costs(path, line, part.events, values, part.summary)
                part.totals = values + [0] * (len(part.events) - len(values))
            elif key == "summary":
                if part.events is None:
                    raise FormatError(path, line, f"summary: before any events: line in part {part.number}")
                part.summary = (_ints(value, path, line, "summary"), line)
    if part is None:
        raise FormatError(path, n_lines, "no events:/totals: lines: not a callgrind dump")
    if part.totals is None:
        if f.creator and not f.creator.startswith("callgrind"):
            raise FormatError(path, n_lines, (
                f"a callgrind-format file written by {f.creator!r}, not by valgrind's callgrind: it has no totals: "
                "line, so it holds no time axis of counts; mpx needs callgrind's own periodic dumps (mpx record)"))
        raise FormatError(path, n_lines, f"part {part.number} (line {part.line}) has no totals: line (truncated file?)")
    return f


#: how far a part's ``totals:`` and ``summary:`` may differ on a counted event: callgrind sums the same costs two
#: ways, and they differ by a few events where the dump cut a block (at most 9 over the 1,177 parts of a gzip
#: recording); the syscall events (``sys*``: measured at the syscall's end) may differ by anything
COST_SLACK = 64


def _same_costs(path: str, line: int, events: list[str], totals: list[int],
                summary: tuple[list[int], int] | None) -> None:
    """A part's ``totals:`` and ``summary:`` carry the same costs (each omits its trailing zeros on its own:
    ``CLG_(mappingcost_as_string)``): a lost or extra number shifts every event after it by one column, and the
    two disagree far beyond `COST_SLACK`."""
    if summary is None:
        return
    values, where = summary
    for j, name in enumerate(events):
        t = totals[j] if j < len(totals) else 0
        v = values[j] if j < len(values) else 0
        if not name.startswith("sys") and abs(t - v) > COST_SLACK + 1e-4 * max(t, v):
            raise FormatError(path, line, f"totals: gives {name} = {t} but the summary: line {where} gives {v}: "
                              "callgrind writes the same costs on both (a number lost or added?)")


# -- which files belong together --------------------------------------------------------------------


def _split_name(name: str) -> tuple[str, int | None]:
    """``cg.out.12[.xz]`` → (``cg.out``, 12); ``cg.out[.xz]`` → (``cg.out``, None)."""
    bare = _COMPRESSED.sub("", name)
    m = re.match(r"^(.+)\.(\d+)$", bare)
    if m:
        return m.group(1), int(m.group(2))
    return bare, None


def _run_files(path: str) -> list[str]:
    """The dump files of the run ``path`` belongs to: ``path`` itself plus its split siblings."""
    folder = os.path.dirname(path) or "."
    name = os.path.basename(path)
    bare = _COMPRESSED.sub("", name)
    siblings = sorted(os.listdir(folder))
    as_base = [s for s in siblings if re.fullmatch(re.escape(bare) + r"\.\d+(?:\.(?:xz|gz|bz2|zst))?", s)]
    if as_base:
        stem = bare
    else:
        stem, _ = _split_name(name)
    pattern = re.compile(re.escape(stem) + r"(?:\.\d+)?(?:\.(?:xz|gz|bz2|zst))?")
    files = [os.path.join(folder, s) for s in siblings if pattern.fullmatch(s)]
    files = [p for p in files if os.path.isfile(p)]
    return files if path in files else [path] + files


def _gather(path: str) -> tuple[list[_File], str]:
    """Parse every file of one run; returns the files and a label for run-level errors."""
    if os.path.isdir(path):
        candidates = _dump_files_in_dir(path)
        if not candidates:
            raise FormatError(path, None, "a directory, but no callgrind dump files in it")
        files = [_parse_file(p) for p in candidates]
        runs = Counter(f.identity for f in files)
        if len(runs) > 1:
            desc = "; ".join(f"pid {pid}: {cmd!r} ({n} files)" for (_, pid, cmd), n in runs.items())
            raise FormatError(path, None, f"dumps of {len(runs)} different runs in one directory ({desc}); pass one file")
        return files, path
    first = _parse_file(path)
    files = [first]
    for p in _run_files(path):
        if os.path.samefile(p, path):
            continue
        head = _head(p)
        if not _looks_like_callgrind(head):
            continue
        other = _parse_file(p)
        if other.identity == first.identity:
            files.append(other)
        elif _split_name(os.path.basename(p))[1] != _as_int(other.pid):  # not callgrind.out.<its own pid>
            raise FormatError(p, None, f"a dump file of the run {path} (by its name) from another run: pid "
                                       f"{other.pid} {other.cmd!r}, not pid {first.pid} {first.cmd!r}")
    return files, path


def _as_int(text: str | None) -> int | None:
    return int(text) if text is not None and _DIGITS.fullmatch(text) else None


def _check_final(parts: list[_Part], label: str) -> None:
    """When parts carry triggers, the last one is the program-termination dump and no other is."""
    if not any(p.trigger for p in parts):
        return
    for p in parts[:-1]:
        if p.trigger == FINAL_TRIGGER:
            raise FormatError(p.path, p.line, f"part {p.number} is the run's final dump (Trigger: {FINAL_TRIGGER}) "
                                              f"but part {parts[-1].number} follows it")
    last = parts[-1]
    if last.trigger != FINAL_TRIGGER:
        raise FormatError(label, None, f"the run's final dump (desc: Trigger: {FINAL_TRIGGER}) is missing: the "
                                       f"last part found is part {last.number} ({last.path}:{last.line}, Trigger: "
                                       f"{last.trigger}); parts after it deleted, emptied or unreadable, or the "
                                       "run cut short")


# -- assembling the trace ---------------------------------------------------------------------------


def _cache_config(descs: list[str]) -> dict:
    config: dict = {}
    for d in descs:
        m = _CACHE_DESC.match(d)
        if m:
            level, size, line, assoc, direct, sectored = m.groups()
            config[level] = {
                "size_bytes": int(size),
                "line_bytes": int(line),
                "assoc": 1 if direct else int(assoc),
            }
            if sectored:
                config[level]["sectored"] = True
    return config


def _first_gaps(numbers: list[int], at_most: int) -> list[int]:
    """The first ``at_most`` numbers of 1, 2, ... missing from the increasing ``numbers``."""
    out: list[int] = []
    prev = 0
    for n in numbers:
        out += range(prev + 1, min(n, prev + 1 + at_most - len(out)))
        if len(out) >= at_most:
            break
        prev = n
    return out


def read(path: str | os.PathLike, time_axis: str = "instructions") -> Trace:
    """Read one callgrind run: a split part, the base file, the directory, or a combined file."""
    if time_axis not in TIME_AXES:
        raise FormatError(path, None, f"unknown time_axis {time_axis!r}; expected one of {', '.join(TIME_AXES)}")
    path = os.fspath(path)
    files, label = _gather(path)
    parts = sorted((p for f in files for p in f.parts), key=lambda p: p.number)
    seen: dict[int, _Part] = {}
    for p in parts:
        if p.number in seen:
            q = seen[p.number]
            raise FormatError(p.path, p.line, f"part {p.number} also appears in {q.path}:{q.line}")
        seen[p.number] = p
    numbers = [p.number for p in parts]  # increasing and distinct: 1..N exactly when it starts at 1, ends at N
    if numbers[0] != 1 or numbers[-1] != len(numbers):
        missing = _first_gaps(numbers, 11)  # never range(1, N): a damaged part number may be huge
        shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
        raise FormatError(label, None, f"parts missing: {shown} (found {len(numbers)} of 1..{numbers[-1]})")
    _check_final(parts, label)
    ref = parts[0]
    for p in parts[1:]:
        if p.events != ref.events:
            raise FormatError(
                p.path, p.events_line, f"events: line of part {p.number} differs from part {ref.number} "
                f"({ref.path}:{ref.events_line}): {' '.join(p.events or ())!r} vs {' '.join(ref.events or ())!r}"
            )
    events = ref.events or ()
    counts = np.array([p.totals for p in parts], dtype=np.float64).reshape(len(parts), len(events))

    ranges = [p.timerange for p in parts]
    have_ranges = all(r is not None for r in ranges)
    if not have_ranges and any(r is not None for r in ranges):  # one part's line lost: never drop them all
        lost = next(p for p in parts if p.timerange is None)
        has = next(p for p in parts if p.timerange is not None)
        raise FormatError(lost.path, lost.line, f"part {lost.number} has no readable 'desc: Timerange:' line "
                          f"but part {has.number} has one ({has.path}:{has.timerange_line}): a damaged part")
    if have_ranges:
        for a, b in zip(parts, parts[1:]):
            if a.timerange[1] != b.timerange[0]:  # type: ignore[index]
                raise FormatError(
                    b.path, b.timerange_line, f"part {b.number} starts at block {b.timerange[0]} but part "  # type: ignore[index]
                    f"{a.number} ended at block {a.timerange[1]}: intervals missing or zeroed in between"  # type: ignore[index]
                )
    aux_names: tuple[str, ...] = ()
    aux = None
    if have_ranges:
        aux_names = ("bb_start", "bb_stop")
        aux = np.array(ranges, dtype=np.float64)

    dropped: list[dict] = []
    if time_axis == "instructions":
        if "Ir" not in events:
            raise FormatError(ref.path, ref.events_line, "no Ir event: cannot use instructions as time axis")
        step = counts[:, events.index("Ir")]
        axis_doc = "instructions: running sum of Ir (instructions executed) from 0 at the start of collection"
        unit = "instructions"
    elif time_axis == "cycles":
        if "Ir" not in events:
            raise FormatError(ref.path, ref.events_line, "no Ir event: cannot estimate cycles")
        used = {e: w for e, w in CYCLE_WEIGHTS.items() if e in events}
        step = sum(w * counts[:, events.index(e)] for e, w in used.items())
        terms = " + ".join(f"{w}*{e}" if w != 1 else e for e, w in used.items())
        axis_doc = f"cycles: running sum of the KCachegrind cycle estimate CEst = {terms} (a model, not a measurement)"
        unit = "cycles"
    else:
        if not have_ranges:
            raise FormatError(label, None, "no 'desc: Timerange:' lines: cannot use basic blocks as time axis")
        step = aux[:, 1] - aux[:, 0]  # type: ignore[index]
        axis_doc = "blocks: basic-block numbers of the 'desc: Timerange:' lines"
        unit = "blocks"

    keep = step > 0
    if not keep.all():
        counts, aux, step, dropped = _fold_still(counts, aux, step, keep, [p.number for p in parts])
        if counts.shape[0] == 0:
            raise FormatError(label, None, f"no part advances the {time_axis} axis: nothing to read")
    start = aux[0, 0] if (time_axis == "blocks" and aux is not None) else 0.0
    edges = np.concatenate([[start], start + np.cumsum(step)])

    header = files[0]
    for f in files:
        if f.descs:
            header = f
            break
    creator = next((f.creator for f in files if f.creator), None)
    cmd = next((f.cmd for f in files if f.cmd), None)
    config = _cache_config(header.descs)
    triggers = Counter(p.trigger for p in parts if p.trigger)
    every = [t for t in triggers if t.startswith("--dump-every-bb=")]
    if every:
        value = every[0].split("=", 1)[1]
        config["dump_every_bb"] = int(value) if _DIGITS.fullmatch(value) else value
    meta: dict = {
        "source": path,
        "format": NAME,
        "workload": os.path.basename(cmd.split()[0]) if cmd and cmd.split() else None,
        "simulator": creator,
        "command": cmd,
        "config": config,
        "time_axis": axis_doc,
        "parts": len(parts),
        "files": len(files),
        "triggers": dict(sorted(triggers.items())),
    }
    if creator and creator.startswith("callgrind-"):
        meta["valgrind_version"] = creator[len("callgrind-"):]
    descs = {k: v for f in files for k, v in f.event_descs.items()}
    if descs:
        meta["event_descriptions"] = dict(sorted(descs.items()))
    other = [d for d in header.descs if not _CACHE_DESC.match(d)]
    if other:
        meta["desc"] = other
    if dropped:
        meta["dropped"] = dropped
    try:
        return Trace(events, counts, edges, unit, meta=meta, aux_names=aux_names, aux=aux)
    except TraceError as exc:  # e.g. an event named like an aux column
        raise FormatError(label, None, f"dumps do not make a valid trace: {exc}") from None


def _fold_still(
    counts: np.ndarray, aux: np.ndarray | None, step: np.ndarray, keep: np.ndarray, numbers: list[int]
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, list[dict]]:
    """Drop all-zero parts that do not advance the axis; merge the others into the previous interval."""
    dropped: list[dict] = []
    empty = ~keep & (counts.sum(axis=1) == 0)
    if empty.any():
        gone = [numbers[i] for i in np.flatnonzero(empty)]
        dropped.append({"what": f"parts {gone}", "why": "no progress on the time axis and all counts 0"})
    alive = ~empty
    counts, step, keep = counts[alive], step[alive], keep[alive]
    aux = aux[alive] if aux is not None else None
    numbers = [n for n, a in zip(numbers, alive) if a]
    if keep.all() or counts.shape[0] == 0:
        return counts, aux, step, dropped
    # group each non-advancing part with the previous advancing one (the first with the next)
    group = np.cumsum(keep) - 1
    group[group < 0] = 0
    n = int(group.max()) + 1
    merged = np.zeros((n, counts.shape[1]))
    np.add.at(merged, group, counts)
    new_step = np.zeros(n)
    np.add.at(new_step, group, step)
    new_aux = None
    if aux is not None:
        new_aux = np.empty((n, aux.shape[1]))
        for g in range(n):
            rows = aux[group == g]
            new_aux[g] = [rows[:, 0].min(), rows[:, 1].max()]
    merged_parts = [numbers[i] for i in np.flatnonzero(~keep)]
    dropped.append({"what": f"interval boundaries of parts {merged_parts}",
                    "why": "no progress on the time axis: merged into the neighbouring interval"})
    return merged, new_aux, new_step, dropped
