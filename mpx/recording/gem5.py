"""Record full-simulator ground truth with gem5 (``mpx record --simulator gem5``).

Runs the program in gem5's syscall-emulation mode on one out-of-order X86 core with classic caches and
one DDR4 channel (the configuration is ``mpx/data/gem5/se_periodic.py``), dumping and resetting the whole
stats tree every ``period_ps`` picoseconds, and reads the dumps with `mpx.readers.gem5` into a `Trace`:
additive stats are events, everything else the aux table (see that reader).

**Every hardware parameter is explicit**: `HARDWARE` (or the dict passed as ``hardware``) is written to a
JSON file the configuration reads, and stored whole in ``meta['hardware']``, with the period in
``meta['recording']``; no gem5 default is relied on. gem5 also writes ``config.ini`` (every SimObject
parameter); its sha256 goes into the meta, so two recordings with the same digest ran the same machine.

**Bounded and deterministic**: with ``max_dumps`` the simulation stops at tick max_dumps × period + period/2
and the partial last dump is dropped, so the trace has exactly ``max_dumps`` intervals of one period each
(the program need not finish).

**Steady state** (``fast_forward_insts``, ``warmup_insts``): the program first runs F instructions on gem5's
atomic CPU (caches attached, so they warm), switches to the out-of-order core (``m5.switchCpus``), runs W
more instructions there to warm the branch predictor, prefetchers and TLBs, and only then are the stats
reset and the periodic dumps started (see ``se_periodic.py``). ``meta['recording']['skipped']`` records the
instructions fast-forwarded and warmed up and the simulated ticks before the first interval (the first
edge). gem5 is deterministic: the same binary, program, inputs, arguments,
environment, working directory and hardware give the same stats, except the host stats
(``hostSeconds``, ``hostInstRate``, ``hostOpRate``, ``hostTickRate``, ``hostMemUsage``), which are
dropped (``meta['dropped']``). The program gets a clean environment (`mpx.recording.callgrind.CLEAN_ENV` plus
``env``): argv, the environment and the executable's path are on the simulated stack and change the counts.

The gem5 binary: ``gem5=`` or ``$MPX_GEM5`` or ``gem5.fast``/``gem5.opt``/``gem5`` on ``PATH``; when none is
found, `RecordError` says how to build it (``datasets/gem5/build_gem5.sh``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.util.progress import bar as progress_bar
from mpx.readers import gem5 as gem5_reader
from mpx.recording.callgrind import CLEAN_ENV, RecordError, find_program
from mpx.recording.supervise import Supervised
from mpx.trace import Trace

CONFIG = Path(__file__).resolve().parents[1] / "data" / "gem5" / "se_periodic.py"
"""The gem5 configuration script (run by gem5's embedded Python, not imported here)."""

GEM5_NAMES = ("gem5.fast", "gem5.opt", "gem5")
BUILD_HINT = (
    "build gem5 v24.0.0.1 (X86, without Ruby; one to two hours on 2 cores) with datasets/gem5/build_gem5.sh "
    "and pass --gem5 PATH (or set MPX_GEM5, or put gem5.fast on PATH)"
)

PERIOD_PS = 5_000_000
"""Default dump period: 5 µs of simulated time (15,015 cycles of the 3 GHz core, whose period gem5 rounds
to 333 ps)."""

HARDWARE: dict[str, Any] = {
    "isa": "X86",
    "cpu_model": "X86O3CPU (gem5 out-of-order core)",
    "clock": "3GHz",
    "cache_line_bytes": 64,
    "core": {
        "fetchWidth": 8, "decodeWidth": 8, "renameWidth": 8, "dispatchWidth": 8, "issueWidth": 8,
        "wbWidth": 8, "commitWidth": 8, "squashWidth": 8, "fetchBufferSize": 64, "fetchQueueSize": 32,
        "numROBEntries": 192, "numIQEntries": 64, "LQEntries": 32, "SQEntries": 32,
        "numPhysIntRegs": 256, "numPhysFloatRegs": 256, "numPhysVecRegs": 256, "trapLatency": 13,
        "branch_predictor": {
            "type": "TournamentBP", "localPredictorSize": 2048, "localCtrBits": 2,
            "localHistoryTableSize": 2048, "globalPredictorSize": 8192, "globalCtrBits": 2,
            "choicePredictorSize": 8192, "choiceCtrBits": 2, "btb_entries": 4096, "btb_tag_bits": 16,
            "ras_entries": 16,
        },
    },
    "tlb": {"itb_entries": 64, "dtb_entries": 64},
    "caches": {
        "l1i": {"size": "32KiB", "assoc": 8, "tag_latency": 1, "data_latency": 1, "response_latency": 1,
                "mshrs": 16, "tgts_per_mshr": 20, "writeback_clean": False, "prefetcher": "none"},
        "l1d": {"size": "32KiB", "assoc": 8, "tag_latency": 1, "data_latency": 1, "response_latency": 1,
                "mshrs": 16, "tgts_per_mshr": 20, "writeback_clean": False, "prefetcher": "stride",
                "prefetch_degree": 1},
        "l2": {"size": "512KiB", "assoc": 16, "tag_latency": 10, "data_latency": 10, "response_latency": 1,
               "mshrs": 20, "tgts_per_mshr": 12, "writeback_clean": False, "clusivity": "mostly_incl",
               "prefetcher": "stride", "prefetch_degree": 1},
    },
    "page_walkers": "connected to the L2 bus (walks are cached in L2)",
    "l2_bus_width_bytes": 32,
    "membus_width_bytes": 64,
    "memory": {"dram": "DDR4_2400_8x8", "channels": 1, "size": "2GiB"},
}
"""The machine of the shipped gem5 datasets: gem5's O3 defaults, made explicit; 32 KiB 8-way L1s, a 512 KiB
16-way L2 with stride prefetchers on L1D and L2, 64-entry TLBs, one DDR4-2400 channel."""

EVENTS = Path(__file__).resolve().parents[1] / "data" / "gem5" / "events.txt"
"""Additive stats every gem5 trace has (one per line): gem5 omits a zero ``nozero`` stat from a dump, and a
stat no dump printed would be no event at all, so the event set would change with the workload. These
(the union over short runs of the shipped workloads on `HARDWARE`) are added as zero columns when absent,
so that catalogs (``mpx/metrics/builtin/gem5.toml``) apply to every trace."""

HOST_STATS = ("hostSeconds", "hostInstRate", "hostOpRate", "hostTickRate", "hostMemUsage", "hostMemory",
              "host_seconds", "host_inst_rate", "host_op_rate", "host_tick_rate", "host_mem_usage")
"""Stats of the host machine and wall time: differ between identical runs, dropped."""


def find_gem5(explicit: str | os.PathLike | None = None, path_env: str | None = None) -> str:
    """The gem5 binary: ``explicit``, ``$MPX_GEM5``, or the first of `GEM5_NAMES` on ``PATH``."""
    for given, what in ((explicit, "--gem5"), (os.environ.get("MPX_GEM5"), "MPX_GEM5")):
        if given:
            p = Path(given)
            if not p.is_file() or not os.access(p, os.X_OK):
                raise RecordError(f"{what} {os.fspath(given)!r} is not an executable file; {BUILD_HINT}")
            return str(p.resolve())
    for name in GEM5_NAMES:
        found = shutil.which(name, path=path_env)
        if found:
            return str(Path(found).resolve())
    raise RecordError(f"gem5 not found (looked for {', '.join(GEM5_NAMES)} on PATH); {BUILD_HINT}")


def parse_period(text: str | int) -> int:
    """A dump period → picoseconds (gem5 ticks): ``5us``, ``2.5us``, ``500ns``, ``1ms`` or a tick count."""
    if isinstance(text, int):
        ps = text
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ps|ns|us|µs|ms|)\s*", str(text))
        if not m:
            raise ConfigError(f"--period {text!r}: expected e.g. 5us, 500ns, 1ms or a number of ticks (ps)")
        scale = {"": 1, "ps": 1, "ns": 1_000, "us": 1_000_000, "µs": 1_000_000, "ms": 1_000_000_000}[m.group(2)]
        value = float(m.group(1)) * scale
        if value != int(value):
            raise ConfigError(f"--period {text!r} is not a whole number of picoseconds")
        ps = int(value)
    if ps < 100_000:
        raise ConfigError(f"period {ps} ps is below 100 ns (300 cycles): too short to be useful")
    return ps


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _program_exited(cause: str) -> bool:
    """Did the simulation end because the program exited (gem5's cause for the last thread's exit), rather
    than at ``max_dumps`` or a fast-forward limit?"""
    return "exiting with last active thread context" in cause or cause.startswith("exit")


def record_gem5(
    argv: Sequence[str],
    output: str | os.PathLike | None = None,
    *,
    gem5: str | os.PathLike | None = None,
    period_ps: int = PERIOD_PS,
    max_dumps: int | None = None,
    fast_forward_insts: int = 0,
    warmup_insts: int = 0,
    hardware: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    stdin: str | None = None,
    stdout: str | None = None,
    workload: str | None = None,
    keep_stats: str | os.PathLike | None = None,
    log: Callable[[str], None] | None = print,
    timeout: float | None = None,
    ok_status: Sequence[int] = (0,),
    checkpoint_dir: str | os.PathLike | None = None,
) -> Trace:
    """Run ``argv`` in gem5 (SE mode), read the periodic dumps, save the Trace to ``output`` (if given).

    Raises `RecordError` (gem5 missing, gem5 or the configuration failed or still running after
    ``timeout`` seconds, no dumps, the program exited with a status not in ``ok_status``: a failed run is
    no recording of the program) and `ConfigError` (bad options). gem5 runs under
    `mpx.recording.supervise.Supervised` (dies with the caller; its temporary folder goes however the call ends).
    ``keep_stats``: also copy gem5's ``stats.txt`` there (xz-compressed if it ends in ``.xz``).
    ``checkpoint_dir``: take the fast-forward from a gem5 checkpoint there, writing it first if absent
    (`ensure_checkpoint`); a recording killed after the fast-forward then restarts from it, with the same
    dumps (the caches are not in a checkpoint: see ``se_periodic.py``).
    """
    say = log or (lambda _m: None)
    if timeout is not None and not timeout > 0:
        raise ConfigError(f"timeout: {timeout!r} must be a positive number of seconds")
    period_ps = parse_period(period_ps)
    if max_dumps is not None and (int(max_dumps) != max_dumps or max_dumps < 1):
        raise ConfigError(f"max_dumps: {max_dumps!r} must be a positive integer")
    for what, v in (("fast_forward_insts", fast_forward_insts), ("warmup_insts", warmup_insts)):
        if isinstance(v, bool) or int(v) != v or v < 0:
            raise ConfigError(f"{what}: {v!r} must be a whole number of instructions >= 0")
    if warmup_insts and not fast_forward_insts:
        raise ConfigError("warmup_insts needs fast_forward_insts > 0 (the warm-up runs after the switch to the "
                          "out-of-order core)")
    if checkpoint_dir is not None and not fast_forward_insts:
        raise ConfigError("checkpoint_dir needs fast_forward_insts > 0 (the checkpoint is taken at its end)")
    if not argv:
        raise RecordError("no program given (mpx record --simulator gem5 -o OUT -- PROGRAM ARGS)")
    if output is not None and not Path(output).resolve().parent.is_dir():
        raise RecordError(f"output directory {Path(output).resolve().parent} does not exist")
    binary = find_gem5(gem5)
    hw = copy.deepcopy(dict(hardware) if hardware is not None else HARDWARE)
    workdir = Path(cwd).resolve() if cwd else Path.cwd()
    prog_env = dict(CLEAN_ENV)
    prog_env.update(env or {})
    exe = Path(find_program(argv[0], prog_env["PATH"], workdir))
    with open(exe, "rb") as fh:
        if fh.read(4) != b"\x7fELF":
            raise RecordError(f"{exe}: gem5's syscall emulation runs ELF executables only (not scripts)")
    sim_argv = [str(exe), *argv[1:]]

    with Supervised("mpx-gem5-") as run:  # gem5 dies with mpx; the folder goes however this ends
        tmp = Path(run.folder)
        hw_file = tmp / "hardware.json"
        hw_file.write_text(json.dumps(hw, indent=1, sort_keys=True) + "\n")
        outdir = tmp / "m5out"
        cmd = gem5_command(binary, outdir, hw_file, period_ps, workdir, sim_argv, prog_env, max_dumps=max_dumps,
                           fast_forward_insts=fast_forward_insts, warmup_insts=warmup_insts, stdin=stdin,
                           stdout=stdout)
        checkpoint = None
        if checkpoint_dir is not None:
            checkpoint = ensure_checkpoint(Path(checkpoint_dir), run, cmd, binary, hw, sim_argv, prog_env, workdir,
                                           stdin, fast_forward_insts, say, timeout)
            cmd = [*cmd[:cmd.index("--")], "--checkpoint-dir", str(checkpoint["path"]), *cmd[cmd.index("--"):]]
        say(f"gem5: {binary}  period {period_ps} ps  max dumps {max_dumps or 'until exit'}"
            + (f"  fast-forward {fast_forward_insts:,} + warm-up {warmup_insts:,} instructions"
               if fast_forward_insts else ""))
        say(f"program: {' '.join(sim_argv)}  (cwd {workdir})")
        log_path = tmp / "gem5.log"
        with open(log_path, "wb") as fh:
            run.start(cmd, cwd=workdir, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                      env=dict(CLEAN_ENV))
        report = ProgressLine(max_dumps, period_ps, say)
        with progress_bar(total=max_dumps, desc="simulating", unit=" dumps") as shown:

            def tick() -> None:  # gem5 appends a dump to stats.txt every period
                done = _dumps_so_far(outdir / "stats.txt")
                shown.update(max(0, done - shown.n))
                report.update(done)

            status = run.wait(timeout=timeout, tick=tick)
        if status is None:
            raise RecordError(f"gem5 was still running after the timeout of {timeout:g} s: stopped, nothing written")
        text = log_path.read_text(errors="replace")
        if status == 0:
            report.finish()
        else:
            raise RecordError(f"gem5 failed (exit {status}); last lines of its output:\n"
                              + "\n".join(text.splitlines()[-15:]))
        m = re.search(r"se_periodic\.py: exit at tick (\d+): (.*) \(code (-?\d+)\)", text)
        exit_info = {"tick": int(m.group(1)), "cause": m.group(2), "code": int(m.group(3))} if m else None
        if exit_info and _program_exited(exit_info["cause"]) and exit_info["code"] not in tuple(ok_status):
            raise RecordError(f"{argv[0]} exited with status {exit_info['code']} after {exit_info['tick']:,} ticks "
                              f"(accepted: {', '.join(map(str, ok_status))}; --ok-status to accept others): a failed "
                              "run is not recorded. Last lines of gem5's output (the program's stderr among them):\n"
                              + "\n".join(text.splitlines()[-15:]))
        skipped = skipped_phases(text, fast_forward_insts, warmup_insts)
        v = re.search(r"gem5 version (\S+)", text)
        version = v.group(1) if v else "unknown"
        stats = outdir / "stats.txt"
        if not stats.is_file() or stats.stat().st_size == 0:
            raise RecordError(f"gem5 wrote no stats ({stats}); last lines:\n" + "\n".join(text.splitlines()[-15:]))
        if keep_stats:
            _keep(stats, Path(keep_stats))
        try:
            raw = gem5_reader.read(stats)
        except FormatError as exc:
            raise RecordError(f"cannot read gem5's stats: {exc}") from None
        config_ini = (outdir / "config.ini").read_bytes() if (outdir / "config.ini").is_file() else b""

    trace = finish_trace(raw, period_ps, max_dumps)
    if trace.n_intervals == 0:
        raise RecordError("gem5 wrote no complete dump (program too short for one period?)")
    dropped = list(trace.meta.get("dropped", []))
    meta = dict(trace.meta)
    meta.update(
        source="gem5 stats.txt",
        workload=workload or Path(argv[0]).name,
        simulator="gem5",
        hardware=hw,
        recording={
            "gem5_version": version,
            "config": CONFIG.name,
            "config_sha256": sha256_bytes(CONFIG.read_bytes()),
            "config_ini_sha256": sha256_bytes(config_ini),
            "events_file_sha256": sha256_bytes(EVENTS.read_bytes()),
            "mode": "syscall emulation",
            "period_ps": period_ps,
            "period_cycles": round(period_ps / _clock_period_ps(hw["clock"]), 3),
            "max_dumps": max_dumps,
            "skipped": skipped,
            "exit": exit_info,
            "command": list(argv),
            "simulated_argv": sim_argv,
            "cwd": str(workdir),
            "env": prog_env,
            "stdin": stdin,
            "stdout": stdout,
            **({"checkpoint": {"taken_at_tick": checkpoint["tick"], "caches": "empty after the restore: "
                               "warmed by the warm-up on the O3 core only"}} if checkpoint else {}),
        },
        dropped=dropped,
    )
    trace = Trace(trace.events, trace.counts, trace.edges, trace.time_unit, meta, trace.aux_names, trace.aux)
    say(f"{trace.n_intervals} intervals × {len(trace.events)} events, {len(trace.aux_names)} aux values")
    if output is not None:
        trace.save(output)
        say(f"wrote {output} ({Path(output).stat().st_size:,} bytes)")
    return trace


CHECKPOINT_KEY = "mpx-checkpoint.json"
"""What a checkpoint folder was written for (`checkpoint_key`): a folder whose key differs is refused."""


def checkpoint_key(binary: str, hw: Mapping[str, Any], sim_argv: Sequence[str], prog_env: Mapping[str, str],
                   workdir: Path, stdin: str | None, fast_forward_insts: int) -> dict[str, Any]:
    """Everything that decides the simulated state at the end of the fast-forward: the gem5 binary, the
    configuration script, the machine, the program (argv, executable and stdin contents, environment) and
    the instructions fast-forwarded."""
    def digest(path: Path) -> str:
        return sha256_bytes(path.read_bytes())

    exe = Path(sim_argv[0])
    return {"gem5_sha256": digest(Path(binary)), "config_sha256": digest(CONFIG), "hardware": dict(hw),
            "argv": list(sim_argv), "executable_sha256": digest(exe), "env": dict(prog_env),
            "stdin_sha256": digest(workdir / stdin) if stdin else None,
            "fast_forward_insts": int(fast_forward_insts)}


def ensure_checkpoint(folder: Path, run: Supervised, cmd: Sequence[str], binary: str, hw: Mapping[str, Any],
                      sim_argv: Sequence[str], prog_env: Mapping[str, str], workdir: Path, stdin: str | None,
                      fast_forward_insts: int, say: Callable[[str], None],
                      timeout: float | None) -> dict[str, Any]:
    """The checkpoint at the end of the fast-forward in ``folder``: reused when its key matches this
    recording (`RecordError` when it was written for another), else written by a first gem5 run into a
    temporary sibling folder that is renamed only when complete (a kill leaves no half checkpoint)."""
    key = checkpoint_key(binary, hw, sim_argv, prog_env, workdir, stdin, fast_forward_insts)
    key_file = folder / CHECKPOINT_KEY
    if key_file.is_file():
        stored = json.loads(key_file.read_text())
        differ = sorted(k for k in set(key) | set(stored.get("key", {})) if key.get(k) != stored["key"].get(k))
        if differ:
            raise RecordError(f"{folder}: a checkpoint of another recording (differs in {', '.join(differ)}); "
                              "remove the folder or give another checkpoint folder")
        say(f"resuming from the checkpoint in {folder} (tick {stored['tick']:,}): the fast-forward is not run again")
        return {"path": folder, "tick": int(stored["tick"])}
    if folder.exists() and any(folder.iterdir()):
        raise RecordError(f"{folder}: not empty and holds no {CHECKPOINT_KEY}: not a checkpoint folder of mpx")
    folder.parent.mkdir(parents=True, exist_ok=True)
    for stale in folder.parent.glob(f".{folder.name}.partial-*"):  # left by a recording killed meanwhile
        if not _pid_alive(stale.name.rsplit("-", 1)[-1].split(".")[0]):
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
    partial = folder.parent / f".{folder.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    first = [*cmd[:cmd.index("--")], "--checkpoint-dir", str(partial), *cmd[cmd.index("--"):]]
    first[1] = f"--outdir={partial}.m5out"
    say(f"fast-forwarding {fast_forward_insts:,} instructions into a checkpoint ({folder})")
    log_path = Path(f"{partial}.log")
    try:
        with open(log_path, "wb") as fh:
            run.start(first, cwd=workdir, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                      env=dict(CLEAN_ENV))
        status = run.wait(timeout=timeout)
        text = log_path.read_text(errors="replace")
        m = re.search(r"se_periodic\.py: checkpoint written to .* at tick (\d+)", text)
        if status != 0 or not m or not (partial / "m5.cpt").is_file():
            raise RecordError(f"gem5 wrote no checkpoint (exit {status}); last lines of its output:\n"
                              + "\n".join(text.splitlines()[-15:]))
        tick = int(m.group(1))
        (partial / CHECKPOINT_KEY).write_text(json.dumps({"key": key, "tick": tick}, indent=1, sort_keys=True))
        if folder.exists():
            folder.rmdir()
        os.replace(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(f"{partial}.m5out", ignore_errors=True)
        log_path.unlink(missing_ok=True)
    say(f"checkpoint written at tick {tick:,}")
    return {"path": folder, "tick": tick}


def _pid_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def checkpoints_root() -> Path:
    """Where `mpx datasets rebuild` keeps the checkpoints of recipes that ask for one:
    ``$MPX_GEM5_CHECKPOINTS``, else ``~/.cache/mpx/gem5-checkpoints`` (outside the repository: 2-3 MB each)."""
    given = os.environ.get("MPX_GEM5_CHECKPOINTS")
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mpx" / "gem5-checkpoints"


def gem5_command(binary: str, outdir: Path, hw_file: Path, period_ps: int, workdir: Path, sim_argv: Sequence[str],
                 prog_env: Mapping[str, str], *, max_dumps: int | None = None, fast_forward_insts: int = 0,
                 warmup_insts: int = 0, stdin: str | None = None, stdout: str | None = None) -> list[str]:
    """The gem5 command line that runs ``se_periodic.py`` (no option is passed at its default, so a
    recording without fast-forward runs exactly the command of the shipped 5 ms datasets)."""
    cmd = [binary, f"--outdir={outdir}", str(CONFIG), "--hardware", str(hw_file), "--period-ps",
           str(period_ps), "--cwd", str(workdir)]
    if max_dumps:
        cmd += ["--max-dumps", str(max_dumps)]
    if fast_forward_insts:
        cmd += ["--fast-forward-insts", str(int(fast_forward_insts))]
    if warmup_insts:
        cmd += ["--warmup-insts", str(int(warmup_insts))]
    if stdin:
        cmd += ["--stdin", str(workdir / stdin)]
    if stdout:
        cmd += ["--stdout", stdout]
    for k, v in sorted(prog_env.items()):
        cmd += ["--env", f"{k}={v}"]
    return [*cmd, "--", *sim_argv]


def skipped_phases(log_text: str, fast_forward_insts: int, warmup_insts: int) -> dict[str, Any]:
    """What ran before the first interval, from se_periodic.py's ``measured from`` line (RecordError if a
    fast-forward was asked for and the line is missing)."""
    if not fast_forward_insts:
        return {"fast_forward_insts": 0, "warmup_insts": 0, "ticks_before_first_interval": 0,
                "fast_forward_cpu": None}
    m = re.search(r"se_periodic\.py: measured from tick (\d+): fast-forward (\d+) instructions to tick (\d+), "
                  r"warm-up (\d+) instructions", log_text)
    if not m:
        raise RecordError("gem5 ran without reporting the end of the fast-forward (se_periodic.py's 'measured "
                          "from' line); last lines:\n" + "\n".join(log_text.splitlines()[-15:]))
    return {"fast_forward_insts": int(m.group(2)), "fast_forward_cpu": "X86AtomicSimpleCPU (caches attached)",
            "fast_forward_ticks": int(m.group(3)), "warmup_insts": int(m.group(4)),
            "warmup_cpu": "X86O3CPU (the measured core)", "warmup_ticks": int(m.group(1)) - int(m.group(3)),
            "ticks_before_first_interval": int(m.group(1))}


def _clock_period_ps(clock: str) -> float:
    """gem5's clock period in ticks for ``"3GHz"`` (it rounds 1/f to whole picoseconds: 333)."""
    m = re.fullmatch(r"([0-9.]+)\s*(GHz|MHz)", clock)
    if not m:
        raise ConfigError(f"hardware clock {clock!r}: expected e.g. '3GHz'")
    hz = float(m.group(1)) * (1e9 if m.group(2) == "GHz" else 1e6)
    return float(round(1e12 / hz))


def finish_trace(raw: Trace, period_ps: int, max_dumps: int | None) -> Trace:
    """Drop the host stats and a partial last interval (gem5's exit dump); keep at most ``max_dumps``."""
    keep_aux = [i for i, n in enumerate(raw.aux_names) if n not in HOST_STATS and not _ff_stat(n)]
    dropped = list(raw.meta.get("dropped", []))
    ff_ev = [j for j, e in enumerate(raw.events) if _ff_stat(e)]
    ff_aux = [n for n in raw.aux_names if _ff_stat(n)]
    if ff_ev or ff_aux:
        nonzero = int(np.count_nonzero(np.any(raw.counts[:, ff_ev] != 0, axis=0))) if ff_ev else 0
        dropped.append({"what": f"{len(ff_ev)} events and {len(ff_aux)} aux values of the fast-forward CPU "
                        "(system.ff_cpu.*, and cache occupancy by its requestors ::ff_cpu.*)",
                        "why": "switched out in every interval; its counters are not the measured core's",
                        "nonzero_events": nonzero})
        keep_ev = [j for j, e in enumerate(raw.events) if not _ff_stat(e)]
        raw = Trace([raw.events[j] for j in keep_ev], raw.counts[:, keep_ev], raw.edges, raw.time_unit, raw.meta,
                    raw.aux_names, raw.aux)
    gone = [n for n in raw.aux_names if n in HOST_STATS]
    if gone:
        dropped.append({"what": ", ".join(gone), "why": "host machine and wall-clock stats: differ between "
                        "identical runs"})
    lengths = np.diff(raw.edges)
    n = raw.n_intervals
    if n and lengths[-1] < period_ps:
        dropped.append({"what": f"the last dump ({int(lengths[-1])} ticks)", "why": "partial interval written "
                        "when the simulation stopped"})
        n -= 1
    if max_dumps is not None:
        n = min(n, max_dumps)
    meta = dict(raw.meta)
    meta["dropped"] = dropped
    for key in ("stats_per_dump",):
        if key in meta:
            meta[key] = meta[key][:n]
    have = set(raw.events) | set(raw.aux_names)
    added = [e for e in standard_events() if e not in have]
    meta["zero_filled"] = {"events": len(added), "why": "in mpx/data/gem5/events.txt but printed in no dump "
                           "(gem5 omits zero nozero stats): zero in every interval"}
    counts = np.concatenate([raw.counts[:n], np.zeros((n, len(added)))], axis=1)
    return Trace(list(raw.events) + added, counts, raw.edges[: n + 1], raw.time_unit, meta,
                 [raw.aux_names[i] for i in keep_aux], raw.aux[:n, keep_aux])


def _ff_stat(name: str) -> bool:
    """A stat of the fast-forward CPU ``system.ff_cpu`` (or a per-requestor entry naming it)."""
    return name.startswith("system.ff_cpu.") or "::ff_cpu." in name


def standard_events() -> list[str]:
    """The names in `EVENTS`, in file order."""
    return [line.strip() for line in EVENTS.read_text().splitlines() if line.strip()]


class ProgressLine:
    """One plain line per tenth of ``max_dumps`` written (for logs, where no bar is drawn): dumps, the
    simulated time they cover and an ETA from the wall-clock rate so far (the rate of the measured phase:
    the clock starts at the first dump, after the fast-forward)."""

    STEPS = 10

    def __init__(self, max_dumps: int | None, period_ps: int, say: Callable[[str], None],
                 clock: Callable[[], float] | None = None) -> None:
        import time

        self.max_dumps, self.period_ps, self.say = max_dumps, period_ps, say
        self.clock = clock or time.monotonic
        self.first: tuple[float, int] | None = None
        self.next_step = 1

    def update(self, done: int) -> None:
        """``done``: dumps written so far, as estimated from the file's size (never the last one: "done" is
        said by `finish`, when gem5 has exited; dumps differ in size, and phases-250ms read 5,000 at 4,821)."""
        if not self.max_dumps or done <= 0:
            return
        done = min(done, self.max_dumps - 1)
        now = self.clock()
        if self.first is None:
            self.first = (now, done)
            return
        while self.next_step <= self.STEPS and done >= self.next_step * self.max_dumps / self.STEPS:
            self.next_step += 1
            t0, d0 = self.first
            rate = (done - d0) / (now - t0) if now > t0 and done > d0 else 0.0
            left = (self.max_dumps - done) / rate if rate > 0 else float("nan")
            eta = f"ETA {left / 60:.1f} min" if left == left else "ETA ?"
            self.say(f"{done:,} of {self.max_dumps:,} dumps, {done * self.period_ps / 1e9:.3f} ms simulated, {eta}")

    def finish(self) -> None:
        """gem5 has exited: the last line (the dumps are counted exactly when the trace is read; the program
        may also have ended before ``max_dumps``)."""
        if self.max_dumps:
            self.say(f"gem5 exited (at most {self.max_dumps:,} dumps, "
                     f"{self.max_dumps * self.period_ps / 1e9:.3f} ms simulated): done")


def _dumps_so_far(stats: Path) -> int:
    """How many dumps gem5 has appended to ``stats`` (its size over the first dump's: cheap, approximate)."""
    try:
        size = stats.stat().st_size
        with open(stats, "rb") as fh:
            head = fh.read(1 << 20)
    except OSError:
        return 0
    end = head.find(b"End Simulation Statistics")
    return int(size // (end + 60)) if end > 0 else 0


def _keep(stats: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.suffix == ".xz":
        with open(dest, "wb") as out:
            subprocess.run(["xz", "-T1", "-6", "-c", str(stats)], stdout=out, check=True)
    else:
        shutil.copyfile(stats, dest)
