"""Dataset specs: the one rule that names a trace to score and turns the name into a Trace.

A **spec** is a JSON-able dict — ``{"kind": "shipped", "name"}`` (`mpx.datasets.shipped`, its file checked
against the manifest's sha256), ``{"kind": "file", "name", "path"}`` (any format `mpx.readers` reads) or
``{"kind": "synthetic", "preset", "intervals", "seed", "name"}`` (`mpx.datasets.synthetic`) — with an optional
``slice`` of trace intervals. An experiment's ``[data]`` table lists specs (`mpx.experiment.inputs`); a command
line names one by a path or a shipped dataset's name (`spec_of`). `load_spec` makes the Trace of either;
`spec_head` says what it is about (checksum, events, time axis, meta) without its counts where it can.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from mpx.datasets import shipped
from mpx.datasets.synthetic import synth
from mpx.errors import ConfigError
from mpx.readers import read_trace
from mpx.trace import Trace
from mpx.trace_file import read_trace_head

__all__ = ["TraceHead", "load_spec", "resolve_trace", "spec_head", "spec_of"]


def spec_of(text: str) -> dict:
    """The spec of a command-line trace argument: an existing path (any format `mpx.readers` reads), else
    the name of a shipped dataset; a `ConfigError` listing the shipped names when it is neither."""
    if os.path.exists(text):
        return {"kind": "file", "name": os.path.basename(text.rstrip(os.sep)) or text, "path": text}
    try:
        known = shipped.names(None)
    except FileNotFoundError:
        known = []
    if text in known:
        return {"kind": "shipped", "name": text}
    raise ConfigError(f"{text!r} is neither an existing trace file nor a shipped dataset "
                      f"({', '.join(known) or 'no dataset manifest found'})")


def load_spec(spec: dict) -> Trace:
    """The Trace of a dataset spec (its ``slice`` of intervals applied)."""
    if spec["kind"] == "shipped":
        tr = shipped.load(spec["name"], verify=True)  # the manifest checksum: a corrupted file fails here
    elif spec["kind"] == "file":
        tr = read_trace(spec["path"])
    elif spec["kind"] == "synthetic":
        tr = synth(spec["preset"], intervals=spec.get("intervals"), seed=spec.get("seed", 0))
    else:
        raise ConfigError(f"unknown dataset kind {spec['kind']!r}")
    iv = spec.get("slice")
    if iv is not None:
        if iv[0] >= tr.n_intervals:
            raise ConfigError(f"[data] intervals {iv}: dataset {spec['name']!r} has only {tr.n_intervals} intervals")
        tr = tr.interval_slice(iv[0], min(iv[1], tr.n_intervals))
    return tr


@dataclass(frozen=True)
class TraceHead:
    """What a dataset spec's Trace is about, without its counts: what an experiment's grid needs."""

    checksum: str  # `mpx.trace.Trace.checksum` of the content
    events: tuple[str, ...]
    time_unit: str
    meta: dict
    edges: np.ndarray


def spec_head(spec: dict) -> TraceHead:
    """The `TraceHead` of a spec. A whole shipped dataset is not read: its file's sha256 is checked against the
    manifest, whose ``content_sha256`` then is its checksum (tests/datasets compare the two for every dataset),
    and its header and edges are read alone (inflating the counts is most of a load); any other spec is
    loaded."""
    content = ((shipped.entry(spec["name"]).get("trace") or {}).get("content_sha256")
               if spec["kind"] == "shipped" and spec.get("slice") is None else None)
    if content:
        header, edges = read_trace_head(shipped.verified_path(spec["name"]))
        return TraceHead(content, tuple(header["events"]), header["time_unit"], header.get("meta", {}), edges)
    tr = load_spec(spec)
    return TraceHead(tr.checksum(), tr.events, tr.time_unit, tr.meta, tr.edges)


def resolve_trace(text: str) -> Trace:
    """A Trace from a path (any format `mpx.readers` reads), or a shipped dataset by name."""
    return load_spec(spec_of(text))
