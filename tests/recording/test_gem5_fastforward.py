"""The fast-forward of `mpx record --simulator gem5` (steady state instead of start-up): the gem5 command
line and configuration it generates, the metadata of what was skipped, the fast-forward CPU's stats dropped,
dataset collections; and, where a gem5 binary is available, a tiny real run (a few dumps after a short
fast-forward and warm-up)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import ConfigError
from mpx.recording.callgrind import RecordError
from mpx.recording.gem5 import CONFIG, finish_trace, gem5_command, record_gem5, skipped_phases
from mpx.trace import Trace
from tests._tools import have_gem5


ARGS = ("gem5.fast", Path("/o"), Path("/h.json"), 5_000_000, Path("/w"), ["/w/prog", "x"], {"LC_ALL": "C"})


def test_command_without_fast_forward_is_the_5ms_datasets_command():
    cmd = gem5_command(*ARGS, max_dumps=10)
    assert cmd == ["gem5.fast", "--outdir=/o", str(CONFIG), "--hardware", "/h.json", "--period-ps", "5000000",
                   "--cwd", "/w", "--max-dumps", "10", "--env", "LC_ALL=C", "--", "/w/prog", "x"]
    assert "--fast-forward-insts" not in cmd and "--warmup-insts" not in cmd


def test_command_with_fast_forward_and_warmup():
    cmd = gem5_command(*ARGS, max_dumps=10, fast_forward_insts=50_000_000, warmup_insts=1_000_000)
    i = cmd.index("--fast-forward-insts")
    assert cmd[i + 1] == "50000000" and cmd[cmd.index("--warmup-insts") + 1] == "1000000"
    assert i < cmd.index("--") and cmd[-2:] == ["/w/prog", "x"]


def test_configuration_knows_the_options():
    text = CONFIG.read_text()
    for needle in ('"--fast-forward-insts"', '"--warmup-insts"', "max_insts_any_thread=a.fast_forward_insts",
                   "m5.switchCpus(system, [(ffc, cpu)])", "scheduleInstStop(0, a.warmup_insts",
                   "m5.stats.reset()", "switched_out=True", "se_periodic.py: measured from tick"):
        assert needle in text, needle


@pytest.mark.parametrize("kw", [{"fast_forward_insts": -1}, {"warmup_insts": 5},
                                {"fast_forward_insts": 2.5}, {"fast_forward_insts": 10, "warmup_insts": -3}])
def test_bad_fast_forward_options(kw, tmp_path: Path):
    with pytest.raises(ConfigError):
        record_gem5(["/bin/true"], tmp_path / "t.npz", gem5="/nonexistent", log=None, **kw)


def test_cli_fast_forward_is_gem5_only(tmp_path: Path, capsys):
    from mpx.cli import main

    assert main(["record", "--fast-forward", "1000", "-o", str(tmp_path / "t.npz"), "--", "/bin/true"]) != 0
    assert "only with --simulator gem5" in capsys.readouterr().err


def test_skipped_metadata_from_the_log():
    log = ("...\nse_periodic.py: measured from tick 1160320518: fast-forward 2000000 instructions to tick "
           "1134422442, warm-up 100000 instructions\n...")
    sk = skipped_phases(log, 2_000_000, 100_000)
    assert sk["fast_forward_insts"] == 2_000_000 and sk["warmup_insts"] == 100_000
    assert sk["fast_forward_ticks"] == 1_134_422_442 and sk["ticks_before_first_interval"] == 1_160_320_518
    assert sk["warmup_ticks"] == 1_160_320_518 - 1_134_422_442
    assert skipped_phases("no line", 0, 0)["fast_forward_insts"] == 0
    with pytest.raises(RecordError, match="measured from"):
        skipped_phases("gem5 said nothing", 2_000_000, 0)


def test_fast_forward_cpu_stats_are_dropped():
    events = ["system.cpu.numCycles", "system.ff_cpu.numCycles", "system.cpu.l2cache.tags.x::ff_cpu.data"]
    raw = Trace(events, np.array([[10.0, 0, 1], [12, 0, 0]]), np.array([100, 110, 120]), "ticks", {},
                ["system.ff_cpu.ipc", "system.cpu.ipc"], np.array([[0.0, 1.0], [0.0, 1.1]]))
    t = finish_trace(raw, 10, None)
    assert "system.cpu.numCycles" in t.events
    assert not [e for e in list(t.events) + list(t.aux_names) if "ff_cpu" in e]
    d = [x for x in t.meta["dropped"] if "fast-forward CPU" in x["what"]][0]
    assert d["nonzero_events"] == 1  # the occupancy column was nonzero in one interval: said, not hidden
    np.testing.assert_array_equal(t["system.cpu.numCycles"], [10, 12])


def test_collections_keep_other_sets_out_of_all_gem5(tmp_path: Path, monkeypatch):
    from mpx.datasets import shipped as ds
    from mpx.experiment.inputs import dataset_specs

    def e(name, sim, coll=None):
        d = {"name": name, "recipe": {"simulator": sim}}
        return {**d, "collection": coll} if coll else d

    (tmp_path / "manifest.json").write_text(json.dumps({"datasets": [
        e("xz", "callgrind"), e("xz-bb30k", "callgrind", "callgrind-grains"), e("gem5-xz", "gem5"),
        e("gem5-long-xz", "gem5", "gem5-long")]}))
    monkeypatch.setenv("MPX_DATASETS", str(tmp_path))
    assert ds.names() == ["xz"] and ds.names("gem5") == ["gem5-xz"]
    assert ds.names("gem5", "gem5-long") == ["gem5-long-xz"] and ds.names("callgrind", None) == ["xz", "xz-bb30k"]
    assert ds.names(None) == ["xz", "xz-bb30k", "gem5-xz", "gem5-long-xz"]
    assert ds.collections() == ["callgrind-grains", "gem5-long"]
    specs = dataset_specs({"data": {"datasets": ["all-gem5", "all-gem5-long", "all-callgrind-grains"]}}, tmp_path, "t")
    assert [s["name"] for s in specs] == ["gem5-xz", "gem5-long-xz", "xz-bb30k"]
    assert ds.names(None, "gem5-long") == ["gem5-long-xz"]
    (tmp_path / "gem5").mkdir()  # a collection with recipes but nothing recorded: a clear error, not no data
    (tmp_path / "gem5" / "recipes.json").write_text(json.dumps({"datasets": [
        {"name": "gem5-x", "collection": "gem5-later", "recipe": {"simulator": "gem5"}}]}))
    assert "gem5-later" in ds.collections()
    with pytest.raises(ConfigError, match="'all-gem5-later' has no recorded dataset yet"):
        dataset_specs({"data": {"datasets": ["all-gem5-later"]}}, tmp_path, "t")


@pytest.mark.skipif(not have_gem5(), reason="no gem5 binary ($MPX_GEM5 or gem5.fast on PATH); "
                    "build one with datasets/gem5/build_gem5.sh")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the test program")
def test_tiny_fast_forward_recording(tmp_path: Path):
    """300,000 instructions on the atomic CPU, 20,000 on the O3 core, then 3 dumps of 2 us: the first
    interval starts where the warm-up ended, the O3 core (not the atomic one) did the work."""
    src = tmp_path / "loop.c"
    src.write_text("int main(void){volatile double s=0;for(long i=0;i<30000000;i++)s+=i*0.5;return s<0;}\n")
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "loop"), str(src)], check=True)
    t = record_gem5(["./loop"], tmp_path / "t.npz", cwd=tmp_path, max_dumps=3, period_ps="2us",
                    fast_forward_insts=300_000, warmup_insts=20_000, log=None)
    sk = t.meta["recording"]["skipped"]
    assert sk["fast_forward_insts"] == 300_000 and sk["warmup_insts"] == 20_000
    assert 0 < sk["fast_forward_ticks"] < sk["ticks_before_first_interval"]
    assert t.n_intervals == 3 and t.edges[0] == sk["ticks_before_first_interval"]
    np.testing.assert_array_equal(t.durations, 2_000_000)
    assert (t["system.cpu.numCycles"] > 5000).all() and (t["system.cpu.commitStats0.numInsts"] > 1000).all()
    assert not [e for e in t.events if "ff_cpu" in e]
    assert Trace.load(tmp_path / "t.npz").meta["recording"]["skipped"] == sk
