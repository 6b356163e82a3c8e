"""Dataset specs: the one rule that names a trace to score and turns the name into a Trace.

A **spec** is a JSON-able dict — ``{"kind": "shipped", "name"}`` (`mpx.datasets.shipped`, its file checked
against the manifest's sha256), ``{"kind": "file", "name", "path"}`` (any format `mpx.readers` reads) or
``{"kind": "synthetic", "preset", "intervals", "seed", "name"}`` (`mpx.datasets.synthetic`) — with an optional
``slice`` of trace intervals. An experiment's ``[data]`` table lists specs (`mpx.experiment.inputs`); a command
line names one by a path or a shipped dataset's name (`spec_of`). `load_spec` makes the Trace of either.
"""

from __future__ import annotations

import os

from mpx.datasets import shipped
from mpx.datasets.synthetic import synth
from mpx.errors import ConfigError
from mpx.readers import read_trace
from mpx.trace import Trace

__all__ = ["load_spec", "resolve_trace", "spec_of"]


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


def resolve_trace(text: str) -> Trace:
    """A Trace from a path (any format `mpx.readers` reads), or a shipped dataset by name."""
    return load_spec(spec_of(text))
