"""Questions about a tree: its names and literals, walking and substituting, constant folding."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from mpx.metrics.expr.nodes import Binary, Call, IfElse, Literal, Name, Node, Num, Query, Unary
from mpx.metrics.expr.ops import cpuid_matches, is_number, scalar_binary, scalar_call

__all__ = ["fold", "literal_names", "lookup_literal", "names", "substitute", "walk"]


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, Unary):
            stack.append(n.operand)
        elif isinstance(n, Binary):
            stack.extend((n.right, n.left))
        elif isinstance(n, IfElse):
            stack.extend((n.other, n.cond, n.then))
        elif isinstance(n, Call):
            stack.extend(reversed(n.args))


def names(node: Node) -> frozenset[str]:
    """Names whose values the expression may read: `Name` nodes and ``source_count`` arguments. The
    argument of ``has_event`` is a question, not a use, so it is not included."""
    out = set()
    for n in walk(node):
        if isinstance(n, Name):
            out.add(n.name)
        elif isinstance(n, Query) and n.func == "source_count":
            out.add(n.arg)
    return frozenset(out)


def literal_names(node: Node) -> frozenset[str]:
    """``#literals`` the expression mentions (without ``#``); ``source_count``/``strcmp_cpuid_str``
    add the literals they read (``source_count(X)``, ``cpuid``)."""
    out = set()
    for n in walk(node):
        if isinstance(n, Literal):
            out.add(n.name)
        elif isinstance(n, Query) and n.func == "source_count":
            out.add(f"source_count({n.arg})")
        elif isinstance(n, Query) and n.func == "strcmp_cpuid_str":
            out.add("cpuid")
    return frozenset(out)


def substitute(node: Node, mapping: Callable[[Node], Node | None]) -> Node:
    """A copy of ``node`` where every node for which ``mapping`` returns a node is replaced by it
    (bottom-up rebuild; ``mapping`` returning None keeps the node)."""
    rep = mapping(node)
    if rep is not None:
        return rep
    if isinstance(node, Unary):
        return Unary(node.op, substitute(node.operand, mapping))
    if isinstance(node, Binary):
        return Binary(node.op, substitute(node.left, mapping), substitute(node.right, mapping))
    if isinstance(node, IfElse):
        return IfElse(substitute(node.then, mapping), substitute(node.cond, mapping), substitute(node.other, mapping))
    if isinstance(node, Call):
        return Call(node.func, tuple(substitute(a, mapping) for a in node.args))
    return node


def lookup_literal(literals: Mapping[str, Any], name: str) -> Any:
    """``literals[name]``, falling back to a case-insensitive match (perf accepts ``#SMT_on`` for
    ``#smt_on``); KeyError when absent."""
    if name in literals:
        return literals[name]
    low = name.lower()
    for k, v in literals.items():
        if k.lower() == low:
            return v
    raise KeyError(name)


_BOTTOM = None  # "any value": not a constant


def fold(
    node: Node,
    literals: Mapping[str, Any] | None = None,
    available: frozenset[str] | None = None,
    ref: Callable[[str], tuple[float | None, frozenset[str]]] | None = None,
) -> tuple[float | None, frozenset[str]]:
    """Partial evaluation, as perf's ``expr__find_ids`` does: returns ``(constant or None, names the
    value depends on)``. Known literals are constants; an ``if`` whose condition folds to a constant
    keeps only the branch taken; ``x / 0`` and ``d_ratio(x, 0)`` need no names. ``available`` makes
    ``has_event`` constant. ``ref(name)`` may resolve a name (e.g. a metric reference) to
    ``(constant, names)``; without it a name is itself the dependency."""
    literals = literals or {}

    def go(n: Node) -> tuple[float | None, frozenset[str]]:
        if isinstance(n, Num):
            return n.value, frozenset()
        if isinstance(n, Literal):
            try:
                v = lookup_literal(literals, n.name)
                return (float(v), frozenset()) if is_number(v) else (_BOTTOM, frozenset())
            except KeyError:
                return _BOTTOM, frozenset()
        if isinstance(n, Name):
            if ref is not None:
                return ref(n.name)
            return _BOTTOM, frozenset((n.name,))
        if isinstance(n, Query):
            if n.func == "has_event":
                if available is None:
                    return _BOTTOM, frozenset()
                return (1.0 if n.arg in available else 0.0), frozenset()
            if n.func == "source_count":
                dep = ref(n.arg)[1] if ref is not None else frozenset((n.arg,))
                return _BOTTOM, dep
            try:
                v = lookup_literal(literals, "cpuid")
                return (1.0 if cpuid_matches(n.arg, str(v)) else 0.0), frozenset()
            except KeyError:
                return _BOTTOM, frozenset()
        if isinstance(n, Unary):
            v, d = go(n.operand)
            return (None if v is None else -v), d
        if isinstance(n, IfElse):
            cv, cd = go(n.cond)
            if cv is not None and cv == 0:
                return go(n.other)
            if cv is not None:  # non-zero constant (NaN included: perf takes the true branch)
                return go(n.then)
            tv, td = go(n.then)
            ov, od = go(n.other)
            if tv is not None and ov is not None and tv == ov:
                return tv, frozenset()
            return _BOTTOM, cd | td | od
        if isinstance(n, Call):
            (av, ad), (bv, bd) = go(n.args[0]), go(n.args[1])
            if n.func == "d_ratio" and bv is not None and bv == 0:
                return 0.0, frozenset()
            if av is not None and bv is not None:
                return float(scalar_call(n.func, av, bv)), frozenset()
            return _BOTTOM, ad | bd
        if isinstance(n, Binary):
            (av, ad), (bv, bd) = go(n.left), go(n.right)
            if n.op in ("/", "%") and bv is not None and bv == 0:
                return math.nan, frozenset()
            if n.op in ("|", "&") and (av is None) != (bv is None):
                cv, other = (av, (bv, bd)) if av is not None else (bv, (av, ad))
                if n.op == "|":
                    return (1.0, frozenset()) if (cv != 0 and not math.isnan(cv)) else (_BOTTOM, other[1])
                return (0.0, frozenset()) if cv == 0 else (_BOTTOM, other[1])
            if av is not None and bv is not None:
                return float(scalar_binary(n.op, av, bv)), frozenset()
            return _BOTTOM, ad | bd
        raise TypeError(f"not an expression node: {n!r}")

    return go(node)
