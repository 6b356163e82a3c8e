"""Partition experiments (``kind = "partition"``): config validation, cells run by ``mpx run`` into the
``partition`` table, tools that are not installed stored as skipped, published references, the figure.
Tiny hypergraphs only (ibm01 runs belong to ``experiments/partitioner.toml``); the KaHyPar / Mt-KaHyPar
tests skip when the extra is not installed."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from mpx.cli import main
from mpx.errors import ConfigError

# two 4-vertex clusters joined by one net: the best bisection cuts only that net (km1 = 1)
TINY = """% two clusters of four vertices, joined by net 7
7 8
1 2 3
2 3 4
1 4
5 6 7
6 7 8
5 8
4 5
"""

CONFIG = """
[experiment]
name = "{name}"
kind = "partition"

[data]
hypergraphs = ["tiny.hgr"]
random_events = [{{n = 24, cap = 4}}]

[partition]
tools = {tools}
k = [2, 4]
epsilon = 0.0
seeds = [0, 1]
{extra}
"""

VOLATILE = {"partition_seconds", "cell_seconds", "host", "pid", "finished"}


def write(tmp: Path, name: str = "ptiny", tools: str = '["mpx"]', extra: str = "") -> Path:
    (tmp / "tiny.hgr").write_text(TINY)
    p = tmp / f"{name}.toml"
    p.write_text(CONFIG.format(name=name, tools=tools, extra=extra))
    return p


@pytest.fixture(autouse=True)
def _pin_version(monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "test")


def _rows(out: Path):
    from mpx.experiment.store import open_store

    with open_store(out) as st:
        return st.table("partition"), st.table("cells")


# -- validation -------------------------------------------------------------------------------------

@pytest.mark.parametrize("edit, match", [
    (lambda s: s.replace('tools = ["mpx"]', 'tools = ["mpx", "metis"]'), "tools must be a list out of"),
    (lambda s: s.replace('tools = ["mpx"]\n', ''), "tools is required"),
    (lambda s: s.replace('tools = ["mpx"]', 'tools = ["kahypar"]'), "kahypar_ini is required"),
    (lambda s: s.replace("k = [2, 4]\n", ""), "k is required with"),
    (lambda s: s.replace("k = [2, 4]", "k = [1]"), "k must be a list of integers >= 2"),
    (lambda s: s.replace("epsilon = 0.0\n", ""), "epsilon is required"),
    (lambda s: s.replace("{n = 24, cap = 4}", "{n = 4, cap = 4}"), r"random_events\[0\]"),
    (lambda s: s.replace("{n = 24, cap = 4}", "{n = 24}"), r"random_events\[0\] must be a table"),
    (lambda s: s.replace('"tiny.hgr"', '"nosuch.hgr"'), "matches no file"),
    (lambda s: s + '\n[hardware]\npmu = "generic-4"\ncounters = 4\n', "takes no \\[hardware\\]"),
    (lambda s: s.replace("seeds = [0, 1]", "seeds = [0]\nrepetitions = 2"), "seeds or repetitions"),
    (lambda s: s + '\nmtkahypar_preset = "fast"\n', "mtkahypar_preset must be one of"),
    (lambda s: s + '\nreference = "nosuch.csv"\n', "reference 'nosuch.csv' does not exist"),
])
def test_config_errors_name_the_key(tmp_path, edit, match):
    from mpx.experiment import load_config

    p = write(tmp_path)
    p.write_text(edit(p.read_text()))
    with pytest.raises(ConfigError, match=match):
        load_config(p).cells()


def test_partition_section_only_in_partition_experiments(tmp_path):
    from mpx.experiment import Experiment

    raw = {"experiment": {"name": "x"}, "data": {"datasets": ["sqlite"]},
           "hardware": {"pmu": "generic-4", "counters": 4, "events": ["Ir"]},
           "multiplex": {"quantum_intervals": 1, "read_every": 2}, "schedulers": {"use": ["perf"]},
           "scalers": {"use": ["linear"]}, "partition": {"tools": ["mpx"]}}
    with pytest.raises(ConfigError, match="partition"):
        Experiment(raw)


# -- running ----------------------------------------------------------------------------------------

def _brute_force_km1(hg, k: int, eps: float) -> int:
    from mpx.partition import imbalance, km1

    best = None
    for blocks in itertools.product(range(k), repeat=hg.num_vertices):
        if imbalance(hg, blocks, k) <= eps + 1e-12:
            q = km1(hg, blocks, k)
            best = q if best is None else min(best, q)
    return best


def test_mpx_cells_rows_cache_and_determinism(tmp_path):
    from mpx.partition import Context, partition, read_hmetis
    from mpx.grouping.partitioned import grouping_context
    from mpx.grouping.instances import load_instance

    cfg = write(tmp_path)
    assert main(["run", str(cfg), "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    rows, cells = _rows(tmp_path / "a")
    # 2 hMetis instances (k = 2, 4) + 1 event instance, 2 seeds, 1 tool
    assert len(cells) == 6 and set(cells["status"]) == {"done"}
    assert len(rows) == 6 and set(rows["status"]) == {"done"} and rows["feasible"].astype(bool).all()
    hg = read_hmetis(tmp_path / "tiny.hgr")
    k2 = rows[rows["instance"] == "tiny k=2"]
    assert set(k2["km1"]) == {_brute_force_km1(hg, 2, 0.0)} == {1}
    # every stored km1 is the one a direct partition call with the same seed and configuration gives
    for r in rows.itertuples():
        spec = ({"family": "hmetis", "path": str(tmp_path / "tiny.hgr"), "k": int(r.k), "epsilon": 0.0}
                if r.family == "hmetis" else {"family": "events", "n": 24, "cap": 4})
        h, k, eps, caps = load_instance(spec)
        ctx = grouping_context(h.num_vertices) if caps else Context()
        res = partition(h, k, epsilon=eps, seed=int(r.seed), max_block_weights=caps, context=ctx)
        assert int(r.km1) == res.km1 and int(r.max_block) == int(res.block_weights.max())
    ev = rows[rows["family"] == "events"]
    assert (ev["k"] == 6).all() and (ev["cap"] == 4).all() and (ev["max_block"] <= 4).all()
    assert rows["reference_km1"].isna().all() and rows["partition_seconds"].gt(0).all()
    # rerun: everything cached; another store with 2 workers: identical rows but the wall times
    from mpx.experiment import load_config, run_experiment
    from mpx.experiment.store import ResultsStore

    with ResultsStore(tmp_path / "a" / "results.sqlite") as st:
        assert run_experiment(load_config(cfg), st, progress=False)["computed"] == 0
    assert main(["run", str(cfg), "--out", str(tmp_path / "b"), "--jobs", "2", "--no-progress",
                 "--no-figures"]) == 0
    a, _ = _rows(tmp_path / "a")
    b, _ = _rows(tmp_path / "b")
    keep = [c for c in a.columns if c not in VOLATILE]
    assert a[keep].equals(b[keep])


def test_tool_not_installed_is_stored_as_skipped(tmp_path, monkeypatch):
    import mpx.partition.external as ext

    monkeypatch.setattr(ext, "tool_status", lambda tool: (None, f"{tool} is not installed (test)"))
    ini = tmp_path / "k.ini"
    ini.write_text("# not read: the tool is not installed\n")
    cfg = write(tmp_path, tools='["mpx", "kahypar", "mtkahypar"]', extra=f'kahypar_ini = "{ini}"')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    rows, cells = _rows(tmp_path / "r")
    ext_rows = rows[rows["tool"] != "mpx"]
    assert len(ext_rows) == 12 and set(ext_rows["status"]) == {"skipped"}
    assert ext_rows["reason"].str.contains("is not installed").all() and ext_rows["km1"].isna().all()
    assert set(cells.loc[cells["scheduler"] != "mpx", "status"]) == {"skipped"}
    assert set(rows.loc[rows["tool"] == "mpx", "status"]) == {"done"}
    # installing the tool changes its cells' keys (the version is part of them): they would be recomputed
    from mpx.experiment import load_config

    keys = {c["key"] for c in load_config(cfg).cells()}
    monkeypatch.setattr(ext, "tool_status", lambda tool: ("9.9", None))
    assert len(keys - {c["key"] for c in load_config(cfg).cells()}) == 12
    # the figure says which tool was skipped and why, and draws the rest
    from mpx.figures import draw
    from mpx.experiment.store import open_store

    with open_store(tmp_path / "r") as st:
        files = draw(st, ["partitioner_vs_kahypar"], tmp_path / "fig")
    assert [f.stat().st_size > 1000 for f in files] == [True, True]


def test_published_reference(tmp_path):
    from mpx.experiment.partition import reference_km1

    csv = tmp_path / "ref.csv"
    # the layout of kahypar/experimental-results jea20/km1 (two runs at k = 2, one at k = 4)
    csv.write_text("kKaHyPar,tiny.hgr,no,no,0,2,0.0,0.0,0.1,km1,2,2,no\n"
                   "kKaHyPar,tiny.hgr,no,no,1,2,0.0,0.0,0.1,km1,1,1,no\n"
                   "kKaHyPar,tiny.hgr,no,no,0,4,0.0,0.0,0.1,km1,5,4,no\n")
    sd = (2 * 0.5 ** 2) ** 0.5  # runs 2 and 1: sample standard deviation
    assert reference_km1(str(csv)) == {("tiny.hgr", 2, 0.0): {"km1": 1.5, "sd": sd, "runs": 2},
                                       ("tiny.hgr", 4, 0.0): {"km1": 5.0, "sd": 0.0, "runs": 1}}
    cfg = write(tmp_path, extra=f'reference = "{csv}"\nreference_label = "published"')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    rows, _ = _rows(tmp_path / "r")
    k2 = rows[rows["instance"] == "tiny k=2"]
    assert (k2["reference_km1"] == 1.5).all() and np.allclose(k2["km1_vs_reference"], k2["km1"] / 1.5)
    assert np.allclose(k2["reference_km1_sd"], sd) and (k2["reference_runs"] == 2).all()
    assert rows.loc[rows["family"] == "events", "reference_km1"].isna().all()
    bad = tmp_path / "bad.csv"
    bad.write_text("header,line\nkKaHyPar,tiny.hgr,x\n")
    from mpx.errors import FormatError

    with pytest.raises(FormatError, match="bad.csv"):
        reference_km1(str(bad))


def test_figure(tmp_path):
    cfg = write(tmp_path)
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    assert main(["figs", str(tmp_path / "r"), "partitioner_vs_kahypar", "--out", str(tmp_path / "f")]) == 0
    assert (tmp_path / "f" / "partitioner_vs_kahypar.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "f" / "partitioner_vs_kahypar.png").stat().st_size > 1000
    from mpx.figures import draw
    from mpx.experiment.store import ResultsStore

    from mpx.experiment.kinds import declared_tables

    with ResultsStore(tmp_path / "empty.sqlite") as st:
        with pytest.raises(ConfigError, match="no table 'partition'"):  # nothing declared, nothing run
            draw(st, ["partitioner_vs_kahypar"], tmp_path)
        st.declare(declared_tables())
        with pytest.raises(ConfigError, match="no partitioner results"):
            draw(st, ["partitioner_vs_kahypar"], tmp_path)


# -- the real tools (optional extra) -----------------------------------------------------------------

@pytest.mark.parametrize("tool", ["kahypar", "mtkahypar"])
def test_external_tool_cells(tmp_path, tool, shared):
    pytest.importorskip(tool)
    ini = shared("data", "hypergraphs", "kahypar-configs", "km1_kKaHyPar_sea20.ini")
    cfg = write(tmp_path, tools=f'["{tool}"]', extra=f'kahypar_ini = "{ini}"')
    assert main(["run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress", "--no-figures"]) == 0
    rows, _ = _rows(tmp_path / "r")
    assert set(rows["status"]) == {"done"} and rows["feasible"].astype(bool).all()
    # the tool's own km1 equals km1 recomputed by mpx from the blocks it returned
    assert (rows["km1"] == rows["km1_reported"]).all()
    assert (rows.loc[rows["instance"] == "tiny k=2", "km1"] == 1).all()
    assert rows["tool_version"].notna().all()


def test_external_runner_refuses_infeasible_caps_without_crashing():
    from mpx.partition.external import run_external

    # refused in the subprocess before the tool is imported: runs without the extra too
    r = run_external("mtkahypar", {"n": 5, "nets": [[0, 1]], "k": 2, "epsilon": 0.0, "seed": 0, "caps": [2, 2]})
    assert "below the total vertex weight" in r["error"]
    with pytest.raises(ConfigError, match="ini"):
        run_external("kahypar", {"n": 2, "nets": [[0, 1]], "k": 2, "epsilon": 0.0, "seed": 0})
