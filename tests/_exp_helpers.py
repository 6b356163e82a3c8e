"""Shared helpers of the experiment / results / run / figure tests: tiny configs on slices of the
shipped datasets, and a comparison of two stores that ignores only wall-clock columns."""

from __future__ import annotations

from pathlib import Path

SMALL = """
[experiment]
name = "{name}"

[data]
datasets = ["sqlite", "xz", "awk"]
intervals = [0, 120]

[hardware]
pmu = "generic-N"
counters = 2
events = ["Ir", "Dr", "Dw", "D1mr", "Bc", "Bcm"]

[multiplex]
quantum_intervals = 1
read_every = 5
{mux_extra}

[schedulers]
use = ["perf", "round_robin"]

[scalers]
use = ["linear", "dira"]
{extra}
"""

#: columns that hold wall-clock measurements or where/when a cell ran
VOLATILE = {"estimate_seconds", "event_windows_per_s", "mux_seconds", "cell_seconds", "host", "pid", "finished"}


def write_config(tmp: Path, name: str = "small", extra: str = "", mux_extra: str = "") -> Path:
    p = tmp / f"{name}.toml"
    p.write_text(SMALL.format(name=name, extra=extra, mux_extra=mux_extra))
    return p


def stable_tables(store_path: Path) -> dict:
    """Every table of a store (the cells of each experiment's latest run), without volatile columns."""
    from mpx.experiment.store import ResultsStore

    out = {}
    with ResultsStore(store_path) as st:
        for t in ("cells", *st.tables()):
            df = st.table(t)
            out[t] = df[[c for c in df.columns if c not in VOLATILE]].reset_index(drop=True)
    return out


def assert_same(a: dict, b: dict) -> None:
    import pandas.testing as pdt

    assert a.keys() == b.keys()
    for t in a:
        assert list(a[t].columns) == list(b[t].columns), t
        pdt.assert_frame_equal(a[t], b[t], check_exact=True, obj=t)
