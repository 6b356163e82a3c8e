"""Issue 29, item 6: Ctrl-C at a random point of ``mpx run --jobs 2``, ``mpx record``, ``mpx partition`` and
``mpx datasets rebuild`` ends with one line saying what was kept, exit 130, nothing left running and no
temporary file.

Each command runs in a session of its own with SIGINT's default disposition (a terminal user's; a
background shell hands jobs SIGINT ignored), with its progress bar forced on (``MPX_PROGRESS=1``): the
first bar on stderr says the command's work has begun. Then, after a random delay, SIGINT goes to the whole
process group, as a terminal's Ctrl-C does."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from mpx.recording.supervise import group_alive
from tests._tools import HAVE_VALGRIND, running

REPO = Path(__file__).resolve().parents[2]

needs_valgrind = pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind is not installed")


def interrupt(argv: list[str], tmp_path: Path, seed: int, max_delay: float, env: dict | None = None,
              token: str | None = None, timeout: float = 240, group: bool = True,
              ready: str | None = None) -> tuple[int, str, Path]:
    """Run ``mpx ARGV``, wait for its first progress output (matching the regular expression ``ready`` when
    given), sleep a random delay, send SIGINT to its group (a terminal's Ctrl-C; ``group=False``: to mpx
    alone, as ``kill -INT PID``); return (exit code, stderr, TMPDIR). Asserts nothing of the group and
    nothing holding ``token`` is left."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    e = dict(os.environ, TMPDIR=str(tmpdir), MPX_PROGRESS="1", PYTHONPATH=str(REPO), PYTHONFAULTHANDLER="1",
             **(env or {}))
    proc = subprocess.Popen([sys.executable, "-m", "mpx", *argv], cwd=tmp_path, env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err: list[bytes] = []
    started = threading.Event()

    def pump() -> None:
        while True:
            b = proc.stderr.read1(4096)
            if not b:
                break
            err.append(b)
            if ready is None or re.search(ready.encode(), b"".join(err)):
                started.set()

    threading.Thread(target=pump, daemon=True).start()
    out_thread = threading.Thread(target=proc.stdout.read, daemon=True)
    out_thread.start()
    assert started.wait(timeout), f"no progress output from mpx {argv[0]} in {timeout} s"
    time.sleep(random.Random(seed).uniform(0.0, max_delay))
    try:
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
    except ProcessLookupError:  # it finished first
        pass
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        tree = subprocess.run(["ps", "-o", "pid,ppid,stat,etime,args", "-g", str(proc.pid)], capture_output=True,
                              text=True).stdout
        os.kill(proc.pid, signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack on stderr, to say where it hung
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        os.killpg(proc.pid, signal.SIGKILL)  # never leave it running
        proc.wait()
        time.sleep(0.5)
        pytest.fail(f"mpx {argv[0]} still running {timeout} s after SIGINT; its group:\n{tree}\nits stderr's end:\n"
                    + b"".join(err).decode(errors="replace")[-6000:])
    deadline = time.monotonic() + 30
    while (group_alive(proc.pid) or (token and running(token))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_alive(proc.pid), f"processes of mpx {argv[0]}'s group still running after it exited"
    assert not (token and running(token)), f"the program of mpx {argv[0]} still runs"
    time.sleep(0.2)
    return code, b"".join(err).decode(errors="replace"), tmpdir


def last_line(stderr: str) -> str:
    """The last line of stderr without the progress bar's cursor moves (forced on into a pipe here)."""
    import re

    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", stderr).replace("\r", "\n").strip().splitlines()[-1].strip()


def no_temporary_files(*folders: Path) -> list[Path]:
    return [p for f in folders if f.exists() for p in f.rglob("*")
            if p.name.endswith((".tmp", "-journal")) or p.name.startswith("mpx-")]


@needs_valgrind
@pytest.mark.parametrize("seed", [1, 2])
def test_ctrl_c_during_mpx_record(tmp_path, seed):
    token = f"mpxint{uuid.uuid4().hex}"
    script = f": {token}; i=0; while [ $i -lt 10000000 ]; do i=$((i+1)); done"
    code, err, tmpdir = interrupt(["record", "-o", str(tmp_path / "out.npz"), "--", "/bin/sh", "-c", script],
                                  tmp_path, seed, 2.0, token=token)
    assert code == 130 and "Traceback" not in err, err[-2000:]
    assert last_line(err) == ("mpx record: interrupted; nothing was written: the program was stopped and its "
                              "temporary folder removed")
    assert not (tmp_path / "out.npz").exists() and not os.listdir(tmpdir)


@pytest.mark.parametrize("seed", [1, 2])
def test_ctrl_c_during_mpx_partition(tmp_path, shared, seed):
    hgr = shared("data", "hypergraphs", "ISPD98_ibm01.hgr")
    # from the first finished phase on: a Ctrl-C while numba loads or compiles the kernels (the first second)
    # ended in SIGSEGV in 2 of 42 trials (issue 29's report: llvmlite's callback), not fixed here
    # the whole partition takes about 1.8 s once its kernels are cached: the Ctrl-C comes within 0.8 s of the
    # first phases, while it still runs
    code, err, tmpdir = interrupt(["partition", str(hgr), "-k", "4"], tmp_path, seed, 0.8, ready=r"[1-9][0-9]* phases")
    assert code == 130 and "Traceback" not in err, err[-2000:]
    assert last_line(err) == "mpx partition: interrupted; nothing was written"
    assert not os.listdir(tmpdir) and not no_temporary_files(tmp_path)


@needs_valgrind
def test_ctrl_c_during_mpx_datasets_rebuild(tmp_path):
    token = f"mpxreb{uuid.uuid4().hex}"
    root = tmp_path / "datasets"
    (root / "traces").mkdir(parents=True)
    shutil_src = REPO / "datasets" / "generate.py"
    (root / "generate.py").write_bytes(shutil_src.read_bytes())
    recipe = {"steps": [], "program": ["/bin/sh", "-c", f": {token}; i=0; while [ $i -lt 10000000 ]; do i=$((i+1)); done"],
              "stdout": None, "stdin": None, "env": {}, "interval_bb": 20000,
              "cache": "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64", "extra_events": [], "ok_status": [0],
              "versions": {}}
    name = "t" + token[-8:]
    manifest = {"format": "mpx-datasets", "version": 1, "datasets": [
        {"name": name, "behaviour": "loop", "description": "a shell loop", "recipe": recipe}]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    before = (root / "manifest.json").read_bytes()
    code, err, tmpdir = interrupt(["datasets", "rebuild", name], tmp_path, 3, 2.0, env={"MPX_DATASETS": str(root)},
                                  token=token)
    assert code == 130 and "Traceback" not in err, err[-2000:]
    assert last_line(err) == ("mpx datasets: interrupted; datasets rebuilt before the interrupt are kept; the one "
                              "being rebuilt is unchanged")
    assert (root / "manifest.json").read_bytes() == before and not list((root / "traces").iterdir())
    assert not os.listdir(tmpdir) and not no_temporary_files(root)
    assert not Path("/tmp/mpx-datasets", name).exists()


CONFIG = """
[experiment]
name = "ctrlc"
[data]
datasets = ["all"]
[hardware]
pmu = "generic-N"
counters = 4
metrics = "callgrind"
[multiplex]
quantum_intervals = 1
seeds = [0, 1, 2, 3, 4, 5, 6, 7]
[sweep]
"multiplex.read_every" = [10, 25]
[scalers]
use = ["linear", "dcam", "tam"]
[schedulers]
use = ["perf", "round_robin"]
"""


@pytest.mark.slow
@pytest.mark.parametrize("seed, group", [(4, True), (6, False)])
def test_ctrl_c_during_mpx_run_with_two_jobs(tmp_path, seed, group):
    """Ctrl-C (the whole group) and ``kill -INT`` of mpx alone; issue 29 saw it ignored for 2.5-4 minutes
    (the runner's fix is the speed issue's): here it must end within a minute."""
    cfg = tmp_path / "ctrlc.toml"
    cfg.write_text(CONFIG)
    t0 = time.monotonic()
    code, err, tmpdir = interrupt(["run", str(cfg), "--out", str(tmp_path / "out"), "--jobs", "2"], tmp_path, seed,
                                  3.0, timeout=60, group=group)
    assert time.monotonic() - t0 < 60
    assert code == 130 and "Traceback" not in err, err[-2000:]
    line = last_line(err)  # 'mpx run: interrupted (k of n cells finished and stored ...); the finished cells are kept'
    assert line.startswith("mpx run: interrupted") and "the finished cells are kept" in line, line
    assert not os.listdir(tmpdir) and not no_temporary_files(tmp_path / "out")


def test_a_ctrl_c_wrapped_by_numba_is_recognised():
    """A SIGINT inside a numba kernel surfaces as SystemError(s) whose cause is the KeyboardInterrupt (one to
    several levels: ``_numba_unpickle`` wraps it again); anything else is not an interrupt."""
    from mpx.cli import interrupted

    def chain(n: int, root: BaseException) -> BaseException:
        e = root
        for _ in range(n):
            s = SystemError("CPUDispatcher(...) returned a result with an exception set")
            s.__cause__ = e
            e = s
        return e

    assert [interrupted(chain(n, KeyboardInterrupt())) for n in (1, 2, 5)] == [True, True, True]
    assert not interrupted(chain(2, ValueError())) and not interrupted(ValueError()) and not interrupted(SystemError())


def test_a_ctrl_c_in_an_extension_modules_initialisation_is_recognised():
    """pybind11 turns an exception raised while its module initialises into ``ImportError("initialization
    failed")`` with the exception as cause (scipy's HiGHS under ``mpx report``: a CI run); a plain ImportError
    is not an interrupt."""
    from mpx.cli import interrupted

    wrapped = ImportError("initialization failed")
    wrapped.__cause__ = KeyboardInterrupt()
    missing = ImportError("No module named 'kahypar'")
    missing.__context__ = ValueError()
    assert interrupted(wrapped) and not interrupted(missing) and not interrupted(ImportError("initialization failed"))
    converted = RuntimeError("stopped")  # raise RuntimeError(...) from a KeyboardInterrupt, in a library
    converted.__cause__ = KeyboardInterrupt()
    cleanup = RuntimeError("a bug in an except KeyboardInterrupt: block")  # context only: a bug, shown as one
    cleanup.__context__ = KeyboardInterrupt()
    assert interrupted(converted) and not interrupted(cleanup) and not interrupted(KeyboardInterrupt().__context__)


def test_a_ctrl_c_inside_a_callback_of_c_code_is_noted_not_raised():
    """A SIGINT landing in llvmlite's object-cache callback (numba loading a kernel) or the import system's weakref
    callback is noted for later: raised there it is printed as "Exception ignored" with a traceback (found once in
    50 Ctrl-Cs of `mpx partition`'s first seconds, in a full suite run)."""
    import types

    from mpx.cli import in_a_callback

    def frame(name: str, path: str, back: object = None) -> object:
        return types.SimpleNamespace(f_code=types.SimpleNamespace(co_name=name, co_filename=path), f_back=back)

    notify = frame("_raw_object_cache_notify", "/venv/site-packages/llvmlite/binding/executionengine.py")
    assert in_a_callback(notify)
    assert in_a_callback(frame("save_overload", "/venv/site-packages/numba/core/caching.py", notify))
    assert in_a_callback(frame("cb", "<frozen importlib._bootstrap>"))
    assert not in_a_callback(frame("run", "/repo/mpx/cli/partition.py")) and not in_a_callback(None)


def test_a_ctrl_c_in_a_callback_not_listed_is_noted_not_printed(capsys, monkeypatch):
    """Callbacks `CALLBACKS` does not list (here a ``__del__``) report their exception through
    ``sys.unraisablehook``: a KeyboardInterrupt there is noted for the command (no "Exception ignored" traceback);
    any other error is still printed, unless a Ctrl-C came first."""
    import gc

    from mpx.cli import note_unraisable_interrupts
    from mpx.util.progress import interrupt_requested, request_interrupt

    class Raises:
        def __init__(self, exc: BaseException) -> None:
            self.exc = exc

        def __del__(self) -> None:
            raise self.exc

    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    request_interrupt(False)
    note_unraisable_interrupts()
    try:
        Raises(KeyboardInterrupt())
        gc.collect()
        assert interrupt_requested() and "Exception ignored" not in capsys.readouterr().err
        request_interrupt(False)
        Raises(ValueError("a real bug"))
        gc.collect()
        err = capsys.readouterr().err
        assert not interrupt_requested() and "Exception ignored" in err and "a real bug" in err
        request_interrupt()  # after a Ctrl-C: a half-built object's destructor failing is not shown
        Raises(AttributeError("'PassBuilder' object has no attribute '_as_parameter_'"))
        gc.collect()
        assert "Exception ignored" not in capsys.readouterr().err
    finally:
        request_interrupt(False)


def test_an_interrupted_command_is_noted_as_such_and_an_in_process_caller_gets_a_clean_note(monkeypatch, capsys):
    """The pool drops its note of a Ctrl-C when it raises (`interrupts_deferred`); the command's one line notes it
    again, so the unraisable hook keeps quiet through the exit. A caller of ``main`` in Python gets its hook back and
    no note (its next progress bar would raise)."""
    import mpx.cli.report as report
    from mpx.cli import main
    from mpx.util.progress import interrupt_requested

    import mpx.cli as cli

    seen = []

    def interrupted_run(args: object) -> int:
        raise KeyboardInterrupt("3 of 9 cells")  # as the pool raises it: its note already dropped

    original = cli._interrupted_line  # wrapped, to see the note while the line is printed

    def line(command: str, detail: str = "") -> int:
        code = original(command, detail)
        seen.append(interrupt_requested())
        return code

    monkeypatch.setattr(report, "run", interrupted_run)
    monkeypatch.setattr(cli, "_interrupted_line", line)
    hook = sys.unraisablehook
    assert main(["report", "nowhere"]) == 130 and seen == [True]
    assert not interrupt_requested() and sys.unraisablehook is hook
    assert "mpx report: interrupted (3 of 9 cells)" in capsys.readouterr().err
