"""The line grammar of gem5's ``stats.txt``: a fast parser of a whole block and a strict one that gives
the exact error (name, value, unit, description; vectors, distributions, formulas)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from mpx.errors import FormatError
from mpx.readers.gem5.classify import UNIT_ATOMS

NAME = "gem5"

BEGIN = b"---------- Begin Simulation Statistics ----------"
END = b"---------- End Simulation Statistics   ----------"
DASHES = b"----------"

# Column codes of non-stat lines (stat columns are >= 0).
COL_MARK, COL_BEGIN, COL_END, COL_BLANK = -1, -2, -3, -4

BLOCK = 1 << 22
EXACT = 2.0**53

MODES = ("delta", "cumulative")



class Bad(ValueError):
    """A problem in one line; the caller adds file and line."""


NAME_RE = re.compile(r"[A-Za-z_][!-~]*\Z")
UNIT_ATOM = "(?:" + "|".join(UNIT_ATOMS) + "|\0)"  # \0 stands for an already reduced rate
RATE_RE = re.compile(rf"\({UNIT_ATOM}/{UNIT_ATOM}\)")
UNIT_RE = re.compile(UNIT_ATOM + r"\Z")
VALUE_RE = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)\Z", re.IGNORECASE)
INT_RE = re.compile(rb"[+-]?\d+\Z")
PERCENT_RE = re.compile(rb"-?(?:\d+\.?\d*|nan|inf)%\Z", re.IGNORECASE)
#: The longest value gem5 can print: a double with ``%.*f`` has at most 309 integer digits (1.8e308)
#: plus the precision; anything longer is not gem5's, and Python refuses ``int`` of over 4,300 digits.
MAX_VALUE_BYTES = 400

# What may follow a stat's value (gem5 ``src/base/stats/text.cc``, ``ScalarPrint::operator()``): the
# pdf and cdf columns (``%.2f%%`` each, printed together for vector and distribution entries), then
# `` # description`` (only when not empty), then `` (Unit)`` (since v21.1). Anything else after the value
# is another stat's text: a lost newline merged two lines (``numCycles 29 119`` must not read as 29).
_PCT = rb"-?(?:\d+\.?\d*|nan|inf)%"
_ATOMS = "|".join(UNIT_ATOMS)
#: A tail after the value that the fast parser accepts besides a lone ``# description``: the pdf and cdf
#: columns, then at most one ``#`` (or the rest of a dump marker, checked later). Anything else goes to
#: the strict parser (`check_tail`).
PCT_TAIL = re.compile(rb"(?:(?:" + _PCT + rb"[ \t]+)?" + _PCT + rb"[ \t\r]*(?:#[^#]*)?"
                      rb"|Simulation Statistics +-+[ \t\r]*)\Z", re.IGNORECASE)
#: A closing parenthesis followed by more text: the cheap sign that a unit may be glued to the next line.
PAREN_GLUE = re.compile(rb"\)[^\s/)]")
#: A unit followed directly by more text (a lost newline after ``(Count)``).
GLUED_UNIT = re.compile(r"[(/](?:" + _ATOMS + r")\)+[^\s/)]")
#: Inside a description: the next stat's ``name value [pdf cdf] #`` (descriptions never hold a ``#``
#: in gem5's sources), or a unit glued to the next line's text.
MERGED_DESC = re.compile(r"\S\s+[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf)"
                         r"(?:\s+" + _PCT.decode() + r"){0,2}\s+#", re.IGNORECASE)
#: Last bytes of a tail the fast parsers send to the strict one (a description ending in a number).
DIGIT_END = frozenset(bytes([c]) for c in b"0123456789%")
#: At the end of a description: the next stat's ``name value [pdf cdf]`` with no description of its own (a
#: pre-v21 file prints none when it is empty): a dotted or ``::`` name, then a value, then nothing.
MERGED_TAIL = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::)[\w-]+)+\s+[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf)"
                         r"(?:\s+" + _PCT.decode() + r"){0,2}\s*\Z", re.IGNORECASE)


# Bytes the fast path lets numpy convert: numbers, nan, inf (numpy accepts what Python's float accepts;
# on these bytes that is exactly what VALUE_RE accepts, so both parsers agree).
VALUE_BYTES = np.zeros(256, dtype=bool)
VALUE_BYTES[list(b"0123456789.eE+-naif\x00")] = True


def glued_unit(block: bytes) -> bool:
    """Does any line of ``block`` hold a unit directly followed by more text (see `GLUED_UNIT`)?"""
    for m in PAREN_GLUE.finditer(block):
        if GLUED_UNIT.search(block[max(0, m.start() - 40): m.end()].decode("utf-8", "replace")):
            return True
    return False


def is_unit(text: str) -> bool:
    """``Count``, ``Tick``, ``(Count/Second)``, ``((Count/Cycle)/Second)`` ... (gem5's vocabulary only)."""
    if "\0" in text:
        return False
    while True:
        reduced = RATE_RE.sub("\0", text)
        if reduced == text:
            return bool(UNIT_RE.match(text))
        text = reduced


def split_tail(rest: bytes) -> tuple[bytes, str | None, str]:
    """``rest`` of a line after name and value → (what precedes the description, unit, description)."""
    text = rest.rstrip()
    unit = None
    if text.endswith(b")"):
        depth, i = 0, len(text) - 1
        while i >= 0:
            ch = text[i]
            depth += (ch == 0x29) - (ch == 0x28)
            if depth == 0:
                break
            i -= 1
        if i >= 0:
            cand = text[i + 1 : -1].decode("utf-8", "replace")
            if is_unit(cand):
                unit, text = cand, text[:i].rstrip()
    body, hash_, desc = text.partition(b"#")
    return body, unit, desc.decode("utf-8", "replace").strip() if hash_ else ""


def check_tail(rest: bytes) -> None:
    """What follows a stat's value must be gem5's: at most the pdf and cdf columns, a description, a
    unit (see `ODD_TAIL`); two stat lines merged by a lost newline raise `Bad`."""
    body, _, desc = split_tail(rest)
    extra = [t for t in body.split() if not PERCENT_RE.match(t)]
    if extra or len(body.split()) > 2:
        word = (extra or body.split())[0]
        raise Bad(f"unexpected {word[:40].decode('utf-8', 'replace')!r} after the value (gem5 prints only "
                  "'value [pdf% cdf%] [# description] [(unit)]'; two stat lines merged by a lost newline?)")
    check_desc(desc)


def check_desc(desc: str) -> None:
    """A description holding the next stat line (see `MERGED_DESC`, `MERGED_TAIL`) raises `Bad`."""
    merged = MERGED_DESC.search(desc) or GLUED_UNIT.search(desc) or MERGED_TAIL.search(desc)
    if merged:
        raise Bad(f"the description holds another stat line ({merged.group(0)[:40]!r}): two stat lines "
                  "merged by a lost newline?")


def stat_name(name: bytes) -> str:
    try:
        text = name.decode("ascii")
    except UnicodeDecodeError:
        raise Bad(f"stat name {name[:60]!r} is not ASCII") from None
    if not NAME_RE.match(text) or "#" in text or "|" in text:
        raise Bad(f"{text[:80]!r} is not a gem5 stat name")
    return text


def parse_value(token: bytes) -> tuple[float, int | None]:
    """A printed value → (float, exact int when it is an integer beyond float64's 2**53)."""
    if len(token) > MAX_VALUE_BYTES:
        raise Bad(f"value of {len(token):,} characters: longer than any number gem5 prints")
    if not VALUE_RE.match(token):
        raise Bad(f"value {token[:40].decode('utf-8', 'replace')!r} is not a number")
    value = float(token)
    if abs(value) >= EXACT and INT_RE.match(token):
        return value, int(token)
    return value, None


class Stats:
    """Stat names seen so far → column, with each stat's unit and description (from its first line).

    A name in ``clashing`` was printed twice in one dump: gem5 gave it to two different stats (seen in
    real v21 files: ``system.cpu.idleCycles`` of the CPU and of its IEW stage). Such lines are told apart
    by (unit, description); the second stat becomes ``name#2`` (gem5 names never contain ``#``).
    """

    def __init__(self, clashing: frozenset[bytes] = frozenset()) -> None:
        self.index: dict[bytes, int] = {DASHES: COL_MARK}  # clashing names stay out: add() resolves them
        self.clashing = clashing
        self.variants: dict[bytes, dict[tuple[str | None, str], int]] = {}
        self.names: list[str] = []
        self.units: list[str | None] = []
        self.descs: list[str] = []
        self.dist_bases: set[str] = set()

    def add(self, name: bytes, line: bytes) -> int:
        """Register a stat first met on ``line`` (raises `Bad` for a name gem5 cannot print)."""
        if name in self.clashing:
            return self.resolve(name, line)
        text = stat_name(name)
        parts = line.split(None, 2)
        _, unit, desc = split_tail(parts[2] if len(parts) > 2 else b"")
        return self.register(name, text, unit, desc)

    def resolve(self, name: bytes, line: bytes) -> int:
        """Column of a line whose name gem5 used for several stats (by its unit and description)."""
        text = stat_name(name)
        parts = line.split(None, 2)
        _, unit, desc = split_tail(parts[2] if len(parts) > 2 else b"")
        variants = self.variants.setdefault(name, {})
        col = variants.get((unit, desc))
        if col is None:
            label = text if not variants else f"{text}#{len(variants) + 1}"
            col = variants[(unit, desc)] = self.register(None, label, unit, desc)
        return col

    def register(self, key: bytes | None, text: str, unit: str | None, desc: str) -> int:
        col = len(self.names)
        if key is not None:
            self.index[key] = col
        self.names.append(text)
        self.units.append(unit)
        self.descs.append(desc)
        base, sep, part = text.rpartition("::")
        if sep and part == "samples":
            self.dist_bases.add(base)
        return col


class Chunk:
    """Parsed stat rows of one block of lines: line numbers, columns (or marker codes), values."""

    __slots__ = ("lines", "cols", "vals", "exact")

    def __init__(self, lines: np.ndarray, cols: np.ndarray, vals: np.ndarray, exact: dict[int, int]):
        self.lines, self.cols, self.vals, self.exact = lines, cols, vals, exact


def fast_chunk(lines: list[bytes], first: int, stats: Stats, raw_block: bytes | None = None) -> Chunk | None:
    """Parse a block of ordinary lines in bulk; None when anything is unusual (the strict parser then
    redoes the block and says exactly what is wrong). The caller keeps blocks with NUL bytes away:
    numpy would read ``b"1\\x002"`` as 1. ``raw_block``: bytes holding ``lines[1:]``, the block they
    were split from (spares a join for the glued-unit search)."""
    get = stats.index.get
    add = stats.add
    cols: list[int] = []
    vals: list[bytes] = []
    odd: list[bytes] = []  # tails other than a lone "# description" (see check_tail)
    put_col, put_val, put_odd = cols.append, vals.append, odd.append
    try:
        for line in lines:
            parts = line.split(None, 2)
            if parts:
                col = get(parts[0])
                if col is None:
                    col = add(parts[0], line)
                put_col(col)
                put_val(parts[1])
                if len(parts) > 2 and (parts[2].rfind(b"#") or parts[2].rstrip()[-1:] in DIGIT_END):
                    put_odd(parts[2])  # rfind 0: the only "#" starts the tail; a digit at its end: MERGED_TAIL?
            else:
                put_col(COL_BLANK)
                put_val(b"0")
    except (IndexError, Bad):
        return None
    if not all(map(PCT_TAIL.match, odd)):
        return None
    if glued_unit(lines[0]) or glued_unit(raw_block if raw_block is not None else b"\n".join(lines[1:])):
        return None
    col_arr = np.array(cols, dtype=np.int32)
    for i in np.flatnonzero(col_arr == COL_MARK).tolist():
        text = lines[i].strip()
        if text == BEGIN:
            col_arr[i] = COL_BEGIN
        elif text == END:
            col_arr[i] = COL_END
        else:
            return None
        vals[i] = b"0"
    if max(map(len, vals), default=0) > MAX_VALUE_BYTES:  # before the array: it takes longest × lines bytes
        return None
    raw = np.array(vals, dtype=np.bytes_)
    if not VALUE_BYTES[raw.view(np.uint8)].all():
        return None
    try:
        val_arr = raw.astype(np.float64)
    except ValueError:
        return None
    keep = col_arr != COL_BLANK
    rank = np.cumsum(keep) - 1
    exact = {}
    for i in np.flatnonzero(np.abs(val_arr) >= EXACT).tolist():
        if INT_RE.match(vals[i]):
            exact[int(rank[i])] = int(vals[i])
    return Chunk(line_numbers(first + np.flatnonzero(keep)), col_arr[keep], val_arr[keep], exact)


def strict_chunk(lines: list[bytes], first: int, stats: Stats, path: Any) -> Chunk:
    """Parse a block line by line, validating everything (also reads ``oneline`` vectors)."""
    out_line: list[int] = []
    out_col: list[int] = []
    out_val: list[float] = []
    exact: dict[int, int] = {}
    for i, line in enumerate(lines):
        lineno = first + i
        text = line.strip()
        if not text:
            continue
        if text.startswith(b"---"):
            if text == BEGIN or text == END:
                out_line.append(lineno)
                out_col.append(COL_BEGIN if text == BEGIN else COL_END)
                out_val.append(0.0)
                continue
            raise FormatError(path, lineno, f"malformed dump marker {show(text)}")
        parts = text.split(None, 2)
        try:
            if len(parts) < 2:
                raise Bad("a stat line needs a name and a value")
            if parts[1].startswith(b"|"):
                entries = oneline(stats, parts[0], text)
            else:
                col = stats.index.get(parts[0])
                if col is None:
                    col = stats.add(parts[0], text)
                check_tail(parts[2] if len(parts) > 2 else b"")
                entries = [(col, parts[1])]
            for col, token in entries:
                value, big = parse_value(token)
                if big is not None:
                    exact[len(out_col)] = big
                out_line.append(lineno)
                out_col.append(col)
                out_val.append(value)
        except Bad as exc:
            raise FormatError(path, lineno, f"{exc}: {show(text)}") from None
    return Chunk(line_numbers(np.array(out_line, dtype=np.int64)), np.array(out_col, dtype=np.int32),
                  np.array(out_val, dtype=np.float64), exact)


def oneline(stats: Stats, name: bytes, text: bytes) -> list[tuple[int, bytes]]:
    """A ``oneline`` vector or distribution-bucket line: ``name |v [pdf% cdf%] |v ...`` → bins
    ``name::0``, ``name::1`` ... (gem5 prints no subnames on such lines)."""
    label = stat_name(name)
    body, unit, desc = split_tail(text[len(name):])
    check_desc(desc)
    out = []
    for j, entry in enumerate(body.split(b"|")[1:]):
        tokens = entry.split()
        if not tokens or not all(PERCENT_RE.match(t) for t in tokens[1:]):
            raise Bad(f"bin {j} of the one-line vector {label!r} is not 'value [pdf% cdf%]'")
        key = name + b"::" + str(j).encode()
        col = stats.index.get(key)
        if col is None:
            col = stats.register(key, f"{label}::{j}", unit, desc)
        out.append((col, tokens[0]))
    if not out:
        raise Bad(f"one-line vector {label!r} has no bins")
    return out


def line_numbers(lines: np.ndarray) -> np.ndarray:
    """int32 unless the file has more than 2**31 lines."""
    return lines.astype(np.int32) if not lines.size or lines[-1] < 2**31 - 1 else lines


def show(text: bytes) -> str:
    return repr(text[:100].decode("utf-8", "replace")) + ("..." if len(text) > 100 else "")
