"""Metric expressions: tokenizer, parser (precedence, if-else chains, escaped terms), printer,
evaluation against hand-computed values, perf's zero-division semantics, syntax errors with positions,
partial evaluation (hyperedge pruning) and linear forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpx.errors import ConfigError, FormatError
from mpx.metrics import expr as E
from mpx.metrics.expr import Binary, Call, IfElse, Literal, Name, Num, Query, Unary

# -- tokenizer --------------------------------------------------------------------------------------


def kinds(text):
    return [(t.kind, t.value) for t in E.tokenize(text)][:-1]


@pytest.mark.parametrize(
    "text, value",
    [("4", 4.0), ("2.5", 2.5), (".5", 0.5), ("7.", 7.0), ("1e9", 1e9), ("1.E-06", 1e-06), ("1.0E-06", 1e-06),
     ("2e+3", 2000.0), ("0x3c", 60.0), ("0XFF", 255.0), ("100e3", 100e3)],
)
def test_numbers(text, value):
    assert kinds(text) == [("NUM", value)]


def test_token_kinds():
    assert kinds("a+#slots*min(b,c)<=d") == [
        ("NAME", "a"), ("OP", "+"), ("LIT", "slots"), ("OP", "*"), ("KW", "min"), ("OP", "("), ("NAME", "b"),
        ("OP", ","), ("NAME", "c"), ("OP", ")"), ("OP", "<="), ("NAME", "d"),
    ]
    assert kinds("x if y else z") == [("NAME", "x"), ("KW", "if"), ("NAME", "y"), ("KW", "else"), ("NAME", "z")]
    # a keyword is only a keyword as a whole symbol; digits followed by letters form a name (flex longest match)
    assert kinds("iffy elsewhere min_x 2x 0x1g") == [
        ("NAME", "iffy"), ("NAME", "elsewhere"), ("NAME", "min_x"), ("NAME", "2x"), ("NAME", "0x1g"),
    ]


@pytest.mark.parametrize(
    "text, name",
    [
        (r"cpu@INST_DECODED.DECODERS\,cmask\=1@", "cpu/INST_DECODED.DECODERS,cmask=1/"),
        ("msr@aperf@", "msr/aperf/"),
        (r"cstate_core@c3\-residency@", "cstate_core/c3-residency/"),
        (r"UNC_ARB_TRK_OCCUPANCY.DATA_READ@cmask\=1@", "UNC_ARB_TRK_OCCUPANCY.DATA_READ/cmask=1/"),
        ("BR_INST_RETIRED.FAR_BRANCH:u", "BR_INST_RETIRED.FAR_BRANCH:u"),
        (r"cycles\-t", "cycles-t"),
        ("EXE_ACTIVITY.1_PORTS_UTIL", "EXE_ACTIVITY.1_PORTS_UTIL"),
        ("system.cpu.dcache.overallMisses::total", "system.cpu.dcache.overallMisses::total"),
        (r"a\ b", "a b"),
        (r"\if", "if"),
    ],
)
def test_escaped_terms(text, name):
    node = E.parse(text)
    assert node == Name(name)
    assert E.parse(E.to_text(node)) == node


# -- parser: structure and precedence ---------------------------------------------------------------

a, b, c, d, e = (Name(x) for x in "abcde")


@pytest.mark.parametrize(
    "text, tree",
    [
        ("a - b - c", Binary("-", Binary("-", a, b), c)),
        ("a / b / c", Binary("/", Binary("/", a, b), c)),
        ("a + b * c", Binary("+", a, Binary("*", b, c))),
        ("(a + b) * c", Binary("*", Binary("+", a, b), c)),
        ("-a * b", Binary("*", Unary("-", a), b)),
        ("-(a * b)", Unary("-", Binary("*", a, b))),
        ("--a", Unary("-", Unary("-", a))),
        ("a < b & c > d", Binary("&", Binary("<", a, b), Binary(">", c, d))),
        ("a | b ^ c & d", Binary("|", a, Binary("^", b, Binary("&", c, d)))),
        ("a + b < c", Binary("<", Binary("+", a, b), c)),
        ("a if b else c", IfElse(a, b, c)),
        ("a if b else c if d else e", IfElse(a, b, IfElse(c, d, e))),
        ("(a if b else c) if d else e", IfElse(IfElse(a, b, c), d, e)),
        ("a + b if c > d else e", IfElse(Binary("+", a, b), Binary(">", c, d), e)),
        ("min(a, b if c else d)", Call("min", (a, IfElse(b, c, d)))),
        ("d_ratio(a, b) * 100", Binary("*", Call("d_ratio", (a, b)), Num(100.0))),
        ("#SMT_on * a", Binary("*", Literal("SMT_on"), a)),
        ("has_event(cycles\\-t)", Query("has_event", "cycles-t")),
        ("source_count(a)", Query("source_count", "a")),
        ("strcmp_cpuid_str(0x410fd493)", Query("strcmp_cpuid_str", "0x410fd493")),
    ],
)
def test_structure(text, tree):
    node = E.parse(text)
    assert node == tree
    assert E.parse(E.to_text(node)) == node


def test_printer_uses_minimal_parentheses():
    assert E.to_text(E.parse("((a + b)) * (c)")) == "(a + b) * c"
    assert E.to_text(E.parse("a - (b - c)")) == "a - (b - c)"
    assert E.to_text(E.parse("a - (b + c)")) == "a - (b + c)"
    assert E.to_text(E.parse("(a - b) - c")) == "a - b - c"
    assert E.to_text(E.parse("(a if b else c) + 1")) == "(a if b else c) + 1"
    assert E.to_text(Num(-2.0)) == "-2"


# -- evaluation against hand-computed values --------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("10 - 4 - 3", 3), ("8 / 4 / 2", 1), ("2 * 3 % 4", 2),
        ("-2 * 3", -6), ("- 2 + 3", 1), ("5 % 3", 2), ("-7 % 3", -1), ("7.9 % 2.5", 1), ("7 % -3", 1),
        ("1 < 2 & 3 > 4", 0), ("1 | 0 & 0", 1), ("(1 | 0) & 0", 0), ("0 ^ 1 & 0", 0), ("1 ^ 1 | 1", 1),
        ("2 ^ 3", 0), ("2 ^ 0", 1), ("0.5 & 2", 1), ("2 + 3 < 6", 1), ("3 == 3", 1), ("3 != 3", 0),
        ("3 <= 3", 1), ("3 >= 4", 0), ("1 if 0 else 2 if 1 else 3", 2), ("1 + 2 if 0 else 3 + 4", 7),
        ("min(3, 2)", 2), ("max(3, 2)", 3), ("d_ratio(1, 0)", 0), ("d_ratio(3, 4)", 0.75),
        ("1e3 * 2", 2000), ("0x10 + 1", 17),
    ],
)
def test_constant_values(text, expected):
    assert E.evaluate(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["1 / 0", "0 / 0", "5 % 0", "5 % 0.5", "(1 / 0) + 1", "(1 / 0) < 2", "(0 / 0) | 0",
                                  "1 & 0 / 0", "(0 / 0) ^ 1"])
def test_division_by_zero_is_nan(text):
    assert math.isnan(E.evaluate(text))


@pytest.mark.parametrize("text, value", [("(0 / 0) | 1", 1), ("2 | 0 / 0", 1), ("(0 / 0) & 0", 0), ("0 & 0 / 0", 0)])
def test_deciding_operand_beats_nan(text, value):
    # perf's expr.y: for '|' a known non-zero side gives 1, for '&' a zero side gives 0
    assert E.evaluate(text) == value


def test_vectorised_evaluation():
    env = {"x": np.array([1.0, 2.0, 0.0, 4.0]), "y": np.array([0.0, 4.0, 0.0, 2.0])}
    np.testing.assert_array_equal(E.evaluate("d_ratio(x, y)", env), [0.0, 0.5, 0.0, 2.0])
    np.testing.assert_array_equal(E.evaluate("x / y", env), [np.nan, 0.5, np.nan, 2.0])
    np.testing.assert_array_equal(E.evaluate("x if y > 1 else -x", env), [-1.0, 2.0, -0.0, 4.0])
    np.testing.assert_array_equal(E.evaluate("min(x, y) + max(x, y)", env), env["x"] + env["y"])
    np.testing.assert_array_equal(E.evaluate("x % 3", env), [1.0, 2.0, 0.0, 1.0])
    np.testing.assert_array_equal(E.evaluate("(x / y) > 1", env), [np.nan, 0.0, np.nan, 1.0])
    # an if whose condition is NaN takes the true branch, as in perf (only exactly 0 is false)
    np.testing.assert_array_equal(E.evaluate("1 if x / y else 2", env), [1.0, 1.0, 1.0, 1.0])


def test_scalar_condition_evaluates_only_the_branch_taken():
    env = {"b": np.array([1.0, 2.0])}
    # 'a' is absent: fine as long as the branch naming it is not taken
    np.testing.assert_array_equal(E.evaluate("a if #SMT_on else b", env, {"SMT_on": 0}), [1.0, 2.0])
    np.testing.assert_array_equal(E.evaluate("(a / b if has_event(a) else 0) + b", env), [1.0, 2.0])
    np.testing.assert_array_equal(E.evaluate("0 & a", env), 0.0)
    with pytest.raises(ConfigError, match="'a'"):
        E.evaluate("a if #SMT_on else b", env, {"SMT_on": 1})


def test_literals_and_queries():
    assert E.evaluate("#SMT_on + 1", {}, {"smt_on": 1}) == 2  # case-insensitive fallback, as perf's #smt_on
    assert E.evaluate("#slots * x", {"x": 2.0}, {"slots": 4}) == 8
    with pytest.raises(ConfigError, match="#num_dies"):
        E.evaluate("x / #num_dies", {"x": 1.0}, {})
    assert E.evaluate("source_count(u) * 2", {"u": 1.0}, {"source_count(u)": 3}) == 6
    with pytest.raises(ConfigError, match="source_count"):
        E.evaluate("source_count(u)", {"u": 1.0})
    assert E.evaluate("strcmp_cpuid_str(0x410fd493)", {}, {"cpuid": "0x410FD493"}) == 1
    assert E.evaluate("strcmp_cpuid_str(0x410fd493)", {}, {"cpuid": "0x410fd490"}) == 0
    with pytest.raises(ConfigError, match="cpuid"):
        E.evaluate("strcmp_cpuid_str(0x410fd493)")
    assert E.evaluate("has_event(x) + has_event(y)", {"x": 1.0}) == 1


def test_names_and_literal_names():
    node = E.parse("(a + source_count(u)) / #slots if has_event(q) else msr@aperf@")
    assert E.names(node) == {"a", "u", "msr/aperf/"}
    assert E.literal_names(node) == {"slots", "source_count(u)"}


# -- syntax errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, position, words",
    [
        ("a +", 3, "end of expression"),
        ("(a", 2, "')'"),
        ("a b", 2, "'b'"),
        ("min(a)", 5, "','"),
        ("a if b", 6, "'else'"),
        ("1 $ 2", 2, "'$'"),
        ("#", 0, "literal"),
        ("a else b", 2, "'else'"),
        ("", 0, "empty"),
        ("  ", 0, "empty"),
        ("a \\", 2, "backslash"),
        ("has_event(1 + 2)", 10, "takes a name"),
        ("max(a, b", 8, "')'"),
        ("a * * b", 4, "'*'"),
        (")", 0, "')'"),
    ],
)
def test_syntax_errors_name_position(text, position, words):
    with pytest.raises(FormatError) as info:
        E.parse(text, path="cat.json", line=12, what="metric 'x'")
    err = info.value
    assert isinstance(err, E.ExprSyntaxError)
    assert err.position == position
    assert err.path == "cat.json" and err.line == 12
    msg = str(err)
    assert msg.startswith("cat.json:12: metric 'x': ")
    assert f"position {position}" in msg and words in msg


def test_deep_nesting_is_a_format_error():
    with pytest.raises(FormatError, match="nested too deeply"):
        E.parse("(" * 5000 + "a" + ")" * 5000)


# -- partial evaluation (perf's expr__find_ids) -----------------------------------------------------


def test_fold_prunes_branches_with_known_literals():
    node = E.parse("u + (a / 2 if #SMT_on else b)")
    assert E.fold(node)[1] == {"u", "a", "b"}
    assert E.fold(node, {"SMT_on": 1})[1] == {"u", "a"}
    assert E.fold(node, {"SMT_on": 0})[1] == {"u", "b"}
    assert E.fold(E.parse("x / 0 + d_ratio(y, 0)"))[1] == frozenset()
    assert E.fold(E.parse("(a if has_event(a) else 0)"), available={"b"}) == (0.0, frozenset())
    assert E.fold(E.parse("1 | a"))[1] == frozenset() and E.fold(E.parse("0 & a")) == (0.0, frozenset())
    assert E.fold(E.parse("3 if a else 3")) == (3.0, frozenset())
    assert E.fold(E.parse("source_count(u)"))[1] == {"u"}


def test_linear_form():
    assert E.linear_form(E.parse("2 * a + b / 4 - (c - a)")) == {"a": 3.0, "b": 0.25, "c": -1.0}
    assert E.linear_form(E.parse("#w * cycles - a"), {"w": 4}) == {"cycles": 4.0, "a": -1.0}
    assert E.linear_form(E.parse("a - a")) == {}
    for bad in ("a * b", "a / b", "a + 1", "min(a, b)", "a / 0"):
        with pytest.raises(ValueError):
            E.linear_form(E.parse(bad))


@pytest.mark.parametrize("text", ["1e309", "2 * 1e400", "-1e999", "a + 1" + "0" * 400, "9" * 5000 + " * a"])
def test_a_decimal_literal_beyond_float_is_a_syntax_error(text):
    """Issue 29: a decimal literal beyond the float range became inf with nothing noted, while an
    overflowing hex literal was an error; one rule now: both are errors."""
    with pytest.raises(E.ExprSyntaxError, match="too large for a float"):
        E.parse(text, path="m.json", line=2)


def test_infinity_prints_as_an_expression_that_reads_back():
    """inf printed as 'inf' read back as an event named inf (issue 16); a tree built in code prints it as
    an expression evaluating to inf."""
    for v in (math.inf, -math.inf):
        back = E.parse(E.fmt_num(v))
        assert E.names(back) == set() and E.evaluate(back, {}) == v


def test_nan_prints_as_a_number_expression():
    assert E.fmt_num(math.nan) == "(1e308 * 10 - 1e308 * 10)"
    back = E.parse(E.fmt_num(math.nan))
    assert E.names(back) == set() and math.isnan(E.evaluate(back, {}))
