"""The one conformance entry: every plugin kind's suite in one table, and the verbs that run it.

`check(kind, plugin)` runs every check of a kind on a plugin given as a class, an instance or a registry
name and raises one `~mpx.conformance.common.ConformanceError` listing every failure (each check's own
error in ``errors``), or returns the facts the checks report. `run_one` runs one named check: whatever
goes wrong inside it, a helper's own check failing or a bare exception, is a `ConformanceError` naming
that check. A plugin author's tests get one test item per check from `plugin_checks` (no pytest needed)
or `parametrize_with_checks` (pytest's decorator), as scikit-learn's ``parametrize_with_checks`` does::

    from mpx.conformance import parametrize_with_checks

    @parametrize_with_checks("scaler", [MyScaler])
    def test_conforms(check):
        check()

Every kind shares the **class_tags** check: the registry reads the plugin's capability tags from its
class (built with its ``example_params``, `mpx.registry.Registry.tags_of`), which is what ``mpx run`` and
``mpx evaluate`` do before they build it. `cases` lists every (kind × built-in × check) triple for mpx's
own suite (``tests/conformance/test_all.py``), the built-ins only so that mpx's tests do not change with
what is installed.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from mpx.conformance.common import ConformanceError
from mpx.registry import load_object

__all__ = ["SUITES", "Suite", "cases", "check", "check_class_tags", "check_figure", "checks", "parametrize_with_checks",
           "plugin", "plugin_checks", "plugin_object", "registry", "run_check", "run_one"]


class Suite(NamedTuple):
    """``registry`` and ``checks`` as ``"module:attr"``."""

    registry: str
    checks: str


SUITES: dict[str, Suite] = {
    "scheduler": Suite("mpx.schedulers:REGISTRY", "mpx.conformance.schedulers:SCHEDULER_CHECKS"),
    "scaler": Suite("mpx.scalers:REGISTRY", "mpx.conformance.scalers:SCALER_CHECKS"),
    "aligner": Suite("mpx.aligners:REGISTRY", "mpx.conformance.aligners:ALIGNER_CHECKS"),
    "reader": Suite("mpx.readers:REGISTRY", "mpx.conformance.plugins:READER_CHECKS"),
    "catalog_format": Suite("mpx.metrics.formats:REGISTRY", "mpx.conformance.plugins:CATALOG_FORMAT_CHECKS"),
    "figure": Suite("mpx.figures:REGISTRY", "mpx.conformance.plugins:FIGURE_CHECKS"),
    "kind": Suite("mpx.experiment.kinds:REGISTRY", "mpx.conformance.plugins:KIND_CHECKS"),
}


def _kind(kind: str) -> Suite:
    if kind not in SUITES:
        from mpx.errors import ConfigError

        raise ConfigError(f"no conformance suite for plugin kind {kind!r}; kinds: {', '.join(SUITES)}")
    return SUITES[kind]


def registry(kind: str) -> Any:
    """The `mpx.registry.Registry` of plugin kind ``kind``."""
    return load_object(_kind(kind).registry)


def checks(kind: str) -> dict[str, Callable[..., Any]]:
    """The named checks of plugin kind ``kind``, in the order `check` runs them (``class_tags`` first)."""
    return {"class_tags": lambda obj: check_class_tags(kind, obj), **load_object(_kind(kind).checks)}


def _label(obj: Any, name: str | None = None) -> str:
    if isinstance(obj, type) or inspect.ismodule(obj):
        own = getattr(obj, "__name__", repr(obj))
    elif dataclasses.is_dataclass(obj) or not hasattr(obj, "get_params"):
        own = str(getattr(obj, "NAME", None) or getattr(obj, "name", None) or type(obj).__name__)
    else:
        own = type(obj).__name__
    given = name or getattr(obj, "name", None)
    return f"{own}({given})" if given and given != own and isinstance(given, str) else own


def plugin_object(kind: str, plugin: Any, params: dict[str, Any] | None = None) -> Any:
    """The object the checks of ``kind`` take: a registry name is looked up; a class is built with
    ``params`` (default: its ``example_params``); an instance is used as it is (a clone with ``params``
    set, when given). A class whose constructor cannot be called with those parameters is a
    `ConformanceError` of check ``example_params``."""
    from mpx.errors import ConfigError

    reg = registry(kind)
    obj = reg.get_class(plugin) if isinstance(plugin, str) else plugin
    base = reg.base()
    if isinstance(obj, type):
        why = reg.why_not(obj)
        if why:
            raise ConfigError(f"conformance check of a {kind}: {obj!r} is {why}")
        p = dict(getattr(obj, "example_params", None) or {}) if params is None else dict(params)
        try:
            sig = inspect.signature(obj)
            sig.bind(**p)
        except TypeError as exc:
            raise ConformanceError(kind, "example_params", _label(obj, plugin if isinstance(plugin, str) else None),
                                   f"cannot be built with {p or 'no parameters'}: {exc} (a plugin whose constructor "
                                   "needs arguments declares them in example_params)") from None
        except ValueError:  # no readable signature: let the constructor speak
            pass
        return obj(**p)
    if base is not None and not isinstance(obj, base):
        raise ConfigError(f"conformance check of a {kind}: {obj!r} is not a {base.__module__}.{base.__qualname__}, "
                          "a subclass of it or a registry name")
    if base is None and (why := reg.why_not(obj)):
        raise ConfigError(f"conformance check of a {kind}: {obj!r} is {why}")
    return obj.clone().set_params(**params) if params else obj


def plugin(kind: str, name: str) -> Any:
    """The object the checks of ``kind`` take for registry name ``name`` (`plugin_object`)."""
    return plugin_object(kind, name)


def check_class_tags(kind: str, obj: Any) -> dict[str, Any]:
    """The registry reads the plugin's capability tags from its class (`mpx.registry.Registry.tags_of`:
    built with its ``example_params``, never with defaults a constructor may not have); for a kind whose
    plugins declare tags, the same type as the instance's own."""
    reg = registry(kind)
    target = type(obj) if reg.base() is not None else obj
    try:
        tags = reg.tags_of(target)
    except Exception as exc:  # noqa: BLE001 - reported as the failure
        raise ConformanceError(kind, "class_tags", _label(obj), f"the registry cannot read its tags from the class: "
                               f"{type(exc).__name__}: {exc}") from exc
    own = obj.tags() if hasattr(obj, "tags") else None
    if (tags is None) != (own is None) or (own is not None and type(tags) is not type(own)):
        raise ConformanceError(kind, "class_tags", _label(obj), f"the class's tags {tags!r} are not of the type of the "
                               f"instance's {own!r}")
    return {}


def _accepts(fn: Callable[..., Any], option: str) -> bool:
    try:
        return option in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def run_one(kind: str, obj: Any, name: str, **options: Any) -> dict[str, Any]:
    """Run check ``name`` of ``kind`` on the plugin object ``obj`` (`plugin_object`); the options a check
    takes (a scheduler's ``seed``) are passed to it. Returns its facts; every failure is a `ConformanceError`
    of check ``name`` (a helper's own check, e.g. the scheduler's base runs, is named inside its message)."""
    table = checks(kind)
    if name not in table:
        from mpx.errors import ConfigError

        raise ConfigError(f"no {kind} conformance check {name!r}; checks: {', '.join(table)}")
    fn = table[name]
    try:
        out = fn(obj, **{k: v for k, v in options.items() if _accepts(fn, k)})
    except ConformanceError as exc:
        if exc.check == name:
            raise
        raise ConformanceError(kind, name, exc.plugin, [f"{exc.check}: {f}" for f in exc.failures]) from exc
    except Exception as exc:  # noqa: BLE001 - a bare exception inside a check is the plugin failing it
        raise ConformanceError(kind, name, _label(obj), f"raised {type(exc).__name__}: {exc}") from exc
    return dict(out or {})


def check(kind: str, plugin: Any, params: dict[str, Any] | None = None, *, only: Iterable[str] | None = None,
          **options: Any) -> dict[str, Any]:
    """Run every conformance check of ``kind`` (or those named in ``only``) on ``plugin`` — a class (built
    with ``params``, default its ``example_params``), an instance or a registry name. Raises one
    `ConformanceError` listing every failure (``errors``: each failed check's own error), returns the
    facts the checks report otherwise. ``options`` go to the checks that take them (``seed``)."""
    obj = plugin_object(kind, plugin, params)
    label = _label(obj, plugin if isinstance(plugin, str) else None)
    facts: dict[str, Any] = {}
    errors: list[ConformanceError] = []
    for name in (list(only) if only is not None else list(checks(kind))):
        try:
            facts.update(run_one(kind, obj, name, **options))
        except ConformanceError as exc:
            errors.append(exc)
    if errors:
        err = ConformanceError(kind, ", ".join(e.check for e in errors), label,
                               [f"{e.check}: {f}" for e in errors for f in e.failures])
        err.errors = errors
        raise err
    return facts


def check_figure(figure: Any) -> dict[str, Any]:
    """Every figure check (`mpx.conformance.plugins.FIGURE_CHECKS`) on a `mpx.figures.Figure` or a registry name."""
    return check("figure", figure)


def plugin_checks(kind: str, plugin: Any, params: dict[str, Any] | None = None,
                  **options: Any) -> list[tuple[str, Callable[[], dict[str, Any]]]]:
    """One ``(id, run)`` pair per check of ``kind``: ``run()`` builds the plugin (as `check` does) and runs
    that check, so a test framework makes each check its own test item."""
    label = plugin if isinstance(plugin, str) else getattr(plugin, "__name__", None) or _label(plugin)

    def runner(name: str) -> Callable[[], dict[str, Any]]:
        return lambda: run_one(kind, plugin_object(kind, plugin, params), name, **options)

    return [(f"{kind}-{label}-{name}", runner(name)) for name in checks(kind)]


def parametrize_with_checks(kind: str, plugins: Iterable[Any], **options: Any) -> Any:
    """pytest's ``parametrize`` over every check of ``kind`` on each of ``plugins`` (classes, instances or
    registry names): the test takes one argument, ``check``, and calls it."""
    import pytest

    pairs = [pair for p in plugins for pair in plugin_checks(kind, p, **options)]
    return pytest.mark.parametrize("check", [run for _, run in pairs], ids=[i for i, _ in pairs])


def cases(kinds: list[str] | None = None, use: str | list[str] = "builtin") -> list[tuple[str, str, str]]:
    """Every (kind, plugin name, check) triple, over the plugins ``use`` names (`Registry.select`: default
    the built-ins, so mpx's own suite is the same whatever is installed)."""
    return [(k, n, c) for k in (kinds or list(SUITES)) for n in registry(k).select(use) for c in checks(k)]


def run_check(kind: str, name: str, check_name: str) -> dict[str, Any]:
    """Run one check on one registered plugin (raises `~mpx.conformance.common.ConformanceError`)."""
    return run_one(kind, plugin_object(kind, name), check_name)
