"""Registries of interchangeable phase policies, chosen by name from the `Context` (KaHyPar's factories).

Each phase package (`coarsening`, `initial`, `refinement`, `community`) owns one `PhasePolicies` table; a policy is a
plain function registered under a name. An unknown name is a `ConfigError` naming the context key and the
known names, so a typo in a configuration never falls back silently to some default.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from mpx.errors import ConfigError

F = TypeVar("F", bound=Callable)


class PhasePolicies:
    """Named policies of one phase."""

    def __init__(self, phase: str) -> None:
        self.phase = phase
        self._items: dict[str, Callable] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """Decorator: register ``fn`` under ``name`` (a second registration of a name is an error)."""

        def deco(fn: F) -> F:
            if name in self._items:
                raise ValueError(f"{self.phase} policy {name!r} registered twice")
            self._items[name] = fn
            return fn

        return deco

    def get(self, name: str, key: str) -> Callable:
        """The policy ``name``; ``key`` is the context field that named it (for the error message)."""
        try:
            return self._items[name]
        except KeyError:
            raise ConfigError(f"{key}: unknown {self.phase} policy {name!r} (known: {', '.join(self.names())})") from None

    def names(self) -> list[str]:
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __repr__(self) -> str:
        return f"PhasePolicies({self.phase!r}: {', '.join(self._items)})"
