"""Ground truth: the `Trace`.

A Trace is what a simulator gives when it dumps all of its stats periodically: every event known in
every interval. It is the only thing the multiplexing simulator reads and the only thing scoring
compares against; schedulers and scalers never see it.

Contract (checked by ``Trace.__init__``, violations raise `TraceError`):

- ``events``: E distinct, non-empty event names (tuple of str).
- ``counts``: float64 array ``[T, E]`` of per-interval *increments* of additive counters; finite, >= 0.
  Ratios, means and formulas are not events: they live in the side table ``aux``.
- ``edges``: float64 array ``[T + 1]`` of interval boundaries on the time axis, strictly increasing.
  Interval ``t`` covers ``[edges[t], edges[t + 1])``.
- ``time_unit``: the unit of ``edges`` (one of `TIME_UNITS`), e.g. ``"ticks"`` for gem5,
  ``"instructions"`` for callgrind.
- ``aux_names`` / ``aux``: optional side table ``[T, A]`` of per-interval non-additive values
  (formulas, ratios, means, gauges) that a reader kept out of the events; may hold NaN/inf.
- ``meta``: JSON-serialisable dict. Conventional keys: ``source`` (file), ``format``, ``workload``,
  ``simulator``, ``config``, ``time_axis`` (how the edges were made), ``dropped`` (what a reader left
  out on purpose and why), ``synthetic`` (True for generated traces).

Traces are immutable in spirit: every operation returns a new Trace; arrays are made read-only.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from mpx.errors import FormatError, TraceError
from mpx.trace_file import FORMAT_VERSION, read_trace_file, write_trace_file

TIME_UNITS = ("ticks", "cycles", "instructions", "ns", "us", "ms", "s", "blocks", "intervals")
"""Accepted names of time axes."""

SECONDS_PER_UNIT: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
"""Seconds per unit of the time axes with a fixed relation to wall time (the others — cycles, ticks,
instructions, blocks, intervals — need a clock rate or have none)."""

COUNTED_UNITS = frozenset({"Count", "Cycle"})
"""Units of ``meta['units']`` (gem5's stat units) whose values are events counted (`Trace.largest_totals`)."""

def _owned(a: Any) -> np.ndarray:
    """A float64 copy of ``a`` — unless ``a`` is already a read-only float64 array owning its data (a
    reader handing its arrays over, e.g. the gem5 reader's counts): copying those would only double the
    peak memory of reading a large file."""
    if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.owndata and not a.flags.writeable:
        return a
    return np.array(a, dtype=np.float64, copy=True)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


class Trace:
    """Per-interval increments of every event, on a named time axis (see module docstring)."""

    __slots__ = ("events", "counts", "edges", "time_unit", "aux_names", "aux", "meta", "_index", "_checksum")

    def __init__(
        self,
        events: Sequence[str],
        counts: Any,
        edges: Any,
        time_unit: str,
        meta: dict | None = None,
        aux_names: Sequence[str] = (),
        aux: Any = None,
    ) -> None:
        events = tuple(events)
        counts = _owned(counts)
        edges = np.array(edges, dtype=np.float64, copy=True)
        aux_names = tuple(aux_names)
        if counts.ndim == 1 and len(events) == 1:
            counts = counts[:, None]
        if counts.ndim != 2:
            raise TraceError(f"counts must be a 2-D array [T, E], got shape {counts.shape}")
        n_t, n_e = counts.shape
        if n_e != len(events):
            raise TraceError(f"counts has {n_e} columns but {len(events)} events are named")
        _check_names(events, "event")
        if edges.shape != (n_t + 1,):
            raise TraceError(f"edges must have T + 1 = {n_t + 1} entries, got shape {edges.shape}")
        if not np.all(np.isfinite(edges)):
            raise TraceError("edges must be finite")
        steps = np.diff(edges)
        if n_t and not np.all(steps > 0):
            bad = int(np.argmax(~(steps > 0)))
            raise TraceError(
                f"edges must be strictly increasing: interval {bad} goes from {float(edges[bad])!r} "
                f"to {float(edges[bad + 1])!r}"
            )
        if time_unit not in TIME_UNITS:
            raise TraceError(f"unknown time unit {time_unit!r}; expected one of {', '.join(TIME_UNITS)}")
        finite = np.isfinite(counts)
        if not finite.all():
            t, e = np.argwhere(~finite)[0]
            raise TraceError(f"count of {events[e]!r} in interval {t} is not finite ({float(counts[t, e])!r})")
        if (counts < 0).any():
            t, e = np.argwhere(counts < 0)[0]
            raise TraceError(f"count of {events[e]!r} in interval {t} is negative ({float(counts[t, e])!r})")
        if aux is None:
            aux = np.empty((n_t, len(aux_names)), dtype=np.float64)
            if aux_names:
                aux.fill(np.nan)
        aux = _owned(aux)
        if aux.shape != (n_t, len(aux_names)):
            raise TraceError(f"aux must have shape {(n_t, len(aux_names))}, got {aux.shape}")
        _check_names(aux_names, "aux")
        clash = set(aux_names) & set(events)
        if clash:
            raise TraceError(f"names are both events and aux values: {sorted(clash)[:5]}")
        meta = dict(meta or {})
        try:
            json.dumps(meta)
        except (TypeError, ValueError) as exc:
            raise TraceError(f"meta must be JSON-serialisable: {exc}") from None

        self.events = events
        self.counts = _readonly(counts)
        self.edges = _readonly(edges)
        self.time_unit = time_unit
        self.aux_names = aux_names
        self.aux = _readonly(aux)
        self.meta = meta
        self._index = {name: i for i, name in enumerate(events)}
        self._checksum: str | None = None

    # -- shape and lookup -------------------------------------------------------------------------

    @property
    def n_intervals(self) -> int:
        return self.counts.shape[0]

    @property
    def n_events(self) -> int:
        return self.counts.shape[1]

    @property
    def durations(self) -> np.ndarray:
        """Length of each interval on the time axis, ``[T]``."""
        return np.diff(self.edges)

    @property
    def span(self) -> tuple[float, float]:
        """(start, end) of the trace on its time axis."""
        return float(self.edges[0]), float(self.edges[-1])

    def index(self, name: str) -> int:
        """Column of event ``name``; KeyError naming close matches when absent."""
        try:
            return self._index[name]
        except KeyError:
            near = [e for e in self.events if name.lower() in e.lower()][:5]
            hint = f"; did you mean one of {near}?" if near else ""
            raise KeyError(f"no event {name!r} in trace{hint}") from None

    def __getitem__(self, name: str) -> np.ndarray:
        """Per-interval counts of one event (or aux value) by name."""
        if name in self._index:
            return self.counts[:, self._index[name]]
        if name in self.aux_names:
            return self.aux[:, self.aux_names.index(name)]
        return self.counts[:, self.index(name)]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __len__(self) -> int:
        return self.n_intervals

    def totals(self) -> dict[str, float]:
        """Whole-run total of every event."""
        return dict(zip(self.events, self.counts.sum(axis=0).tolist()))

    def largest_totals(self) -> tuple[list[tuple[str, float]], dict[str, int]]:
        """Counted events by whole-run total, largest first, and how many stats of each other unit were
        left out.

        When the trace records units (``meta['units']``, gem5's ``(Unit: …)``), only events counted in
        ``Count`` or ``Cycle`` are ranked (events without a recorded unit too): a ``Tick`` stat
        (``pwrStateResidencyTicks``, total latencies) sums time spent and equals the run's length, a
        ``Joule`` or ``Byte`` stat is in another currency; ranked with event counts they would top every
        gem5 trace."""
        units = self.meta.get("units") or {}
        other = {e: units[e] for e in self.events if units.get(e) not in (None, *COUNTED_UNITS)}
        left_out: dict[str, int] = {}
        for unit in other.values():
            left_out[unit] = left_out.get(unit, 0) + 1
        ranked = sorted(((e, v) for e, v in self.totals().items() if e not in other), key=lambda kv: -kv[1])
        return ranked, dict(sorted(left_out.items(), key=lambda kv: -kv[1]))

    def match(self, *patterns: str) -> list[str]:
        """Event names matching any shell-style pattern (``*``, ``?``, ``[...]``), in trace order."""
        return [e for e in self.events if any(fnmatch.fnmatchcase(e, p) for p in patterns)]

    def __repr__(self) -> str:
        src = self.meta.get("workload") or self.meta.get("source") or "?"
        return (
            f"Trace({src!r}: {self.n_events} events x {self.n_intervals} intervals, "
            f"{self.span[0]:g}..{self.span[1]:g} {self.time_unit})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return (
            self.events == other.events
            and self.time_unit == other.time_unit
            and self.aux_names == other.aux_names
            and np.array_equal(self.counts, other.counts)
            and np.array_equal(self.edges, other.edges)
            and np.array_equal(self.aux, other.aux, equal_nan=True)
            and self.meta == other.meta
        )

    __hash__ = None  # type: ignore[assignment]

    # -- derived traces ---------------------------------------------------------------------------

    def _replace(self, **changes: Any) -> Trace:
        fields = dict(
            events=self.events,
            counts=self.counts,
            edges=self.edges,
            time_unit=self.time_unit,
            meta=self.meta,
            aux_names=self.aux_names,
            aux=self.aux,
        )
        fields.update(changes)
        return Trace(**fields)

    def select(self, events: Iterable[str], *, keep_aux: bool = True) -> Trace:
        """A trace with only ``events`` (in the order given); unknown names raise KeyError."""
        names = list(events)
        if len(set(names)) != len(names):
            raise TraceError("select: duplicate event names")
        cols = [self.index(n) for n in names]
        changes: dict[str, Any] = dict(events=names, counts=self.counts[:, cols])
        if not keep_aux:
            changes.update(aux_names=(), aux=None)
        return self._replace(**changes)

    def drop(self, events: Iterable[str]) -> Trace:
        """A trace without ``events``."""
        gone = set(events)
        for name in gone:
            self.index(name)
        return self.select([e for e in self.events if e not in gone])

    def interval_slice(self, start: int | None = None, stop: int | None = None) -> Trace:
        """Intervals ``start:stop`` (Python slice semantics, step 1)."""
        idx = range(self.n_intervals)[slice(start, stop)]
        a, b = idx.start, idx.stop
        if b <= a:
            raise TraceError(f"interval slice {start}:{stop} is empty")
        return self._replace(counts=self.counts[a:b], edges=self.edges[a : b + 1], aux=self.aux[a:b])

    def time_slice(self, t0: float | None = None, t1: float | None = None) -> Trace:
        """The intervals lying entirely inside ``[t0, t1]`` on the time axis."""
        lo = -np.inf if t0 is None else t0
        hi = np.inf if t1 is None else t1
        inside = np.flatnonzero((self.edges[:-1] >= lo) & (self.edges[1:] <= hi))
        if inside.size == 0:
            raise TraceError(f"no whole interval lies inside [{t0}, {t1}] {self.time_unit}")
        return self.interval_slice(int(inside[0]), int(inside[-1]) + 1)

    def coarsen(self, factor: int) -> Trace:
        """Merge every ``factor`` consecutive intervals into one (counts add; a shorter last group
        is kept). Aux values are not additive and cannot be merged, so they are dropped (recorded in
        ``meta['dropped']``)."""
        if int(factor) != factor or factor < 1:
            raise TraceError(f"coarsen factor must be a positive integer, got {factor!r}")
        factor = int(factor)
        starts = np.arange(0, self.n_intervals, factor)
        counts = np.add.reduceat(self.counts, starts, axis=0)
        edges = np.append(self.edges[starts], self.edges[-1])
        meta = dict(self.meta)
        if self.aux_names:
            meta["dropped"] = list(meta.get("dropped", [])) + [
                {"what": f"{len(self.aux_names)} aux values", "why": f"not additive (coarsen x{factor})"}
            ]
        meta["coarsened"] = int(meta.get("coarsened", 1)) * factor
        return self._replace(counts=counts, edges=edges, aux_names=(), aux=None, meta=meta)

    def with_time_axis(self, event: str, unit: str) -> Trace:
        """Re-time the trace on the running sum of ``event`` (e.g. instructions or cycles).

        Intervals in which ``event`` did not advance would have zero length; they are merged into
        the next interval that does (counts add), and aux values are dropped if that happens.
        """
        inc = self[event]
        keep = inc > 0
        if not keep.any():
            raise TraceError(f"event {event!r} never advances: it cannot be a time axis")
        meta = dict(self.meta)
        meta["time_axis"] = f"running sum of {event!r} (was {self.time_unit}: {self.meta.get('time_axis', '')})"
        if keep.all():
            edges = np.concatenate([[0.0], np.cumsum(inc)])
            return self._replace(edges=edges, time_unit=unit, meta=meta)
        # Group each run of non-advancing intervals with the next advancing one.
        group = np.concatenate([[0], np.cumsum(keep[:-1])])
        n_groups = int(group[-1]) + 1
        counts = np.zeros((n_groups, self.n_events))
        np.add.at(counts, group, self.counts)
        if not keep[-1]:  # trailing intervals with no progress fold into the last real one
            n_groups -= 1
            counts[n_groups - 1] += counts[n_groups]
            counts = counts[:n_groups]
        edges = np.concatenate([[0.0], np.cumsum(inc[keep])])
        meta["dropped"] = list(meta.get("dropped", [])) + [
            {"what": f"{int((~keep).sum())} interval boundaries", "why": f"{event!r} did not advance"}
        ] + ([{"what": f"{len(self.aux_names)} aux values", "why": "intervals merged"}] if self.aux_names else [])
        return self._replace(counts=counts, edges=edges, time_unit=unit, meta=meta, aux_names=(), aux=None)

    # -- conversion -------------------------------------------------------------------------------

    def to_dataframe(self, aux: bool = False):
        """A pandas DataFrame, one row per interval, indexed by interval start (plus ``end``)."""
        import pandas as pd

        df = pd.DataFrame(self.counts, columns=list(self.events))
        if aux and self.aux_names:
            df = pd.concat([df, pd.DataFrame(self.aux, columns=list(self.aux_names))], axis=1)
        df.insert(0, "end", self.edges[1:])
        df.index = pd.Index(self.edges[:-1], name=f"start [{self.time_unit}]")
        return df

    def checksum(self) -> str:
        """sha256 of the content (names, unit, counts, edges, aux), independent of meta and file.

        Computed once per trace and remembered (hashing a 9,000 x 1,500 trace takes ~0.25 s and a study
        replays and scores one trace many times); the content is read-only, so it cannot go stale."""
        if self._checksum is None:
            h = hashlib.sha256()
            h.update(json.dumps([self.events, self.time_unit, self.aux_names]).encode())
            for a in (self.counts, self.edges, self.aux):
                h.update(np.ascontiguousarray(a, dtype="<f8").tobytes())
            self._checksum = h.hexdigest()
        return self._checksum

    def rebin(self, events: Iterable[str], edges: Any) -> np.ndarray:
        """True counts ``[W, E]`` of ``events`` over windows ``edges[W+1]`` on this trace's time axis
        (see `rebin_counts`: an interval a window edge cuts is split uniformly in time). The windows
        should lie within the trace's span; unknown event names raise KeyError."""
        cols = [self.index(e) for e in events]
        return rebin_counts(self.counts[:, cols], self.edges, np.asarray(edges, dtype=np.float64))

    def summary(self) -> str:
        """A few human-readable lines: size, time span, and the largest totals."""
        lo, hi = self.span
        d = self.durations
        lines = [
            repr(self),
            f"  interval length: min {d.min():g}, median {np.median(d):g}, max {d.max():g} {self.time_unit}",
        ]
        if self.meta.get("synthetic"):
            lines.append("  SYNTHETIC trace (generated, not measured)")
        if self.aux_names:
            lines.append(f"  aux (non-additive) values: {len(self.aux_names)}")
        for item in self.meta.get("dropped", []):
            lines.append(f"  dropped: {item.get('what')} ({item.get('why')})")
        return "\n".join(lines)

    # -- native format ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike, *, version: int = FORMAT_VERSION) -> None:
        """Write the native format (`mpx.trace_file`); ``version`` 1 writes for an older mpx. The bytes depend
        only on the content and the version, so a file's sha256 is a reproducible checksum of a dataset."""
        fields = dict(events=list(self.events), time_unit=self.time_unit, aux_names=list(self.aux_names),
                      meta=self.meta)
        write_trace_file(path, fields, {"counts": self.counts, "edges": self.edges, "aux": self.aux}, version)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Trace:
        """Read a file written by `save` (any format version up to `FORMAT_VERSION`); anything else —
        a damaged zip, a member of another dtype or of a declared size beyond `mpx.trace_file.MAX_MEMBER_BYTES` or
        beyond what it holds, a header that is not the JSON object `save` writes — is a `FormatError`."""
        header, arrays = read_trace_file(path)
        try:
            return cls(
                events=header["events"],
                counts=arrays["counts"],
                edges=arrays["edges"],
                time_unit=header["time_unit"],
                meta=header.get("meta", {}),
                aux_names=header.get("aux_names", ()),
                aux=arrays["aux"],
            )
        except (TraceError, KeyError) as exc:
            raise FormatError(path, None, f"invalid trace content: {exc}") from None


def rebin_counts(counts: np.ndarray, edges: np.ndarray, new_edges: np.ndarray) -> np.ndarray:
    """Per-interval ``counts[T, E]`` on ``edges[T+1]`` re-binned onto ``new_edges[W+1]`` → ``[W, E]``.

    Where every new edge is a trace edge the result is an exact sum of whole intervals; otherwise an
    interval a new edge falls inside is split in proportion to time (uniform rate inside an interval:
    cumulative sums interpolated linearly), clipped at 0. This is the one apportioning rule of mpx: the
    multiplexer cuts quanta with it, scoring re-bins the truth onto read windows with it."""
    t = counts.shape[0]
    pos = np.searchsorted(edges, new_edges)
    if split_edges(edges, new_edges) == 0:
        return np.add.reduceat(counts, pos[:-1], axis=0)
    cum = np.zeros((t + 1, counts.shape[1]))
    np.cumsum(counts, axis=0, out=cum[1:])
    i = np.clip(np.searchsorted(edges, new_edges, side="right") - 1, 0, t - 1)
    frac = np.clip((new_edges - edges[i]) / (edges[i + 1] - edges[i]), 0.0, 1.0)
    at = cum[i] + frac[:, None] * counts[i]
    out = np.diff(at, axis=0)
    np.maximum(out, 0.0, out=out)
    return out


def split_edges(edges: np.ndarray, new_edges: np.ndarray) -> int:
    """How many of ``new_edges`` are not edges of ``edges`` (each splits a trace interval in
    `rebin_counts`); 0 means re-binning is an exact sum."""
    pos = np.searchsorted(edges, new_edges)
    on_edge = (pos < edges.size) & (edges[np.minimum(pos, edges.size - 1)] == new_edges)
    return int((~on_edge).sum())


def _check_names(names: tuple, what: str) -> None:
    seen: set[str] = set()
    for n in names:
        if not isinstance(n, str) or not n:
            raise TraceError(f"{what} names must be non-empty strings, got {n!r}")
        if n in seen:
            raise TraceError(f"duplicate {what} name {n!r}")
        seen.add(n)


def load_trace(path: str | os.PathLike) -> Trace:
    """Load a native trace file (see `Trace.save`)."""
    return Trace.load(path)


