"""Every ``perf stat`` output form besides ``-I -x SEP`` and ``-I -j``: which form a file is (`form_of`) and
reading it into a `~mpx.readers.perfstat.run.PerfStatRun` (`read_form`).

Forms (perf 4.x-6.x, from ``tools/perf/util/stat-display.c``):

- ``plain``: the default human-readable output of a whole run (`mpx.readers.perfstat.plain`);
- ``plain -I``: the human-readable intervals;
- ``-x SEP`` (no ``-I``): CSV rows without a timestamp (``summary`` first with ``--summary``);
- ``-j`` (no ``-I``): JSON objects without ``"interval"``.

A whole run is **one interval**. Its length: ``seconds time elapsed`` for the plain form; for ``-x``/``-j``,
which print no elapsed time, the longest enabled time a counter's running time and share imply
(``100 * run / pct``; for per-task counting every counter is enabled for the task's time). The read view
then re-estimates each counter from its running share exactly as for an interval of ``-I``. The plain form
prints no running time: a cell's running time is its printed share of the interval's enabled time (both
said in `PerfStatRun.dropped`). Several runs in one file (two ``# started on`` lines of ``--append``, or two
``Performance counter stats`` headers) are refused with one line naming the form.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re

import numpy as np

from mpx.errors import FormatError
from mpx.readers.perfstat.plain import PlainParser, looks_plain
from mpx.readers.perfstat.rows import INT, PCT, RowError
from mpx.readers.perfstat.run import COUNTED, PerfStatRun

__all__ = ["FORMS", "form_of", "read_form"]

#: the names `form_of` gives, as error messages say them
FORMS = {"plain": "plain perf stat output", "plain-interval": "human-readable perf stat -I output",
         "csv": "perf stat -x SEP output without -I", "json": "perf stat -j output without -I"}
_SEPS = (",", ";", "\t", "|", ":", "!", "/")
_SUMMARY = re.compile(r"\s*summary(?=\W)")


def _csv_sep(line: str) -> str | None:
    """The separator of a ``-x SEP`` row without timestamp: one that splits it into value .. run, pct."""
    body = _SUMMARY.sub("", line, count=1).lstrip()
    body = body[1:] if body[:1] in _SEPS and _SUMMARY.match(line) else body
    for sep in _SEPS:
        f = [x.strip() for x in body.split(sep)]
        if len(f) >= 5 and any(INT.match(a) and PCT.match(b) for a, b in zip(f[3:], f[4:])):
            return sep
    return None


def _next_is_value(rest: str, sep: str) -> bool:
    """Whether the field after a leading number is a counter value or an aggregation id (so -I CSV)."""
    from mpx.readers.perfstat.rows import AGGR_CSV, THREAD, value_like

    f = rest.split(sep)[0].strip()
    return bool(f) and (value_like(f) or any(p.match(f) for _, p, _ in AGGR_CSV) or bool(THREAD.match(f)))


def form_of(lines: list[str]) -> str | None:
    """``plain``, ``plain-interval``, ``csv`` or ``json`` for the forms read here; None for ``-I`` CSV/JSON
    (or anything else: the ``-I`` reader then says what is wrong)."""
    for raw in lines[:200]:
        s = raw.strip()
        if not s or s.startswith("# started on"):
            continue
        if s.startswith("{"):
            try:
                obj = json.loads(s)
            except (ValueError, RecursionError):
                return None
            return "json" if isinstance(obj, dict) and "interval" not in obj and "counter-value" in obj else None
        m = re.match(r"\s*(\d+\.\d+)(\t|[^\w\s.<>+\-])", raw)
        if m and (len(m.group(1).split(".")[1]) == 9 or _next_is_value(raw[m.end():], m.group(2))):
            return None  # a -I CSV timestamp (``%lu.%09lu``; a whole run's value has 0 or 2 decimals)
        if "\t" not in raw and looks_plain(lines):
            return "plain-interval" if re.match(r"\s*(#\s+time\s|\d+\.\d{9}\s+\S)", raw) else "plain"
        return "csv" if _csv_sep(raw) else None
    return None


def _started(path: str | os.PathLike, lines: list[str], form: str) -> None:
    starts = [i + 1 for i, raw in enumerate(lines) if raw.startswith("# started on")]
    if len(starts) > 1:
        raise FormatError(path, starts[1], f"{FORMS[form]}: several runs appended in one file ('# started on' at "
                          f"lines {starts[0]} and {starts[1]}); split the file at these lines")


def _feed(path, parser, lines: list[str], start: int, prepare=None) -> None:
    for i in range(start, len(lines)):
        raw = lines[i].rstrip("\r")
        s = raw.strip()
        if not s or (s.startswith("# started on") or s.startswith("#") and not isinstance(parser, PlainParser)):
            if isinstance(parser, PlainParser) and not s:
                parser.in_hint = False
            continue
        if i == len(lines) - 1:
            raise FormatError(path, i + 1, "truncated file: the last row has no newline")
        try:
            parser.feed(i + 1, prepare(raw) if prepare else raw)
        except RowError as exc:
            raise FormatError(path, i + 1, str(exc)) from None


def _one_interval(run: PerfStatRun, length_s: float, why: str) -> PerfStatRun:
    times = np.array([length_s], dtype=np.float64)
    times.setflags(write=False)
    dropped = run.dropped + ({"what": "interval length", "why": why, "count": 1},)
    return dataclasses.replace(run, timestamps=times, dropped=dropped)


def read_form(path: str | os.PathLike, lines: list[str], form: str, *, missing: str, scaled: bool,
              sep: str | None = None, cgroup: bool | None = None) -> PerfStatRun:
    """Read a file `form_of` named; `FormatError` (file, line, the form) for what it cannot hold."""
    _started(path, lines, form)
    start = next(i for i, raw in enumerate(lines) if raw.strip() and not raw.strip().startswith("# started on"))
    if form in ("plain", "plain-interval"):
        return _read_plain(path, lines, start, form, missing, scaled)
    if form == "json":
        from mpx.readers.perfstat.json_output import JsonParser

        jparser = JsonParser(path, scaled)

        def with_interval(raw: str) -> str:
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):
                return raw  # the JSON parser says what is wrong with it
            if not isinstance(obj, dict) or "interval" in obj:
                return raw
            body = raw.lstrip()[1:]  # the object as written (its numbers and repeated keys for the JSON parser)
            return '{"interval" : 1.0' + ("" if body.lstrip().startswith("}") else ", ") + body

        _feed(path, jparser, lines, start, with_interval)
        run = jparser.finish(missing)
    else:
        from mpx.readers.perfstat.csv_output import CsvParser

        sep = sep or _csv_sep(lines[start])
        cparser = CsvParser(path, scaled, sep, cgroup)

        def with_time(raw: str) -> str:
            m = _SUMMARY.match(raw)
            body = raw[m.end() + len(sep):] if m and raw[m.end():].startswith(sep) else raw
            return f"1.0{sep}{body}"

        _feed(path, cparser, lines, start, with_time)
        run = cparser.finish(missing)
    counted = run.counted & (run.pct_running > 0)
    if not counted.any():
        raise FormatError(path, None, f"{FORMS[form]}: no counter was counted, so the run's length is unknown")
    enabled = 100.0 * run.running_ns[counted] / run.pct_running[counted]
    if run.n_aggregated.max() > 0:
        enabled = enabled / np.maximum(run.n_aggregated[counted], 1)
    return _one_interval(run, float(enabled.max()) / 1e9, "a whole run as one interval; its length (not printed) is "
                         "the longest enabled time a counter's running time and share imply")


def _read_plain(path, lines: list[str], start: int, form: str, missing: str, scaled: bool) -> PerfStatRun:
    parser = PlainParser(path, scaled)
    _feed(path, parser, lines, start)
    if form == "plain":
        if not parser.times:
            raise FormatError(path, None, f"{FORMS[form]}: no counter rows")
        if parser.elapsed is None:
            raise FormatError(path, None, f"{FORMS[form]}: no 'seconds time elapsed' line (a truncated file?); "
                              "the run's length is unknown")
    run = parser.finish(missing)
    if form == "plain":
        run = _one_interval(run, parser.elapsed, "a whole run as one interval [0, seconds time elapsed]")
    enabled = run.enabled_ns()
    running = np.where(run.counted, run.pct_running / 100.0 * enabled, np.where(run.present, 0.0, np.nan))
    running.setflags(write=False)
    dropped = run.dropped + ({"what": "running time", "why": "the human-readable layout prints only the running "
                              "share: running = share x the interval (x CPUs aggregated)", "count": int(
                                  (run.status == COUNTED).sum())},)
    if parser.runs > 1:
        dropped += ({"what": "runs", "why": f"values are means over {parser.runs} runs (-r)", "count": parser.runs},)
    return dataclasses.replace(run, running_ns=running, dropped=dropped)
