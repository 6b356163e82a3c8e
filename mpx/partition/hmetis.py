"""hMetis ``.hgr`` hypergraph files: read and write.

Format (hMetis 1.5.3 manual, section 3.1; the format KaHyPar and Mt-KaHyPar read): the first non-comment
line is ``|E| |V| [fmt]``; then one line per net listing its pins (1-based), preceded by the net weight
when ``fmt`` is 1 or 11; then, when ``fmt`` is 10 or 11, one line per vertex holding its weight. Lines
starting with ``%`` are comments. Compressed files (.xz/.gz/.bz2) are read transparently.
"""

from __future__ import annotations

import os
from typing import Iterator

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.partition.hypergraph import Hypergraph
from mpx.readers.textio import read_text

_FORMATS = (0, 1, 10, 11)


def _content_lines(path: str | os.PathLike, text: str) -> Iterator[tuple[int, str]]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if s and not s.startswith("%"):
            yield lineno, s


def _ints(path, lineno: int, s: str, what: str) -> list[int]:
    try:
        return [int(tok) for tok in s.split()]
    except ValueError:
        bad = next(tok for tok in s.split() if not _is_int(tok))
        raise FormatError(path, lineno, f"{what}: {bad!r} is not an integer") from None


def _is_int(tok: str) -> bool:
    try:
        int(tok)
        return True
    except ValueError:
        return False


def read_hmetis(path: str | os.PathLike) -> Hypergraph:
    """Read an hMetis hypergraph; every malformed line is a `FormatError` naming the file and line."""
    text = read_text(path)
    lines = _content_lines(path, text)
    last_line = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    try:
        lineno, header = next(lines)
    except StopIteration:
        raise FormatError(path, None, "empty file: no '|E| |V| [fmt]' header") from None
    head = _ints(path, lineno, header, "header")
    if len(head) not in (2, 3):
        raise FormatError(path, lineno, f"header must be '|E| |V| [fmt]', got {len(head)} numbers")
    m, n = head[0], head[1]
    fmt = head[2] if len(head) == 3 else 0
    if m < 0 or n < 0:
        raise FormatError(path, lineno, f"header: negative size ({m} nets, {n} vertices)")
    if fmt not in _FORMATS:
        raise FormatError(path, lineno, f"header: unknown fmt {fmt} (expected 0, 1, 10 or 11)")
    net_weighted, vertex_weighted = fmt % 10 == 1, fmt >= 10

    offsets = np.zeros(m + 1, dtype=np.int64)
    pins: list[int] = []
    net_weights = np.ones(m, dtype=np.int64)
    for e in range(m):
        try:
            lineno, s = next(lines)
        except StopIteration:
            raise FormatError(path, last_line, f"file ends after {e} of {m} nets") from None
        vals = _ints(path, lineno, s, f"net {e + 1}")
        if net_weighted:
            if vals[0] < 0:
                raise FormatError(path, lineno, f"net {e + 1}: negative weight {vals[0]}")
            net_weights[e] = vals[0]
            vals = vals[1:]
        if not vals:
            raise FormatError(path, lineno, f"net {e + 1} has no pins")
        for p in vals:
            if p < 1 or p > n:
                raise FormatError(path, lineno, f"net {e + 1}: pin {p} out of range 1..{n}")
        if len(set(vals)) != len(vals):
            dup = next(p for p in vals if vals.count(p) > 1)
            raise FormatError(path, lineno, f"net {e + 1}: pin {dup} listed twice")
        pins.extend(vals)
        offsets[e + 1] = len(pins)

    vertex_weights = np.ones(n, dtype=np.int64)
    if vertex_weighted:
        for v in range(n):
            try:
                lineno, s = next(lines)
            except StopIteration:
                raise FormatError(path, last_line, f"file ends after {v} of {n} vertex weights") from None
            vals = _ints(path, lineno, s, f"weight of vertex {v + 1}")
            if len(vals) != 1:
                raise FormatError(path, lineno, f"vertex {v + 1}: expected one weight, got {len(vals)} numbers "
                                                f"(wrong pin count in the header or a net line too many?)")
            if vals[0] < 0:
                raise FormatError(path, lineno, f"vertex {v + 1}: negative weight {vals[0]}")
            vertex_weights[v] = vals[0]
    extra = next(lines, None)
    if extra is not None:
        declared = f"{m} nets" + (f" and {n} vertex weights" if vertex_weighted else "")
        raise FormatError(path, extra[0], f"unexpected line: the header declares {declared}, this is one more")
    return Hypergraph(n, offsets, np.asarray(pins, dtype=np.int64) - 1, vertex_weights, net_weights, validate=False)


def write_hmetis(hg: Hypergraph, path: str | os.PathLike, fmt: int | None = None, comment: str | None = None) -> None:
    """Write ``hg`` as hMetis; ``fmt`` defaults to the smallest one that keeps all weights (0, 1, 10, 11)."""
    unit_nets = bool(np.all(hg.net_weights == 1))
    unit_vertices = bool(np.all(hg.vertex_weights == 1))
    auto = (0 if unit_nets else 1) + (0 if unit_vertices else 10)
    if fmt is None:
        fmt = auto
    if fmt not in _FORMATS:
        raise ConfigError(f"fmt must be one of {_FORMATS}, got {fmt}")
    if (not unit_nets and fmt % 10 != 1) or (not unit_vertices and fmt < 10):
        raise ConfigError(f"fmt={fmt} would drop the non-unit weights of this hypergraph (use {auto} or 11)")
    sizes = hg.net_sizes
    if sizes.size and sizes.min() == 0:
        raise ConfigError(f"net {int(np.argmin(sizes))} has no pins: hMetis cannot represent an empty net")
    out = []
    if comment:
        out.extend(f"% {line}" for line in comment.splitlines())
    out.append(f"{hg.num_nets} {hg.num_vertices}" + (f" {fmt}" if fmt else ""))
    one_based = (hg.pins + 1).astype(str)
    for e in range(hg.num_nets):
        pins = " ".join(one_based[hg.net_offsets[e]: hg.net_offsets[e + 1]])
        out.append(f"{hg.net_weights[e]} {pins}" if fmt % 10 == 1 else pins)
    if fmt >= 10:
        out.extend(hg.vertex_weights.astype(str).tolist())
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
