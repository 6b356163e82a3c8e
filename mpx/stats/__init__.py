"""Stats for simulators: a gem5-style hierarchy of typed statistics, dumped periodically as JSON lines.

This is the instrumentation side of mpx's ground truth. A simulator (the G5 simulator of
``seeds/g5-stats-framework-design.md``, the RISC-V simulator whose ``PerfCount`` counters are described in
``seeds/tma-profiling.md``, a toy model) declares its statistics in `StatGroup` s, increments them while it
runs, and a `PeriodicDumper` writes one JSON line per interval (dump, then reset) — the ``mpx-stats``
format that `mpx.readers.jsonl` turns into a `Trace`.

Model (after gem5's ``Stats::Group`` / ``ADD_STAT`` and the seed design):

- `Scalar`: one number; ``inc(delta)``, ``set(v)``, ``set_max(v)``.
- `Vector`: numbers by label (``dict[str, number]``); ``inc(label, delta)``.
- `Distribution`: samples of a value: count, sum, min, max, mean and bucket counts for
  ``edges = [e0, e1, ..., en]`` — bucket i is ``[e_i, e_{i+1})``, values ``< e0`` are underflows, values
  ``>= en`` overflows. (The seed's example ``bucket_edges=[1024, 4096, 65536, 262144]`` with four buckets
  treats the first bucket as open below; write ``edges=[0, 1024, 4096, 65536, 262144]`` for the same
  buckets with explicit bounds.)
- `Formula`: a zero-argument callable over other stats, evaluated at every dump (gem5 recomputes
  formulas at each dump, so after a reset they reflect the new interval). ``ZeroDivisionError`` gives NaN,
  as gem5 prints ``nan`` for 0/0.
- `StatGroup`: named container of stats and child groups; flattened names are dotted paths
  ``root.child.stat`` (a root named ``""`` adds no prefix, like gem5's unnamed root). Names are
  ``[A-Za-z0-9_][A-Za-z0-9_-]*``; a name used twice in one group (stat or child) is an error.
- ``dump()`` returns ``{dotted name: value}`` without changing anything; ``reset()`` zeroes every counter
  of the group and its descendants (scalars and vector bins to 0 — vector labels are kept —, distributions
  emptied); formulas hold no state and are recomputed at the next dump (gem5 ``Stats::reset`` semantics).

**Additive or not.** Ground truth holds only additive counters (per-interval increments that add up over
intervals). Scalars, vectors and formulas carry an ``additive`` flag: counters (default for scalars and
vectors) are events; gauges and peaks (``set``/``set_max`` of a queue depth) and ratio formulas (default for
formulas) are not and go to the Trace's ``aux`` side table. A formula that is a sum or difference of
counters (``slots_bad_speculation = slots_issued - commit_num`` in ``PerfCount``) may be declared
``additive=True`` and is then an event.

JSON-lines schema (``mpx-stats``, version 1)
--------------------------------------------

UTF-8 text, one JSON value per line (RFC 8259: no ``NaN``/``Infinity`` tokens), optionally compressed
(``.gz``/``.xz``/``.bz2``, detected by magic bytes). Blank lines are ignored.

Line 1, the header object::

    {"format": "mpx-stats", "version": 1, "time_unit": "cycles", "period": 1000, "meta": {...},
     "stats": [{"name": "cpu.insts", "type": "scalar", "desc": "...", "unit": "Count", "additive": true},
               {"name": "cpu.by_op", "type": "vector", "desc": "...", "unit": null, "additive": true,
                "labels": ["ALU", "LSU"]},
               {"name": "cpu.lat", "type": "distribution", "desc": "...", "unit": "Cycle",
                "edges": [0, 10, 100]},
               {"name": "cpu.ipc", "type": "formula", "desc": "...", "unit": null, "additive": false}]}

- ``format``: the string ``"mpx-stats"``, written as the first key so that format detection finds it in
  the first bytes; ``version``: integer, this is version 1 (a reader refuses newer versions).
- ``time_unit``: the unit of the interval boundaries, one of `mpx.trace.TIME_UNITS`.
- ``period`` (optional): nominal dump period on that axis, or ``null`` (informational; the records'
  edges rule).
- ``meta`` (optional): free JSON object copied into ``Trace.meta`` (conventional keys ``simulator``,
  ``workload``, ``config``; ``dropped`` must be a list).
- ``stats``: the declarations, in dump order; ``name`` (flattened, unique), ``type`` (``scalar``,
  ``vector``, ``distribution``, ``formula``), ``desc`` (string), ``unit`` (string or null); ``additive``
  (bool) for scalars, vectors and formulas; ``labels`` (list of strings known when the header was written;
  more may appear later) for vectors; ``edges`` (>= 2 strictly increasing finite numbers) for
  distributions. ``desc`` (default ``""``), ``unit`` (default null) and ``additive`` (default true,
  false for formulas) may be omitted.
- No other keys; unknown keys in the header, a declaration or a record are errors (so a typo cannot
  silently drop data).

Lines 2.., one object per interval, in time order::

    {"start": 0, "end": 1000, "stats": {"cpu.insts": 812, "cpu.by_op": {"ALU": 700, "LSU": 112},
     "cpu.lat": {"count": 3, "sum": 57, "mean": 19.0, "min": 4, "max": 41, "underflows": 0,
                 "overflows": 0, "buckets": [2, 1]},
     "cpu.ipc": 0.812}}

- ``start``/``end``: the interval ``[start, end)`` on the time axis, counted from the run's start
  (``start >= 0``); ``end > start`` and each ``start`` equals the previous ``end`` (contiguous).
- ``stats``: every declared stat, by name, with its value over the interval (stats are reset after each
  record, so values are per-interval):

  - additive scalar or formula: a finite number >= 0;
  - vector: an object label → number (>= 0 and finite when additive); a label absent from a record is 0
    in that interval (NaN if not additive);
  - distribution: ``count``, ``underflows``, ``overflows`` and ``buckets`` (``len(edges) - 1``
    integers) are non-negative integers with ``count == underflows + sum(buckets) + overflows``;
    ``sum``, ``mean``, ``min``, ``max`` are non-additive values;
  - non-additive values (gauges, ratio formulas, a distribution's ``sum``/``mean``/``min``/``max``): a
    number, or one of the strings ``"nan"``, ``"inf"``, ``"-inf"`` (an empty distribution has ``"nan"``
    for ``mean``, ``min`` and ``max``).

Mapping to a `Trace` (`mpx.readers.jsonl`): an additive scalar/formula ``x`` is event ``x``; vector bins are
events ``x::label``; a distribution gives events ``x::samples``, ``x::underflows``, ``x::<lo>-<hi>`` per bucket
(edges printed as integers when integral) and ``x::overflows``, and aux values ``x::mean``,
``x::min_value``, ``x::max_value`` (gem5's names); non-additive scalars, bins and formulas are aux values
under the same names. A distribution's ``sum`` is kept in the file only (it may be negative, so it is no
counter; ``mean × samples`` recovers it).
"""

from __future__ import annotations

from mpx.stats.dumper import FORMAT_NAME, FORMAT_VERSION, PeriodicDumper, encode_value
from mpx.stats.group import StatGroup
from mpx.stats.stat import (AnyStat, Distribution, Formula, Number, Scalar, Stat, StatsError, Vector, bucket_names,
                            check_label, format_edge)

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "AnyStat", "Distribution", "Formula", "Number", "PeriodicDumper", "Scalar",
           "Stat", "StatGroup", "StatsError", "Vector", "bucket_names", "check_label", "encode_value", "format_edge"]
