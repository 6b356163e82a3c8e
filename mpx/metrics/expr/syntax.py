"""Text ↔ tree: the tokenizer (perf's lexer rules), the Pratt parser and the printer."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mpx.errors import FormatError
from mpx.metrics.expr.nodes import (
    BINARY_OPS,
    FUNCTIONS,
    QUERIES,
    Binary,
    Call,
    ExprSyntaxError,
    IfElse,
    Literal,
    Name,
    Node,
    Num,
    Query,
    Unary,
)

__all__ = ["MAX_DEPTH", "Token", "depth", "fmt_name", "fmt_num", "parse", "to_text", "tokenize"]

# binding powers (higher binds tighter; binary operators: BINARY_OPS)
_BP_IF = 1
_BP_UNARY = 8
_BP_ATOM = 9
_KEYWORDS = frozenset(("if", "else") + FUNCTIONS + QUERIES)

MAX_DEPTH = 200
"""The deepest expression tree read (a flat sum of N terms is N levels deep: operators associate to the
left). The deepest of the 971 metrics of the shipped and reference catalogs is 16; every function over
trees (printing, folding, evaluation) recurses once or twice per level, within Python's stack."""


# -- tokenizer --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    """One token: its kind, value and 0-based position in the expression."""

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
        lo = max(0, pos - 60) if len(self.text) > 200 else 0  # a window of a long expression, not all of it
        shown = self.text[lo:lo + 200] if len(self.text) > 200 else self.text
        pointer = f"\n    {'...' if lo else ''}{shown}{'...' if lo + 200 < len(self.text) else ''}" \
                  f"\n    {' ' * (pos - lo + (3 if lo else 0))}^"
        return ExprSyntaxError(
            self.path, self.line, f"{prefix}{message} at position {pos} of the expression{pointer}", self.text, pos
        )


_SYM_RUN = re.compile(r"[0-9A-Za-z_.:@?]+")  # _SYM_CHARS, many at a time (a 64 MiB number took 47 s by the char)


def _symbol_run(text: str, i: int, ctx: _Ctx) -> tuple[str, str, int]:
    """Read a perf symbol starting at ``i``: returns (normalised name, raw text, end index)."""
    out = []
    j = i
    n = len(text)
    while j < n:
        if text[j] == "\\":
            if j + 1 >= n:
                raise ctx.error(j, "a backslash must escape a character")
            out.append(text[j + 1])
            j += 2
            continue
        m = _SYM_RUN.match(text, j)
        if m is None:
            break
        out.append(m.group().replace("@", "/"))
        j = m.end()
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
                try:
                    value = float(int(lexeme, 16)) if hexm else float(lexeme)
                except OverflowError:  # a hex literal of 2**1024 or more
                    value = math.inf
                if not math.isfinite(value):  # one rule for hex and decimal (1e999, a 400-digit integer)
                    raise ctx.error(i, f"number {lexeme[:20]}{'...' if len(lexeme) > 20 else ''} is too "
                                       "large for a float") from None
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
        node = _Parser(text, ctx).parse()
    except RecursionError:
        raise ctx.error(0, "expression nested too deeply") from None
    levels = depth(node)
    if levels > MAX_DEPTH:
        raise ctx.error(0, f"expression {levels} levels deep (a sum of N terms is N levels); at most "
                           f"{MAX_DEPTH} are read")
    return node


def depth(node: Node) -> int:
    """Levels of the tree (a leaf is 1), counted without recursion."""
    best, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        best = max(best, d)
        if isinstance(n, Unary):
            stack.append((n.operand, d + 1))
        elif isinstance(n, Binary):
            stack += [(n.left, d + 1), (n.right, d + 1)]
        elif isinstance(n, IfElse):
            stack += [(n.then, d + 1), (n.cond, d + 1), (n.other, d + 1)]
        elif isinstance(n, Call):
            stack += [(a, d + 1) for a in n.args]
    return best


# -- printer ----------------------------------------------------------------------------------------


def fmt_num(v: float) -> str:
    """A number as the printer writes it (integers without a point). A literal beyond the float range is
    a syntax error (decimal or hex: one rule), so infinity — only a tree built in code holds it — prints
    as ``(1e308 * 10)``, which evaluates back to inf: ``repr`` would give ``inf``, which reads back as an
    event named ``inf``; NaN likewise as ``(1e308 * 10 - 1e308 * 10)``."""
    if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if math.isnan(v):
        return "(1e308 * 10 - 1e308 * 10)"
    if math.isinf(v):
        return "(1e308 * 10)" if v > 0 else "(-1e308 * 10)"
    return repr(float(v))


def fmt_name(name: str) -> str:
    """A name as the lexer reads it back (``/`` as ``@``, other special characters escaped)."""
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
        return ("-" + fmt_num(-node.value)) if node.value < 0 else fmt_num(node.value)
    if isinstance(node, Name):
        return fmt_name(node.name)
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
        arg = node.arg if node.func == "strcmp_cpuid_str" and _HEX_RE.fullmatch(node.arg) else fmt_name(node.arg)
        return f"{node.func}({arg})"
    raise TypeError(f"not an expression node: {node!r}")
