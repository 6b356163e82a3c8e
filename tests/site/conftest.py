"""A small results store made in the test (two experiments: a read-window sweep and a quantum sweep named
like the time-scale study) and the site built from it, shared by the site's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the store's folder, the site's folder)."""
    from mpx.cli import main
    from mpx.site import build_site
    from tests._exp_helpers import SMALL, write_config

    tmp = tmp_path_factory.mktemp("site")
    store = tmp / "small"
    sweep = write_config(tmp, extra='[sweep]\n"multiplex.read_every" = [3, 6]\n')
    scale = tmp / "timescale_small.toml"  # the quantum swept instead of fixed
    scale.write_text(SMALL.format(name="timescale_small", mux_extra="", extra='[sweep]\n"multiplex.quantum_intervals" '
                                  "= [1, 2]\n").replace("quantum_intervals = 1\n", ""))
    for cfg in (sweep, scale):
        assert main(["run", str(cfg), "--out", str(store), "--no-progress", "--no-figures", "--jobs", "1"]) == 0
    out = tmp / "site"
    build_site([store], out)
    return store, out
