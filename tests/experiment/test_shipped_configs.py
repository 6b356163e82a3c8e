"""Every experiment config the repository ships loads and expands into its cells (a typo in a key, a removed
plugin or a renamed dataset fails here, not in the middle of a user's run). Configs whose held-out traces are
recorded on the machine (git-ignored) may lack them: that one error is the expected one; so may configs of a
collection whose recipes are not recorded yet (datasets/gem5/recipes.json: the 250 ms gem5 recordings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpx.errors import ConfigError
from mpx.experiment import load_config
from mpx.experiment.config import load_suite

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
CONFIGS = sorted(p for p in EXPERIMENTS.rglob("*.toml") if "catalogs" not in p.parts)
SHARED = EXPERIMENTS.parents[1] / "shared"


def _pending(config: Path) -> bool:
    """Whether every dataset group ``config`` names that has no recorded dataset is a collection of recipes."""
    import tomllib

    from mpx.datasets import shipped

    names = tomllib.loads(Path(config).read_text()).get("data", {}).get("datasets", [])
    recipes = {f"all-{shipped.collection(r)}" for r in shipped.recipes()}
    empty = [n for n in names if n.startswith("all-") and n[4:] in shipped.collections()
             and not shipped.names(None, n[4:])]
    return bool(empty) and all(n in recipes for n in empty)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(EXPERIMENTS)))
def test_a_shipped_config_expands(path: Path):
    if not SHARED.is_dir() and "shared" in path.read_text():
        pytest.skip("reads ../shared, which is absent")
    suite = load_suite(path)
    for config in ([Path(c) for c in suite[1]] if suite is not None else [path]):
        try:
            cells = load_config(config).cells()
        except ConfigError as exc:
            if "matches no file" in str(exc) and "heldout" in str(exc):
                continue  # held-out traces are recorded on the machine (datasets/heldout/*.sh)
            if "has no recorded dataset yet" in str(exc) and _pending(config):
                continue  # a collection of recipes only (mpx datasets rebuild NAME records it)
            raise
        assert cells, config
