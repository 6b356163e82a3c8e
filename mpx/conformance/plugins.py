"""Conformance checks of the plugin kinds that are not estimators: readers, catalog formats, figures and
experiment kinds. Each check ``check_<kind>_<name>(plugin)`` raises `~mpx.conformance.common.ConformanceError`.

- readers (`READER_CHECKS`): **declares** (``NAME``, ``sniff(path, head)``, ``read(path, ...)``);
  **claims_nothing_foreign** (``sniff`` says False for an empty file and an empty folder: detection asks
  every reader in turn, so a greedy one would steal other formats' files);
- catalog formats (`CATALOG_FORMAT_CHECKS`): **declares** (``NAME``, ``sniff(path, text, obj)``,
  ``load(path)``); **claims_nothing_foreign** (False for an empty file);
- figures (`FIGURE_CHECKS`): **declares** (``name`` and ``about`` strings, ``experiment`` a config path or
  None, ``draw``, ``extra``);
  **needs_its_data** (on a store without rows ``draw`` raises `ConfigError`, so ``mpx figs`` skips it
  with the reason instead of drawing an empty plot or crashing);
- experiment kinds (`KIND_CHECKS`): **declares** (``name``; ``sections`` and ``data_keys`` as
  frozensets of keys; ``tables`` name → key columns; every ``report`` entry names a declared table and
  resolves to a function; ``validate``, ``cells`` and ``run`` implemented).
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections.abc import Callable
from typing import Any

from mpx.conformance.common import ConformanceError
from mpx.errors import ConfigError
from mpx.registry import load_object

__all__ = ["CATALOG_FORMAT_CHECKS", "FIGURE_CHECKS", "KIND_CHECKS", "READER_CHECKS"]


def _label(obj: Any) -> str:
    return str(getattr(obj, "NAME", None) or getattr(obj, "name", None) or getattr(obj, "__name__", repr(obj)))


def _callable_with(obj: Any, attr: str, n_args: int) -> str | None:
    fn = getattr(obj, attr, None)
    if not callable(fn):
        return f"{attr} must be callable"
    try:
        params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY,
                                                                                    p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    if len(params) < n_args and not any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values()):
        return f"{attr} must take {n_args} positional arguments"
    return None


def _declares(kind: str, obj: Any, spec: dict[str, int]) -> None:
    fails = [] if isinstance(getattr(obj, "NAME", None), str) and obj.NAME else ["NAME must be a non-empty string"]
    fails += [why for attr, n in spec.items() if (why := _callable_with(obj, attr, n))]
    if fails:
        raise ConformanceError(kind, "declares", _label(obj), fails)


def _empty_file_and_folder() -> tuple[tempfile.TemporaryDirectory, str, str]:
    tmp = tempfile.TemporaryDirectory(prefix="mpx-conformance-")
    path = os.path.join(tmp.name, "empty.txt")
    open(path, "w").close()
    folder = os.path.join(tmp.name, "folder")
    os.mkdir(folder)
    return tmp, path, folder


# -- readers -------------------------------------------------------------------------------------------


def check_reader_declares(reader: Any) -> None:
    """``NAME``, ``sniff(path, head)`` and ``read(path, **options)``."""
    _declares("reader", reader, {"sniff": 2, "read": 1})


def check_reader_claims_nothing_foreign(reader: Any) -> None:
    """``sniff`` is False on an empty file and on an empty folder."""
    tmp, path, folder = _empty_file_and_folder()
    with tmp:
        claimed = [what for what, p in (("an empty file", path), ("an empty folder", folder)) if reader.sniff(p, "")]
    if claimed:
        raise ConformanceError("reader", "claims_nothing_foreign", _label(reader), f"sniff claims {' and '.join(claimed)}")


READER_CHECKS: dict[str, Callable[[Any], None]] = {
    "declares": check_reader_declares, "claims_nothing_foreign": check_reader_claims_nothing_foreign}


# -- catalog formats ------------------------------------------------------------------------------------


def check_catalog_format_declares(fmt: Any) -> None:
    """``NAME``, ``sniff(path, text, obj)`` and ``load(path)``."""
    _declares("catalog_format", fmt, {"sniff": 3, "load": 1})


def check_catalog_format_claims_nothing_foreign(fmt: Any) -> None:
    """``sniff`` is False on an empty file."""
    tmp, path, _ = _empty_file_and_folder()
    with tmp:
        claimed = fmt.sniff(path, "", None)
    if claimed:
        raise ConformanceError("catalog_format", "claims_nothing_foreign", _label(fmt), "sniff claims an empty file")


CATALOG_FORMAT_CHECKS: dict[str, Callable[[Any], None]] = {
    "declares": check_catalog_format_declares, "claims_nothing_foreign": check_catalog_format_claims_nothing_foreign}


# -- figures -------------------------------------------------------------------------------------------


def check_figure_declares(fig: Any) -> None:
    """``name`` and ``about`` strings, ``experiment`` a non-empty string or None, ``draw(store, experiment)``,
    ``extra`` None or callable."""
    fails = [f"{a} must be a non-empty string" for a in ("name", "about")
             if not (isinstance(getattr(fig, a, None), str) and getattr(fig, a))]
    exp = getattr(fig, "experiment", None)
    if exp is not None and not (isinstance(exp, str) and exp):
        fails.append("experiment must be None or a non-empty string (a config path)")
    if (why := _callable_with(fig, "draw", 2)):
        fails.append(why)
    if getattr(fig, "extra", None) is not None and not callable(fig.extra):
        fails.append("extra must be None or callable")
    if fails:
        raise ConformanceError("figure", "declares", _label(fig), fails)


def check_figure_needs_its_data(fig: Any) -> None:
    """On a store whose tables (every kind's) hold no rows, ``draw`` raises `ConfigError`."""
    import matplotlib.pyplot as plt

    from mpx.experiment.kinds import declared_tables
    from mpx.experiment.store import ResultsStore

    with tempfile.TemporaryDirectory(prefix="mpx-conformance-") as tmp, \
            ResultsStore(os.path.join(tmp, "empty.sqlite")) as store:
        store.declare(declared_tables())
        try:
            drawn = fig.draw(store, None)
        except ConfigError:
            return
        except Exception as exc:  # noqa: BLE001 - reported as a failure
            raise ConformanceError("figure", "needs_its_data", _label(fig), f"draw on an empty store raised "
                                   f"{type(exc).__name__} instead of ConfigError: {exc}") from exc
        plt.close(drawn)
    raise ConformanceError("figure", "needs_its_data", _label(fig), "drew a figure from an empty store")


FIGURE_CHECKS: dict[str, Callable[[Any], None]] = {
    "declares": check_figure_declares, "needs_its_data": check_figure_needs_its_data}


# -- experiment kinds ----------------------------------------------------------------------------------


def check_kind_declares(kind: Any) -> None:
    """``name``; ``sections`` (section → frozenset of keys) and ``data_keys``; ``tables`` (name → tuple of
    key columns); ``report`` entries naming declared tables and resolving to functions; the three verbs."""
    from mpx.experiment.kinds import CellKind

    fails = [] if isinstance(kind.name, str) and kind.name else ["name must be a non-empty string"]
    if not (isinstance(kind.sections, dict) and all(isinstance(v, frozenset) for v in kind.sections.values())):
        fails.append("sections must map section names to frozensets of keys")
    if not isinstance(kind.data_keys, frozenset):
        fails.append("data_keys must be a frozenset")
    if not (isinstance(kind.tables, dict) and kind.tables and all(
            isinstance(t, str) and t.isidentifier() and isinstance(k, tuple) and all(isinstance(c, str) for c in k)
            for t, k in kind.tables.items())):
        fails.append("tables must map at least one table name to a tuple of key columns")
    for table, where in kind.report.items():
        if table not in kind.tables:
            fails.append(f"report names table {table!r}, which the kind does not declare")
        try:
            ok = callable(load_object(where))
        except (ImportError, AttributeError):
            ok = False
        if not ok:
            fails.append(f"report section {where!r} is not a function")
    fails += [f"{verb} is not implemented" for verb in ("validate", "cells", "run")
              if getattr(type(kind), verb) is getattr(CellKind, verb)]
    if fails:
        raise ConformanceError("kind", "declares", _label(kind), fails)


KIND_CHECKS: dict[str, Callable[[Any], None]] = {"declares": check_kind_declares}
