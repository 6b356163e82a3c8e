"""LIKWID performance groups (``groups/<arch>/<GROUP>.txt`` of RRZE-HPC/likwid).

A group file has sections::

    SHORT <one-line description>
    [REQUIRE_NOHT]                          optional conditions (here: hyper-threading must be off)
    EVENTSET
    <COUNTER>[:OPTION...]  <EVENT>          e.g. FIXC0 INSTR_RETIRED_ANY, PMC3:EDGEDETECT UOPS_..._CYCLES
    METRICS
    <metric name with spaces>  <formula>    the formula is the last whitespace-separated token
    LONG
    <free text>

As in LIKWID's own parser (``perfgroup.c``), a metric line's formula is its last token and the name is
the rest. Two metric lines merged by a lost newline would read as one metric whose name swallowed the
first formula (``Runtime (RDTSC) [s] timeRuntime unhalted [s]``): a name with text after its unit
bracket, or holding a counter of the EVENTSET, is refused (none of the 498 metrics of LIKWID's groups
for skylake, ICL and arm8_n1 has either). Formulas name *counters* (``PMC0``, ``FIXC1``, ``PWR0``, ``MBOX0C1``, ``PMC3:EDGEDETECT``),
which are mapped back to events through the EVENTSET; ``time`` (run time in seconds) becomes the
pseudo-event ``duration_time`` and ``inverseClock`` (1 / CPU clock in Hz) the literal
``#inverseClock``. A counter option becomes part of the event name (``PMC3:EDGEDETECT
UOPS_EXECUTED_STALL_CYCLES`` → ``UOPS_EXECUTED_STALL_CYCLES:EDGEDETECT``, as the LONG sections write it).

Metric names repeat across groups (``CPI`` is in most), so a metric is named ``GROUP/metric name``
(a name repeated inside one group — a typo in arm8_n1/TLB.txt — is kept as ``name #2`` with a
warning in ``meta['warnings']``);
each file becomes one ``eventset`` `Group` — LIKWID measures a group's events together and never
multiplexes inside a group. The counter prefix tells the PMU class (`EventInfo.kind`): ``FIXC`` fixed,
``PMC`` general, ``PWR`` energy (RAPL), ``TMP`` thermal, ``TMA`` topdown, ``MPERF/APERF/PPERF`` msr,
box counters (``MBOX0C1``, ``UBOXFIX``, ...) uncore.

As likwid-perfctr reads a group (``src/perfmon.c`` of RRZE-HPC/likwid, d9c523b1): the counter list of a
formula holds the whole EVENTSET token, options included (``CBOX0C1:STATE=0x1``, ``perfgroup.c``), so a
formula may name it with its ``=``; LIKWID supplies the variables ``time``, ``inverseClock``, ``true``
(1), ``false`` (0), ``num_numadomains`` and ``num_sockets`` (``perfmon_getMetric``, perfmon.c:3361-3381;
the last two are platform literals here, ``#num_sockets``, given at evaluation: no silent default). A
metric LIKWID cannot compute (a name that is none of these, a formula its calculator refuses) is shown
as 0 and the group is kept (perfmon.c:3404-3408: ``calc_metric`` < 0 → ``result = 0.0``): here it is
the constant 0 with no events, and a `LoadProblem` (action ``zero``) on `Catalog.problems`.

**Truncation rule** (what is refused rather than read): a real group file ends with its ``LONG`` section
and a final newline. A file without a ``LONG`` section, or whose last line has no newline, is a truncated
file (`FormatError`): a cut inside the last ``METRICS`` line can leave a formula that still parses with
another meaning (skylake ``DATA`` cut after ``CPI  FIXC1`` would give ``CPI = CPU_CLK_UNHALTED_CORE``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics.catalog import Catalog, Metric
from mpx.metrics.eventinfo import EventInfo, Group
from mpx.metrics.formats.common import read_source
from mpx.metrics.problems import LoadProblem
from mpx.readers.textio import require_final_newline

NAME = "likwid"

_SECTIONS = ("SHORT", "EVENTSET", "METRICS", "LONG")
_COUNTER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(:[A-Za-z0-9_=]+)*$")
VARIABLES = {"true": 1, "false": 0}
"""Variables LIKWID gives every formula with a fixed value (perfmon.c:3363-3364)."""
PLATFORM_VARIABLES = ("inverseClock", "num_numadomains", "num_sockets")
"""Variables LIKWID takes from the machine (perfmon.c:3362-3381): literals ``#name`` of the catalog."""
_KINDS = (
    (re.compile(r"^FIXC\d+$"), "fixed"),
    (re.compile(r"^PMC\d+$"), "general"),
    (re.compile(r"^PWR\d+$"), "energy"),
    (re.compile(r"^TMP\d+$"), "thermal"),
    (re.compile(r"^TMA\d+$"), "topdown"),
    (re.compile(r"^[AMP]PERF$"), "msr"),
    (re.compile(r"^[A-Z]+\d*(C\d+|FIX)$"), "uncore"),
)


def counter_kind(counter: str) -> str | None:
    """PMU class of a LIKWID counter register (options after ``:`` ignored), None when unknown."""
    base = counter.split(":", 1)[0]
    for rx, kind in _KINDS:
        if rx.match(base):
            return kind
    return None


def sniff(path, text: str, obj: Any) -> bool:
    if obj is not None:
        return False
    lines = [ln.strip() for ln in text.splitlines()[:400]]
    return any(ln.startswith("SHORT") for ln in lines[:5]) and "EVENTSET" in lines


def _check_name(path: str | os.PathLike, lineno: int, name: str, by_base: dict[str, list[str]]) -> None:
    """Refuse a metric name that swallowed a formula (two lines merged): text after the unit bracket other
    than a note in parentheses (``[s] timeCPI``; ``[MFLOP/s] (SP assumed)`` of atom/FLOPS_SP.txt is fine),
    or a counter of the EVENTSET inside the name."""
    if re.search(r"\](?!(\s*\([^()]*\))+\s*$)\s*\S", name):
        raise FormatError(path, lineno, f"metric name {name!r} goes on after its unit: two metric lines merged? "
                                        "(a METRICS line is 'name formula')")
    for ctr in by_base:
        if _holds_counter(name, ctr):
            raise FormatError(path, lineno, f"metric name {name[:80]!r} holds the counter {ctr[:40]}: two metric "
                                            "lines merged? (a METRICS line is 'name formula')")


def _holds_counter(name: str, ctr: str) -> bool:
    """``ctr`` in ``name`` as a word of its own (not after a letter, digit or ``_``; no digit after it). By
    plain search, not a regular expression built from the file: a 1 MiB counter name compiled a 1 MiB
    pattern per metric line (a 3 MiB group took 15 s, found by the fuzz harness)."""
    i = name.find(ctr)
    while i >= 0:
        before = name[i - 1] if i else ""
        after = name[i + len(ctr)] if i + len(ctr) < len(name) else ""
        if not (before.isascii() and (before.isalnum() or before == "_")) and not (after.isascii() and after.isdigit()):
            return True
        i = name.find(ctr, i + 1)
    return False


def _check_complete(path: str | os.PathLike, text: str, section: str | None) -> None:
    """The truncation rule: a group file ends with its ``LONG`` section and a newline (all 722 group files
    of LIKWID checked here do). A file cut inside its last ``METRICS`` line may still parse with another
    meaning (``CPI  FIXC1/FIXC0`` cut to ``CPI  FIXC1``), so a file without ``LONG`` or without a final
    newline is refused as truncated."""
    n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if section != "LONG":
        raise FormatError(path, n_lines, "truncated file: no LONG section (a LIKWID group file ends with "
                                         "its LONG section)")
    require_final_newline(path, text, n_lines)


def load(path: str | os.PathLike) -> Catalog:
    """Read one LIKWID group file; the group is named after the file (``TMA.txt`` → ``TMA``)."""
    text, _ = read_source(path)
    group = Path(path).name.split(".")[0]
    short = None
    section = None
    counters: dict[str, tuple[str, int]] = {}  # counter token → (event, line)
    metric_lines: list[tuple[str, str, int]] = []
    long_lines: list[str] = []
    requires: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if section == "LONG":
            long_lines.append(raw.rstrip())
            continue
        if not s or s.startswith("#"):
            continue
        head = s.split(None, 1)[0]
        if head == "SHORT":
            if short is not None:
                raise FormatError(path, lineno, "second SHORT line")
            short = s[len("SHORT"):].strip()
            section = "SHORT"
            continue
        if section == "SHORT" and re.fullmatch(r"REQUIRE_[A-Z0-9_]+", s):
            requires.append(s[len("REQUIRE_"):])
            continue
        if s in ("EVENTSET", "METRICS", "LONG"):
            if short is None:
                raise FormatError(path, lineno, f"{s} before the SHORT line")
            section = s
            continue
        if section == "EVENTSET":
            parts = s.split()
            if len(parts) != 2 or not _COUNTER_RE.match(parts[0]):
                raise FormatError(path, lineno, f"EVENTSET line must be 'COUNTER EVENT', got {s!r}")
            ctr, ev = parts
            if ctr in counters:
                raise FormatError(path, lineno, f"counter {ctr} assigned twice (first on line {counters[ctr][1]})")
            opts = ctr.split(":")[1:]
            counters[ctr] = (ev + "".join(":" + o for o in opts), lineno)
        elif section == "METRICS":
            parts = s.rsplit(None, 1)
            if len(parts) != 2:
                raise FormatError(path, lineno, f"METRICS line must be 'name formula', got {s!r}")
            metric_lines.append((parts[0].strip(), parts[1], lineno))
        else:
            raise FormatError(path, lineno, f"text outside a section (expected SHORT, EVENTSET, METRICS, LONG): {s!r}")
    if short is None:
        raise FormatError(path, 1, "no SHORT line: not a LIKWID performance group")
    if not counters:
        raise FormatError(path, None, "empty or missing EVENTSET")
    _check_complete(path, text, section)
    long_formulas = {}
    for ln in long_lines:
        if "=" in ln:
            k, _, v = ln.partition("=")
            long_formulas.setdefault(k.strip(), ln.strip())
    by_base: dict[str, list[str]] = {}
    for ctr in counters:
        by_base.setdefault(ctr.split(":")[0], []).append(ctr)

    metrics: list[Metric] = []
    seen: dict[str, int] = {}
    warnings: list[str] = []
    problems: list[LoadProblem] = []
    with_eq = sorted((c for c in counters if "=" in c), key=len, reverse=True)
    for mname, formula, lineno in metric_lines:
        what = f"metric {mname!r} of group {group}"
        try:
            _check_name(path, lineno, mname, by_base)
        except FormatError as exc:
            problems.append(LoadProblem(str(path), mname, "bad-entry", exc.message, "dropped", lineno))
            continue
        text = formula
        for c in with_eq:  # a counter token with options 'STATE=0x1' as the formula writes it
            text = text.replace(c, c.replace("=", "\\="))
        try:
            ast = E.substitute(E.parse(text, path=path, line=lineno, what=what),
                               lambda node, lineno=lineno, what=what: _map_name(node, counters, by_base, path, lineno, what))
        except FormatError as exc:
            kind = "unparsable" if isinstance(exc, E.ExprSyntaxError) else "unknown-name"
            problems.append(LoadProblem(str(path), f"{group}/{mname}", kind, exc.message.split("\n")[0] +
                                        "; LIKWID shows it as 0 (perfmon.c:3404-3408)", "zero", lineno))
            ast = E.Num(0.0)
        full = f"{group}/{mname}"
        if full in seen:
            # LIKWID shows both rows; keep both under distinct names and say so
            k = 2
            while f"{full} #{k}" in seen:
                k += 1
            warnings.append(f"{path}:{lineno}: metric name {mname!r} repeats line {seen[full]}; kept as {full + ' #' + str(k)!r}")
            full = f"{full} #{k}"
        seen[full] = lineno
        unit = re.search(r"\[([^\]]*)\]", mname)
        metrics.append(
            Metric.from_ast(
                full, ast, description=long_formulas.get(mname, ""), groups=(group,),
                scale_unit=unit.group(1) if unit else None, source=f"{path}:{lineno}",
                extra={"likwid_formula": formula},
            )
        )
    events = [
        EventInfo(ev, kind=counter_kind(ctr), source=f"{path}:{ln}", extra={"likwid_counters": [ctr]})
        for ctr, (ev, ln) in counters.items()
    ]
    g = Group(
        group, "eventset", events=tuple(ev for ev, _ in counters.values()), metrics=tuple(m.name for m in metrics),
        description=short, counters=tuple((ev, ctr) for ctr, (ev, _) in counters.items()),
        requires=tuple(requires), source=str(path),
    )
    return Catalog(
        metrics, events=events, groups=[g], name=group, literals=dict(VARIABLES), problems=problems,
        meta={"sources": [str(path)], "format": NAME, "long": {group: "\n".join(long_lines).strip()}, "warnings": warnings},
    )


def _map_name(node: E.Node, counters: dict[str, tuple[str, int]], by_base: dict[str, list[str]], path, lineno: int,
              what: str) -> E.Node | None:
    """A formula name as LIKWID's counter list reads it: a counter (its event), ``time``, or a variable."""
    if not isinstance(node, E.Name):
        return None
    n = node.name
    if n in counters:
        return E.Name(counters[n][0])
    if n == "time":
        return E.Name("duration_time")
    if n in VARIABLES or n in PLATFORM_VARIABLES:
        return E.Literal(n)
    if len(by_base.get(n, ())) == 1:
        return E.Name(counters[by_base[n][0]][0])
    raise FormatError(path, lineno, f"{what}: {n!r} is not a counter of the EVENTSET ({', '.join(counters)}) "
                                    "nor a variable LIKWID supplies")
