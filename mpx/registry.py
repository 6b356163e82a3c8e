"""One registry for every kind of plugin: schedulers, scalers, readers, catalog formats, figures, experiment kinds.

A `Registry` knows its built-ins as ``name → "module:attr"`` (imported on first use, so ``mpx --help`` stays
instant), objects registered at run time (notebooks, tests) and third-party plugins from an entry-point
group; in another package's ``pyproject.toml``::

    [project.entry-points."mpx.scalers"]
    mine = "my_package.my_module:MyScaler"

A built-in name wins over an entry point of the same name. ``check`` (optional) validates what a name
resolves to, e.g. "is a Scheduler subclass", and returns an error text or None.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from mpx.errors import ConfigError

__all__ = ["Registry"]


class Registry:
    """Plugins of one kind, by name.

    ``kind`` names them in messages ("scheduler"), ``group`` is the entry-point group (None: no entry
    points), ``builtin`` maps names to ``"module:attr"``, ``check(obj) -> str | None`` says why an object
    is not a valid plugin of this kind (``"not a … subclass"``).
    """

    def __init__(self, kind: str, group: str | None, builtin: Mapping[str, str],
                 check: Callable[[Any], str | None] | None = None) -> None:
        self.kind = kind
        self.group = group
        self.builtin: dict[str, str] = dict(builtin)
        self._check = check
        self._registered: dict[str, Any] = {}

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        """Installed entry points of this group, by name."""
        if self.group is None:
            return {}
        return {ep.name: ep for ep in metadata.entry_points(group=self.group)}

    def available(self) -> list[str]:
        """Every name: built-in, registered at run time, and from entry points."""
        return sorted(set(self.builtin) | set(self._registered) | set(self.entry_points()))

    def register(self, name: str, obj: Any) -> None:
        """Make ``obj`` available as ``name`` for this process."""
        why = self._check(obj) if self._check else None
        if why:
            raise ConfigError(f"register({name!r}): {obj!r} is {why}")
        if name in self.builtin:
            raise ConfigError(f"register({name!r}): a built-in {self.kind} has that name")
        self._registered[name] = obj

    def unregister(self, name: str) -> None:
        """Forget a plugin added with `register`."""
        self._registered.pop(name, None)

    def load(self, name: str) -> Any:
        """The object registered as ``name`` (a class, a module or a function, by kind)."""
        if name in self.builtin:
            module, _, attr = self.builtin[name].partition(":")
            mod = importlib.import_module(module)
            obj = getattr(mod, attr) if attr else mod
        elif name in self._registered:
            obj = self._registered[name]
        else:
            ep = self.entry_points().get(name)
            if ep is None:
                raise ConfigError(f"unknown {self.kind} {name!r}; available: {', '.join(self.available())}")
            try:
                obj = ep.load()
            except Exception as exc:  # a broken third-party plugin: say which one
                raise ConfigError(f"{self.kind} {name!r} (entry point {ep.value!r}) failed to load: {exc}") from exc
        why = self._check(obj) if self._check else None
        if why:
            raise ConfigError(f"{self.kind} {name!r} resolves to {obj!r}, {why}")
        return obj

    def create(self, name: str, **params: Any) -> Any:
        """A new instance of the class registered as ``name`` with hyper-parameters ``params`` (a
        `mpx.params.Params` class: names it does not take are a ConfigError naming those it does)."""
        cls = self.load(name)
        allowed = cls.param_names()
        bad = sorted(set(params) - set(allowed))
        if bad:
            raise ConfigError(f"{self.kind} {name!r} has no parameter(s) {bad}; it takes {allowed}")
        return cls(**params)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.available()

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self.available())} available)"


def subclass_of(base_path: str) -> Callable[[Any], str | None]:
    """A ``check`` accepting subclasses of ``"module:Class"`` (imported when first checked)."""
    module, _, attr = base_path.partition(":")

    def check(obj: Any) -> str | None:
        base = getattr(importlib.import_module(module), attr)
        if isinstance(obj, type) and issubclass(obj, base):
            return None
        return f"not a {module}.{attr} subclass"

    return check
