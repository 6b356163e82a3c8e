"""`mpx.registry.Registry` with other packages installed: ``use = "builtin"`` is the same set on every machine,
``"all"`` leaves out a plugin that fails to load with one warning line (naming it is the error), an entry point
named like a built-in is an error naming both, and tags come from the class, never from a default instance."""

from __future__ import annotations

import warnings
from importlib import metadata
from typing import ClassVar

import pytest

from mpx import scalers, schedulers
from mpx.errors import ConfigError, MpxWarning
from mpx.experiment.config import plugin_names
from mpx.registry import Registry
from mpx.scalers.linear import LinearScaler


class Needy(LinearScaler):
    """A scaler whose constructor needs an argument, declared in example_params."""

    name = "needy"
    example_params: ClassVar[dict] = {"k": 2.0}

    def __init__(self, k: float, fill: str = "nan") -> None:
        super().__init__(fill=fill)
        self.k = k


def _fake_entry_points(monkeypatch, group: str, eps: dict[str, str]) -> None:
    fake = [metadata.EntryPoint(n, v, group) for n, v in eps.items()]
    real = metadata.entry_points

    def entry_points(**kw):
        return fake if kw.get("group") == group else real(**kw)

    monkeypatch.setattr(metadata, "entry_points", entry_points)


@pytest.fixture
def fresh():
    """A scaler registry with the shipped built-ins and entry points of its own (the real one is untouched)."""
    return Registry("scaler", "mpx.test_scalers", scalers.BUILTIN, protocol="mpx.scalers.base:Scaler")


def test_builtin_is_the_shipped_set_whatever_is_installed(fresh, monkeypatch):
    _fake_entry_points(monkeypatch, "mpx.test_scalers", {"plug": "mpx.scalers.linear:LinearScaler",
                                                          "broken": "no_such_module:X"})
    assert fresh.select("builtin") == list(scalers.BUILTIN)
    assert fresh.available() == list(scalers.BUILTIN) + ["broken", "plug"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fresh.select("all") == list(scalers.BUILTIN) + ["plug"]
        assert fresh.select("all") == list(scalers.BUILTIN) + ["plug"]  # warned once per process
    lines = [str(w.message) for w in caught if issubclass(w.category, MpxWarning)]
    assert len(lines) == 1 and "'broken'" in lines[0] and "no_such_module:X" in lines[0] and "\n" not in lines[0]
    with pytest.raises(ConfigError, match="failed to load"):  # named, it is an error
        fresh.get("broken")
    assert fresh.select(["plug", "linear"]) == ["plug", "linear"]
    with pytest.raises(ConfigError, match=r"unknown scaler\(s\) \['nope'\]"):
        fresh.select(["nope"])
    with pytest.raises(ConfigError, match='"builtin", "all" or a list'):
        fresh.select(3)


def test_an_entry_point_named_like_a_builtin_is_an_error_naming_both(fresh, monkeypatch):
    _fake_entry_points(monkeypatch, "mpx.test_scalers", {"linear": "other_pkg.mod:Linear"})
    with pytest.raises(ConfigError) as err:
        fresh.available()
    msg = str(err.value)
    assert "mpx.scalers.linear:LinearScaler" in msg and "other_pkg.mod:Linear" in msg and "rename" in msg


def test_tags_come_from_the_class_with_its_example_params(fresh):
    fresh.register("needy", Needy)
    assert fresh.tags("needy").view == "read"  # Needy() would be a TypeError
    with pytest.raises(ConfigError, match=r"needy.*cannot be built with no parameters.*example_params: \{'k': 2.0\}"):
        fresh.get("needy")  # a configured run gives k; a bare TypeError never reaches the user
    assert fresh.get("needy", k=3.0).k == 3.0

    class NoExample(Needy):
        example_params: ClassVar[dict] = {}

    fresh.register("noex", NoExample)
    with pytest.raises(ConfigError, match="declares them in example_params"):
        fresh.tags("noex")


def test_shipped_configs_use_the_builtin_set():
    cfg = {"scalers": {"use": "builtin"}, "schedulers": {"use": "builtin"}}
    assert plugin_names(cfg, "scalers", "x.toml") == list(scalers.REGISTRY.builtin)
    assert plugin_names(cfg, "schedulers", "x.toml") == list(schedulers.REGISTRY.builtin)
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "experiments"
    said_all = [p.name for p in sorted(root.glob("*.toml")) if 'use = "all"' in p.read_text()]
    assert said_all == []  # a shipped experiment means the shipped set; "all" would change with the machine
