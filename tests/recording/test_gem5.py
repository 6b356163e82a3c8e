"""`mpx record --simulator gem5` (mpx.recording.gem5): options, errors, and — where a gem5 binary is available
($MPX_GEM5 or gem5.fast on PATH) — a short real recording, checked for determinism."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.recording.callgrind import RecordError
from mpx.recording.gem5 import CONFIG, HARDWARE, ProgressLine, find_gem5, parse_period, record_gem5
from tests._tools import have_gem5


def cli(argv: list[str]) -> int:
    from mpx.cli import main

    return main(argv)


def test_period_parsing():
    assert parse_period("5us") == 5_000_000
    assert parse_period("2.5us") == 2_500_000
    assert parse_period("500ns") == 500_000
    assert parse_period("1ms") == 1_000_000_000
    assert parse_period("750000") == 750_000
    for bad in ("5 parsecs", "0.5ps", "10ns", ""):
        with pytest.raises(ConfigError):
            parse_period(bad)


def test_progress_line_gives_simulated_time_and_an_eta():
    """A recording's log (no terminal, no bar) gets one line per tenth of the dumps: how many, the simulated
    time they cover, and an ETA from the rate since the first dump (the fast-forward is not in it)."""
    now, lines = [100.0], []
    line = ProgressLine(1000, 50_000_000, lines.append, clock=lambda: now[0])
    line.update(0)
    line.update(1)  # the clock starts here
    for done in range(2, 1001):
        now[0] += 0.5
        line.update(done)
    assert len(lines) == 9  # the size estimate never says the last dump: gem5 may still be writing it
    assert lines[0].startswith("100 of 1,000 dumps, 5.000 ms simulated, ETA 7.5 min")
    assert "done" not in lines[-1] and lines[-1].startswith("900 of 1,000")
    line.finish()  # gem5 exited
    assert lines[-1] == "gem5 exited (at most 1,000 dumps, 50.000 ms simulated): done"
    quiet = []
    ProgressLine(None, 5_000_000, quiet.append).update(10)  # until exit: no total, no line
    assert quiet == []


def test_missing_gem5_says_how_to_build_it(monkeypatch, tmp_path: Path):
    monkeypatch.delenv("MPX_GEM5", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RecordError, match=r"gem5 not found.*datasets/gem5/build_gem5\.sh"):
        find_gem5()
    with pytest.raises(RecordError, match=r"--gem5 .* is not an executable file.*build_gem5\.sh"):
        find_gem5(tmp_path / "nope")
    monkeypatch.setenv("MPX_GEM5", str(tmp_path / "nope"))
    with pytest.raises(RecordError, match="MPX_GEM5"):
        find_gem5()


def test_cli_errors(monkeypatch, tmp_path: Path, capsys):
    monkeypatch.delenv("MPX_GEM5", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli(["record", "--simulator", "gem5", "-o", str(tmp_path / "t.npz"), "--", "/bin/true"]) != 0
    assert "build_gem5.sh" in capsys.readouterr().err
    assert cli(["record", "--simulator", "gem5", "--cache", "I1=32k,8,64 D1=32k,8,64 LL=8M,16,64",
                "-o", str(tmp_path / "t.npz"), "--", "/bin/true"]) != 0
    assert "callgrind options" in capsys.readouterr().err
    assert cli(["record", "--period", "5us", "-o", str(tmp_path / "t.npz"), "--", "/bin/true"]) != 0
    assert "only with --simulator gem5" in capsys.readouterr().err


def test_configuration_reads_every_hardware_parameter():
    """Each key of HARDWARE is used by the gem5 configuration script (no silent gem5 default)."""
    text = CONFIG.read_text()
    core = {k for k in HARDWARE["core"] if k != "branch_predictor"}
    assert "for key in (" in text and all(f'"{k}"' in text for k in core)
    for k in HARDWARE["core"]["branch_predictor"]:
        assert f'bp["{k}"]' in text
    for k in HARDWARE["caches"]["l2"]:
        assert f'spec["{k}"]' in text or f'"{k}"' in text
    for k in ("itb_entries", "dtb_entries", "clock", "cache_line_bytes", "l2_bus_width_bytes", "membus_width_bytes"):
        assert f'"{k}"' in text


@pytest.mark.skipif(not have_gem5(), reason="no gem5 binary ($MPX_GEM5 or gem5.fast on PATH); "
                    "build one with datasets/gem5/build_gem5.sh")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the test program")
def test_a_program_that_fails_is_not_recorded(tmp_path: Path):
    """gzip under gem5 exited with status 1 after 108,057 instructions and mpx record wrote its 23 dumps as a
    trace of gzip. A failed run is an error naming the status (the program's stderr in the message), unless
    the status is accepted (--ok-status), as for callgrind."""
    from mpx.recording.callgrind import RecordError

    src = tmp_path / "fail.c"
    src.write_text('#include <stdio.h>\nint main(void){volatile double s=0;for(long i=0;i<20000;i++)s+=i;'
                   'fprintf(stderr, "fail: no input\\n");return 3;}\n')
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "fail"), str(src)], check=True)
    with pytest.raises(RecordError, match="exited with status 3") as info:
        record_gem5(["./fail"], tmp_path / "t.npz", cwd=tmp_path, period_ps="2us", log=None)
    assert "fail: no input" in str(info.value) and not (tmp_path / "t.npz").exists()
    t = record_gem5(["./fail"], tmp_path / "t.npz", cwd=tmp_path, period_ps="2us", log=None, ok_status=(0, 3))
    assert t.meta["recording"]["exit"]["code"] == 3


@pytest.mark.skipif(not have_gem5(), reason="no gem5 binary ($MPX_GEM5 or gem5.fast on PATH); "
                    "build one with datasets/gem5/build_gem5.sh")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the test program")
def test_short_recording_is_deterministic(tmp_path: Path):
    src = tmp_path / "loop.c"
    src.write_text("int main(void){volatile double s=0;for(long i=0;i<3000000;i++)s+=i*0.5;return s<0;}\n")
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "loop"), str(src)], check=True)
    outs = []
    for k in range(2):
        out = tmp_path / f"t{k}.npz"
        t = record_gem5(["./loop"], out, cwd=tmp_path, max_dumps=6, period_ps="2us", log=None)
        outs.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert outs[0] == outs[1]
    assert t.n_intervals == 6 and t.time_unit == "ticks"
    np.testing.assert_array_equal(t.durations, 2_000_000)
    assert t.meta["hardware"] == HARDWARE and t.meta["recording"]["period_ps"] == 2_000_000
    assert t.meta["recording"]["exit"]["cause"] == "simulate() limit reached"
    assert (t["system.cpu.numCycles"] > 5000).all()
    assert str(tmp_path / "loop") == t.meta["recording"]["simulated_argv"][0]
    assert os.fspath(tmp_path) == t.meta["recording"]["cwd"]


@pytest.mark.skipif(not have_gem5(), reason="no gem5 binary ($MPX_GEM5 or gem5.fast on PATH); "
                    "build one with datasets/gem5/build_gem5.sh")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the test program")
def test_rebuild_a_gem5_recipe_adds_it_to_the_manifest(tmp_path: Path, monkeypatch):
    """`mpx datasets rebuild` on a recipe of gem5/recipes.json: records it, appends the manifest entry
    with the hardware, and a --check rebuild is byte-identical."""
    import json

    from mpx.datasets import shipped as ds

    root = tmp_path / "datasets"
    (root / "gem5").mkdir(parents=True)
    (root / "loop.c").write_text("int main(void){volatile long s=0;for(long i=0;i<9000000;i++)s+=i;return 0;}\n")
    recipe = {"simulator": "gem5", "steps": [{"copy": "loop.c"}, {"run": ["gcc", "-O2", "-o", "loop", "loop.c"]}],
              "program": ["./loop"], "period_ps": 2000000, "max_dumps": 4, "hardware": "default", "env": {},
              "stdin": None, "stdout": None, "versions": {"gcc": ["gcc", "--version"]}}
    (root / "gem5" / "recipes.json").write_text(json.dumps({"datasets": [
        {"name": "gem5-tiny", "behaviour": "loop", "description": "a counting loop", "recipe": recipe}]}))
    (root / "manifest.json").write_text(json.dumps({"format": "mpx-datasets", "version": 1, "datasets": []}))
    monkeypatch.setenv("MPX_DATASETS", str(root))
    monkeypatch.setattr(ds, "WORKDIR_ROOT", tmp_path / "work")
    assert ds.names(None) == []
    first = ds.rebuild("gem5-tiny", log=None)
    assert ds.names("gem5") == ["gem5-tiny"] and ds.names() == []
    e = ds.entry("gem5-tiny")
    assert e["trace"]["sha256"] == first.sha256 and e["trace"]["intervals"] == 4
    assert e["hardware"] == HARDWARE and e["recording"]["period_ps"] == 2000000
    assert "gem5_binary_sha256" in e["tools"] and e["tools"]["gem5"] == "24.0.0.1" and "valgrind" not in e["tools"]
    again = ds.rebuild("gem5-tiny", check=True, log=None)
    assert again.same and again.content_same


@pytest.mark.skipif(not have_gem5(), reason="no gem5 binary ($MPX_GEM5 or gem5.fast on PATH); "
                    "build one with datasets/gem5/build_gem5.sh")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the test program")
@pytest.mark.slow(seconds=32)
def test_a_killed_recording_resumes_from_its_checkpoint(tmp_path: Path):
    """A recording with a checkpoint folder is killed (SIGKILL of mpx) after the fast-forward; the same command
    again restarts from the checkpoint (the fast-forward is not run again) and writes the trace an
    uninterrupted recording with a fresh checkpoint writes, byte for byte."""
    import signal
    import sys
    import time

    src = tmp_path / "loop.c"
    src.write_text("int main(void){volatile double s=0;for(long i=0;i<30000000;i++)s+=i*0.5;return s<0;}\n")
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "loop"), str(src)], check=True)

    def command(out: str, folder: str) -> list[str]:
        return [sys.executable, "-m", "mpx", "record", "--simulator", "gem5", "--fast-forward", "2000000",
                "--warmup", "100000", "--period", "2us", "--max-dumps", "40", "--checkpoint-dir", folder,
                "-o", out, "--", "./loop"]

    env = {**os.environ, "MPX_GEM5": find_gem5(), "MPX_PROGRESS": "0"}
    victim = subprocess.Popen(command("killed.npz", "cpt"), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    key = tmp_path / "cpt" / "mpx-checkpoint.json"
    for _ in range(1200):  # at most 10 minutes on a busy machine; a count, not a clock, decides
        if key.exists() or victim.poll() is not None:
            break
        time.sleep(0.5)
    time.sleep(1.0)
    assert key.exists(), "the first run wrote no checkpoint"
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert not (tmp_path / "killed.npz").exists()
    resumed = subprocess.run(command("resumed.npz", "cpt"), cwd=tmp_path, env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from the checkpoint" in resumed.stdout + resumed.stderr
    fresh = subprocess.run(command("fresh.npz", "cpt2"), cwd=tmp_path, env=env, capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    digest = [hashlib.sha256((tmp_path / f).read_bytes()).hexdigest() for f in ("resumed.npz", "fresh.npz")]
    assert digest[0] == digest[1]
    assert not list(tmp_path.glob(".cpt.partial-*"))
    (tmp_path / "other.c").write_text("int main(void){volatile long s=0;for(long i=0;i<9000000;i++)s+=i;return 0;}\n")
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "other"), str(tmp_path / "other.c")], check=True)
    other = subprocess.run([*command("other.npz", "cpt")[:-1], "./other"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert other.returncode != 0 and "checkpoint of another recording (differs in argv, executable_sha256)" in (
        other.stderr + other.stdout)


def test_the_shared_gem5_is_unpacked_once_for_the_tests(tmp_path: Path, monkeypatch):
    """`tests._tools.unpack_shared_gem5`: what lets CI run the recording tests above with ../shared's gem5."""
    import lzma

    from tests._tools import unpack_shared_gem5

    shared = tmp_path / "shared"
    (shared / "tools" / "gem5").mkdir(parents=True)
    (shared / "tools" / "gem5" / "gem5.fast-X86-test.xz").write_bytes(lzma.compress(b"#!/bin/sh\necho gem5\n"))
    monkeypatch.delenv("MPX_GEM5", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    binary = unpack_shared_gem5(shared)
    assert binary == str(tmp_path / "cache" / "mpx" / "test-gem5" / "gem5.fast-X86-test")
    assert Path(binary).read_bytes() == b"#!/bin/sh\necho gem5\n" and os.access(binary, os.X_OK)
    assert unpack_shared_gem5(tmp_path / "nothing") is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_text("not a folder")
    Path(binary).unlink()
    assert unpack_shared_gem5(shared) is None  # the cache cannot be written: the recording tests skip
    monkeypatch.setenv("MPX_GEM5", binary.replace("test", "nope"))
    assert unpack_shared_gem5(shared) is None  # MPX_GEM5 set (even wrongly): the user's choice stands
