"""Metric expressions: a safe tokenizer, a Pratt parser, a printer and a vectorised evaluator.

The language is Linux perf's ``MetricExpr`` (``tools/perf/util/expr.l`` and ``expr.y``), which also
covers the formulas of LIKWID groups, Arm telemetry specifications and hperf configurations once their
counter names are mapped to events (done by the catalog readers). Nothing here calls ``eval``.

Syntax (precedence from lowest to highest, as in perf's ``expr.y``; all binary operators are left
associative):

==========================  ======================================================================
``A if C else B``           Python-style conditional, right associative (``a if c else b if d else e``)
``|``  ``^``  ``&``         logical or / xor / and on "is non-zero" (perf), result 0 or 1
``<  >  <=  >=  ==  !=``    comparisons, result 0 or 1 (perf has ``<`` and ``>``; the rest are an mpx
                            superset)
``+  -``                    sum, difference
``*  /  %``                 product, quotient, ``%`` = C ``(long)a % (long)b`` (fmod of truncated values)
``-x``                      unary minus
atoms                       numbers (``4``, ``2.5``, ``1e9``, ``1.E-06``, ``0x3c``), ``#literals``,
                            names, ``( ... )``, ``min(a, b)``, ``max(a, b)``, ``d_ratio(a, b)``,
                            ``source_count(NAME)``, ``has_event(NAME)``, ``strcmp_cpuid_str(ID)``
==========================  ======================================================================

Names follow perf's lexer: characters ``[0-9A-Za-z_.:@?]`` plus backslash escapes (``\\,``, ``\\=``,
``\\-``, any escaped character stands for itself); an unescaped ``@`` stands for ``/`` so that PMU terms
can be written inside an expression: ``cpu@INST_DECODED.DECODERS\\,cmask\\=1@`` is the event
``cpu/INST_DECODED.DECODERS,cmask=1/`` and ``msr@aperf@`` is ``msr/aperf/``. ``EVENT.NAME:u`` keeps its
modifier. ``#name`` is a literal supplied by the platform (``#slots``, ``#SMT_on``, ``#num_dies``).

Evaluation semantics (perf's newest ``expr.y``, vectorised over numpy arrays):

- ``a / b`` is NaN where ``b == 0`` (perf: "division by zero" → NAN); ``a % b`` likewise.
- ``d_ratio(a, b)`` is 0 where ``b == 0``.
- NaN propagates through arithmetic, comparisons and ``^``; ``|`` and ``&`` follow perf: an operand
  that decides the result (non-zero for ``|``, zero for ``&``) wins even against a NaN operand.
- ``A if C else B`` takes ``B`` where ``C == 0`` and ``A`` elsewhere (a NaN condition counts as true, as
  in perf); when ``C`` is a scalar only the branch taken is evaluated, so events of the other branch are
  not needed.
- ``min``/``max`` follow perf's ``a < b ? a : b`` (a NaN operand yields the other operand on the left,
  the right one otherwise).
- ``has_event(X)`` is 1 when ``X`` is available in the environment, else 0; ``source_count(X)`` and
  ``strcmp_cpuid_str(ID)`` read the literals ``source_count(X)`` and ``cpuid`` (perf asks the running
  system; mpx has no running system, so the platform must supply them — a missing one is a ConfigError).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from mpx.errors import ConfigError, FormatError

__all__ = [
    "Node",
    "Num",
    "Name",
    "Literal",
    "Unary",
    "Binary",
    "IfElse",
    "Call",
    "Query",
    "ExprSyntaxError",
    "tokenize",
    "parse",
    "to_text",
    "names",
    "literal_names",
    "walk",
    "substitute",
    "fold",
    "Evaluator",
    "evaluate",
    "linear_form",
    "BINARY_OPS",
    "FUNCTIONS",
    "QUERIES",
]

# -- AST --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Num:
    """A number. ``value`` is never negative when parsed (``-3`` is ``Unary('-', Num(3))``)."""

    value: float
    text: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Name:
    """An event, pseudo-event (``duration_time``) or a reference to another metric, by name."""

    name: str


@dataclass(frozen=True)
class Literal:
    """A platform literal ``#name`` (stored without the ``#``)."""

    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Node"


@dataclass(frozen=True)
class Binary:
    op: str
    left: "Node"
    right: "Node"


@dataclass(frozen=True)
class IfElse:
    """``then if cond else other``."""

    then: "Node"
    cond: "Node"
    other: "Node"


@dataclass(frozen=True)
class Call:
    """``min``, ``max`` or ``d_ratio`` with two arguments."""

    func: str
    args: tuple["Node", ...]


@dataclass(frozen=True)
class Query:
    """``has_event(NAME)``, ``source_count(NAME)`` or ``strcmp_cpuid_str(ID)``: a function of a name."""

    func: str
    arg: str


Node = Union[Num, Name, Literal, Unary, Binary, IfElse, Call, Query]

# binding powers (higher binds tighter)
_BP_IF = 1
BINARY_OPS: dict[str, int] = {
    "|": 2,
    "^": 3,
    "&": 4,
    "<": 5, ">": 5, "<=": 5, ">=": 5, "==": 5, "!=": 5,
    "+": 6, "-": 6,
    "*": 7, "/": 7, "%": 7,
}
_BP_UNARY = 8
_BP_ATOM = 9
FUNCTIONS = ("min", "max", "d_ratio")
QUERIES = ("has_event", "source_count", "strcmp_cpuid_str")
_KEYWORDS = frozenset(("if", "else") + FUNCTIONS + QUERIES)


class ExprSyntaxError(FormatError):
    """A malformed expression: a FormatError that also carries the expression and the 0-based
    ``position`` of the offending character."""

    def __init__(self, path, line, message: str, expression: str, position: int) -> None:
        self.expression = expression
        self.position = position
        super().__init__(path, line, message)


# -- tokenizer --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    kind: str  # NUM, NAME, LIT, OP, KW, EOF
    value: Any
    pos: int
    text: str


_SYM_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.:@?")
_NUM_RE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_RE = re.compile(r"0[xX][0-9a-fA-F]+")
_LIT_RE = re.compile(r"#[0-9A-Za-z_.\-]+")
_OPS2 = ("<=", ">=", "==", "!=")
_OPS1 = frozenset("+-*/%|^&<>(),")


class _Ctx:
    """Where an expression comes from, for error messages."""

    def __init__(self, text: str, path, line, what: str | None) -> None:
        self.text, self.path, self.line, self.what = text, path, line, what

    def error(self, pos: int, message: str) -> ExprSyntaxError:
        prefix = f"{self.what}: " if self.what else ""
        pointer = f"\n    {self.text}\n    {' ' * pos}^"
        return ExprSyntaxError(
            self.path, self.line, f"{prefix}{message} at position {pos} of the expression{pointer}", self.text, pos
        )


def _symbol_run(text: str, i: int, ctx: _Ctx) -> tuple[str, str, int]:
    """Read a perf symbol starting at ``i``: returns (normalised name, raw text, end index)."""
    out = []
    j = i
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            if j + 1 >= n:
                raise ctx.error(j, "a backslash must escape a character")
            out.append(text[j + 1])
            j += 2
        elif c in _SYM_CHARS:
            out.append("/" if c == "@" else c)
            j += 1
        else:
            break
    return "".join(out), text[i:j], j


def tokenize(text: str, *, path=None, line=None, what: str | None = None) -> list[Token]:
    """Tokens of ``text`` (ending with an EOF token); a bad character raises `ExprSyntaxError`."""
    ctx = _Ctx(text, path, line, what)
    return list(_tokens(text, ctx))


def _tokens(text: str, ctx: _Ctx) -> Iterator[Token]:
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "#":
            m = _LIT_RE.match(text, i)
            if not m:
                raise ctx.error(i, "'#' must start a literal such as #slots")
            yield Token("LIT", m.group()[1:], i, m.group())
            i = m.end()
            continue
        if c in _SYM_CHARS or c == "\\":
            # longest match between a number and a symbol, a number winning ties (flex rule order)
            num_end = -1
            hexm = _HEX_RE.match(text, i)
            numm = _NUM_RE.match(text, i)
            if hexm:
                num_end = hexm.end()
            elif numm:
                num_end = numm.end()
            name, raw, sym_end = _symbol_run(text, i, ctx)
            if num_end >= sym_end:
                lexeme = text[i:num_end]
                value = float(int(lexeme, 16)) if hexm else float(lexeme)
                yield Token("NUM", value, i, lexeme)
                i = num_end
                continue
            if raw in _KEYWORDS:
                yield Token("KW", raw, i, raw)
            else:
                yield Token("NAME", name, i, raw)
            i = sym_end
            continue
        two = text[i : i + 2]
        if two in _OPS2:
            yield Token("OP", two, i, two)
            i += 2
            continue
        if c in _OPS1:
            yield Token("OP", c, i, c)
            i += 1
            continue
        raise ctx.error(i, f"unexpected character {c!r}")
    yield Token("EOF", None, n, "")


# -- parser -----------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, ctx: _Ctx) -> None:
        self.ctx = ctx
        self.toks = list(_tokens(text, ctx))
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def advance(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, kind: str, value: Any, what: str) -> Token:
        t = self.tok
        if t.kind != kind or t.value != value:
            raise self.ctx.error(t.pos, f"expected {what} but found {_describe(t)}")
        return self.advance()

    def parse(self) -> Node:
        if self.tok.kind == "EOF":
            raise self.ctx.error(0, "empty expression")
        node = self.expr(0)
        if self.tok.kind != "EOF":
            raise self.ctx.error(self.tok.pos, f"unexpected {_describe(self.tok)} after a complete expression")
        return node

    def expr(self, min_bp: int) -> Node:
        left = self.prefix()
        while True:
            t = self.tok
            if t.kind == "OP" and t.value in BINARY_OPS:
                bp = BINARY_OPS[t.value]
                if bp < min_bp:
                    break
                self.advance()
                right = self.expr(bp + 1)
                left = Binary(t.value, left, right)
            elif t.kind == "KW" and t.value == "if":
                if _BP_IF < min_bp:
                    break
                self.advance()
                cond = self.expr(_BP_IF + 1)
                self.expect("KW", "else", "'else'")
                other = self.expr(_BP_IF)
                left = IfElse(left, cond, other)
            else:
                break
        return left

    def prefix(self) -> Node:
        t = self.advance()
        if t.kind == "NUM":
            return Num(t.value, t.text)
        if t.kind == "NAME":
            return Name(t.value)
        if t.kind == "LIT":
            return Literal(t.value)
        if t.kind == "OP" and t.value == "-":
            return Unary("-", self.expr(_BP_UNARY))
        if t.kind == "OP" and t.value == "(":
            inner = self.expr(0)
            self.expect("OP", ")", "')'")
            return inner
        if t.kind == "KW" and t.value in FUNCTIONS:
            self.expect("OP", "(", f"'(' after {t.value}")
            a = self.expr(0)
            self.expect("OP", ",", f"',' between the two arguments of {t.value}()")
            b = self.expr(0)
            self.expect("OP", ")", f"')' closing {t.value}(")
            return Call(t.value, (a, b))
        if t.kind == "KW" and t.value in QUERIES:
            self.expect("OP", "(", f"'(' after {t.value}")
            arg = self.advance()
            if arg.kind == "NAME":
                value = arg.value
            elif arg.kind == "NUM" and t.value == "strcmp_cpuid_str":
                value = arg.text
            else:
                raise self.ctx.error(arg.pos, f"{t.value}() takes a name, found {_describe(arg)}")
            self.expect("OP", ")", f"')' closing {t.value}(")
            return Query(t.value, value)
        if t.kind == "EOF":
            raise self.ctx.error(t.pos, "unexpected end of expression")
        raise self.ctx.error(t.pos, f"unexpected {_describe(t)}")


def _describe(t: Token) -> str:
    if t.kind == "EOF":
        return "end of expression"
    return f"{t.text!r}"


def parse(text: str, *, path=None, line: int | None = None, what: str | None = None) -> Node:
    """Parse ``text`` into an AST. Errors raise `ExprSyntaxError` (a `FormatError`) naming ``path``,
    ``line``, ``what`` (e.g. ``"metric 'ipc'"``) and the position in the expression."""
    if not isinstance(text, str):
        raise FormatError(path, line, f"{what + ': ' if what else ''}expression must be a string, got {text!r}")
    ctx = _Ctx(text, path, line, what)
    try:
        return _Parser(text, ctx).parse()
    except RecursionError:
        raise ctx.error(0, "expression nested too deeply") from None


# -- printer ----------------------------------------------------------------------------------------


def _fmt_num(v: float) -> str:
    if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _fmt_name(name: str) -> str:
    out = []
    for c in name:
        if c == "/":
            out.append("@")
        elif c in _SYM_CHARS and c != "@":
            out.append(c)
        else:
            out.append("\\" + c)
    s = "".join(out)
    if not s:
        raise ValueError("empty name")
    # a name that would lex as a number or keyword gets its first character escaped
    first_num = _HEX_RE.match(s) or _NUM_RE.match(s)
    if (first_num and first_num.end() >= len(s)) or s in _KEYWORDS:
        s = "\\" + s
    return s


def _bp(node: Node) -> int:
    if isinstance(node, Binary):
        return BINARY_OPS[node.op]
    if isinstance(node, IfElse):
        return _BP_IF
    if isinstance(node, Unary):
        return _BP_UNARY
    if isinstance(node, Num) and node.value < 0:
        return _BP_UNARY
    return _BP_ATOM


def to_text(node: Node) -> str:
    """Print ``node`` as perf-compatible text with the fewest parentheses; ``parse(to_text(n)) == n``
    for every AST the parser can produce (negative `Num` values print as a unary minus)."""
    return _print(node, 0)


def _print(node: Node, min_bp: int) -> str:
    s = _print_bare(node)
    return f"({s})" if _bp(node) < min_bp else s


def _print_bare(node: Node) -> str:
    if isinstance(node, Num):
        return ("-" + _fmt_num(-node.value)) if node.value < 0 else _fmt_num(node.value)
    if isinstance(node, Name):
        return _fmt_name(node.name)
    if isinstance(node, Literal):
        return "#" + node.name
    if isinstance(node, Unary):
        return "-" + _print(node.operand, _BP_UNARY)
    if isinstance(node, Binary):
        bp = BINARY_OPS[node.op]
        return f"{_print(node.left, bp)} {node.op} {_print(node.right, bp + 1)}"
    if isinstance(node, IfElse):
        return f"{_print(node.then, _BP_IF + 1)} if {_print(node.cond, _BP_IF + 1)} else {_print(node.other, _BP_IF)}"
    if isinstance(node, Call):
        return f"{node.func}({', '.join(_print(a, _BP_IF + 1) for a in node.args)})"
    if isinstance(node, Query):
        arg = node.arg if node.func == "strcmp_cpuid_str" and _HEX_RE.fullmatch(node.arg) else _fmt_name(node.arg)
        return f"{node.func}({arg})"
    raise TypeError(f"not an expression node: {node!r}")


# -- analysis ---------------------------------------------------------------------------------------


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
                return (float(v), frozenset()) if _is_number(v) else (_BOTTOM, frozenset())
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
                return (1.0 if str(v).lower() == n.arg.lower() else 0.0), frozenset()
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
                return float(_scalar_call(n.func, av, bv)), frozenset()
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
                return float(_scalar_binary(n.op, av, bv)), frozenset()
            return _BOTTOM, ad | bd
        raise TypeError(f"not an expression node: {n!r}")

    return go(node)


def _is_number(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


def _scalar_binary(op: str, a: float, b: float) -> float:
    with np.errstate(all="ignore"):
        return float(_binary(op, np.float64(a), np.float64(b)))


def _scalar_call(func: str, a: float, b: float) -> float:
    with np.errstate(all="ignore"):
        return float(_call(func, np.float64(a), np.float64(b)))


# -- evaluation -------------------------------------------------------------------------------------


def _binary(op: str, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return np.where(b == 0, np.nan, a / np.where(b == 0, 1.0, b))
    if op == "%":
        ta, tb = np.trunc(a), np.trunc(b)
        return np.where(tb == 0, np.nan, np.fmod(ta, np.where(tb == 0, 1.0, tb)))
    nan = np.isnan(a) | np.isnan(b)
    if op == "|":  # a known non-zero operand decides, even against NaN (perf's expr.y)
        true = ((a != 0) & ~np.isnan(a)) | ((b != 0) & ~np.isnan(b))
        return np.where(true, 1.0, np.where(nan, np.nan, 0.0))
    if op == "&":  # a zero operand decides, even against NaN
        false = (a == 0) | (b == 0)
        return np.where(false, 0.0, np.where(nan, np.nan, 1.0))
    if op == "^":
        r = (a != 0) != (b != 0)
    elif op == "<":
        r = a < b
    elif op == ">":
        r = a > b
    elif op == "<=":
        r = a <= b
    elif op == ">=":
        r = a >= b
    elif op == "==":
        r = a == b
    elif op == "!=":
        r = a != b
    else:
        raise ValueError(f"unknown operator {op!r}")
    return np.where(nan, np.nan, np.asarray(r, dtype=np.float64))


def _call(func: str, a, b):
    if func == "min":
        return np.where(a < b, a, b)
    if func == "max":
        return np.where(a > b, a, b)
    if func == "d_ratio":
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))
    raise ValueError(f"unknown function {func!r}")


def _as_value(v):
    a = np.asarray(v, dtype=np.float64)
    return a[()] if a.ndim == 0 else a


class Evaluator:
    """Evaluates ASTs over an environment of numpy arrays (or scalars).

    ``env`` maps names to values; ``literals`` maps literal names (without ``#``) to numbers (``cpuid``
    may be a string). Override `name_value` to resolve names differently (the catalog resolves metric
    references there). A missing name or literal raises `ConfigError` naming it.
    """

    def __init__(self, env: Mapping[str, Any], literals: Mapping[str, Any] | None = None, what: str | None = None):
        self.env = env
        self.literals = dict(literals or {})
        self.what = what

    def _missing(self, kind: str, name: str) -> ConfigError:
        where = f" (needed by {self.what})" if self.what else ""
        return ConfigError(f"{kind} {name!r} is not available{where}")

    def name_value(self, name: str):
        try:
            return self.env[name]
        except KeyError:
            raise self._missing("event", name) from None

    def has(self, name: str) -> bool:
        return name in self.env

    def literal_value(self, name: str) -> Any:
        try:
            return lookup_literal(self.literals, name)
        except KeyError:
            shown = name if name.startswith("source_count(") or name == "cpuid" else "#" + name
            raise self._missing("literal", shown) from None

    def __call__(self, node: Node):
        with np.errstate(all="ignore"):
            return _as_value(self._eval(node))

    def _eval(self, n: Node):
        if isinstance(n, Num):
            return np.float64(n.value)
        if isinstance(n, Name):
            return np.asarray(self.name_value(n.name), dtype=np.float64)
        if isinstance(n, Literal):
            v = self.literal_value(n.name)
            if not _is_number(v):
                raise ConfigError(f"literal #{n.name} must be a number, got {v!r}")
            return np.float64(v)
        if isinstance(n, Unary):
            return -self._eval(n.operand)
        if isinstance(n, Binary):
            a = self._eval(n.left)
            if n.op in ("|", "&") and np.ndim(a) == 0 and not np.isnan(a):
                # short-circuit on a scalar left operand: the right side may need absent events
                if n.op == "|" and a != 0:
                    return np.float64(1.0)
                if n.op == "&" and a == 0:
                    return np.float64(0.0)
            return _binary(n.op, a, self._eval(n.right))
        if isinstance(n, IfElse):
            c = self._eval(n.cond)
            if np.ndim(c) == 0:
                return self._eval(n.other) if c == 0 else self._eval(n.then)
            return np.where(c == 0, self._eval(n.other), self._eval(n.then))
        if isinstance(n, Call):
            return _call(n.func, self._eval(n.args[0]), self._eval(n.args[1]))
        if isinstance(n, Query):
            if n.func == "has_event":
                return np.float64(1.0 if self.has(n.arg) else 0.0)
            if n.func == "source_count":
                return np.float64(self.literal_value(f"source_count({n.arg})"))
            return np.float64(1.0 if str(self.literal_value("cpuid")).lower() == n.arg.lower() else 0.0)
        raise TypeError(f"not an expression node: {n!r}")


def evaluate(node: Node | str, env: Mapping[str, Any] | None = None, literals: Mapping[str, Any] | None = None):
    """Value of ``node`` (an AST or expression text) over ``env`` (name → array or scalar)."""
    if isinstance(node, str):
        node = parse(node)
    return Evaluator(env or {}, literals)(node)


# -- linear forms (relations) -----------------------------------------------------------------------


def linear_form(node: Node, literals: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Coefficients of ``node`` as a homogeneous linear form in its names: ``{name: a_i}`` with
    ``node == sum_i a_i * name_i``. Products and quotients must have a constant side (literals
    count as constants when known); anything else — including a constant term — raises ValueError."""
    literals = literals or {}

    def const(n: Node) -> float | None:
        v, deps = fold(n, literals)
        return v if (v is not None and not deps) else None

    def go(n: Node, scale: float, acc: dict[str, float]) -> None:
        if isinstance(n, Name):
            acc[n.name] = acc.get(n.name, 0.0) + scale
            return
        c = const(n)
        if c is not None:
            if c != 0 and scale != 0:
                raise ValueError(f"a relation cannot have a constant term ({to_text(n)})")
            return
        if isinstance(n, Unary):
            go(n.operand, -scale, acc)
        elif isinstance(n, Binary) and n.op in "+-":
            go(n.left, scale, acc)
            go(n.right, scale if n.op == "+" else -scale, acc)
        elif isinstance(n, Binary) and n.op == "*":
            cl, cr = const(n.left), const(n.right)
            if cl is not None:
                go(n.right, scale * cl, acc)
            elif cr is not None:
                go(n.left, scale * cr, acc)
            else:
                raise ValueError(f"not linear: product of two non-constant terms ({to_text(n)})")
        elif isinstance(n, Binary) and n.op == "/":
            cr = const(n.right)
            if cr is None or cr == 0:
                raise ValueError(f"not linear: division by a non-constant or zero ({to_text(n)})")
            go(n.left, scale / cr, acc)
        else:
            raise ValueError(f"not linear: {to_text(n)}")

    acc: dict[str, float] = {}
    go(node, 1.0, acc)
    return {k: v for k, v in acc.items() if v != 0}
