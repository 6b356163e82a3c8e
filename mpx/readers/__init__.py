"""Readers: stat dumps of every supported simulator or tool → `Trace`.

One module per format, each exposing ``NAME``, ``sniff(path, head) -> bool`` (does this file look like
mine? ``head`` is the first few KiB of decompressed text) and ``read(path, **options) -> Trace``, found
through `REGISTRY` (built-ins, and plugins from the entry-point group ``mpx.readers``).
`read_trace` picks the format by content, never by file name alone, and reads compressed files
transparently. Every malformed input raises `mpx.errors.FormatError` naming file, line and problem. A
pipe (``<(xz -dc f.xz)``) is read once, into a temporary file; a device (``/dev/zero``) is refused.

``perf stat`` and ``likwid-perfctr`` output is real measured data without ground truth, so it is not a Trace:
read it with `mpx.readers.perfstat.read_perf_stat` or `mpx.readers.likwid_perfctr.read_likwid_perfctr`.
"""

from __future__ import annotations

import inspect
import os
import re
from typing import Any

from mpx.errors import ConfigError, FormatError
from mpx.readers.textio import head_text, kind_of, regular_input
from mpx.registry import Registry
from mpx.trace import Trace

__all__ = ["REGISTRY", "available", "detect_format", "formats", "get", "get_class", "read_trace", "reader",
           "register", "unregister"]


#: format name → reader module (imported on first use: ``mpx --help`` must stay fast); detection asks them
#: in this order, then plugins
REGISTRY = Registry("format", "mpx.readers", builtin={
    "mpx": "mpx.readers.native",
    "jsonl": "mpx.readers.jsonl",
    "gem5": "mpx.readers.gem5",
    "callgrind": "mpx.readers.callgrind",
    "perfstat": "mpx.readers.perfstat",
    "likwid_perfctr": "mpx.readers.likwid_perfctr",
}, protocol=("NAME", "sniff", "read"))

available, get, get_class, register, unregister = REGISTRY.verbs()


def formats() -> list[str]:
    """Format names in detection order: the built-ins in their fixed order, then plugins that load (one that
    does not is a warning line, never the end of every read: `mpx.registry.Registry.installed`)."""
    return REGISTRY.installed()


def reader(name: str) -> Any:
    """The reader (a module, or a plugin object) of format ``name``."""
    if name not in REGISTRY:
        raise FormatError(None, None, f"unknown format {name!r}; known: {', '.join(formats())}")
    return REGISTRY.get(name)


def detect_format(path: str | os.PathLike) -> str:
    """The format of ``path`` by its content: the first reader whose ``sniff(path, head)`` claims it
    (``head``: the first KiB of decompressed text, empty for a folder)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {os.fspath(path)}")
    kind = kind_of(path)
    if kind not in ("file", "directory"):
        raise FormatError(path, None, f"a {kind}, not a file or folder" + (
            " (read_trace reads a pipe once; detection alone cannot)" if kind == "pipe" else ""))
    head = "" if kind == "directory" else head_text(path)
    for name in formats():
        if reader(name).sniff(path, head):
            return name
    if kind == "directory":
        raise FormatError(path, None, "a directory no reader claims (a callgrind folder holds "
                          "callgrind.out*/cg.out* dumps)")
    if re.match(r"(desc: .*\n)*cmd: .*\nevents: ", head) and "\nfl=" in head:  # cg_annotate's input
        raise FormatError(path, None, "a cachegrind output (totals per source line for the whole run, no time "
                          "axis): mpx needs counts over time; record the program with mpx record (callgrind with "
                          "periodic dumps)")
    if re.search(r"^events: ", head, re.M) and re.search(r"^(fl|fn)=", head, re.M):
        who = re.search(r"^creator: (.{1,60})$", head, re.M)
        raise FormatError(path, None, "a callgrind-format profile" + (f" written by {who.group(1)!r}" if who else "")
                          + ", not a dump of valgrind's callgrind (creator: callgrind-...): it holds one profile, no "
                          "time axis; mpx needs callgrind's own periodic dumps (mpx record)")
    # nothing of the file is quoted: it may be anything (a config can name /proc/self/environ)
    raise FormatError(path, None, f"unknown format: no reader recognises it (tried: {', '.join(formats())})")


def read_trace(path: str | os.PathLike, format: str | None = None, **options) -> Trace:
    """Read ground truth from ``path`` (format detected from content unless given)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {os.fspath(path)}")
    with regular_input(path) as src:
        try:
            fmt = format or detect_format(src)
            if fmt == "perfstat":
                raise FormatError(
                    path, None, "perf stat output is measured data without ground truth, not a Trace: "
                    "use mpx.readers.perfstat.read_perf_stat (or `mpx estimate`)"
                )
            read = reader(fmt).read
            _check_options(fmt, read, options)
            trace = read(src, **options)
        except FormatError as exc:
            if src is path or exc.path != os.fspath(src):
                raise
            raise FormatError(path, exc.line, exc.message) from None  # name the pipe, not its copy
    if src is not path and trace.meta.get("source") == os.fspath(src):
        trace.meta["source"] = os.fspath(path)
    return trace


def _check_options(fmt: str, read: Any, options: dict[str, Any]) -> None:
    """Refuse an option the reader of ``fmt`` does not take (a ConfigError listing the ones it does)."""
    try:
        params = inspect.signature(read).parameters
    except (TypeError, ValueError):  # a plugin whose signature cannot be read: let it check
        return
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    known = [n for n, p in list(params.items())[1:] if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(f"unknown option {', '.join(map(repr, unknown))} for the {fmt} reader; "
                          f"it takes {', '.join(known) or 'no options'}")
