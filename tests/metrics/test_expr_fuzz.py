"""Property-based tests: random expressions round-trip through print/parse and evaluate like an
independent scalar reference on the AST; garbage expressions and mutated or truncated catalog files
raise only FormatError (or load)."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.metrics import expr as E
from mpx.metrics import load_catalog
from mpx.metrics.formats import armtelemetry, hperf, likwid, perfjson
from mpx.metrics.formats import toml as mtoml

NAMES = ["a", "b", "EV.NAME", "cpu/X.Y,cmask=1/", "x-y", "ev:u", "2x", "if", "min", "1e5", "0x1f", "a b", "a@b", "_", "q?"]
LITS = ["slots", "SMT_on", "w.x", "n-1"]
ENV_NAMES = NAMES[:-1]  # 'q?' stays absent: has_event(q?) is 0, and it is never read
OPS = list(E.BINARY_OPS)

leaf = st.one_of(
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False).map(E.Num),
    st.integers(0, 5).map(lambda i: E.Num(float(i))),
    st.sampled_from(ENV_NAMES).map(E.Name),
    st.sampled_from(LITS).map(E.Literal),
    st.sampled_from(NAMES).map(lambda n: E.Query("has_event", n)),
)


def extend(children):
    return st.one_of(
        children.map(lambda c: E.Unary("-", c)),
        st.tuples(st.sampled_from(OPS), children, children).map(lambda t: E.Binary(*t)),
        st.tuples(children, children, children).map(lambda t: E.IfElse(*t)),
        st.tuples(st.sampled_from(E.FUNCTIONS), children, children).map(lambda t: E.Call(t[0], (t[1], t[2]))),
    )


trees = st.recursive(leaf, extend, max_leaves=25)
values = st.one_of(st.integers(-3, 3).map(float), st.floats(-1e3, 1e3, allow_nan=False))


def ref(node, env, lits):
    """Scalar reference semantics, written independently of mpx's numpy evaluator."""
    r = lambda n: ref(n, env, lits)  # noqa: E731
    if isinstance(node, E.Num):
        return node.value
    if isinstance(node, E.Name):
        return env[node.name]
    if isinstance(node, E.Literal):
        return lits[node.name]
    if isinstance(node, E.Query):
        return 1.0 if node.arg in env else 0.0
    if isinstance(node, E.Unary):
        return -r(node.operand)
    if isinstance(node, E.IfElse):
        return r(node.other) if r(node.cond) == 0 else r(node.then)
    if isinstance(node, E.Call):
        x, y = r(node.args[0]), r(node.args[1])
        if node.func == "min":
            return x if x < y else y
        if node.func == "max":
            return x if x > y else y
        return 0.0 if y == 0 else x / y
    x, y = r(node.left), r(node.right)
    op = node.op
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "/":
        return math.nan if y == 0 else x / y
    if op == "%":
        if math.isnan(x) or math.isnan(y) or math.isinf(x):
            return math.nan
        tx, ty = float(math.trunc(x)), (y if math.isinf(y) else float(math.trunc(y)))
        return math.nan if ty == 0 else math.fmod(tx, ty)
    if op == "|" and ((x != 0 and not math.isnan(x)) or (y != 0 and not math.isnan(y))):
        return 1.0
    if op == "&" and (x == 0 or y == 0):
        return 0.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    return float({
        "|": (x != 0) or (y != 0), "&": (x != 0) and (y != 0), "^": (x != 0) != (y != 0),
        "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y, "!=": x != y,
    }[op])


@settings(max_examples=100, deadline=None)
@given(trees)
def test_print_parse_round_trip(node):
    text = E.to_text(node)
    assert E.parse(text) == node, text


@settings(max_examples=100, deadline=None)
@given(trees, st.lists(st.fixed_dictionaries({n: values for n in ENV_NAMES}), min_size=1, max_size=4),
       st.fixed_dictionaries({n: st.integers(0, 4) for n in LITS}))
def test_evaluation_matches_scalar_reference(node, rows, lits):
    env = {n: np.array([row[n] for row in rows]) for n in ENV_NAMES}
    with np.errstate(all="ignore"):
        got = np.broadcast_to(E.evaluate(node, env, lits), (len(rows),))
        want = np.array([ref(node, row, lits) for row in rows], dtype=float)
    assert np.array_equal(got, want, equal_nan=True), (E.to_text(node), got, want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(list("ab1.e0x#@\\,=-+*/%|^&<>=!() \t_:?$") + [" if ", " else ", "min(", "d_ratio(", "has_event("]),
               max_size=30).map("".join))
def test_garbage_expressions_raise_only_format_error(text):
    try:
        node = E.parse(text)
    except FormatError as exc:
        assert isinstance(exc, E.ExprSyntaxError) and 0 <= exc.position <= len(text)
        return
    assert E.parse(E.to_text(node)) == node


# -- mutated catalog files --------------------------------------------------------------------------

SEEDS = {
    "perf.json": json.dumps([
        {"MetricName": "ipc", "MetricExpr": "INST_RETIRED.ANY / cyc", "MetricGroup": "A;B", "ScaleUnit": "100%"},
        {"MetricName": "cyc", "MetricExpr": "CPU_CLK_UNHALTED.THREAD if #SMT_on else cpu@X\\,cmask\\=1@",
         "MetricConstraint": "NO_GROUP_EVENTS", "MetricThreshold": "ipc > 1"},
        {"EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0", "CounterHTOff": "Fixed counter 0"},
        {"EventName": "UNC_Y", "Counter": "0,1", "Unit": "CBO"},
    ], indent=1),
    "G.txt": "SHORT toy\nREQUIRE_NOHT\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\nFIXC1 CPU_CLK_UNHALTED_CORE\n"
             "PMC0:EDGEDETECT STALLS\nMETRICS\nRuntime [s] time\nCPI  FIXC1/FIXC0\nStall len PMC0:EDGEDETECT/FIXC1\n"
             "Clock [MHz] 1.E-06*FIXC1/inverseClock\nLONG\nCPI = a/b\n",
    "arm.json": json.dumps({
        "product_configuration": {"product_name": "X", "num_slots": 8},
        "events": {"CPU_CYCLES": {"code": "0x11", "title": "cycles"}, "INST_RETIRED": {"code": "0x08"}},
        "metrics": {"ipc": {"formula": "INST_RETIRED / CPU_CYCLES", "events": ["CPU_CYCLES", "INST_RETIRED"],
                            "sample_events": [], "units": "per cycle"}},
        "groups": {"metrics": {"General": {"metrics": ["ipc"]}}, "function": {"General": {"events": ["CPU_CYCLES"]}}},
        "methodologies": {},
    }, indent=1),
    "hperf.json": json.dumps({
        "events": [{"id": 1, "perf_name": "duration_time", "name": "T"}, {"id": 20, "perf_name": "cycles", "name": "C"},
                   {"id": 30, "perf_name": "r08d1", "name": "M"}],
        "other_events": [1], "pinned_events": [20], "event_groups": [[30]],
        "metrics": [{"metric": "F", "expression": "e20 / (e1 / 1000000000)"}, {"metric": "R", "expression": "e30 / e20"}],
        "available_GP": 4,
    }, indent=1),
    "cat.toml": '[catalog]\nname = "t"\n[literals]\nw = 4\n[events.c]\ncounter = "0,1"\n'
                '[metrics.s]\nexpr = "#w * c"\n[metrics."f.b"]\nexpr = "f / s"\nunit = "100%"\ngroups = ["L1"]\n'
                '[relations.r]\nexpr = "f + b == #w * c"\n[groups.g]\nkind = "event_group"\nevents = ["c"]\n',
}
LOADERS = {"perf.json": perfjson.load, "G.txt": likwid.load, "arm.json": armtelemetry.load, "hperf.json": hperf.load,
           "cat.toml": mtoml.load}
JUNK = ['"', "{", "}", "[", "]", ",", ":", "0", "-1", "null", "true", "1e999", "\\", "\n", "=", "x", "#", "@", "(", ")",
        "[metrics.", "EVENTSET", "METRICS", "PMC9", "e99", "\xff", "\ud800"]


def mutate(data: st.DataObject, text: str) -> bytes:
    ops = data.draw(st.lists(st.sampled_from(["cut", "insert", "delete", "truncate", "swap"]), min_size=1, max_size=4))
    for op in ops:
        n = len(text)
        i = data.draw(st.integers(0, n))
        if op == "cut":
            j = data.draw(st.integers(i, min(n, i + 40)))
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + data.draw(st.sampled_from(JUNK)) + text[i:]
        elif op == "delete" and n:
            text = text[: min(i, n - 1)] + text[min(i, n - 1) + 1:]
        elif op == "truncate":
            text = text[:i]
        elif op == "swap" and n > 1:
            j = data.draw(st.integers(0, n - 1))
            lst = list(text)
            lst[min(i, n - 1)], lst[j] = lst[j], lst[min(i, n - 1)]
            text = "".join(lst)
    return text.encode("utf-8", errors="surrogatepass")


def check_only_format_error(name: str, payload: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(payload)
        for load in (LOADERS[name], load_catalog):
            try:
                load(p)
            except FormatError:
                pass


def test_seeds_load():
    for name, text in SEEDS.items():
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / name
            p.write_text(text)
            assert len(LOADERS[name](p).metrics) >= 1, name


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(SEEDS)), st.data())
def test_mutated_catalogs_raise_only_format_error(name, data):
    check_only_format_error(name, mutate(data, SEEDS[name]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["likwid/skylake/TMA.txt", "likwid/skylake/UOPS_EXEC.txt", "hperf/arm.json",
                        "linux-perf/arm64/thead/yitian710/sys/metrics.json"]), st.data())
def test_mutated_real_files_raise_only_format_error(shared, rel, data):
    path = shared("data", "metrics", *rel.split("/"))
    text = path.read_text()
    assume(text)
    kind = "G.txt" if path.suffix == ".txt" else ("hperf.json" if "hperf" in rel else "perf.json")
    check_only_format_error(kind, mutate(data, text))


JSON_JUNK = [None, 0, 1, -1, 1.5, "x", "", "a +", [], {}, [1], {"a": 1}, True, "e99", "0,1", "Fixed counter x", ["x"], [[1]]]


def _json_paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _json_paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _json_paths(v, p + (i,))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["perf.json", "arm.json", "hperf.json"]), st.data())
def test_json_values_of_wrong_type_raise_only_format_error(name, data):
    obj = json.loads(SEEDS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(list(_json_paths(obj))))
        junk = json.loads(json.dumps(data.draw(st.sampled_from(JSON_JUNK))))
        if not path:
            obj = junk
            continue
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        if isinstance(path[-1], str) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = junk
    check_only_format_error(name, json.dumps(obj).encode())
