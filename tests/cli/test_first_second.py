"""Issue 40, item 8 (and SIGTERM, item 11): Ctrl-C in a command's first seconds printed a KeyboardInterrupt
traceback (`build_parser` imported every subcommand module before the interrupt handler existed); `mpx --version`
imported them all. Each command (`mpx run`, `partition`, `evaluate`, `report`, `trace info`) runs as ``python -m
mpx``; the clock starts when mpx's handlers are installed (read from /proc: what comes before is Python's start and
two module bodies that import nothing new, ``mpx`` and ``mpx.cli``, which no handler of mpx can cover; `main`'s
first statement installs them, inside its ``try``). SIGINT then goes to its process group at one of 10 points over
two seconds (`mpx run` at all ten, the others at five: `POINTS`). Every outcome is one line or a finished command, whatever the machine's load makes of the timing: under
load a point lands earlier in the command's work, never before the handler, and a command that finished first
passes. Waits are bounded by counts (polls), the whole by a kill after 120 s without an exit."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests._exp_helpers import write_config

REPO = Path(__file__).resolve().parents[2]


def launch(argv: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO), MPX_PROGRESS="0")
    return subprocess.Popen([sys.executable, "-m", "mpx", *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def handler_installed(pid: int) -> bool:
    """Whether mpx's handlers are in place: its SIGTERM handler is caught (Python leaves SIGTERM alone, mpx's
    `main` installs it right after its SIGINT handler)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone: it finished
    if re.search(r"^State:\s*Z", status, re.M):
        return True  # finished, not yet reaped (a zombie catches nothing: waiting for its handler would never end)
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def signal_after(proc: subprocess.Popen, delay: float, sig: int) -> tuple[int, list[str]]:
    """Wait until mpx's handlers are installed, sleep ``delay``, send ``sig`` to the group; the exit code and
    stderr's non-empty lines."""
    err: list[bytes] = []
    t = threading.Thread(target=lambda: err.extend(iter(proc.stderr.readline, b"")), daemon=True)
    t.start()
    polls = 0
    while not handler_installed(proc.pid):
        polls += 1
        if polls > 200_000:  # bounded by count (at least 0.5 ms each): a signal now would come before any handler
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail("mpx's handlers were not installed after 200,000 polls")
        time.sleep(0.0005)
    time.sleep(delay)
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:  # it finished first
        pass
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail("still running 120 s after the signal")
    t.join(10)
    return code, [ln for ln in b"".join(err).decode(errors="replace").splitlines() if ln.strip()]


pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("cfg"))


@pytest.fixture(scope="module")
def inputs(config, tmp_path_factory):
    """What the commands read: the config, a small store of it (`mpx report`) and a hypergraph (`mpx partition`)."""
    import random

    from mpx.cli import main

    tmp = tmp_path_factory.mktemp("inputs")
    assert main(["run", str(config), "--out", str(tmp / "store"), "--jobs", "1", "--no-progress", "--no-figures"]) == 0
    rng = random.Random(1)
    nets = [sorted(rng.sample(range(1, 3001), rng.randint(2, 5))) for _ in range(4000)]
    (tmp / "g.hgr").write_text("4000 3000\n" + "".join(" ".join(map(str, n)) + "\n" for n in nets))
    return {"config": config, "store": tmp / "store", "hgr": tmp / "g.hgr"}


#: the commands (argv from the inputs and a fresh folder): each runs a few seconds on an idle machine
COMMANDS = {
    "run": lambda i, tmp: ["run", str(i["config"]), "--out", str(tmp / "out"), "--jobs", "1", "--no-figures"],
    "partition": lambda i, tmp: ["partition", str(i["hgr"]), "-k", "4"],
    "evaluate": lambda i, tmp: ["evaluate", "xz", "--pmu", "generic-4", "--scaler", "linear"],
    "report": lambda i, tmp: ["report", str(i["store"])],
    "trace": lambda i, tmp: ["trace", "info", "xz"],
}


#: the points (0.2 s apart) each command is interrupted at: `mpx run` all ten, the others five each, alternately
#: the even and the odd ones, so that every point is taken by three commands (each launch costs a second of CPU)
POINTS = {"run": range(10), "partition": range(0, 10, 2), "evaluate": range(1, 10, 2), "report": range(0, 10, 2),
          "trace": range(1, 10, 2)}


@pytest.mark.parametrize("command, point", [(c, p) if c == "run" else pytest.param(c, p, marks=pytest.mark.slow)
                                            for c, points in POINTS.items() for p in points])
def test_ctrl_c_in_the_first_two_seconds_is_one_line(command, point, inputs, tmp_path):
    """Points 0.2 s apart (`POINTS`): module import, argument parsing, the library's imports, the first work."""
    proc = launch(COMMANDS[command](inputs, tmp_path), tmp_path)
    code, lines = signal_after(proc, 0.2 * point, signal.SIGINT)
    text = "\n".join(lines)
    assert "Traceback" not in text and "Exception ignored" not in text, text[-3000:]
    if code == 0:  # it finished before the signal
        return
    assert code == 130, text[-3000:]
    assert len(lines) == 1 and re.match(rf"mpx {command}: interrupted\b", lines[0]), lines


def test_sigterm_is_one_line_and_the_run_is_marked_interrupted(config, tmp_path):
    """A run ended by SIGTERM printed nothing and `mpx report --runs` called it "running"."""
    proc = launch(["run", str(config), "--out", str(tmp_path / "out"), "--jobs", "1", "--no-figures"], tmp_path)
    import sqlite3

    store = tmp_path / "out" / "results.sqlite"

    def runs() -> list:
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as con:
                return con.execute("SELECT status FROM runs").fetchall()
        except sqlite3.Error:
            return []

    polls = 0
    while runs() != [("running",)] and proc.poll() is None and polls < 20_000:  # until the run has begun
        polls += 1
        time.sleep(0.005)
    code, lines = signal_after(proc, 0.0, signal.SIGTERM)
    if code == 0:
        pytest.skip("the run finished before SIGTERM (no interrupted run to check)")
    assert code == 143 and len(lines) == 1 and lines[0].startswith("mpx run: terminated (SIGTERM)"), lines
    assert runs() == [("interrupted",)]


def test_version_imports_no_subcommand():
    code = ("import sys; from mpx.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith(('mpx.cli.', 'tqdm', 'numpy')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert out.stdout.splitlines() == ["mpx 0.1.0", ""] or out.stdout.strip() == "mpx 0.1.0", out.stdout


def test_a_command_imports_only_its_module():
    code = ("import sys; from mpx.cli import main\ntry:\n    main(['report', '--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in sys.modules if m.startswith('mpx.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert out.stdout.splitlines()[-1] == "['mpx.cli.report']"
