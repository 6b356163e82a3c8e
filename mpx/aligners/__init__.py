"""Trace-alignment methods (aligners), by name: ``mpx.aligners.get("dtw")``, ``available()``.

The other road to many events on few counters: the program runs once per group of events
(`mpx.aligners.measure.plan_runs`), every run counts its group and an anchor for the whole run, and an aligner maps
the runs onto the reference run's time axis and merges them into one estimate of every event
(`mpx.aligners.base`). Built-ins (`BUILTIN`):

- ``naive``: by the anchor's cumulative count (the same number of instructions retired is the same
  point of the program), or its share of the run's total;
- ``dtw``: Hauswirth et al.'s dynamic time warping of the anchor's rate series, in a Sakoe-Chiba band
  (the DTW itself is `dtaidistance`'s);
- ``fuse``: Fuse's behaviour-clustering merge (Neill, Drebes & Pop, TACO 2017) adapted to
  single-threaded traces: read windows as tasks, clustered on the anchor's rate.

Other packages add aligners through the entry-point group ``mpx.aligners``; `register` adds one at run
time.
"""

from __future__ import annotations

from mpx.registry import Registry

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "REGISTRY", "available", "get", "get_class", "register", "unregister"]

#: built-in aligners: name → "module:Class"
BUILTIN: dict[str, str] = {
    "naive": "mpx.aligners.naive:NaiveAligner",
    "dtw": "mpx.aligners.dtw:DtwAligner",
    "fuse": "mpx.aligners.fuse:FuseAligner",
}

ENTRY_POINT_GROUP = "mpx.aligners"

REGISTRY = Registry("aligner", ENTRY_POINT_GROUP, BUILTIN, protocol="mpx.aligners.base:Aligner")

available, get, get_class, register, unregister = REGISTRY.verbs()
