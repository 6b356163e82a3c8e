"""The refactor guard: the score tables of the quickstart, one schedule and one partition experiment are
identical, row for row, to the reference recorded before the house was rebuilt (``tests/golden/``, at
``beedbdf``; the refactor of issue 11 passed against it unchanged). Re-recorded since: the quickstart once,
for BayesPerf's random-walk floor of events that have counted nothing yet (42 of its 891 score rows, all
bayesperf / bayesperf_smooth; every other row identical); then all three for issue 12's scoring protocol
(the quickstart runs two read regimes; new columns: every measure on the window sets, metric-windows,
over10_all, the regime, the tools' whole-run totals; window-level ``papi`` with ``papi_cumulative`` beside
it; BayesPerf's posterior mode; BayesPerf's one-count walk floor of issue 14).

A change that is meant to move numbers re-records the reference (``python tests/golden/digest.py``) in the
same commit and says why in its message."""

from __future__ import annotations

import difflib
import gzip
import json
import sys
import tomllib
from pathlib import Path

import pytest

from mpx.experiment import run_experiment
from mpx.experiment.config import Experiment
from mpx.results import ResultsStore

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))
import digest  # noqa: E402

CONFIGS = {"quickstart": GOLDEN.parents[1] / "experiments" / "quickstart.toml",
           "schedule": GOLDEN / "schedule.toml", "partition": GOLDEN / "partition.toml"}

#: the plugins the reference was recorded with, in place of ``use = "all"``: a plugin added later (a
#: registered test plugin, a new built-in) must not change the reference's grid
PINNED = {
    "schedulers": ["arm_topdown", "bayesperf", "fusion_aware", "hperf", "hypergraph", "likwid", "optimal", "perf",
                   "round_robin", "tintin"],
    "scalers": ["bayesperf", "bayesperf_smooth", "cam", "dcam", "dira", "fusion", "fusion_smooth", "linear", "papi",
                "papi_cumulative", "papi_sw", "tam", "tam_paper"],
}


def pinned_config(path: Path) -> Experiment:
    """The config at ``path`` with every ``use = "all"`` replaced by the `PINNED` list."""
    raw = tomllib.loads(path.read_text())
    for section, names in PINNED.items():
        if raw.get(section, {}).get("use") == "all":
            raw[section]["use"] = list(names)
    return Experiment(raw, path)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "quickstart" else n
                                  for n in CONFIGS])
def test_tables_match_reference(name, tmp_path, monkeypatch):
    monkeypatch.setenv("MPX_CODE_VERSION", "golden")
    exp = pinned_config(CONFIGS[name])
    with ResultsStore(tmp_path / "results.sqlite") as store:
        run_experiment(exp, store, jobs=1, progress=False)
    got = digest.canonical_tables(tmp_path / "results.sqlite")
    want = json.loads((digest.REFERENCE / f"{name}.json").read_text())
    assert sorted(got) == sorted(want), f"{name}: tables {sorted(got)} != reference {sorted(want)}"
    for table, ref in want.items():
        d = digest.digests({table: got[table]})[table]
        if d == ref:
            continue
        msg = f"{name}.{table}: {d['rows']} rows (reference {ref['rows']}), digest differs"
        kept = digest.REFERENCE / f"{name}.{table}.csv.gz"
        if kept.exists():
            old = gzip.decompress(kept.read_bytes()).decode().splitlines()
            diff = list(difflib.unified_diff(old, got[table].splitlines(), "reference", "now", n=0, lineterm=""))
            msg += "\n" + "\n".join(diff[:12])
        pytest.fail(msg)
