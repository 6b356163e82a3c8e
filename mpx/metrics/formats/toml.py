"""mpx's own catalog format (TOML), used by the built-in catalogs and for hand-written metric sets.

Schema (every table optional; unknown keys are an error so that typos do not pass silently)::

    [catalog]
    name = "callgrind"                 # default: the file name
    description = "..."
    sources = ["KCachegrind globalconfig.cpp", "..."]   # citations

    [literals]                         # platform constants usable as #name in expressions
    fetch_width = 4                    # numbers (or a string for 'cpuid')

    [platform]                         # free-form platform facts, not usable in expressions

    [events.Ir]                        # optional per-event information
    description = "instructions executed"
    counter = "0,1,2,3"                # perf-style Counter string
    counter_ht_off = "0,1,2,3,4,5,6,7"
    unit = "ali_drw"                   # PMU of an uncore event
    kind = "general"                   # see EventInfo

    [metrics.i1_miss_ratio]
    expr = "I1mr / Ir"                 # required; perf MetricExpr syntax, may name other metrics
    description = "..."
    groups = ["cache"]
    unit = "100%"                      # perf ScaleUnit
    constraint = "NO_GROUP_EVENTS"     # perf MetricConstraint
    threshold = "i1_miss_ratio > 0.05" # perf MetricThreshold

    [relations.ll_instr_le_l1_instr]
    expr = "ILmr <= I1mr"              # 'lhs == rhs', 'lhs <= rhs' or 'lhs >= rhs', linear in events
    description = "..."

    [groups.cache]
    kind = "metric_group"              # eventset | event_group | metric_group | function
    description = "..."
    events = ["Ir", "I1mr"]
    metrics = ["i1_miss_ratio"]

Metric names are TOML keys: quote names with dots (``[metrics."ddr_read_bandwidth.all"]``).
"""

from __future__ import annotations

import math
import os
import re
import sys
from typing import Any

from mpx.errors import FormatError
from mpx.metrics.catalog import CONSTRAINTS, Catalog, Metric
from mpx.metrics.eventinfo import GROUP_KINDS, EventInfo, Group, check_counter_spec
from mpx.metrics.formats.common import as_str, as_str_list
from mpx.metrics.relation import Relation
from mpx.readers.textio import read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NAME = "toml"

_TOP = {"catalog", "literals", "platform", "events", "metrics", "relations", "groups"}
_CATALOG_KEYS = {"name", "description", "sources"}
_EVENT_KEYS = {"description", "counter", "counter_ht_off", "unit", "kind", "code"}
_METRIC_KEYS = {"expr", "description", "groups", "unit", "constraint", "threshold"}
_RELATION_KEYS = {"expr", "description"}
_GROUP_KEYS = {"kind", "description", "events", "metrics"}


def sniff(path, text: str, obj: Any) -> bool:
    if obj is not None:
        return False
    if ".toml" in os.path.basename(str(path)):
        return True
    return bool(re.search(r"^\s*\[(metrics|relations)\.", text, re.MULTILINE))


def _table_line(text: str, table: str, key: str) -> int | None:
    """Line of ``[table.key]`` (key possibly quoted) in ``text``."""
    k = re.escape(key)
    pat = re.compile(
        r"^[ \t]*\[[ \t]*" + re.escape(table) + r"[ \t]*\.[ \t]*(?:\"" + k + r"\"|'" + k + r"'|" + k + r")[ \t]*\]",
        re.MULTILINE,
    )
    m = pat.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def _check_keys(d: Any, allowed: set[str], path, line, what: str) -> dict:
    if not isinstance(d, dict):
        raise FormatError(path, line, f"{what} must be a table")
    extra = set(d) - allowed
    if extra:
        raise FormatError(path, line, f"{what}: unknown keys {sorted(extra)}; allowed: {sorted(allowed)}")
    return d


def _as_float(v: int | float) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf


def _key_line(text: str, key: str) -> int | None:
    """The line of ``key = `` in the TOML text (for the error), when it is there."""
    m = re.search(r"^\s*" + re.escape(key) + r"\s*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load(path: str | os.PathLike) -> Catalog:
    """Read an mpx TOML catalog (schema in the module docstring)."""
    text = read_text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise FormatError(path, int(m.group(1)) if m else None, f"invalid TOML: {exc}") from None
    except RecursionError:
        raise FormatError(path, None, "invalid TOML: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4,300 digits (Python's int() limit)
        long = re.search(r"\d{4301}", text)
        raise FormatError(path, text.count("\n", 0, long.start()) + 1 if long else None,
                          f"invalid TOML: {str(exc).split(';')[0]}") from None
    _check_keys(doc, _TOP, path, None, "top level")
    cat = _check_keys(doc.get("catalog", {}), _CATALOG_KEYS, path, None, "[catalog]")
    literals = doc.get("literals", {})
    if not isinstance(literals, dict) or not all(
        isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in literals.values()
    ):
        raise FormatError(path, None, "[literals] must map names to numbers (or strings, e.g. cpuid)")
    for k, v in literals.items():  # an integer beyond a double's range cannot enter an expression
        if isinstance(v, (int, float)) and not math.isfinite(_as_float(v)):
            raise FormatError(path, _key_line(text, k), f"[literals] {k} = {str(v)[:20]}...: not a finite number "
                              "an expression can use (beyond a double's range)")
    platform = doc.get("platform", {})
    if not isinstance(platform, dict):
        raise FormatError(path, None, "[platform] must be a table")

    events = []
    etab = doc.get("events", {})
    if not isinstance(etab, dict):
        raise FormatError(path, None, "[events] must be a table of tables")
    for name, d in etab.items():
        line = _table_line(text, "events", name)
        _check_keys(d, _EVENT_KEYS, path, line, f"[events.{name}]")
        try:
            check_counter_spec(d.get("counter"))
            check_counter_spec(d.get("counter_ht_off"))
        except ValueError as exc:
            raise FormatError(path, line, f"event {name!r}: {exc}") from None
        events.append(
            EventInfo(
                name, counter=d.get("counter"), counter_ht_off=d.get("counter_ht_off"),
                unit=as_str(d.get("unit"), path, line, "unit", optional=True),
                kind=as_str(d.get("kind"), path, line, "kind", optional=True),
                code=as_str(d.get("code"), path, line, "code", optional=True),
                description=as_str(d.get("description", ""), path, line, "description"), source=f"{path}:{line}",
            )
        )

    metrics = []
    mtab = doc.get("metrics", {})
    if not isinstance(mtab, dict):
        raise FormatError(path, None, "[metrics] must be a table of tables")
    for name, d in mtab.items():
        line = _table_line(text, "metrics", name)
        _check_keys(d, _METRIC_KEYS, path, line, f"[metrics.{name}]")
        if "expr" not in d:
            raise FormatError(path, line, f"metric {name!r} has no expr")
        constraint = as_str(d.get("constraint"), path, line, "constraint", optional=True)
        if constraint is not None and constraint not in CONSTRAINTS:
            raise FormatError(path, line, f"metric {name!r}: unknown constraint {constraint!r}; expected one of {CONSTRAINTS}")
        threshold = as_str(d.get("threshold"), path, line, "threshold", optional=True)
        if threshold is not None:
            from mpx.metrics import expr as E

            E.parse(threshold, path=path, line=line, what=f"metric {name!r} threshold")
        metrics.append(
            Metric.from_expr(
                name, as_str(d["expr"], path, line, f"metric {name!r} expr"), path=path, line=line,
                description=as_str(d.get("description", ""), path, line, "description"),
                groups=tuple(as_str_list(d.get("groups", []), path, line, "groups")),
                scale_unit=as_str(d.get("unit"), path, line, "unit", optional=True),
                constraint=constraint, threshold=threshold, source=f"{path}:{line}",
            )
        )

    relations = []
    rtab = doc.get("relations", {})
    if not isinstance(rtab, dict):
        raise FormatError(path, None, "[relations] must be a table of tables")
    for name, d in rtab.items():
        line = _table_line(text, "relations", name)
        _check_keys(d, _RELATION_KEYS, path, line, f"[relations.{name}]")
        if "expr" not in d:
            raise FormatError(path, line, f"relation {name!r} has no expr")
        relations.append(
            Relation.from_expr(
                as_str(d["expr"], path, line, f"relation {name!r} expr"), name, literals=literals, path=path, line=line,
                description=as_str(d.get("description", ""), path, line, "description"), source=f"{path}:{line}",
            )
        )

    groups = []
    gtab = doc.get("groups", {})
    if not isinstance(gtab, dict):
        raise FormatError(path, None, "[groups] must be a table of tables")
    for name, d in gtab.items():
        line = _table_line(text, "groups", name)
        _check_keys(d, _GROUP_KEYS, path, line, f"[groups.{name}]")
        kind = d.get("kind", "metric_group")
        if kind not in GROUP_KINDS:
            raise FormatError(path, line, f"group {name!r}: kind must be one of {GROUP_KINDS}, got {kind!r}")
        groups.append(
            Group(
                name, kind, events=tuple(as_str_list(d.get("events", []), path, line, "events")),
                metrics=tuple(as_str_list(d.get("metrics", []), path, line, "metrics")),
                description=as_str(d.get("description", ""), path, line, "description"), source=f"{path}:{line}",
            )
        )
    for m in metrics:  # groups named only on metrics
        for g in m.groups:
            if g not in {x.name for x in groups}:
                groups.append(Group(g, "metric_group", source=str(path)))
    groups = [
        g if g.kind != "metric_group" else Group(
            g.name, g.kind, events=g.events,
            metrics=tuple(dict.fromkeys(g.metrics + tuple(m.name for m in metrics if g.name in m.groups))),
            description=g.description, source=g.source,
        )
        for g in groups
    ]
    meta = {"sources": [str(path)], "format": NAME}
    if cat.get("description"):
        meta["description"] = as_str(cat["description"], path, None, "[catalog] description")
    if "sources" in cat:
        meta["citations"] = as_str_list(cat["sources"], path, None, "[catalog] sources")
    return Catalog(
        metrics, relations, events, literals, groups,
        name=as_str(cat.get("name", os.path.basename(str(path)).rsplit(".", 1)[0]), path, None, "[catalog] name"),
        platform=platform, meta=meta,
    )
