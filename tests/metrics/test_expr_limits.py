"""Metric expressions and catalogs beyond what can be read are the project's error, with file and line
(issue 16): hex literals of 2**1024 or more (``OverflowError``), flat sums of hundreds of terms
(``RecursionError`` in every function over trees), integers of more than 4,300 digits in catalog JSON
and TOML (``ValueError``), ``e\\²`` in an hperf catalog (``ValueError`` from ``int('²')``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics.catalog import load_catalog
from mpx.metrics.expr.syntax import MAX_DEPTH


def test_a_hex_literal_beyond_float_is_a_syntax_error():
    assert E.parse("0x" + "f" * 255).value == float(16**255 - 1)  # just below 2**1024
    with pytest.raises(E.ExprSyntaxError, match="too large for a float") as err:
        E.parse("cycles + 0x1" + "0" * 256, path="m.json", line=3, what="metric 'm'")
    assert (err.value.path, err.value.line, err.value.position) == ("m.json", 3, 9)


def test_flat_sums_are_read_to_the_stated_depth():
    ok = " + ".join(f"e{i}" for i in range(MAX_DEPTH - 1))  # N terms are N levels deep
    tree = E.parse(ok)
    assert E.parse(E.to_text(tree)) == tree and E.evaluate(tree, {f"e{i}": 1.0 for i in range(MAX_DEPTH)}) == MAX_DEPTH - 1
    for n in (MAX_DEPTH + 1, 600, 1000, 5000):
        with pytest.raises(E.ExprSyntaxError, match=f"{n} levels deep"):
            E.parse(" + ".join(["x"] * n))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_catalog_errors_name_file_and_line(tmp_path: Path):
    perf = [{"MetricName": "ipc", "MetricExpr": "instructions / cycles"},
            {"MetricName": "sum", "MetricExpr": " + ".join(["cycles"] * 1000)},
            {"MetricName": "hex", "MetricExpr": "0x1" + "0" * 300}]
    for i in (1, 2):  # a metric too deep or too large is skipped (as perf skips a broken metric), with file and line
        p = _write(tmp_path, f"perf{i}.json", json.dumps([perf[0], perf[i]], indent=1))
        [prob] = load_catalog(p).problems
        assert prob.file == str(p) and prob.line == 7 and prob.action == "dropped", str(prob)[:200]
    big = json.dumps([perf[0]], indent=1).replace('"ipc"', '"ipc", "x": ' + "9" * 5000)
    p = _write(tmp_path, "digits.json", big)
    with pytest.raises(FormatError, match="4300 digits") as err:
        load_catalog(p)
    assert (err.value.path, err.value.line) == (str(p), 3)
    p = _write(tmp_path, "digits.toml", "[catalog]\nname = 'x'\n\n[literals]\nslots = " + "9" * 5000 + "\n")
    with pytest.raises(FormatError, match="4300 digits") as err:
        load_catalog(p)
    assert (err.value.path, err.value.line) == (str(p), 5)


def test_a_superscript_digit_in_an_hperf_event_reference(tmp_path: Path):
    """``e\\²`` lexes as the name ``e²``; ``'²'.isdigit()`` is True but ``int('²')`` raises."""
    doc = {"events": [{"id": 2, "perf_name": "cycles", "name": "CYCLES"}], "other_events": [2],
           "metrics": [{"metric": "C", "expression": "e2"}, {"metric": "S", "expression": "e\\\u00b2"}],
           "available_GP": 4}
    p = _write(tmp_path, "h.json", json.dumps(doc, indent=1))
    with pytest.raises(FormatError, match="'e\u00b2' is not e<id> of a defined event") as err:
        load_catalog(p)
    assert err.value.path == str(p) and err.value.line is not None
    doc["metrics"][1]["expression"] = "e" + "2" * 5000
    p = _write(tmp_path, "h2.json", json.dumps(doc, indent=1))
    with pytest.raises(FormatError, match="is not e<id>"):
        load_catalog(p)
