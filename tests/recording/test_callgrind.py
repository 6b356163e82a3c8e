"""`mpx record`: configuration parsing, program resolution, error paths, and small real recordings."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.recording.callgrind import (
    DEFAULT_CACHE,
    EXTRA_EVENTS,
    RecordError,
    parse_cache,
    parse_extra_events,
    record,
    resolve_program,
)
from mpx.trace import Trace

HAVE_VALGRIND = shutil.which("valgrind") is not None
needs_valgrind = pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind is not installed")
REPO = Path(__file__).resolve().parents[2]


def cli(argv: list[str]) -> int:
    """Run ``mpx record ...`` exactly as the console command does."""
    from mpx.cli import main

    return main(argv)


def script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# -- configuration ----------------------------------------------------------------------------------


def test_parse_cache_needs_all_three_levels_and_valid_geometry():
    g = parse_cache("I1=32k,8,64 D1=32768,8,64; LL=8M,16,64")
    assert g == DEFAULT_CACHE
    assert g.options() == ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]
    with pytest.raises(ConfigError, match="LL missing"):
        parse_cache("I1=32k,8,64 D1=32k,8,64")
    with pytest.raises(ConfigError, match="power of two"):
        parse_cache("I1=32k,8,64 D1=32k,8,64 LL=6M,16,64")  # 6144 sets
    with pytest.raises(ConfigError, match="line size"):
        parse_cache("I1=32k,8,48 D1=32k,8,64 LL=8M,16,64")
    with pytest.raises(ConfigError, match="SIZE,ASSOC,LINE"):
        parse_cache("I1=32k,8 D1=32k,8,64 LL=8M,16,64")


def test_parse_extra_events():
    assert parse_extra_events("default") == ("bus", "systime", "wb")
    assert parse_extra_events("none") == ()
    assert parse_extra_events("wb,bus") == ("wb", "bus")
    with pytest.raises(ConfigError, match="cannot be combined"):
        parse_extra_events("cacheuse,wb")
    with pytest.raises(ConfigError, match="unknown"):
        parse_extra_events("bus,cycles")
    # every dropped event is documented with a reason
    assert all(why for g in EXTRA_EVENTS.values() for why in g.dropped.values())


# -- program resolution -----------------------------------------------------------------------------


def test_elf_programs_resolve_to_absolute_paths_and_relative_paths_stay(tmp_path: Path):
    p = resolve_program(["true"], path_env="/usr/bin:/bin")
    assert os.path.isabs(p.argv[0]) and open(p.argv[0], "rb").read(4) == b"\x7fELF"
    shutil.copy(p.argv[0], tmp_path / "mytrue")
    assert resolve_program(["./mytrue", "x"], cwd=tmp_path).argv == ["./mytrue", "x"]
    with pytest.raises(RecordError, match="not found"):
        resolve_program(["./mytrue"], cwd=tmp_path / "elsewhere")


def test_shell_script_is_refused_unless_allowed(tmp_path: Path):
    s = script(tmp_path / "wrapper", "#!/bin/sh\nexec gzip \"$@\"\n")
    with pytest.raises(RecordError, match="shell script"):
        resolve_program([str(s), "-c"])
    assert resolve_program([str(s), "-c"], allow_script=True).argv == [str(s), "-c"]


def test_version_manager_shim_is_resolved(tmp_path: Path):
    """A pyenv-style shim (shell script exec'ing '<root>/libexec/pyenv exec') is replaced by the
    binary '<root>/libexec/pyenv which NAME' names."""
    target = shutil.which("true")
    (tmp_path / "libexec").mkdir()
    script(tmp_path / "libexec" / "pyenv", f"#!/bin/sh\n[ \"$1\" = which ] && echo {target}\n")
    (tmp_path / "shims").mkdir()
    shim = script(tmp_path / "shims" / "python3",
                  f'#!/usr/bin/env bash\nset -e\nprogram="${{0##*/}}"\nexec "{tmp_path}/libexec/pyenv" exec "$program" "$@"\n')
    p = resolve_program(["python3", "-c", "pass"], path_env=str(shim.parent))
    assert p.argv == [target, "-c", "pass"]
    assert "shim" in p.notes[0]


def test_hashbang_script_runs_under_its_real_interpreter(tmp_path: Path):
    if not os.path.exists("/usr/bin/perl"):
        pytest.skip("perl not installed")
    s = script(tmp_path / "hello.pl", "#!/usr/bin/env perl -w\nprint 1;\n")
    p = resolve_program([str(s), "arg"], path_env="/usr/bin:/bin")
    assert p.argv == ["/usr/bin/perl", "-w", str(s), "arg"]
    assert "#! script" in p.notes[0]


# -- error paths ------------------------------------------------------------------------------------


def test_missing_valgrind_is_a_clear_error(monkeypatch, tmp_path: Path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no valgrind on PATH
    with pytest.raises(RecordError, match="valgrind not found on PATH"):
        record(["/bin/true"], tmp_path / "t.npz", log=None)
    assert cli(["record", "-o", str(tmp_path / "t.npz"), "--", "/bin/true"]) == 1
    err = capsys.readouterr().err
    assert "valgrind not found" in err and "Traceback" not in err


def test_cli_without_program(tmp_path: Path, capsys):
    assert cli(["record", "-o", str(tmp_path / "t.npz")]) == 1
    assert "no program given" in capsys.readouterr().err


@needs_valgrind
def test_failing_program_reports_status_and_stderr(tmp_path: Path):
    with pytest.raises(RecordError) as exc:
        record(["/bin/sh", "-c", "echo something broke >&2; exit 3"], tmp_path / "t.npz", interval_bb=10_000,
               log=None)
    msg = str(exc.value)
    assert "exit status 3" in msg and "something broke" in msg
    assert not (tmp_path / "t.npz").exists()


@needs_valgrind
def test_no_dumps_is_a_clear_error(tmp_path: Path):
    # SIGKILL from outside (an un-traced child process) before the first dump: callgrind never writes
    with pytest.raises(RecordError, match="no callgrind dumps"):
        record(["/bin/sh", "-c", "/bin/kill -9 $$; sleep 1"], tmp_path / "t.npz", ok_status=(-9, 137),
               interval_bb=1_000_000, log=None)


@needs_valgrind
def test_killed_run_with_some_dumps_is_refused(tmp_path: Path):
    # parts were dumped, but the run never reached its end-of-run totals: refuse, do not truncate silently
    prog = "i=0; while [ $i -lt 500 ]; do i=$((i+1)); done; /bin/kill -9 $$; sleep 1"
    with pytest.raises(RecordError, match="did not finish normally"):
        record(["/bin/sh", "-c", prog], tmp_path / "t.npz", ok_status=(-9, 137), interval_bb=10_000, log=None)


# -- real recordings --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("rec")
    subprocess.run([sys.executable, str(REPO / "datasets" / "generate.py"), "text", "--seed", "9", "--bytes", "30000",
                    "-o", str(d / "in.txt")], check=True)
    return d


@needs_valgrind
def test_recording_is_reproducible_and_meta_is_deterministic(workdir: Path, tmp_path: Path):
    lines: list[str] = []
    kw = dict(interval_bb=20_000, cwd=workdir, stdout="out.gz", log=lines.append)
    a = record(["gzip", "-6", "-c", "in.txt"], tmp_path / "a.npz", **kw)
    b = record(["gzip", "-6", "-c", "in.txt"], tmp_path / "b.npz", **kw)
    digest = [hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in ("a.npz", "b.npz")]
    assert digest[0] == digest[1]
    assert Trace.load(tmp_path / "a.npz") == a == b
    # the default geometry is announced and recorded as such
    assert any("cache geometry (default" in ln for ln in lines)
    assert a.meta["config"]["cache_source"] == "default" and a.meta["config"]["I1"]["size_bytes"] == 32768
    # 13 basic events + Ge + sysCount + 3 dirty-miss events; sysTime/sysCpuTime dropped with a reason
    assert len(a.events) == 18 and {"Ge", "sysCount", "ILdmr", "DLdmr", "DLdmw"} <= set(a.events)
    assert {d["what"] for d in a.meta["dropped"]} == {"sysTime", "sysCpuTime"}
    text = json.dumps(a.meta)
    assert "mpx-record-" not in text and str(tmp_path) not in text and "pid" not in a.meta
    assert a.meta["env"] == {"LC_ALL": "C", "PATH": "/usr/local/bin:/usr/bin:/bin"}
    assert a.meta["cwd"] == str(workdir) and a.meta["command"][1:] == ["-6", "-c", "in.txt"]
    assert a.n_intervals >= 5 and np.all(a["bb_start"][1:] == a["bb_stop"][:-1])
    assert (workdir / "out.gz").stat().st_size > 0


@needs_valgrind
def test_cli_records_with_given_geometry_and_no_extra_events(workdir: Path, tmp_path: Path, capsys):
    out = tmp_path / "c.npz"
    rc = cli(["record", "-o", str(out), "--interval-bb", "20000", "--cache", "I1=16k,4,64 D1=16k,4,64 LL=2M,8,64",
              "--extra-events", "none", "--cwd", str(workdir), "--", "gzip", "-1", "-c", "in.txt"])
    assert rc == 0
    t = Trace.load(out)
    assert t.events == ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")
    assert t.meta["config"]["LL"] == {"size_bytes": 2 << 20, "line_bytes": 64, "assoc": 8}
    assert t.meta["config"]["cache_source"] == "given"
    assert "wrote" in capsys.readouterr().out


@needs_valgrind
def test_accepted_nonzero_status(tmp_path: Path):
    t = record(["/bin/false"], None, ok_status=(1,), interval_bb=10_000, cwd=tmp_path, log=None)
    assert t.meta["exit_status"] == 1 and t.n_intervals >= 1


@needs_valgrind
def test_record_runs_makes_runs_that_differ_and_says_how(workdir: Path, tmp_path: Path):
    """``mpx record --runs``: each run with ASLR on and a 64-byte longer environment (the stack moves:
    measured in `mpx.recording.callgrind`'s docstring); the set says what varied per run."""
    from mpx.recording.runset import RunSet

    out = tmp_path / "gz.runs"
    rc = cli(["record", "--runs", "2", "--jobs", "2", "-o", str(out), "--interval-bb", "20000", "--cwd",
              str(workdir), "--stdout", "o.gz", "--", "gzip", "-6", "-c", "in.txt"])
    assert rc == 0
    rs = RunSet.load(out)
    assert len(rs) == 2 and [v["env_pad_bytes"] for v in rs.varied] == [0, 64]
    assert all(v["aslr"] == "enabled" for v in rs.varied)
    assert [t.meta["config"]["aslr"] for t in rs.traces] == ["enabled", "enabled"]
    assert rs.traces[1].meta["env"]["MPX_RUN_PAD"] == "x" * 64
    # each run wrote its own stdout file: parallel runs never share one
    assert (workdir / "o.run00.gz").stat().st_size > 0 and (workdir / "o.run01.gz").stat().st_size > 0


def test_record_runs_options_need_runs(tmp_path: Path, capsys):
    assert cli(["record", "-o", str(tmp_path / "x.npz"), "--seed-env", "PYTHONHASHSEED", "--", "/bin/true"]) != 0
    assert "only with --runs" in capsys.readouterr().err


@needs_valgrind
def test_a_one_interval_recording_is_said(tmp_path: Path, capsys):
    """Issue 27: a program shorter than one dump period (or mpx options written after the program, taken
    as its arguments) gave a 1-interval trace without a word."""
    from mpx.cli import main

    out = tmp_path / "t.npz"
    assert main(["record", "-o", str(out), "/bin/true", "--interval-bb", "1000"]) == 0  # no --: options are /bin/true's
    err = capsys.readouterr().err
    assert f"warning: {out} holds 1 interval: the program ended within one dump period" in err
    assert "mpx options after PROGRAM are the program's arguments" in err
    assert main(["record", "-o", str(out), "--", "/bin/true"]) == 0
    err = capsys.readouterr().err
    assert "holds 1 interval" in err and "mpx options after PROGRAM" not in err
