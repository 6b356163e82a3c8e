"""One registry for every kind of plugin: schedulers, scalers, aligners, readers, catalog formats, figures,
experiment kinds.

A `Registry` knows its built-ins as ``name → "module:attr"`` (imported on first use, so ``mpx --help`` stays
instant), objects registered at run time (notebooks, tests) and third-party plugins from an entry-point
group; in another package's ``pyproject.toml``::

    [project.entry-points."mpx.scalers"]
    mine = "my_package.my_module:MyScaler"

One ordering rule everywhere (`Registry.available`): the built-ins in their declared order, then run-time
registrations in the order they were made, then entry points by name. An entry point named like a built-in
is an error naming both (never silently shadowed). Which plugins a run uses is one rule too
(`Registry.select`): ``"builtin"`` is the shipped set (the same on every machine: shipped configs, mpx's
own tests), ``"all"`` every installed plugin that loads (one that does not is one `MpxWarning` line and
left out; naming it is the error), a list the names it gives. Capability tags come from the class
(`Registry.tags_of`: built with its ``example_params``), never from a default instance. The ``protocol``
says what a plugin of the kind is: a base class (``"module:Class"``, whose subclasses are the plugins and
whose instances `Registry.get` returns) or the attribute names a plugin object (a module, a `Figure`) must
have. A plugin package's ``__init__`` is its built-in table and::

    REGISTRY = Registry("scaler", "mpx.scalers", BUILTIN, protocol="mpx.scalers.base:Scaler")
    available, get, get_class, register, unregister = REGISTRY.verbs()
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from mpx.errors import ConfigError, MpxWarning

__all__ = ["Registry", "load_object", "subclass_of"]


class Registry:
    """Plugins of one kind, by name.

    ``kind`` names them in messages ("scheduler"), ``group`` is the entry-point group (None: no entry
    points), ``builtin`` maps names to ``"module:attr"`` (``"module"`` alone: the module is the plugin),
    ``protocol`` is a base class as ``"module:Class"`` or a tuple of required attribute names (None: any
    object).
    """

    def __init__(self, kind: str, group: str | None, builtin: Mapping[str, str],
                 protocol: str | tuple[str, ...] | None = None) -> None:
        self.kind = kind
        self.group = group
        self.builtin: dict[str, str] = dict(builtin)
        self.protocol = protocol
        self._registered: dict[str, Any] = {}
        self._entry_points: dict[str, metadata.EntryPoint] | None = None
        self._warned: set[str] = set()

    # -- what a plugin is ----------------------------------------------------------------------------

    def base(self) -> type | None:
        """The protocol's base class (imported now), or None when the protocol is a list of attributes."""
        if not isinstance(self.protocol, str):
            return None
        return load_object(self.protocol)

    def why_not(self, obj: Any) -> str | None:
        """Why ``obj`` is not a plugin of this kind (None: it is one)."""
        if self.protocol is None:
            return None
        base = self.base()
        if base is not None:
            if isinstance(obj, type) and issubclass(obj, base):
                return None
            return f"not a {base.__module__}.{base.__qualname__} subclass"
        missing = [a for a in self.protocol if not hasattr(obj, a)]
        return f"not a {self.kind} (it lacks {', '.join(missing)})" if missing else None

    # -- names -----------------------------------------------------------------------------------------

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        """Installed entry points of this group, by name (scanned once; `register` rescans). One named like
        a built-in is a `ConfigError` naming both: which of the two a name means would depend on the
        machine."""
        if self.group is None:
            return {}
        if self._entry_points is None:
            eps = {ep.name: ep for ep in metadata.entry_points(group=self.group)}
            clash = sorted(n for n in eps if n in self.builtin)
            if clash:
                raise ConfigError("; ".join(
                    f"{self.kind} {n!r} is both the built-in {self.builtin[n]!r} and the entry point {eps[n].value!r} "
                    f"(group {self.group!r}, package {_dist_name(eps[n])}): rename the entry point" for n in clash))
            self._entry_points = eps
        return self._entry_points

    def available(self) -> list[str]:
        """Every name: the built-ins in declared order, then run-time registrations, then entry points by
        name."""
        names = list(self.builtin) + [n for n in self._registered if n not in self.builtin]
        seen = set(names)
        return names + sorted(n for n in self.entry_points() if n not in seen)

    def installed(self) -> list[str]:
        """Every name whose plugin loads, in `available` order: an entry point that fails to load is one
        `MpxWarning` (once per process) and left out."""
        names = []
        for name in self.available():
            if name in self.builtin or name in self._registered:
                names.append(name)
                continue
            try:
                self.get_class(name)
            except ConfigError as exc:
                if name not in self._warned:
                    self._warned.add(name)
                    warnings.warn(f"{exc} (left out of {self.kind}s \"all\")", MpxWarning, stacklevel=2)
                continue
            names.append(name)
        return names

    def select(self, use: str | list[str], where: str = "use") -> list[str]:
        """The names a ``use`` value means: ``"builtin"`` the built-ins in declared order (the same on every
        machine), ``"all"`` `installed` (run-time registrations and entry points that load), a name or a list
        of names those names (each must exist; loading is the caller's)."""
        if use == "builtin":
            return list(self.builtin)
        if use == "all":
            return self.installed()
        names = [use] if isinstance(use, str) else use
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{where} must be \"builtin\", \"all\" or a list of {self.kind} names, got {use!r}")
        bad = [n for n in names if n not in self]
        if bad:
            raise ConfigError(f"{where}: unknown {self.kind}(s) {bad}; available: {', '.join(self.available())}")
        return list(names)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self.builtin or name in self._registered
                                          or name in self.entry_points())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self.available())} available)"

    # -- the verbs -------------------------------------------------------------------------------------

    def register(self, name: str, obj: Any) -> None:
        """Make ``obj`` available as ``name`` for this process."""
        why = self.why_not(obj)
        if why:
            raise ConfigError(f"register({name!r}): {obj!r} is {why}")
        if name in self.builtin:
            raise ConfigError(f"register({name!r}): a built-in {self.kind} has that name")
        self._registered[name] = obj
        self._entry_points = None

    def unregister(self, name: str) -> None:
        """Forget a plugin added with `register`."""
        self._registered.pop(name, None)
        self._entry_points = None

    def get_class(self, name: str) -> Any:
        """The object registered as ``name``: a class (kinds with a base class), a module or an object."""
        if name in self.builtin:
            obj = load_object(self.builtin[name])
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
        why = self.why_not(obj)
        if why:
            raise ConfigError(f"{self.kind} {name!r} resolves to {obj!r}, {why}")
        return obj

    def get(self, name: str, **params: Any) -> Any:
        """The plugin ``name``: a new instance built with hyper-parameters ``params`` when plugins of this
        kind are classes (a `mpx.params.Params` class: names it does not take are a ConfigError naming
        those it does), else the registered object itself."""
        obj = self.get_class(name)
        if not isinstance(obj, type):
            if params:
                raise ConfigError(f"{self.kind} {name!r} takes no parameters (got {sorted(params)})")
            return obj
        allowed = obj.param_names() if hasattr(obj, "param_names") else []
        bad = sorted(set(params) - set(allowed))
        if bad:
            raise ConfigError(f"{self.kind} {name!r} has no parameter(s) {bad}; it takes {allowed}")
        _check_binds(obj, params, f"{self.kind} {name!r}")
        return obj(**params)

    create = get  # the name older callers use

    def tags(self, name: str) -> Any:
        """The capability tags of plugin ``name`` (`tags_of` its class); None for a kind whose plugins
        declare none."""
        return self.tags_of(self.get_class(name), name)

    def tags_of(self, obj: Any, name: str | None = None) -> Any:
        """The capability tags of plugin object ``obj`` (a class or an object): a class's ``tags()`` on an
        instance built with its ``example_params`` (the parameters its conformance checks use; a tag that
        depends on parameters, like a scaler's ``causal``, is the configured instance's own ``tags()``);
        None for a kind whose plugins declare none. Never a default instance: a plugin whose constructor
        needs an argument declares it in ``example_params``."""
        if not hasattr(obj, "tags"):
            return None
        if not isinstance(obj, type):
            return obj.tags()
        params = dict(getattr(obj, "example_params", None) or {})
        label = f"{self.kind} {name or getattr(obj, 'name', None) or obj.__name__!r}"
        _check_binds(obj, params, label, hint=" (its example_params, from which its tags are read)")
        return obj(**params).tags()

    def verbs(self) -> tuple[Callable[..., list[str]], Callable[..., Any], Callable[..., Any],
                             Callable[..., None], Callable[..., None]]:
        """``available, get, get_class, register, unregister``: the module-level functions of a plugin
        package."""
        return self.available, self.get, self.get_class, self.register, self.unregister


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return repr(getattr(dist, "name", None)) if dist is not None else "unknown"


def _check_binds(cls: type, params: dict[str, Any], label: str, hint: str = "") -> None:
    """A `ConfigError` when ``cls(**params)`` cannot be called (a required constructor argument missing),
    instead of the constructor's bare TypeError."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # a constructor without a readable signature: let it speak for itself
        return
    try:
        sig.bind(**params)
    except TypeError as exc:
        example = getattr(cls, "example_params", None)
        raise ConfigError(f"{label} cannot be built with {params or 'no parameters'}{hint}: {exc}"
                          + (f" (example_params: {example})" if example else
                             "; a plugin whose constructor needs arguments declares them in example_params")) from None


def load_object(where: str) -> Any:
    """The object a ``"module:attr"`` string names (``"module"`` alone: the module), imported now: the one
    reader of that notation (built-ins, protocols, conformance suites, the report sections of kinds)."""
    module, _, attr = where.partition(":")
    mod = importlib.import_module(module)
    return getattr(mod, attr) if attr else mod


def subclass_of(base_path: str) -> Callable[[Any], str | None]:
    """A check accepting subclasses of ``"module:Class"`` (imported when first checked)."""
    return Registry("plugin", None, {}, protocol=base_path).why_not
