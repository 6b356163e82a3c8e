"""Every ``file.c:N`` citation in mpx/ and docs/ that points into ../shared/peers resolves (skipped with the
reason when ../shared is absent; ``MPX_SHARED`` points elsewhere), and the cited
lines hold the identifier the text names.

What counts as a citation (the whole rule):

- ``F:N``, ``F:N-M``, and further line specs after commas (``F:219, 234``, ``F:139-155, 263-268``), where
  ``F`` ends in ``.c`` or ``.h`` and its base name is a file under ``../shared/peers`` (the Tintin kernel's
  ``tintin_*.c`` / ``*.h``). Two names are special: ``arch/x86/events/core.c`` is the shared file
  ``arch-x86-events-core.c.lines40-240`` (original line N is its line N − 39), and any other ``core.c`` is
  ``kernel/events/core.c``, whose blocks ``kernel-events-core.c.excerpts`` keeps with their original line
  numbers. A cited line that is in no shared block fails.
- Relative forms (``:N`` alone) are not citations for this test; a file not under the peers (Linux's own
  sources, LIKWID's ``perfmon.c``) is skipped.

The identifier a citation names: the nearest span in backticks that ends before it, after the previous
citation and at most 160 characters before it, is not itself a citation, and holds a word of 3+ identifier
characters. The check passes when one of that span's words occurs in the cited lines. A citation with no
such span is only checked to resolve.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCH = "arch-x86-events-core.c.lines40-240"
ARCH_OFFSET = 39
EXCERPTS = "kernel-events-core.c.excerpts"

CITE = re.compile(r"(?P<file>[A-Za-z0-9_./-]+\.[ch]):(?P<lines>\d+(?:-\d+)?(?:,\s?\d+(?:-\d+)?)*)")
SPAN = re.compile(r"(`{1,2})([^`]+?)\1")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
FENCE = re.compile(r"^```.*$", re.M)


def _shared_files(peers: Path) -> dict[str, Path]:
    return {p.name: p for p in peers.rglob("*") if p.is_file()}


def _lines_of(path: Path) -> dict[int, str]:
    """Line number → text; the excerpts file by its original numbers."""
    text = path.read_text(errors="replace").splitlines()
    if path.name == EXCERPTS:
        out = {}
        for ln in text:
            m = re.match(r"^\s*(\d+)  ?(.*)$", ln)
            if m:
                out[int(m.group(1))] = m.group(2)
        return out
    offset = ARCH_OFFSET if path.name == ARCH else 0
    return {i + 1 + offset: t for i, t in enumerate(text)}


def _resolve(name: str, files: dict[str, Path]) -> Path | None:
    base = name.rsplit("/", 1)[-1]
    if base == "core.c":
        return files.get(ARCH if name.endswith("arch/x86/events/core.c") else EXCERPTS)
    return files.get(base)


def _numbers(spec: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r",\s?", spec):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def _named(spans: list[tuple[int, int, str]], start: int, after: int = 0) -> set[str]:
    """The words of the nearest code span before ``start`` (see the module docstring); ``spans``: the
    text's code spans in order (start, end, inner text), paired from the text's beginning."""
    best: set[str] = set()
    for a, b, inner in spans:
        if b > start:
            break
        if b < max(start - 160, after) or CITE.search(inner) or re.fullmatch(r"\s*:\d.*", inner):
            continue
        words = set(WORD.findall(inner))
        if words:
            best = words
    return best


def _spans(text: str) -> list[tuple[int, int, str]]:
    # a fenced block's ``` would pair with the next inline backtick and swap every later span: blank the fences
    text = FENCE.sub(lambda m: " " * len(m.group(0)), text)
    return [(m.start(), m.end(), m.group(2)) for m in SPAN.finditer(text)]


def _citations() -> list[tuple[str, int, str, str, set[str]]]:
    out = []
    for path in sorted([*(ROOT / "mpx").rglob("*.py"), *(ROOT / "docs").rglob("*.md")]):
        text = path.read_text()
        spans = _spans(text)
        after = 0
        for m in CITE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((str(path.relative_to(ROOT)), line, m.group("file"), m.group("lines"),
                        _named(spans, m.start(), after)))
            after = m.end()
    return out


def test_the_citation_rule_on_examples():
    """The pattern and the named identifier on made-up text (runs without ../shared)."""
    text = "the solve ``tintin_elastic`` (``tintin_elastic.c:24-119``), warm-up ``MIN_WARMUP`` (x.c:219, 234)"
    found = [(m.group("file"), m.group("lines")) for m in CITE.finditer(text)]
    assert found == [("tintin_elastic.c", "24-119"), ("x.c", "219, 234")]
    assert _numbers("219, 234") == [219, 234] and _numbers("31-33") == [31, 32, 33]
    assert _named(_spans(text), text.index("tintin_elastic.c:")) == {"tintin_elastic"}
    assert _named(_spans(text), text.index("x.c:")) == {"MIN_WARMUP"}
    assert _named(_spans(text), text.index("x.c:"), after=text.index("MIN_WARMUP") + 20) == set()


def test_every_citation_into_the_shared_peers_resolves_and_names_what_it_cites(shared):
    files = _shared_files(shared("peers", "tintin", "kernel"))
    checked, bad = 0, []
    for where, line, name, spec, words in _citations():
        path = _resolve(name, files)
        if path is None:
            continue
        lines = _lines_of(path)
        nums = _numbers(spec)
        missing = [n for n in nums if n not in lines]
        if missing:
            bad.append(f"{where}:{line}: {name}:{spec}: lines {missing} are not in {path.name}")
            continue
        checked += 1
        if words:
            held = " ".join(lines[n] for n in nums)
            if not any(re.search(rf"\b{re.escape(w)}\b", held) for w in words):
                bad.append(f"{where}:{line}: {name}:{spec} does not hold {sorted(words)}")
    assert checked > 0
    assert not bad, "\n".join(bad)
