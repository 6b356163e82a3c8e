"""The shipped datasets: every one loads, matches its manifest entry, and is what the recipe says."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mpx.datasets import shipped as ds
from mpx.datasets.specs import spec_head
from mpx.errors import FormatError
from mpx.recording.callgrind import parse_cache
from mpx.trace_file import format_version

NAMES = ds.names(None)
CALLGRIND = [n for n in NAMES if not ds.is_gem5(ds.entry(n)["recipe"])]
GEM5 = [n for n in NAMES if ds.is_gem5(ds.entry(n)["recipe"])]
MAIN = [n for n in NAMES if ds.collection(ds.entry(n)) == ds.MAIN]  # not the gem5-long / callgrind-grains sets


def test_names_default_to_the_callgrind_datasets():
    assert ds.names() == ds.names("callgrind") == [n for n in CALLGRIND if n in MAIN]
    assert ds.names("gem5") == [n for n in GEM5 if n in MAIN]
    assert ds.names("callgrind", None) == CALLGRIND and ds.names("gem5", None) == GEM5
    with pytest.raises(ValueError):
        ds.names("qemu")
BASIC = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")
HAVE_VALGRIND = shutil.which("valgrind") is not None


def cli(argv: list[str]) -> int:
    """Run ``mpx ...`` exactly as the console command does."""
    from mpx.cli import main

    return main(argv)


def test_at_least_eight_recorded_datasets_of_different_behaviour():
    entries = ds.manifest()["datasets"]
    for simulator in (CALLGRIND, GEM5):
        mine = [e for e in entries if e["name"] in simulator and e["name"] in MAIN]
        assert len({e["behaviour"] for e in mine}) == len(mine)
    assert len(CALLGRIND) >= 8
    assert all(e.get("trace") for e in entries), "every manifest entry must be recorded"
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("name", CALLGRIND)
def test_dataset_matches_its_manifest_entry(name: str):
    """(How fast each loads is benchmarks/bench_datasets.py's to say: a wall-clock bound here would depend on the
    machine's load.)"""
    e = ds.entry(name)
    trace = ds.load(name)  # checks the sha256 against the manifest
    info = e["trace"]
    assert hashlib.sha256(ds.path(name).read_bytes()).hexdigest() == info["sha256"]
    assert list(trace.events) == info["events"]
    assert trace.n_intervals == info["intervals"] >= (1000 if name in MAIN else 100)  # 3M-bb grains: ~150
    assert trace.checksum() == info["content_sha256"]
    assert trace.time_unit == info["time_unit"] == "instructions"
    head = spec_head({"kind": "shipped", "name": name})  # without the counts: the same (a cell key holds it)
    assert (head.checksum, head.events, head.time_unit, head.meta) == (
        trace.checksum(), trace.events, trace.time_unit, trace.meta)
    np.testing.assert_array_equal(head.edges, trace.edges)

    # what the recipe asked for is what was recorded
    recipe = e["recipe"]
    m = trace.meta
    assert m["workload"] == name and m["source"] == "mpx record"
    assert m["command"][1:] == recipe["program"][1:]
    assert m["config"]["dump_every_bb"] == recipe["interval_bb"]
    cache = parse_cache(recipe["cache"]).as_dict()
    assert {k: m["config"][k] for k in ("I1", "D1", "LL")} == cache
    assert m["config"]["extra_events"] == recipe["extra_events"]
    assert "valgrind-" + m["valgrind_version"] == e["tools"]["valgrind"]
    assert "mpx-record-" not in json.dumps(m) and "pid" not in m

    # more than the basic 13 events; the non-deterministic ones dropped with a reason
    assert set(BASIC) < set(trace.events) and len(trace.events) > 13
    assert {d["what"] for d in m["dropped"]} == {"sysTime", "sysCpuTime"}

    # the time axis is the running instruction count, block ranges are contiguous
    np.testing.assert_array_equal(np.diff(trace.edges), trace["Ir"])
    assert np.all(trace["bb_start"][1:] == trace["bb_stop"][:-1])
    assert np.all(trace["bb_stop"][:-1] - trace["bb_start"][:-1] >= recipe["interval_bb"])


def test_verify_reports_every_dataset_ok():
    checks = ds.verify()
    assert [c.name for c in checks] == NAMES and all(c.ok for c in checks)


def test_a_modified_file_is_detected(tmp_path: Path, monkeypatch):
    name = NAMES[0]
    (tmp_path / "traces").mkdir()
    shutil.copy(ds.manifest_path(), tmp_path / "manifest.json")
    data = bytearray(ds.path(name).read_bytes())
    monkeypatch.setenv("MPX_DATASETS", str(tmp_path))
    target = ds.path(name)
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="differs from the manifest"):
        ds.load(name)
    checks = {c.name: c for c in ds.verify()}
    assert not checks[name].ok and checks[name].message == "sha256 differs"
    assert not checks[NAMES[1]].ok and checks[NAMES[1]].actual is None  # not copied: missing


def test_unknown_name():
    with pytest.raises(KeyError, match="known:"):
        ds.load("no-such-dataset")


def test_shipped_traces_are_small():
    total = sum(ds.path(n).stat().st_size for n in CALLGRIND)
    assert total < 5 * 1024 * 1024
    # issue 36: the steady-state collection grows to 12+ programs and two 250 ms recordings (about 2 MB per
    # 50 ms trace, ~10 MB per 250 ms one) within a checkout kept under 150 MB; the gem5 traces get 60 MB of it
    assert sum(ds.path(n).stat().st_size for n in GEM5) <= 60 * 1024 * 1024


@pytest.mark.parametrize("name,input_file", [("cc1", "prog.c"), ("sqlite", "workload.sql")])
def test_generators_reproduce_the_recorded_inputs(tmp_path: Path, name: str, input_file: str):
    """The seeded generator gives byte-identical inputs to those the shipped trace was recorded on."""
    step = next(s for s in ds.entry(name)["recipe"]["steps"] if "generate" in s)
    subprocess.run([sys.executable, str(ds.root() / "generate.py"), *step["generate"]], cwd=tmp_path, check=True)
    digest = hashlib.sha256((tmp_path / input_file).read_bytes()).hexdigest()
    assert digest == ds.entry(name)["inputs"][input_file]["sha256"]


def test_cli_list_show_verify(capsys):
    assert cli(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    for name in NAMES:
        assert name in out
    assert f"{ds.entry(NAMES[0])['trace']['intervals']:,}" in out
    assert cli(["datasets", "show", "python"]) == 0
    out = capsys.readouterr().out
    assert "intervals:" in out and "time span" in out and "sysCount" in out and "Ir" in out
    assert cli(["datasets", "verify"]) == 0
    assert f"{len(NAMES)} of {len(NAMES)} datasets match" in capsys.readouterr().out
    if GEM5:
        assert cli(["datasets", "show", GEM5[0]]) == 0
        out = capsys.readouterr().out
        assert "recorded with gem5" in out and "machine: X86O3CPU" in out
        # ~1,500 stats: a summary fitting a terminal, every event with --all (issue 27)
        assert "largest totals" in out and "(--all for every event)" in out and len(out.splitlines()) < 50
        assert max(len(line) for line in out.splitlines()) <= 120
        assert cli(["datasets", "show", GEM5[0], "--all"]) == 0
        out = capsys.readouterr().out
        assert "system.cpu.numCycles" in out and len(out.splitlines()) > 1000


@pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind is not installed")
def test_rebuild_and_check_on_a_tiny_recipe(tmp_path: Path, monkeypatch, capsys):
    """The rebuild machinery end to end, on a recipe small enough for a test (gzip, 40 KB)."""
    root = tmp_path / "datasets"
    root.mkdir()
    shutil.copy(ds.root() / "generate.py", root / "generate.py")
    recipe = {
        "steps": [{"generate": ["text", "--seed", "1", "--bytes", "40000", "-o", "text.txt"]}],
        "program": ["/bin/gzip", "-6", "-c", "text.txt"], "stdout": "text.txt.gz", "stdin": None, "env": {},
        "interval_bb": 20000, "cache": "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64",
        "extra_events": ["bus", "systime", "wb"], "ok_status": [0], "versions": {"gzip": ["/bin/gzip", "--version"]},
    }
    manifest = {"format": "mpx-datasets", "version": 1, "datasets": [
        {"name": "tiny", "behaviour": "compression", "description": "gzip on 40 KB", "recipe": recipe}]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("MPX_DATASETS", str(root))
    monkeypatch.setattr(ds, "WORKDIR_ROOT", tmp_path / "work")

    first = ds.rebuild("tiny", log=None)
    entry = ds.entry("tiny")
    assert entry["trace"]["sha256"] == first.sha256 and ds.path("tiny").exists()
    subprocess.run([sys.executable, str(root / "generate.py"), "text", "--seed", "1", "--bytes", "40000", "-o",
                    str(tmp_path / "text.txt")], check=True)
    assert entry["inputs"]["text.txt"]["sha256"] == hashlib.sha256((tmp_path / "text.txt").read_bytes()).hexdigest()
    assert "gzip" in entry["tools"] and entry["tools"]["valgrind"].startswith("valgrind-")
    assert ds.load("tiny").n_intervals == entry["trace"]["intervals"]
    assert not (tmp_path / "work" / "tiny").exists()  # the working directory is cleaned up

    again = ds.rebuild("tiny", check=True, log=None)
    assert again.same and again.content_same and not again.tools_differ and not again.inputs_differ

    # a file shipped in an older format version is checked byte for byte in that version
    ds.load("tiny").save(ds.path("tiny"), version=1)
    data = json.loads((root / "manifest.json").read_text())
    data["datasets"][0]["trace"]["sha256"] = hashlib.sha256(ds.path("tiny").read_bytes()).hexdigest()
    (root / "manifest.json").write_text(json.dumps(data))
    assert ds.rebuild("tiny", check=True, log=None).same and format_version(ds.path("tiny")) == 1

    # a manifest from other tools: --check says it differs and names the tool
    data = json.loads((root / "manifest.json").read_text())
    data["datasets"][0]["tools"]["gzip"] = "gzip 0.1"
    data["datasets"][0]["trace"]["sha256"] = "0" * 64
    (root / "manifest.json").write_text(json.dumps(data))
    assert cli(["datasets", "rebuild", "tiny", "--check"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "gzip 0.1" in out and "counts/edges/names: identical" in out
    kept = tmp_path / "work" / "tiny.rebuilt.npz"  # kept, and said where (issue 27); the shipped file unchanged
    assert f"the rebuilt trace is kept: {kept}" in out and ds.Trace.load(kept) == ds.Trace.load(ds.path("tiny"))
    assert again.kept is None and not (tmp_path / "work" / "tiny.npz.new").exists()


def test_trace_difference_says_how_much():
    import numpy as np

    from mpx.trace import Trace

    old = Trace(["a", "b", "c"], np.array([[10.0, 0, 5], [20, 1, 5]]), [0.0, 1, 2], "instructions")
    new = Trace(["a", "b", "d"], np.array([[10.0, 0, 5], [25, 1, 5]]), [0.0, 1, 2], "instructions")
    text = ds.trace_difference(old, new)
    assert "1 event(s) missing ['c'], 1 new ['d']" in text
    assert "1 of 4 cells differ; 1 of 2 event totals, at most 16.7 % (a: 30 -> 35)" in text
    assert "edges differ" in ds.trace_difference(old, Trace(["a"], np.ones((1, 1)), [0.0, 2], "instructions"))


def test_differing_meta_keys_are_followed_down_to_the_leaf():
    """A rebuild of gem5-long-phases differed only in ``recording.config_sha256`` (the gem5 config script's
    docstring changed after the recording); `mpx datasets rebuild --check` said "recording" and blamed the host."""
    old = {"recording": {"config_sha256": "a", "gem5_version": "24"}, "events": 3}
    new = {"recording": {"config_sha256": "b", "gem5_version": "24"}, "events": 3, "extra": None}
    assert ds.differing_keys(old, new) == ["recording.config_sha256"]
    assert ds.differing_keys({"a": {"b": 1}}, {"a": 2}) == ["a"]
    assert ds.differing_keys(old, old) == []


def test_a_recipe_with_a_bare_brace_is_one_line_naming_the_argument():
    """A perl one-liner in a recipe (``{ $h{lc $_}++ }``) stopped `mpx datasets rebuild` with a ValueError
    traceback from str.format; a grep range (``{3}``) with an IndexError named the whole argv. Both are one
    line naming the argument and how to write a literal brace."""
    from mpx.errors import ConfigError

    with pytest.raises(ConfigError, match=r"recipe argument 'for \{ \$h\{lc \$_\}\+\+ \}': .*literal brace is written \{\{"):
        ds._expand(["perl", "for { $h{lc $_}++ }"], {"python": "py"})
    with pytest.raises(ConfigError, match=r"recipe argument '\(\[a-z\]\{3\}\)' names an unknown placeholder"):
        ds._expand(["([a-z]{3})"], {"python": "py"})
    assert ds._expand(["([a-z]{{3}})", "{python}"], {"python": "py"}) == ["([a-z]{3})", "py"]
