"""Fuzz every reader, every catalog format and the metric-expression parser with mutants of real files.

Usage::

    python benchmarks/fuzz_readers.py --target gem5 --seconds 600
    python benchmarks/fuzz_readers.py --all --seconds 600          # 600 s per target
    python benchmarks/fuzz_readers.py --all --inputs 200           # 200 inputs per target, fixed seeds: the suite
    python benchmarks/fuzz_readers.py --list                       # targets and their seeds
    python benchmarks/fuzz_readers.py --all --seconds 600 --jobs 2 --table   # the markdown table, two lanes

Targets: ``gem5`` (gem5 ``stats.txt``), ``jsonl`` (``mpx-stats`` JSON lines), ``callgrind`` (a combined
callgrind output), ``callgrind-split`` (a folder of split parts: one member mutated or deleted), ``perfstat-csv`` and ``perfstat-json`` (``perf stat -I``), ``perfstat-plain`` (perf stat's other forms:
plain text, whole-run CSV and JSON), ``likwid-perfctr`` (its table and CSV output), ``npz`` (native traces), one
per catalog format of `mpx.metrics.formats.REGISTRY` (``perfjson``, ``likwid``, ``armtelemetry``,
``hperf``, ``toml``) and ``expr`` (the metric-expression parser). Seeds are real files: the shipped
datasets (``datasets/traces``), ``tests/data``, the built-in catalogs and ``../shared/data`` (or
``$MPX_SHARED/data``) when present;
a target without seeds is skipped, saying so. The ``jsonl`` seeds are real counts too: the first
intervals of the shipped dataset ``kernels`` written by `mpx.stats.PeriodicDumper` (no real
``mpx-stats`` file ships).

Mutations (hypothesis draws one to three per input, the shrinker reduces a failure to the fewest):
byte flip, line deletion, line duplication, newline deletion (two lines merged), truncation, digit
inflation (a number made 1 to 5,000 digits longer), an inserted garbage line, a gzip-compressed
copy with a flipped or truncated compressed stream, and the operators of an independent fuzzer (issue 29):
a duplicated chunk of bytes, two lines swapped, a number +1, -1 or x10, a non-ASCII character in a name,
CRLF line ends, a byte-order mark (at the start or before a line), truncation at a sixteenth of the file,
an empty line and a 1 MiB line (a long name, a long number or garbage); and those of issue 40's attack: Unicode
confusables, CR-only line ends, a NUL inside a line, a JSON key given twice, the special numbers (`SPECIAL_NUMBERS`),
deep nesting, and every-byte truncation of the seeds of at most `SWEEP_BYTES` (`_sweep`, half the budget at most).
The ``store`` target damages a small results store (bytes, and SQL edits: `STORE_EDITS`) and reads it as
``mpx report`` does: every mutant must be refused or read the original's rows.

**Invariant**, per input: it loads, or it raises `mpx.errors.MpxError` whose message names the file
(``expr``: names the pseudo path given to the parser) — never another exception type, never longer than
``--timeout`` seconds (``signal.setitimer``), never more than ``--memory`` MiB of address space (each
target runs in a child process under ``RLIMIT_AS``; the default bound is 2048 MiB, of which the
interpreter with numpy and mpx takes about 300). **Silently different data** is checked for mutants made
of one newline deletion, one deleted member of a folder, CRLF line ends, a byte-order mark or an empty line
(`SILENT_KINDS`), and for every ``npz`` mutant (the format carries a CRC per array): if such a mutant loads, its numbers must equal the original's (trace: edges,
event names and counts; perf stat: timestamps, columns and values; catalog: metric names and
expressions) or the reader must have noted something it dropped (``meta['dropped']`` / ``dropped``).

A failure is shrunk by hypothesis and written to ``--out`` (default ``fuzz-failures/``) as a
reproducer file named after the target and the failure kind; the run exits 1. The closing table gives,
per target: inputs tried (shrinking included), loaded, format error, other failures, mutants checked for
silent changes, silently changed, and the child's peak resident memory. ``--table`` prints it as markdown (targets
x outcomes: "raw" is every input that broke the invariant, "silent" every silently changed one), with the command,
commit, date and load above it and the totals below, for an issue's closing note; ``--jobs N`` fuzzes N targets at
once (one process each: a lane per core), in the same per-target budget. ``tests/readers/test_fuzz_budget.py`` runs every
target for a short fixed budget on every change.
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MPX_SHARED", REPO.parent / "shared")) / "data"  # as tests/conftest.py finds it

MUTATIONS = ("byteflip", "delete_line", "dup_line", "merge_lines", "truncate", "inflate_digits",
             "garbage_line", "gzip_corrupt",
             # the operators of an independent fuzzer (issue 29): they found what the first eight missed
             "chunk_dup", "swap_lines", "num_plus1", "num_minus1", "num_times10", "unicode_name", "crlf", "bom",
             "truncate16", "empty_line", "huge_line",
             # the operators of issue 40's attack: confusables, CR-only line ends, NUL inside a line, a repeated
             # JSON key, the special numbers, deep nesting (and every-byte truncation of small seeds, `_sweep`)
             "confusable", "cr_only", "nul", "dup_key", "special_number", "deep_nesting")
SILENT_KINDS = frozenset(("merge_lines", "delete_member", "crlf", "bom", "empty_line", "cr_only", "dup_key"))
"""Mutants made of one of these must load the original's numbers (or note what they dropped), or be refused:
a lost newline, a deleted member, CRLF line ends, a byte-order mark, a blank line. (npz: every mutant.)"""
SPECIAL_NUMBERS = (b"-0", b"+5", b"5e3", b".5", b"1e-999", b"1e308", b"18446744073709551616", b"0" * 300 + b"5",
                   b"NaN", b"Infinity", b"-1", b"1_000", "\u0663".encode(), b"0x10")
"""Number forms no tool mpx reads prints (issue 40): a special_number mutant of a format with one number grammar
(`GRAMMAR_TARGETS`) must be refused or load the original's numbers."""
GRAMMAR_TARGETS = frozenset(("perfstat-csv", "perfstat-json", "perfstat-plain", "likwid-perfctr", "jsonl", "callgrind",
                             "callgrind-split", "store"))
CONFUSABLES = {ord("a"): "а", ord("e"): "е", ord("o"): "о", ord("c"): "с", ord("p"): "р", ord("0"): "０",
               ord("1"): "１", ord("."): "․", ord("-"): "−", ord(":"): "∶", ord(";"): ";", ord(","): "‚"}
SWEEP_BYTES = 8192  # seeds up to this size are also truncated at every byte (`_sweep`)
HUGE_LINE = 2**20  # bytes of a huge line (a 1 MiB value, name or garbage)
MAX_SEED_BYTES = 600_000  # larger seeds make each input slow; the periodic gem5 series are left out


class Timeout(BaseException):
    """An input took longer than the per-input limit (a BaseException: readers' ``except Exception``
    must not swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout()


# -- seeds ----------------------------------------------------------------------------------------------


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if p.is_file()) if folder.is_dir() else []


def _raw(path: Path) -> bytes:
    data = path.read_bytes()
    return lzma.decompress(data) if data[:6] == b"\xfd7zXZ\x00" else data


def _jsonl_seed(workdir: Path) -> list[Path]:
    """An ``mpx-stats`` file holding the first 40 intervals and 12 events of the shipped ``kernels``."""
    import numpy as np

    from mpx.datasets import shipped as datasets
    from mpx.stats import PeriodicDumper, StatGroup

    try:
        tr = datasets.load("kernels")
    except Exception:
        return []
    root = StatGroup("sim")
    cpu = root.group("cpu")
    names = list(tr.events[:12])
    stats = [cpu.scalar(f"e{i}", n, unit="Count") for i, n in enumerate(names)]
    counts = np.asarray(tr.counts)[:40, :12]
    edges = np.asarray(tr.edges)
    out = workdir / "kernels.jsonl"
    with PeriodicDumper(root, out, "instructions", start=int(edges[0]), meta={"workload": "kernels"}) as d:
        for t in range(counts.shape[0]):
            for s, v in zip(stats, counts[t]):
                s.inc(int(v))
            d.dump(int(edges[t + 1]))
    return [out]


def _store_seed(workdir: Path) -> list[Path]:
    """A small results store of the current schema: 3 cells of 2 scalers, one finished run."""
    from mpx.experiment.store import ResultsStore

    path = workdir / "results.sqlite"
    with ResultsStore(path) as st:
        st.declare({"scores": ("scaler",)})
        run = st.begin_run("toy", None, {}, "v0", [f"k{i}" for i in range(3)], "1")
        for i in range(3):
            st.write({"cell": {"key": f"k{i}", "experiment": "toy", "status": "done"},
                      "scores": [{"scaler": "linear", "wape": 0.123456789 + i, "workload": f"w{i}"},
                                 {"scaler": "dcam", "wape": 2.5 + i, "workload": f"w{i}"}]})
        st.end_run(run)
    return [path]


def _read_store(path: str) -> Any:
    """What `mpx report` reads: every table of the latest runs (a column empty in every row carries nothing, and
    its name is not data: left out), and what `--verify` says."""
    from mpx.experiment.store import damage_as_error, open_store

    with damage_as_error(path), open_store(path) as st:
        tables = {t: st.table(t).dropna(axis=1, how="all").to_csv(index=False) for t in ("cells", *st.tables())}
        return tables, st.problems(), st.unchecked()


#: damage done with SQL (`store_edit`): what an editor, a script or a stray tool can do to a results store
STORE_EDITS = (
    "DELETE FROM cell_checksums WHERE cell_key = 'k1'",
    "DROP TABLE cell_checksums",
    "DROP TABLE unchecked_cells",
    "UPDATE scores SET wape = wape + 1 WHERE cell_key = 'k1' AND scaler = 'dcam'",
    "DELETE FROM cells WHERE key = 'k2'",
    "PRAGMA user_version = 0",
    "UPDATE runs SET cells = '[\"k0\", \"k1\"]'",
    "INSERT INTO unchecked_cells VALUES ('k1')",
    "DELETE FROM scores WHERE cell_key = 'k0' AND scaler = 'linear'",
    "UPDATE cells SET status = 'skipped' WHERE key = 'k0'",
    "DROP TABLE row_tables",
    "UPDATE runs SET status = 'running'",
)


def _store_edit(b: bytes, s: int) -> bytes:
    import sqlite3

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "s.sqlite"
        p.write_bytes(b)
        try:
            con = sqlite3.connect(p, isolation_level=None)
            for sql in (STORE_EDITS[s % len(STORE_EDITS)], STORE_EDITS[(s // len(STORE_EDITS)) % len(STORE_EDITS)]):
                con.execute(sql)
                if s % 3:  # one edit or two
                    break
            con.close()
        except (sqlite3.Error, UnicodeDecodeError):
            return b  # an earlier mutation left no table to edit, or a schema SQLite cannot read
        return p.read_bytes()


@dataclass
class Target:
    name: str
    seeds: Callable[[Path], list[Path]]
    load: Callable[[str], Any]
    numbers: Callable[[Any], Any]  # a comparable digest of what loaded
    notes: Callable[[Any], int] = lambda obj: 0  # how many things the reader says it dropped
    text: bool = True  # line mutations make sense
    suffix: str = ""


def _trace_numbers(tr: Any) -> Any:
    import numpy as np

    return (tuple(tr.events), np.asarray(tr.edges).tobytes(), np.asarray(tr.counts).tobytes())


def _trace_notes(tr: Any) -> frozenset:
    """What a reader says it left out (``meta['dropped']``), as a set: a mutant is silent only when it notes
    nothing the original did not."""
    return frozenset(json.dumps(d, sort_keys=True, default=str) for d in tr.meta.get("dropped") or ())


def _perf_numbers(run: Any) -> Any:
    import numpy as np

    return (np.asarray(run.timestamps).tobytes(), tuple(map(str, run.columns)),
            np.nan_to_num(np.asarray(run.value), nan=-1.0).tobytes())


def _catalog_notes(cat: Any) -> frozenset:
    """What a catalog says it repaired, zeroed or dropped — entry problems (`Catalog.problems`), warnings and
    dropped items — as a set without the file's path and line numbers: a mutant is silent only when it notes nothing the
    original did not (a count is not enough: a merged line can trade the original's warning for a problem)."""
    src = [str(x) for x in cat.meta.get("sources") or ()]

    def strip(text: str) -> str:  # the path and line numbers move in a mutant; what is noted does not
        for x in src:
            text = text.replace(x, "")
        return re.sub(r"(^:\d+:|line \d+)", "", text)
    return frozenset([f"{p.kind}|{p.action}|{p.entry}|{strip(p.what)}" for p in cat.problems]
                     + [strip(str(w)) for w in cat.meta.get("warnings") or ()]
                     + [strip(str(d)) for d in cat.meta.get("dropped") or ()])


def _catalog_numbers(cat: Any) -> Any:
    return sorted((m.name, m.expr, m.groups, str(m.scale_unit), str(m.threshold)) for m in cat.metrics.values())


def _read_trace(fmt: str) -> Callable[[str], Any]:
    def load(path: str) -> Any:
        from mpx.readers import read_trace

        return read_trace(path, format=fmt)
    return load


def _read_perf(path: str) -> Any:
    from mpx.readers.perfstat import read_perf_stat

    return read_perf_stat(path)


def _read_likwid(path: str) -> Any:
    from mpx.readers.likwid_perfctr import read_likwid_perfctr

    return read_likwid_perfctr(path)


def _catalog(fmt: str) -> Callable[[str], Any]:
    def load(path: str) -> Any:
        from mpx.metrics.formats import get

        return get(fmt).load(path)
    return load


def _parse_expr(path: str) -> Any:
    from mpx.metrics import parse_expr

    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    return parse_expr(text, path=path, line=1)


def _expr_seeds(workdir: Path) -> list[Path]:
    """Every metric expression of the built-in catalogs, one file each (at most 200, spread evenly)."""
    from mpx.metrics import builtin, builtin_names

    texts: list[str] = []
    for name in builtin_names():
        texts += [m.expr for m in builtin(name).metrics.values()]
    texts = texts[:: max(1, len(texts) // 200)]
    out = []
    for i, t in enumerate(texts):
        p = workdir / f"expr{i}.txt"
        p.write_text(t, encoding="utf-8")
        out.append(p)
    return out


def _decompressed(paths: list[Path], workdir: Path) -> list[Path]:
    out = []
    for p in paths:
        if p.name.endswith(".xz"):
            q = workdir / p.name[:-3]
            q.write_bytes(_raw(p))
            out.append(q)
        else:
            out.append(p)
    return out


def _npz_seeds(workdir: Path) -> list[Path]:
    """Six small shipped traces, each re-written in one of the format versions `Trace.save` writes, in turn."""
    from mpx.trace import Trace
    from mpx.trace_file import SAVE_VERSIONS

    out = []
    for i, p in enumerate(_small(_files(REPO / "datasets" / "traces", "*.npz"))[:6]):
        version = SAVE_VERSIONS[i % len(SAVE_VERSIONS)]
        q = workdir / f"{p.stem}.v{version}.npz"
        Trace.load(p).save(q, version=version)
        out.append(q)
    return out


def _small(paths: list[Path]) -> list[Path]:
    return [p for p in paths if p.stat().st_size <= MAX_SEED_BYTES]


def targets() -> dict[str, Target]:
    """Every fuzz target by name."""
    data = REPO / "tests" / "data"
    builtin = REPO / "mpx" / "metrics" / "builtin"
    metrics = SHARED / "metrics"
    ts = [
        Target("gem5", lambda w: _small(_files(SHARED / "gem5", "*.txt")), _read_trace("gem5"), _trace_numbers,
               _trace_notes),
        Target("jsonl", _jsonl_seed, _read_trace("jsonl"), _trace_numbers, _trace_notes),
        Target("callgrind", lambda w: _decompressed(_files(data / "callgrind" / "combined", "cg.out*"), w),
               _read_trace("callgrind"), _trace_numbers, _trace_notes),
        Target("callgrind-split", lambda w: [d for d in [data / "callgrind" / "split"] if d.is_dir()],
               _read_trace("callgrind"), _trace_numbers, _trace_notes),
        Target("perfstat-csv", lambda w: _files(data / "perfstat", "*.csv"), _read_perf, _perf_numbers,
               lambda r: len(r.dropped)),
        Target("perfstat-json", lambda w: _files(data / "perfstat", "*.jsonl"), _read_perf, _perf_numbers,
               lambda r: len(r.dropped)),
        Target("perfstat-plain", lambda w: [p for p in _files(data / "perfstat" / "forms", "*") if p.suffix != ".md"],
               _read_perf, _perf_numbers, lambda r: len(r.dropped)),
        Target("likwid-perfctr", lambda w: _files(data / "likwid", "*.txt"), _read_likwid, _perf_numbers,
               lambda r: len(r.dropped)),
        Target("npz", _npz_seeds, _read_trace("mpx"),
               _trace_numbers, _trace_notes, text=False, suffix=".npz"),
        Target("perfjson", lambda w: _files(metrics / "linux-perf", "**/*.json"), _catalog("perfjson"),
               _catalog_numbers, _catalog_notes),
        Target("likwid", lambda w: _files(metrics / "likwid", "*/*.txt"), _catalog("likwid"), _catalog_numbers,
               _catalog_notes),
        Target("armtelemetry", lambda w: _files(metrics / "arm-telemetry", "*.json"), _catalog("armtelemetry"),
               _catalog_numbers, _catalog_notes),
        Target("hperf", lambda w: _files(metrics / "hperf", "*.json"), _catalog("hperf"), _catalog_numbers, _catalog_notes),
        Target("toml", lambda w: _files(builtin, "*.toml"), _catalog("toml"), _catalog_numbers, _catalog_notes),
        Target("expr", _expr_seeds, _parse_expr, lambda node: None),
        Target("store", _store_seed, _read_store, lambda obj: obj[0],
               lambda obj: frozenset(obj[1].items()) | {f"unchecked {obj[2]}"}, text=False, suffix=".sqlite"),
    ]
    return {t.name: t for t in ts}


# -- mutations ------------------------------------------------------------------------------------------


_NUMBER = re.compile(rb"(?<![0-9.])[0-9]{1,30}(\.[0-9]{1,30})?(?![0-9])")
_FREE_NUMBER = re.compile(rb"(?<![0-9A-Za-z_.])[0-9]{1,30}(\.[0-9]{1,30})?(?![0-9A-Za-z_])")  # not in a name
_KEY = re.compile(rb'("[^"\n]{1,80}")\s*:\s*("[^"\n]{0,200}"|-?[0-9][0-9.eE+-]{0,40}|true|false|null)')


def _line_starts(b: bytes) -> list[int]:
    starts = [0]
    i = b.find(b"\n")
    while i != -1 and i + 1 < len(b):
        starts.append(i + 1)
        i = b.find(b"\n", i + 1)
    return starts


def mutate(b: bytes, kind: str, r: int, s: int) -> bytes:
    """Apply mutation ``kind`` to ``b``; ``r`` (position) and ``s`` (a size or a byte) are drawn integers."""
    if not b:
        return b"\x00" if kind != "truncate" else b
    if kind == "byteflip":
        i = r % len(b)
        return b[:i] + bytes([b[i] ^ (1 + s % 255)]) + b[i + 1:]
    if kind == "truncate":
        return b[: r % len(b)]
    if kind in ("delete_line", "dup_line", "garbage_line"):
        starts = _line_starts(b)
        k = r % len(starts)
        lo = starts[k]
        hi = starts[k + 1] if k + 1 < len(starts) else len(b)
        if kind == "delete_line":
            return b[:lo] + b[hi:]
        if kind == "dup_line":
            return b[:hi] + b[lo:hi] + b[hi:]
        garbage = [b"hello world\n", b"\xff\xfe\x00garbage\n", b"#\n", b"1 2 3 4 5 6 7 8 9\n", b"{\n",
                   b"-1\n", b"nan inf -inf\n", b"\t\t\n", b"Begin\n", b"[\n"][s % 10]
        return b[:lo] + garbage + b[lo:]
    if kind == "merge_lines":
        nls = [i for i in range(len(b)) if b[i] == 10] if len(b) < 4096 else None
        if nls is None:  # large file: look for the r-th newline from a drawn position
            i = b.find(b"\n", r % len(b))
            if i == -1:
                i = b.find(b"\n")
            return b if i == -1 else b[:i] + b[i + 1:]
        return b if not nls else b[: nls[r % len(nls)]] + b[nls[r % len(nls)] + 1:]
    if kind == "inflate_digits":
        i = r % len(b)
        j = next((k for k in range(i, len(b)) if 48 <= b[k] <= 57), None)
        if j is None:
            j = next((k for k in range(len(b)) if 48 <= b[k] <= 57), None)
        if j is None:
            return b
        n = (1, 3, 10, 20, 400, 5000)[s % 6]
        return b[: j + 1] + (b"9" * n) + b[j + 1:]
    if kind == "chunk_dup":
        i = r % len(b)
        n = 1 + s % 256
        return b[: i + n] + b[i: i + n] + b[i + n:]
    if kind in ("swap_lines", "empty_line", "huge_line", "bom", "unicode_name"):
        starts = _line_starts(b)
        k = r % len(starts)
        lo = starts[k]
        if kind == "swap_lines":
            if k + 2 > len(starts):
                return b
            mid = starts[k + 1]
            hi = starts[k + 2] if k + 2 < len(starts) else len(b)
            one, two = b[lo:mid], b[mid:hi]
            if not two.endswith(b"\n"):
                return b
            return b[:lo] + two + one + b[hi:]
        if kind == "empty_line":
            return b[:lo] + b"\n" + b[lo:]
        if kind == "bom":  # at the start of the file or of a line
            at = 0 if s % 2 else lo
            return b[:at] + b"\xef\xbb\xbf" + b[at:]
        if kind == "unicode_name":  # a non-ASCII character inside a name
            j = next((q for q in range(lo, min(len(b), lo + 400)) if 65 <= b[q] <= 90 or 97 <= b[q] <= 122), None)
            if j is None:
                return b
            ch = ("é", "名", "\u200b", "\u0130", "ﬁ", "\U0001f600")[s % 6].encode()
            return b[: j + 1] + ch + b[j + 1:]
        body = (b"x" * HUGE_LINE + b" 1", b"e " + b"9" * HUGE_LINE, bytes((i * 37 + s) % 251 + 1 for i in range(4096)) * (HUGE_LINE // 4096))[s % 3]
        return b[:lo] + body.replace(b"\n", b" ") + b"\n" + b[lo:]
    if kind == "crlf":
        return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if kind == "cr_only":
        return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
    if kind == "confusable":  # a letter, digit or separator replaced by one that looks the same
        i = r % len(b)
        j = next((k for k in range(i, min(len(b), i + 4096)) if b[k] in CONFUSABLES), None)
        if j is None:
            j = next((k for k in range(len(b)) if b[k] in CONFUSABLES), None)
        return b if j is None else b[:j] + CONFUSABLES[b[j]].encode() + b[j + 1:]
    if kind == "nul":
        i = r % len(b)
        return b[:i] + b"\x00" + b[i:]
    if kind == "dup_key":  # a JSON key given twice in its object, with the same or another value
        m = _KEY.search(b, r % len(b)) or _KEY.search(b)
        if m is None:
            return mutate(b, "dup_line", r, s)
        other = m.group(2) if s % 2 else (b'"x"' if m.group(2).startswith(b'"') else b"7")
        return b[: m.end()] + b", " + m.group(1) + b": " + other + b[m.end():]
    if kind == "special_number":  # in a number's place: `FP_ARITH_INST_RETIRED_512B` is a name, not a number
        m = _FREE_NUMBER.search(b, r % len(b)) or _FREE_NUMBER.search(b)
        if m is None:
            return b
        return b[: m.start()] + SPECIAL_NUMBERS[s % len(SPECIAL_NUMBERS)] + b[m.end():]
    if kind == "deep_nesting":  # a number wrapped in 100 to 100,000 levels of brackets
        m = _NUMBER.search(b, r % len(b)) or _NUMBER.search(b)
        at = (m.start(), m.end()) if m else (0, 0)
        n = (100, 1000, 100_000)[s % 3]
        o, c = ((b"[", b"]"), (b"{", b"}"), (b"(", b")"))[(s // 3) % 3]
        return b[: at[0]] + o * n + b[at[0]: at[1]] + c * n + b[at[1]:]
    if kind == "truncate16":
        return b[: len(b) * (1 + s % 15) // 16]
    if kind in ("num_plus1", "num_minus1", "num_times10"):
        m = _NUMBER.search(b, r % len(b)) or _NUMBER.search(b)
        if m is None:
            return b
        x = Decimal(m.group().decode())
        y = x + 1 if kind == "num_plus1" else x - 1 if kind == "num_minus1" else x * 10
        text = format(y, "f").encode()
        return b[: m.start()] + text + b[m.end():]
    if kind == "store_edit":
        return _store_edit(b, s)
    if kind == "gzip_corrupt":
        z = gzip.compress(b, mtime=0)
        if s % 2:
            return z[: 10 + r % max(1, len(z) - 10)]
        i = 10 + r % max(1, len(z) - 18)
        return z[:i] + bytes([z[i] ^ 0x55]) + z[i + 1:]
    raise ValueError(kind)


# -- one target -----------------------------------------------------------------------------------------


@dataclass
class Stats:
    tried: int = 0
    loaded: int = 0
    format_error: int = 0
    other: int = 0
    silent_checked: int = 0
    silently_changed: int = 0
    failures: list[str] = field(default_factory=list)
    peak_mib: float = 0.0  # the child's peak resident memory (one target, under RLIMIT_AS)


def run_target(t: Target, seconds: float, timeout: float, out: Path, workdir: Path,
               inputs: int | None = None) -> Stats | str:
    """Fuzz ``t`` for ``seconds``, or for ``inputs`` inputs from fixed random seeds (the same inputs on any
    machine at any load: what a test runs); a Stats, or a string saying why the target was skipped."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    from mpx.errors import MpxError

    seeds = [p for p in t.seeds(workdir) if p.exists()]
    if not seeds:
        return "skipped: no seed files present"
    originals: list[Any] = [  # a folder seed (split callgrind parts): member name → bytes
        {m.name: m.read_bytes() for m in sorted(p.iterdir()) if m.is_file()} if p.is_dir() else p.read_bytes()
        for p in seeds]
    digests: dict[int, Any] = {}
    stats = Stats()
    (workdir / "mutants").mkdir()
    kinds = MUTATIONS if t.text else ("byteflip", "truncate", "inflate_digits", "dup_line", "delete_line",
                                      "chunk_dup", "truncate16", "num_plus1", "num_times10")
    if t.name == "store":
        kinds = ("byteflip", "truncate", "chunk_dup", "truncate16", "store_edit", "store_edit", "store_edit")
    signal.signal(signal.SIGALRM, _alarm)

    def timed(fn: Callable[[], Any]) -> Any:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def digest(i: int) -> Any:
        if i not in digests:
            try:
                obj = timed(lambda: t.load(str(seeds[i])))
                digests[i] = (t.numbers(obj), t.notes(obj))
            except (MpxError, Timeout):
                digests[i] = None  # a seed the reader refuses: nothing to compare with
        return digests[i]

    def write(path: Path, data: Any) -> None:
        if isinstance(data, dict):
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)
            for name, content in data.items():
                (path / name).write_bytes(content)
        else:
            path.write_bytes(data)

    failing: list[str] = []  # a failure was seen: hypothesis shrinks and replays it past the budget

    def fail(kind: str, data: Any, msg: str, seed: Path) -> None:
        failing.append(kind)
        out.mkdir(parents=True, exist_ok=True)
        repro = out / f"{t.name}-{kind}-{seed.name}"
        write(repro, data)
        raise AssertionError(f"{t.name}: {kind}: {msg} (reproducer {repro})")

    @settings(max_examples=20, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate, Phase.shrink],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data: Any) -> None:
        i = data.draw(st.integers(0, len(seeds) - 1), label="seed")
        folder = isinstance(originals[i], dict)
        ops = kinds + ("delete_member",) if folder else kinds
        muts = data.draw(st.lists(st.tuples(st.sampled_from(ops), st.integers(0, 2**31), st.integers(0, 2**16)),
                                  min_size=1, max_size=3), label="mutations")
        if spent() and not failing:  # the budget is spent: the batch's other examples pass at once
            return  # (after the same draws: hypothesis refuses a test whose draws depend on the clock)
        b = dict(originals[i]) if folder else originals[i]
        for kind, r, s in muts:
            if not folder:
                b = mutate(b, kind, r, s)
                continue
            if not b:
                continue
            member = sorted(b)[r % len(b)]  # a member of the folder: deleted, or mutated as a file
            if kind == "delete_member":
                del b[member]
            else:
                b[member] = mutate(b[member], kind, r // len(originals[i]), s)
        mutant = workdir / "mutants" / seeds[i].name  # the seed's name: a LIKWID group is named after its file
        write(mutant, b)
        stats.tried += 1
        try:
            obj = timed(lambda: t.load(str(mutant)))
        except Timeout:
            stats.other += 1
            fail("hang", b, f"more than {timeout} s on a mutant of {seeds[i].name} ({muts})", seeds[i])
        except MemoryError:
            stats.other += 1
            fail("memory", b, f"memory bound exceeded on a mutant of {seeds[i].name} ({muts})", seeds[i])
        except MpxError as exc:
            stats.format_error += 1
            if str(mutant) not in str(exc):
                stats.other += 1
                fail("unnamed", b, f"error does not name the file: {exc}", seeds[i])
            return
        except Exception as exc:  # noqa: BLE001 - exactly what the invariant forbids
            stats.other += 1
            fail(type(exc).__name__, b, f"{type(exc).__name__}: {exc} on a mutant of {seeds[i].name} ({muts})", seeds[i])
        stats.loaded += 1
        one = [m[0] for m in muts]
        grammar = one == ["special_number"] and t.name in GRAMMAR_TARGETS
        if (not t.text or len(one) == 1 and one[0] in SILENT_KINDS or grammar) and b != originals[i]:
            ref = digest(i)
            if ref is None:
                return
            stats.silent_checked += 1
            if t.numbers(obj) != ref[0] and t.notes(obj) <= ref[1]:
                stats.silently_changed += 1
                fail("silent", b, f"a {'+'.join(one)} mutant of {seeds[i].name} loads different numbers, "
                                  "nothing noted", seeds[i])

    for seed in seeds[:1]:  # warm up outside the per-input limit: imports, numba's cached kernels
        try:
            t.load(str(seed))
        except MpxError:
            pass
    t_end = time.monotonic() + seconds
    half = time.monotonic() + seconds / 2

    def spent(sweep: bool = False) -> bool:
        if inputs is not None:
            return stats.tried >= (inputs // 2 if sweep else inputs)
        return time.monotonic() > (half if sweep else t_end)

    _sweep(t, seeds, originals, stats, timed, lambda: spent(sweep=True), workdir / "mutants", out)  # half
    batch = 0
    while not spent() and not stats.failures:
        if inputs is not None:
            hypothesis_seed(batch)(check)
        batch += 1
        try:
            check()
        except AssertionError as exc:
            stats.failures.append(str(exc).splitlines()[0])
            break
        except Exception as exc:  # an exception group: hypothesis found several distinct failures
            if not isinstance(getattr(exc, "exceptions", None), tuple):
                raise
            stats.failures += [str(e).splitlines()[0] for e in exc.exceptions]
            break
    return stats


#: targets whose readers refuse a last line without its newline (`mpx.readers.textio.require_final_newline`)
EOF_RULE_TARGETS = frozenset(("perfstat-csv", "perfstat-json", "perfstat-plain", "jsonl", "callgrind", "likwid",
                              "likwid-perfctr"))


def _sweep(t: Target, seeds: list[Path], originals: list[Any], stats: Stats, timed: Callable,
           spent: Callable[[], bool], folder: Path, out: Path) -> None:
    """Every-byte truncation of the small seeds (at most `SWEEP_BYTES`), until ``spent()``: each cut loads or is
    a format error naming the file; in a format with the end-of-file rule a cut that is not just after a
    newline must be refused."""
    from mpx.errors import MpxError

    def found(kind: str, cut: bytes, what: str) -> None:  # a reproducer, as `run_target`'s failures have
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{t.name}-{kind}-{seed.name}").write_bytes(cut)
        stats.failures.append(f"{t.name}: {kind}: {what}")

    for seed, data in zip(seeds, originals):
        if not isinstance(data, bytes) or len(data) > SWEEP_BYTES:
            continue
        mutant = folder / seed.name  # in the run's temporary folder, under the seed's name (LIKWID reads it)
        for n in range(len(data)):
            if spent():
                return
            cut = data[:n]
            mutant.write_bytes(cut)
            stats.tried += 1
            try:
                timed(lambda: t.load(str(mutant)))
            except MpxError as exc:
                stats.format_error += 1
                if str(mutant) not in str(exc):
                    stats.other += 1
                    found("unnamed", cut, f"a cut at byte {n} of {seed.name}: {exc}")
                    return
                continue
            except BaseException as exc:  # noqa: BLE001 - exactly what the invariant forbids
                stats.other += 1
                found(type(exc).__name__, cut, f"a cut at byte {n} of {seed.name}: {exc}")
                return
            stats.loaded += 1
            if t.name in EOF_RULE_TARGETS and cut and not cut.endswith(b"\n"):
                stats.silent_checked += 1
                stats.silently_changed += 1
                found("silent", cut, f"a cut at byte {n} of {seed.name} (no final newline) loads")
                return
        mutant.unlink(missing_ok=True)


def _child(name: str, seconds: float, timeout: float, memory_mib: int, out: Path, inputs: int | None) -> int:
    """Run one target under the memory bound; print its Stats as one JSON line."""
    limit = memory_mib * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with tempfile.TemporaryDirectory(prefix=f"mpx-fuzz-{name}-") as tmp:
        res = run_target(targets()[name], seconds, timeout, out, Path(tmp), inputs)
    if not isinstance(res, str):
        res.peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(json.dumps(res if isinstance(res, str) else res.__dict__))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", action="append", default=[], help="a target name (repeatable)")
    ap.add_argument("--all", action="store_true", help="every target")
    ap.add_argument("--list", action="store_true", help="list targets and their seed counts")
    ap.add_argument("--seconds", type=float, default=60.0, help="budget per target (default 60)")
    ap.add_argument("--inputs", type=int, help="budget per target in inputs instead of seconds, from fixed random "
                    "seeds: the same inputs on any machine and load (what the test suite runs)")
    ap.add_argument("--timeout", type=float, default=10.0, help="limit per input in seconds (default 10)")
    ap.add_argument("--memory", type=int, default=2048, help="address-space bound in MiB (default 2048)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failures"), help="where reproducers go")
    ap.add_argument("--jobs", type=int, default=1, help="targets fuzzed at once, one process each (default 1)")
    ap.add_argument("--table", action="store_true", help="print a markdown table (targets x outcomes, with the "
                    "command, commit and load above it and the totals below)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child, args.seconds, args.timeout, args.memory, args.out, args.inputs)
    ts = targets()
    if args.list:
        with tempfile.TemporaryDirectory() as tmp:
            for t in ts.values():
                print(f"{t.name:14s} {len(t.seeds(Path(tmp)))} seed files")
        return 0
    names = list(ts) if args.all else args.target
    unknown = [n for n in names if n not in ts]
    if not names or unknown:
        ap.error(f"give --all or --target among {', '.join(ts)}" + (f" (unknown: {unknown})" if unknown else ""))
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    if args.inputs is not None and args.inputs < 1:
        ap.error("--inputs must be at least 1")
    show = _markdown if args.table else _plain
    if args.table:
        print(_preamble(args, len(names)) + "\n")
    print(show(None))
    bad, died, totals = 0, [], Stats()

    def lane(n: str) -> tuple[str, Any, float]:
        t0 = time.monotonic()
        return n, _run_child(n, args), time.monotonic() - t0

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for n, res, wall in pool.map(lane, names):  # rows in target order, each as soon as it and those before it end
            if isinstance(res, tuple):  # the child died: (exit code, its stderr's end)
                bad += 1
                died.append(n)
                print(show((n, f"child died (exit {res[0]}): {res[1]}", wall)))
                continue
            print(show((n, res, wall)), flush=True)
            if isinstance(res, dict):
                for k in ("tried", "loaded", "format_error", "other", "silent_checked", "silently_changed"):
                    setattr(totals, k, getattr(totals, k) + res[k])
                totals.failures += [f"{n}: {f}" if not f.startswith(n) else f for f in res["failures"]]
                totals.peak_mib = max(totals.peak_mib, res["peak_mib"])
                bad += len(res["failures"])
                if not args.table:
                    for f in res["failures"]:
                        print(f"    FAILURE {f}")
    if args.table:
        print(show(("**all**", totals.__dict__, None)))
        print(f"\n**{totals.other} raw, {totals.silently_changed} silent** in {totals.tried:,} inputs"
              + (f"; **{len(died)} target(s) not fuzzed: the child died** ({', '.join(died)})" if died else "")
              + "".join(f"\n- FAILURE {f}" for f in totals.failures))
    return 1 if bad else 0


def _run_child(name: str, args: argparse.Namespace) -> Any:
    """One target in a child process (`_child`): its Stats as a dict, the string saying why it was skipped, or
    (exit code, the end of its stderr) when it died."""
    proc = subprocess.run([sys.executable, __file__, "--child", name, "--seconds", str(args.seconds),
                           "--timeout", str(args.timeout), "--memory", str(args.memory), "--out", str(args.out),
                           *(["--inputs", str(args.inputs)] if args.inputs is not None else [])],
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return proc.returncode, " ".join(proc.stderr.strip()[-500:].split())


COLUMNS = ("tried", "loaded", "format_error", "other", "silent_checked", "silently_changed", "peak_mib")


def _plain(row: tuple[str, Any, float | None] | None) -> str:
    """The terminal table's header (None) or one target's row."""
    if row is None:
        return (f"{'target':14s} {'tried':>7s} {'loaded':>7s} {'format err':>10s} {'other':>6s} "
                f"{'checked':>9s} {'silent':>6s} {'peak MiB':>8s}")
    n, res, _ = row
    if isinstance(res, str):
        return f"{n:14s} {res}"
    return (f"{n:14s} {res['tried']:7d} {res['loaded']:7d} {res['format_error']:10d} {res['other']:6d} "
            f"{res['silent_checked']:9d} {res['silently_changed']:6d} {res['peak_mib']:8.0f}")


def _markdown(row: tuple[str, Any, float | None] | None) -> str:
    """The markdown table's header (None) or one row (targets x outcomes, as an issue's closing note gives it)."""
    if row is None:
        return ("| target | inputs | loaded | refused (format error naming the file) | raw (other exception, hang, "
                "memory, unnamed) | checked for silent change | silent | peak MiB | wall s |\n"
                "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    n, res, wall = row
    if isinstance(res, str):
        return f"| {n} | {res} |" + " |" * 7
    cells = [f"{res[c]:,}" for c in COLUMNS[:-1]] + [f"{res['peak_mib']:.0f}", "" if wall is None else f"{wall:.0f}"]
    return f"| {n} | " + " | ".join(cells) + " |"


def _preamble(args: argparse.Namespace, n: int) -> str:
    """What the table is: the command, the code, when, and the machine's load when it started."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    budget = f"{args.inputs:,} inputs" if args.inputs is not None else f"{args.seconds:g} s"
    return (f"`python benchmarks/fuzz_readers.py {' '.join(sys.argv[1:])}`: {n} target(s), {budget} each "
            f"in {args.jobs} lane(s); commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
            f"average {load:.1f} at the start ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    sys.exit(main())
