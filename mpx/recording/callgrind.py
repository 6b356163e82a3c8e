"""Record ground truth from a real program with valgrind's callgrind (``mpx record``).

Runs ``valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --dump-every-bb=N`` with an
explicit cache geometry, reads the interval dumps with `mpx.readers.callgrind` and saves the native
`Trace`. The recording is made reproducible — the same program, inputs and tools give a
byte-identical trace file — by controlling what we measured to change the counts:

- **ASLR is switched off** for the run (``personality(ADDR_NO_RANDOMIZE)``, what ``setarch -R``
  does). With ASLR on, two runs of the same Python script differed in Ir by ~80 instructions from
  the 25th interval on (valgrind's address-space layout follows the kernel's randomised stack).
- **The environment is fixed**: by default the program gets only ``PATH=/usr/local/bin:/usr/bin:/bin``
  and ``LC_ALL=C`` plus what ``env=`` adds (``inherit_env=True`` passes the caller's environment
  instead; ``VALGRIND_OPTS`` is always removed). One extra 100-byte variable, or a longer working
  directory path, changed Ir, Dr, Dw and every miss count (the stack moves).
- **stdin is a file** (``/dev/null`` by default), stdout and stderr go to files, never a terminal.
- **Meta holds no timestamps, host names, pids or temporary paths**; the working directory and the
  environment are recorded because they change the counts.

Cache geometry: hardware parameters have no silent defaults, but a recording needs one, so
`DEFAULT_CACHE` (I1 and D1 32 KiB 8-way 64 B lines, LL 8 MiB 16-way 64 B lines: a common desktop x86
core; the geometry of formats.md's example) is used when none is given — it is printed, and
``meta['config']['cache_source']`` says ``"default"``. Valgrind's auto-detection is never used
(inside a VM it can pick a nonsensical last-level cache).

Extra events (`EXTRA_EVENTS`), each measured for determinism by running the same program twice
(gzip on 300 KB and a 370 M-instruction Python script, valgrind 3.19, ASLR off):

- ``bus`` (``--collect-bus=yes``): ``Ge``, global bus events (atomic instructions). Deterministic.
- ``systime`` (``--collect-systime=nsec``): ``sysCount`` deterministic; ``sysTime`` and ``sysCpuTime``
  (ns spent in system calls) differ every run: dropped, listed in ``meta['dropped']``.
- ``wb`` (``--simulate-wb=yes``): ``ILdmr DLdmr DLdmw``, LL misses that write back a dirty line.
  Deterministic.
- ``cacheuse`` (``--cacheuse=yes``): ``AcCost1 SpLoss1 AcCost2 SpLoss2``; ``AcCost1`` differed
  between identical runs (dropped when used), and valgrind disables ``wb`` when ``cacheuse`` is on
  ("write-back simulation can not be used with cache usage"), so it is not in the default set.

``--simulate-hwpref=yes`` adds no event (it changes the LL miss counts by simulating a best-case
stream prefetcher); it is available as ``hwpref=True`` and recorded in the config.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mpx.errors import ConfigError, FormatError, MpxError
from mpx.util.progress import bar as progress_bar
from mpx.recording.supervise import Supervised
from mpx.trace import Trace

CLEAN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"}
"""The environment a recorded program gets unless told otherwise (see module docstring)."""

DEFAULT_INTERVAL_BB = 1_000_000
"""Default ``--dump-every-bb``: callgrind's dump check runs when its scheduler regains control, so
intervals are uneven (1.0–1.34 M blocks at 1 M); nothing finer than ~300 k blocks is sensible."""

MIN_INTERVAL_BB = 10_000


class RecordError(MpxError):
    """Recording failed: valgrind missing, the program failed, or it produced no usable dumps."""


@dataclass(frozen=True)
class CacheLevel:
    """One simulated cache: total size, associativity and line size, in bytes (valgrind's order)."""

    size_bytes: int
    assoc: int
    line_bytes: int

    def option(self) -> str:
        return f"{self.size_bytes},{self.assoc},{self.line_bytes}"

    def as_dict(self) -> dict:
        return {"size_bytes": self.size_bytes, "line_bytes": self.line_bytes, "assoc": self.assoc}


@dataclass(frozen=True)
class CacheGeometry:
    """The three caches callgrind simulates: first-level instruction and data, and last level."""

    I1: CacheLevel
    D1: CacheLevel
    LL: CacheLevel

    def options(self) -> list[str]:
        return [f"--I1={self.I1.option()}", f"--D1={self.D1.option()}", f"--LL={self.LL.option()}"]

    def as_dict(self) -> dict:
        return {"I1": self.I1.as_dict(), "D1": self.D1.as_dict(), "LL": self.LL.as_dict()}

    def __str__(self) -> str:
        return "  ".join(
            f"{n}={_size(c.size_bytes)} {c.assoc}-way {c.line_bytes} B lines"
            for n, c in (("I1", self.I1), ("D1", self.D1), ("LL", self.LL))
        )


DEFAULT_CACHE = CacheGeometry(
    I1=CacheLevel(32768, 8, 64), D1=CacheLevel(32768, 8, 64), LL=CacheLevel(8 * 1024 * 1024, 16, 64)
)
"""Used when no geometry is given (printed, and ``cache_source: default`` in meta)."""


@dataclass(frozen=True)
class ExtraEvents:
    """An optional callgrind event group: valgrind options, events kept, events dropped and why."""

    options: tuple[str, ...]
    events: tuple[str, ...]
    dropped: Mapping[str, str]


EXTRA_EVENTS: dict[str, ExtraEvents] = {
    "bus": ExtraEvents(("--collect-bus=yes",), ("Ge",), {}),
    "systime": ExtraEvents(
        ("--collect-systime=nsec",),
        ("sysCount",),
        {
            "sysTime": "elapsed ns in system calls: differs between identical runs (measured)",
            "sysCpuTime": "CPU ns in system calls: differs between identical runs (measured)",
        },
    ),
    "wb": ExtraEvents(("--simulate-wb=yes",), ("ILdmr", "DLdmr", "DLdmw"), {}),
    "cacheuse": ExtraEvents(
        ("--cacheuse=yes",),
        ("SpLoss1", "AcCost2", "SpLoss2"),
        {"AcCost1": "L1 access-cost counter of --cacheuse: differs between identical runs (measured)"},
    ),
}
DEFAULT_EXTRA = ("bus", "systime", "wb")
"""Every extra event group that is deterministic and compatible with the others."""

_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"}
_SHIM = re.compile(rb'exec\s+"?(?P<tool>[^"\s]*/libexec/(?P<name>pyenv|rbenv|nodenv|goenv|plenv|jenv))"?\s+exec\b')


def _size(n: int) -> str:
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


# -- configuration parsing --------------------------------------------------------------------------


def _parse_bytes(text: str, key: str) -> int:
    m = re.fullmatch(r"\s*([0-9]+)\s*([kKmM]i?[bB]?|[bB])?\s*", text)
    if not m:
        raise ConfigError(f"{key}: {text!r} is not a size in bytes (e.g. 32768, 32k, 8M)")
    n = int(m.group(1))
    suffix = (m.group(2) or "").lower()
    if suffix.startswith("k"):
        n *= 1024
    elif suffix.startswith("m"):
        n *= 1024 * 1024
    return n


def parse_cache_level(text: str, key: str) -> CacheLevel:
    """``SIZE,ASSOC,LINE`` (valgrind's ``--I1=`` order), checked as valgrind would."""
    parts = text.split(",")
    if len(parts) != 3:
        raise ConfigError(f"{key}: expected SIZE,ASSOC,LINE_SIZE (e.g. 32768,8,64), got {text!r}")
    size = _parse_bytes(parts[0], f"{key} size")
    if not parts[1].strip().isdigit():
        raise ConfigError(f"{key} associativity: {parts[1]!r} is not a positive integer")
    assoc = int(parts[1])
    line = _parse_bytes(parts[2], f"{key} line size")
    if line < 16 or line & (line - 1):
        raise ConfigError(f"{key} line size: {line} must be a power of two >= 16 (valgrind's limit)")
    if assoc < 1 or size <= 0 or size % (assoc * line):
        raise ConfigError(f"{key}: size {size} is not a multiple of associativity x line size ({assoc} x {line})")
    sets = size // (assoc * line)
    if sets & (sets - 1):
        raise ConfigError(f"{key}: {sets} sets (size / (assoc x line)) is not a power of two (valgrind requires it)")
    return CacheLevel(size, assoc, line)


def parse_cache(spec: str) -> CacheGeometry:
    """``"I1=32768,8,64 D1=32k,8,64 LL=8M,16,64"`` (separated by spaces or ``;``); all three required."""
    levels: dict[str, CacheLevel] = {}
    for item in re.split(r"[;\s]+", spec.strip()):
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip().upper()
        if not sep or name not in ("I1", "D1", "LL"):
            raise ConfigError(f"cache: {item!r} is not I1=..., D1=... or LL=... (SIZE,ASSOC,LINE_SIZE)")
        if name in levels:
            raise ConfigError(f"cache: {name} given twice")
        levels[name] = parse_cache_level(value, name)
    missing = [n for n in ("I1", "D1", "LL") if n not in levels]
    if missing:
        raise ConfigError(f"cache: {', '.join(missing)} missing; give all of I1, D1 and LL (no silent defaults)")
    return CacheGeometry(**levels)


def parse_extra_events(spec: str | Sequence[str]) -> tuple[str, ...]:
    """``"bus,systime,wb"`` / ``"none"`` / ``"default"`` → group names (see `EXTRA_EVENTS`)."""
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    if items == ["default"]:
        return DEFAULT_EXTRA
    if items == ["none"] or not items:
        return ()
    unknown = [s for s in items if s not in EXTRA_EVENTS]
    if unknown:
        raise ConfigError(f"extra events: unknown {unknown}; known: {', '.join(EXTRA_EVENTS)}, default, none")
    if "cacheuse" in items and "wb" in items:
        raise ConfigError("extra events: cacheuse and wb cannot be combined (valgrind turns write-back simulation off)")
    return tuple(dict.fromkeys(items))


# -- finding the real executable --------------------------------------------------------------------


@dataclass
class Program:
    """The command valgrind is given, after resolving shims and ``#!`` scripts."""

    argv: list[str]
    notes: list[str]


def find_program(name: str, path_env: str | None = None, cwd: str | os.PathLike | None = None) -> str:
    """The executable file a command's first word names — a bare name looked up on ``path_env`` (default:
    ``PATH``), a path taken relative to ``cwd`` — or a `RecordError` naming it: the one program lookup of
    ``mpx record`` (callgrind here, gem5 in `mpx.recording.gem5`)."""
    if os.sep in name:
        full = os.path.join(cwd or os.getcwd(), name)
        found = full if os.path.exists(full) else None
    else:
        found = shutil.which(name, path=path_env)
    if found is None:
        raise RecordError(f"{name}: program not found (PATH={path_env or os.environ.get('PATH', '')})")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise RecordError(f"{found}: not an executable file")
    return found


def resolve_program(
    argv: Sequence[str],
    *,
    path_env: str | None = None,
    cwd: str | os.PathLike | None = None,
    allow_script: bool = False,
    _depth: int = 0,
) -> Program:
    """The command to hand to valgrind so that it profiles the real program.

    ELF executables are used as they are. A version-manager shim (pyenv, rbenv, ... : a shell script
    that ``exec``s the manager) is replaced by the binary ``<manager> which NAME`` names. A ``#!``
    script run by an interpreter (perl, python) is run as ``INTERPRETER [ARG] SCRIPT``, with the
    interpreter resolved the same way (``#!/usr/bin/env python3`` included). Any other shell script is
    refused unless ``allow_script``: callgrind would profile the shell, not what the script starts
    (valgrind does not follow ``exec`` without ``--trace-children``). A bare name is looked up on
    ``path_env`` and replaced by its absolute path; a path (``./prog``) is kept as written, relative
    to ``cwd``, so the program sees the same ``argv[0]`` wherever the recording runs.
    """
    if not argv:
        raise RecordError("no program given (mpx record -o OUT -- PROGRAM ARGS)")
    if _depth > 5:
        raise RecordError(f"{argv[0]}: too many levels of shims/interpreters")
    name = argv[0]
    found = find_program(name, path_env, cwd)
    with open(found, "rb") as fh:
        head = fh.read(4096)
    rest = list(argv[1:])
    shown = name if os.sep in name else found
    if head.startswith(b"\x7fELF"):
        return Program([shown] + rest, [] if shown == name else [f"{name} -> {found}"])
    if not head.startswith(b"#!"):
        raise RecordError(f"{found}: neither an ELF executable nor a #! script; valgrind cannot run it")
    shebang = head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace").strip().split()
    if not shebang:
        raise RecordError(f"{found}: empty #! line")
    interp, interp_args = shebang[0], shebang[1:]
    if os.path.basename(interp) == "env":
        first = next((i for i, a in enumerate(interp_args) if not a.startswith("-")), None)
        if first is None:
            raise RecordError(f"{found}: cannot tell the interpreter from its #! line {' '.join(shebang)!r}")
        interp, interp_args = interp_args[first], interp_args[first + 1:]
    shim = _SHIM.search(head)
    if os.path.basename(interp) in _SHELLS:
        if shim:
            tool = shim.group("tool").decode()
            try:
                out = subprocess.run(
                    [tool, "which", os.path.basename(name)], capture_output=True, text=True, check=True,
                    env={**os.environ, "PATH": path_env or os.environ.get("PATH", "")},
                )
            except (OSError, subprocess.CalledProcessError) as exc:
                raise RecordError(f"{found} is a {shim.group('name').decode()} shim and '{tool} which' failed: {exc}")
            real = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
            if not real:
                raise RecordError(f"{found} is a shim and '{tool} which' named no program")
            inner = resolve_program([real] + rest, path_env=path_env, cwd=cwd, allow_script=allow_script,
                                    _depth=_depth + 1)
            note = f"{name} is a {shim.group('name').decode()} shim (a shell script): recording {real} instead"
            return Program(inner.argv, [note] + inner.notes)
        if allow_script:
            return Program([shown] + rest, [f"{found} is a shell script: profiling the shell itself (--allow-script)"])
        raise RecordError(
            f"{found} is a shell script (#!{' '.join(shebang)}): callgrind would profile the shell, not the "
            "program it starts (valgrind does not follow exec). Pass the real executable, or use "
            "--allow-script to profile the shell itself."
        )
    inner = resolve_program([interp] + interp_args, path_env=path_env, cwd=cwd, allow_script=False,
                            _depth=_depth + 1)
    note = f"{found} is a #! script: recording its interpreter {inner.argv[0]} running it"
    return Program(inner.argv + [shown] + rest, [note] + inner.notes)


# -- running ----------------------------------------------------------------------------------------


def valgrind_version(valgrind: str) -> str:
    """``valgrind --version`` (e.g. ``"valgrind-3.19.0"``)."""
    try:
        out = subprocess.run([valgrind, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise RecordError(f"cannot run {valgrind}: {exc}") from None
    return out.stdout.strip()


def find_valgrind(path_env: str | None = None) -> str:
    """The valgrind executable on PATH; a clear RecordError when it is missing."""
    found = shutil.which("valgrind", path=path_env)
    if not found:
        raise RecordError(
            "valgrind not found on PATH: mpx record runs valgrind's callgrind tool "
            "(install it, e.g. 'apt-get install valgrind', or put it on PATH)"
        )
    return found


def _no_aslr() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    current = libc.personality(0xFFFFFFFF)
    if current == -1 or libc.personality(current | 0x0040000) == -1:  # ADDR_NO_RANDOMIZE
        os._exit(121)


def _tail(path: Path, n: int = 12) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join("    " + ln for ln in lines[-n:])


def _collected(log: Path) -> tuple[list[str], list[int]] | None:
    """valgrind's end-of-run "Events :" / "Collected :" lines (the whole-run totals)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return None
    ev = re.search(r"^==\d+== Events\s*:\s*(.*)$", text, re.M)
    col = re.search(r"^==\d+== Collected\s*:\s*(.*)$", text, re.M)
    if not ev or not col:
        return None
    try:
        return ev.group(1).split(), [int(v) for v in col.group(1).split()]
    except ValueError:
        return None


def record(
    argv: Sequence[str],
    output: str | os.PathLike | None = None,
    *,
    interval_bb: int = DEFAULT_INTERVAL_BB,
    cache: CacheGeometry | None = None,
    extra_events: Sequence[str] = DEFAULT_EXTRA,
    hwpref: bool = False,
    env: Mapping[str, str] | None = None,
    inherit_env: bool = False,
    cwd: str | os.PathLike | None = None,
    stdin: str | os.PathLike | None = None,
    stdout: str | os.PathLike | None = None,
    ok_status: Sequence[int] = (0,),
    allow_script: bool = False,
    workload: str | None = None,
    keep_dumps: str | os.PathLike | None = None,
    extra_meta: Mapping | None = None,
    log: Callable[[str], None] | None = print,
    timeout: float | None = None,
    aslr: bool = False,
) -> Trace:
    """Run ``argv`` under callgrind, read its interval dumps, save the Trace to ``output`` (if given).

    Raises `RecordError` (valgrind missing, program failed or still running after ``timeout`` seconds, no
    dumps, totals inconsistent) and `ConfigError` (bad geometry or options). See the module docstring for
    what makes it reproducible; ``aslr=True`` leaves address-space layout randomisation on, for repeated
    runs that should differ as real runs do (`mpx.recording.runs`). Valgrind runs under
    `mpx.recording.supervise.Supervised`: it dies with the caller, and its temporary folder (under ``$TMPDIR``,
    ``mpx-record-*``) is removed however the call ends.
    """
    say = log or (lambda _msg: None)
    if timeout is not None and not timeout > 0:
        raise ConfigError(f"timeout: {timeout!r} must be a positive number of seconds")
    if int(interval_bb) != interval_bb or interval_bb < MIN_INTERVAL_BB:
        raise ConfigError(f"interval_bb: {interval_bb!r} must be an integer >= {MIN_INTERVAL_BB}")
    if output is not None and not Path(output).resolve().parent.is_dir():
        raise RecordError(f"output directory {Path(output).resolve().parent} does not exist")
    groups = parse_extra_events(list(extra_events))
    cache_source = "given" if cache is not None else "default"
    geometry = cache or DEFAULT_CACHE
    caller_path = os.environ.get("PATH")
    valgrind = find_valgrind(caller_path)
    version = valgrind_version(valgrind)

    run_env = dict(os.environ) if inherit_env else dict(CLEAN_ENV)
    run_env.update(env or {})
    dropped_env = [k for k in ("VALGRIND_OPTS",) if k in run_env]
    for k in dropped_env:
        del run_env[k]
    workdir = Path(cwd) if cwd is not None else Path.cwd()
    if not workdir.is_dir():
        raise RecordError(f"working directory {workdir} does not exist")
    program = resolve_program(list(argv), path_env=caller_path, cwd=workdir, allow_script=allow_script)
    for note in program.notes:
        say(f"note: {note}")
    if (workdir / ".valgrindrc").exists():
        raise RecordError(f"{workdir / '.valgrindrc'} exists: valgrind would read options from it; remove it or run elsewhere")
    stdin_path = os.fspath(stdin) if stdin is not None else os.devnull
    if not (workdir / stdin_path).is_file() and stdin_path != os.devnull:
        raise RecordError(f"stdin file {workdir / stdin_path} does not exist")

    options = ["--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes", *geometry.options(),
               f"--dump-every-bb={int(interval_bb)}", "--dump-line=no"]
    for g in groups:
        options += EXTRA_EVENTS[g].options
    if hwpref:
        options.append("--simulate-hwpref=yes")

    say(f"cache geometry ({cache_source}{'; set it with --cache' if cache_source == 'default' else ''}): {geometry}")
    say(f"recording {' '.join(program.argv)} with {version} callgrind, a dump every {int(interval_bb):,} blocks "
        f"(extra events: {', '.join(groups) or 'none'}) ...")

    with Supervised("mpx-record-") as run:
        tmpdir = Path(run.folder)
        out_base = tmpdir / "dumps" / "cg.out"
        out_base.parent.mkdir()
        vg_log = tmpdir / "valgrind.log"
        err_path = tmpdir / "stderr.txt"
        out_path = workdir / stdout if stdout is not None else tmpdir / "stdout.txt"
        # valgrind's gdbserver FIFOs (vgdb-pipe-*) in the run's folder, removed with it: in /tmp (valgrind's
        # default) a stopped run left them behind (issue 27); per-run paths, not in the trace's options
        cmd = [valgrind, *options, f"--callgrind-out-file={out_base}", f"--log-file={vg_log}",
               f"--vgdb-prefix={tmpdir / 'vgdb-pipe'}", "--", *program.argv]
        t0 = time.perf_counter()
        try:
            with open(workdir / stdin_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
                run.start(cmd, preexec=None if aslr else _no_aslr, stdin=fin, stdout=fout, stderr=ferr, env=run_env,
                          cwd=workdir)
        except OSError as exc:
            raise RecordError(f"cannot start {valgrind}: {exc}") from None
        with progress_bar(desc="recording", unit=" dumps") as shown:

            def tick() -> None:  # callgrind writes cg.out.N as each interval ends
                shown.update(max(0, sum(1 for _ in out_base.parent.iterdir()) - 1 - shown.n))

            status = run.wait(timeout=timeout, tick=tick)
        elapsed = time.perf_counter() - t0
        if status is None:
            raise RecordError(f"{' '.join(program.argv)} was still running under valgrind after the timeout of "
                              f"{timeout:g} s: stopped, nothing written")
        rc = status
        if rc == 121 and not vg_log.exists():
            raise RecordError("could not switch ASLR off (personality(ADDR_NO_RANDOMIZE) failed); recordings "
                              "would not be reproducible")
        if rc not in ok_status:
            how = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
            if rc > 128 and rc - 128 < 65:
                how += f" (signal {rc - 128}?)"
            raise RecordError(
                f"{' '.join(program.argv)} failed under valgrind ({how}; accepted: {list(ok_status)}).\n"
                f"  stderr (last lines):\n{_tail(err_path) or '    (empty)'}\n"
                f"  valgrind log (last lines):\n{_tail(vg_log) or '    (empty)'}"
            )
        # callgrind creates an empty base file at start-up; a run killed before any dump leaves only that
        dumps = sorted(p.name for p in out_base.parent.iterdir() if p.stat().st_size > 0)
        if not dumps:
            raise RecordError(
                f"valgrind produced no callgrind dumps for {' '.join(program.argv)} (exit status {rc}).\n"
                f"  valgrind log (last lines):\n{_tail(vg_log) or '    (empty)'}\n"
                f"  stderr (last lines):\n{_tail(err_path) or '    (empty)'}"
            )
        if keep_dumps is not None:
            dest = Path(keep_dumps)
            dest.mkdir(parents=True, exist_ok=True)
            for name in dumps:
                shutil.copy2(out_base.parent / name, dest / name)
            shutil.copy2(vg_log, dest / "valgrind.log")
        from mpx.readers import callgrind

        collected = _collected(vg_log)
        if collected is None:
            raise RecordError(
                "valgrind's log has no end-of-run 'Collected :' line: the run did not finish normally (killed?), "
                f"so the dumps may be incomplete:\n{_tail(vg_log)}"
            )
        try:
            raw = callgrind.read(out_base.parent)
        except FormatError as exc:
            raise RecordError(f"callgrind wrote dumps mpx cannot read: {exc}") from None
        _check_against_log(raw, collected)
        _check_geometry(raw, geometry)

    dropped: list[dict] = []
    gone = [e for g in groups for e in EXTRA_EVENTS[g].dropped if e in raw.events]
    for g in groups:
        for e, why in EXTRA_EVENTS[g].dropped.items():
            if e in raw.events:
                dropped.append({"what": e, "why": why})
    trace = raw.drop(gone) if gone else raw
    if dropped_env:
        dropped.append({"what": f"environment variables {dropped_env}", "why": "valgrind reads options from them"})

    meta = {
        "source": "mpx record",
        "format": "callgrind",
        "workload": workload or os.path.basename(program.argv[0]),
        "simulator": raw.meta.get("simulator"),
        "valgrind_version": version.removeprefix("valgrind-"),
        "command": program.argv,
        "notes": program.notes,
        "cwd": str(workdir),
        "env": dict(sorted(run_env.items())) if not inherit_env else "inherited from the caller (not reproducible)",
        "stdin": stdin_path,
        "exit_status": rc,
        "config": {
            **geometry.as_dict(),
            "cache_source": cache_source,
            "dump_every_bb": int(interval_bb),
            "extra_events": list(groups),
            "hwpref": bool(hwpref),
            "aslr": "enabled" if aslr else "disabled",
            "valgrind_options": options,
        },
        "time_axis": raw.meta.get("time_axis"),
        "parts": raw.meta.get("parts"),
        "triggers": raw.meta.get("triggers"),
        "dropped": list(raw.meta.get("dropped", [])) + dropped,
    }
    if extra_meta:
        meta.update(extra_meta)
    trace = Trace(trace.events, trace.counts, trace.edges, trace.time_unit, meta=meta,
                  aux_names=trace.aux_names, aux=trace.aux)
    say(f"{trace!r}: {trace.n_intervals} intervals in {elapsed:.1f} s of valgrind")
    if output is not None:
        trace.save(output)
        say(f"wrote {os.fspath(output)}")
    return trace


def _check_against_log(trace: Trace, collected: tuple[list[str], list[int]]) -> None:
    """The sum of the parts' totals must equal valgrind's end-of-run totals exactly."""
    names, values = collected
    values = values + [0] * (len(names) - len(values))
    totals = trace.counts.sum(axis=0)
    for name, value in zip(names, values):
        if name in trace and totals[trace.index(name)] != value:
            raise RecordError(
                f"sum of the dumps' totals for {name} is {totals[trace.index(name)]:.0f}, valgrind's end-of-run "
                f"total is {value}: dumps incomplete"
            )


def _check_geometry(trace: Trace, geometry: CacheGeometry) -> None:
    want = geometry.as_dict()
    got = trace.meta.get("config", {})
    for level in ("I1", "D1", "LL"):
        if got.get(level) != want[level]:
            raise RecordError(f"callgrind simulated {level} as {got.get(level)}, not the requested {want[level]}")

