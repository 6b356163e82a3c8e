"""Metric expressions: a safe tokenizer, a Pratt parser, a printer and a vectorised evaluator
(`nodes`: the tree; `syntax`: tokenizer, parser, printer; `analysis`: names, folding; `numeric`:
evaluation and linear forms).

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

from mpx.metrics.expr.analysis import fold, literal_names, lookup_literal, names, substitute, walk
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
from mpx.metrics.expr.numeric import Evaluator, evaluate, linear_form
from mpx.metrics.expr.syntax import Token, fmt_name, fmt_num, parse, to_text, tokenize

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
    "Token",
    "tokenize",
    "parse",
    "to_text",
    "fmt_name",
    "fmt_num",
    "names",
    "literal_names",
    "lookup_literal",
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
