"""mpx.readers.jsonl: mpx-stats JSON lines → Trace; every malformed input is a FormatError with file and line."""

from __future__ import annotations

import gzip
import io
import json
import lzma

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import FormatError
from mpx.readers import detect_format, jsonl, read_trace
from mpx.stats import PeriodicDumper, StatGroup

HEADER = {
    "format": "mpx-stats",
    "version": 1,
    "time_unit": "cycles",
    "period": 10,
    "meta": {"simulator": "hand"},
    "stats": [
        {"name": "a", "type": "scalar", "desc": "", "unit": None, "additive": True},
        {"name": "v", "type": "vector", "desc": "", "unit": None, "additive": True, "labels": ["x"]},
        {"name": "d", "type": "distribution", "desc": "", "unit": None, "edges": [0, 10]},
        {"name": "g", "type": "formula", "desc": "", "unit": None, "additive": False},
    ],
}


def rec(start, end, a=1, v=None, d=None, g=0.5, **extra):
    d = d if d is not None else {"count": 1, "sum": 3, "mean": 3, "min": 3, "max": 3, "underflows": 0,
                                 "overflows": 0, "buckets": [1]}
    return {"start": start, "end": end, "stats": {"a": a, "v": {"x": 1} if v is None else v, "d": d, "g": g},
            **extra}


def write(tmp_path, *objs, raw_tail: str = "", name="f.jsonl"):
    """Write JSON objects one per line (strings are written verbatim)."""
    text = "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs) + raw_tail
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error(path, line=None, match=None):
    with pytest.raises(FormatError) as info:
        jsonl.read(path)
    err = info.value
    assert err.path == str(path)
    if line is not None:
        assert err.line == line, str(err)
    if match is not None:
        assert match in err.message, str(err)
    return err


# -- reading --------------------------------------------------------------------------------------------


def test_minimal_file_and_mapping(tmp_path):
    p = write(tmp_path, HEADER, rec(0, 10), rec(10, 25, a=2, v={"x": 0, "y": 4}, g="inf"))
    t = read_trace(p)
    assert t.events == ("a", "v::x", "v::y", "d::samples", "d::underflows", "d::0-10", "d::overflows")
    assert t.aux_names == ("d::mean", "d::min_value", "d::max_value", "g")
    # bin y appears in the second interval only: 0 before
    np.testing.assert_array_equal(t.counts, [[1, 1, 0, 1, 0, 1, 0], [2, 0, 4, 1, 0, 1, 0]])
    np.testing.assert_array_equal(t.aux, [[3, 3, 3, 0.5], [3, 3, 3, np.inf]])
    assert t.edges.tolist() == [0, 10, 25] and t.time_unit == "cycles"
    assert t.meta["simulator"] == "hand" and t.meta["format"] == "jsonl" and t.meta["dump_period"] == 10


def test_new_bins_are_grouped_with_their_vector(tmp_path):
    p = write(tmp_path, {**HEADER, "stats": HEADER["stats"][:2] + [
        {"name": "b", "type": "scalar", "additive": True}]},
        {"start": 0, "end": 1, "stats": {"a": 1, "v": {}, "b": 2}},
        {"start": 1, "end": 2, "stats": {"a": 1, "v": {"z": 5}, "b": 2}})
    t = jsonl.read(p)
    assert t.events == ("a", "v::x", "v::z", "b")  # declared defaults: desc "", unit null
    assert t["v::z"].tolist() == [0, 5] and t["v::x"].tolist() == [0, 0]


def test_bins_that_come_and_go_fill_one_table_and_a_ceiling_holds(tmp_path, monkeypatch):
    """Each record brings 20 bins no other record has (issue 16: 666 KB of them took 1.45 GB): every bin is
    0 outside its record, and a table wider than a trace may hold is refused before it is allocated."""
    recs = [rec(10 * t, 10 * t + 10, v={f"b{t}_{i}": t + i for i in range(20)}) for t in range(30)]
    p = write(tmp_path, HEADER, *recs)
    t = jsonl.read(p)
    assert t.n_events == 1 + 1 + 30 * 20 + 4  # a, v::x, the bins, the distribution's parts
    assert t["v::b7_3"].tolist() == [0] * 7 + [10] + [0] * 22 and t.counts.sum(axis=0)[0] == 30
    monkeypatch.setattr(jsonl, "MAX_MEMBER_BYTES", 30 * 100 * 8)
    error(p, None, "30 intervals × 606 events would take")


def test_sniff():
    assert jsonl.sniff("x", json.dumps(HEADER) + "\n")
    assert jsonl.sniff("x", '\ufeff  {"format": "mpx-stats", "version": 1, "stats": [')  # truncated head
    assert not jsonl.sniff("x", '{"format": "mpx-trace"}\n')
    assert not jsonl.sniff("x", "---------- Begin Simulation Statistics ----------\n")
    assert not jsonl.sniff("x", "")


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (lzma.open, ".xz")])
def test_compressed_input(tmp_path, opener, suffix):
    path = tmp_path / f"f{suffix}"
    with opener(path, "wt") as fh:
        fh.write(json.dumps(HEADER) + "\n" + json.dumps(rec(0, 10)) + "\n")
    assert detect_format(path) == "jsonl"
    assert read_trace(path)["a"].tolist() == [1.0]


def test_corrupt_compressed_input(tmp_path):
    text = json.dumps(HEADER) + "\n" + "".join(json.dumps(rec(10 * i, 10 * i + 10)) + "\n" for i in range(500))
    data = lzma.compress(text.encode())
    path = tmp_path / "f.xz"
    path.write_bytes(data[: len(data) // 2])
    err = error(path, match="cannot read or decompress")
    assert err.line is not None and err.line > 1


def test_blank_lines_are_ignored_and_counted(tmp_path):
    p = write(tmp_path, HEADER, "", rec(0, 10), "   ", rec(10, 20, a=-1))
    error(p, line=5, match="negative counter increment")


# -- errors, each with its line -----------------------------------------------------------------------------


def test_empty_file(tmp_path):
    error(write(tmp_path), line=1, match="no mpx-stats header")


def test_header_only(tmp_path):
    error(write(tmp_path, HEADER), line=1, match="no interval records")


def test_missing_header(tmp_path):
    error(write(tmp_path, rec(0, 10)), line=1, match="missing header")


@pytest.mark.parametrize("version,match", [(2, "newer than this mpx"), (0, "unsupported"), ("1", "integer"),
                                           (True, "integer")])
def test_wrong_version(tmp_path, version, match):
    error(write(tmp_path, {**HEADER, "version": version}, rec(0, 10)), line=1, match=match)


def test_truncated_last_line(tmp_path):
    full = json.dumps(rec(10, 20))
    p = write(tmp_path, HEADER, rec(0, 10), raw_tail=full[: len(full) // 2])
    error(p, line=3, match="truncated file: the last line has no newline")


def test_a_whole_last_record_without_its_newline_is_truncation_too(tmp_path):
    """Issue 40, item 10: the perf and LIKWID readers refused a last line without a newline, this one loaded it:
    one end-of-file rule for every text reader (`mpx.readers.textio.require_final_newline`)."""
    p = write(tmp_path, HEADER, rec(0, 10), raw_tail=json.dumps(rec(10, 20)))
    error(p, line=3, match="truncated file: the last line has no newline")
    assert jsonl.read(write(tmp_path, HEADER, rec(0, 10), rec(10, 20))).n_intervals == 2


def test_garbage_line(tmp_path):
    error(write(tmp_path, HEADER, rec(0, 10), "hello world", rec(10, 20)), line=3, match="not valid JSON")


@pytest.mark.parametrize(
    "bad,match",
    [
        (rec(10, 20, a=-3), "negative counter increment"),
        (rec(10, 20, a="12"), "expected a number"),
        (rec(10, 20, a=True), "expected a number"),
        (rec(10, 20, a=None), "expected a number"),
        (rec(10, 20, a=[1]), "expected a number"),
        (rec(10, 20, v={"x": -1}), "negative counter increment"),
        (rec(10, 20, v={"x": "1"}), "expected a number"),
        (rec(10, 20, v={"x::y": 1}), "label"),
        (rec(10, 20, v=[1]), "JSON object"),
        (rec(10, 20, g="banana"), "expected a number or"),
        (rec(10, 20, d={"count": 2, "sum": 3, "mean": 3, "min": 3, "max": 3, "underflows": 0, "overflows": 0,
                       "buckets": [1]}), "count 2 != underflows + buckets + overflows"),
        (rec(10, 20, d={"count": 1, "sum": 3, "mean": 3, "min": 3, "max": 3, "underflows": 0, "overflows": 0,
                       "buckets": [1, 0]}), "list of 1 counts"),
        (rec(10, 20, d={"count": 1.5, "sum": 3, "mean": 3, "min": 3, "max": 3, "underflows": 0, "overflows": 0,
                       "buckets": [1]}), "integer"),
        (rec(10, 20, d={"count": 1, "sum": 3, "mean": 3, "min": 3, "max": 3, "underflows": 0, "overflows": 0}),
         "lacks 'buckets'"),
        (rec(10, 20, d={"count": 2, "sum": 3, "mean": 3, "min": 5, "max": 3, "underflows": 0, "overflows": 0,
                       "buckets": [2]}), "min 5.0 > max 3.0"),
        (rec(10, 10), "must end after it starts"),
        (rec(10, 20, extra=1), "unknown key"),
        ({"start": 10, "end": 20, "stats": {"a": 1, "v": {}, "d": rec(0, 1)["stats"]["d"]}}, "missing from the record: g"),
        ({**rec(10, 20), "stats": {**rec(0, 10)["stats"], "zz": 1}}, "undeclared stat(s) in the record: 'zz'"),
        ('{"start": 10, "end": 20, "stats": {"a": NaN}}', "non-standard JSON constant NaN"),
        ('{"start": 10, "end": 20, "start": 1, "stats": {}}', "duplicate key 'start'"),
        ('{"start": 10, "end": 20, "stats": {"a": 1e400, "v": {}, "d": {}, "g": 1}}', "not finite"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        ('{"start": 10, "end": 20, "stats": {"a": ' + "9" * 5000 + "}}", "not a 64-bit integer as Python writes it"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_record(tmp_path, bad, match):
    error(write(tmp_path, HEADER, rec(0, 10), bad), line=3, match=match)


def test_an_interval_before_the_runs_start_is_refused(tmp_path):
    """Found by the fuzz harness: ``"start": 0`` changed to ``-1`` loaded a wider first interval, silently."""
    error(write(tmp_path, HEADER, rec(-1, 10)), line=2, match="start -1 < 0")
    from mpx.stats import PeriodicDumper, StatGroup, StatsError

    with pytest.raises(StatsError, match=">= 0"):
        PeriodicDumper(StatGroup("sim"), tmp_path / "x.jsonl", "cycles", start=-1)


def test_gap_and_overlap_name_the_line(tmp_path):
    error(write(tmp_path, HEADER, rec(0, 10), rec(10, 20), rec(25, 30)), line=4, match="gap")
    error(write(tmp_path, HEADER, rec(0, 10), rec(5, 30)), line=3, match="overlap")


@pytest.mark.parametrize(
    "change,match",
    [
        ({"time_unit": "weeks"}, "unknown time unit"),
        ({"stats": {"a": {}}}, "must be a list"),
        ({"stats": [{"name": "a", "type": "counter"}]}, "unknown type"),
        ({"stats": [{"name": "a", "type": "scalar"}, {"name": "a", "type": "scalar"}]}, "declared twice"),
        ({"stats": [{"name": "a b", "type": "scalar"}]}, "invalid stat name"),
        ({"stats": [{"name": "a", "type": "distribution", "edges": [1, 0]}]}, "strictly increasing"),
        ({"stats": [{"name": "a", "type": "distribution"}]}, "needs 'edges'"),
        ({"stats": [{"name": "a", "type": "scalar", "edges": [0, 1]}]}, "only distributions"),
        ({"stats": [{"name": "a", "type": "scalar", "labels": []}]}, "only vectors"),
        ({"stats": [{"name": "a", "type": "scalar", "additive": "yes"}]}, "true or false"),
        ({"stats": [{"name": "a", "type": "vector", "labels": ["x", "x"]}]}, "duplicate labels"),
        ({"stats": [{"name": "a", "type": "scalar", "colour": 1}]}, "unknown key"),
        ({"period": -1}, "period"),
        ({"meta": []}, "JSON object"),
        ({"meta": {"dropped": "x"}}, "dropped"),
        ({"extra": 1}, "unknown key"),
    ],
)
def test_bad_header(tmp_path, change, match):
    error(write(tmp_path, {**HEADER, **change}, rec(0, 10)), line=1, match=match)


def test_not_utf8(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes((json.dumps(HEADER) + "\n" + json.dumps(rec(0, 10)) + "\n").encode() + b'{"x": "\xff"}\n')
    error(path, line=3, match="UTF-8")


# -- property-based: mutated and truncated inputs raise FormatError or succeed ------------------------------------


def _valid_text() -> str:
    root = StatGroup("sim")
    c = root.scalar("c", unit="Count")
    g = root.scalar("peak", additive=False)
    v = root.vector("v", labels=["a"])
    d = root.distribution("d", edges=[0, 1, 10])
    root.formula("f", "", lambda: c.value / 3)
    buf = io.StringIO()
    dumper = PeriodicDumper(root, buf, "ns", period=5)
    for t in range(1, 4):
        c.inc(t)
        g.set_max(t * 1.5)
        v.inc("a" if t < 2 else "b", t)
        d.sample(t * 0.7)
        dumper.dump(t * 5)
    return buf.getvalue()


VALID = _valid_text()


def _check(tmp_path, data: bytes) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(data)
    try:
        trace = jsonl.read(path)
    except FormatError as exc:
        assert exc.path == str(path) and exc.message
        return
    assert np.isfinite(trace.counts).all() and (trace.counts >= 0).all()


def test_valid_text_reads():
    assert VALID.count("\n") == 4


_settings = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_settings
@given(cut=st.integers(min_value=0, max_value=len(VALID)))
def test_truncation_raises_only_format_error(tmp_path, cut):
    _check(tmp_path, VALID[:cut].encode())


@_settings
@given(pos=st.integers(min_value=0, max_value=len(VALID) - 1), byte=st.integers(min_value=0, max_value=255))
def test_byte_mutation_raises_only_format_error(tmp_path, pos, byte):
    data = bytearray(VALID.encode())
    data[pos] = byte
    _check(tmp_path, bytes(data))


@_settings
@given(pos=st.integers(min_value=0, max_value=len(VALID)), junk=st.text(max_size=20))
def test_insertion_raises_only_format_error(tmp_path, pos, junk):
    _check(tmp_path, (VALID[:pos] + junk + VALID[pos:]).encode())


@_settings
@given(data=st.data())
def test_line_shuffles_and_deletions_raise_only_format_error(tmp_path, data):
    lines = VALID.splitlines(keepends=True)
    perm = data.draw(st.lists(st.sampled_from(range(len(lines))), max_size=8))
    _check(tmp_path, "".join(lines[i] for i in perm).encode())


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=8,
)


@_settings
@given(data=st.data())
def test_value_substitution_raises_only_format_error(tmp_path, data):
    """Replace one JSON value anywhere in one line by an arbitrary JSON value."""
    lines = [json.loads(x) for x in VALID.splitlines()]
    i = data.draw(st.integers(0, len(lines) - 1))
    node = lines[i]
    while isinstance(node, (dict, list)) and node and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        if not isinstance(node[key], (dict, list)) or not node[key] or data.draw(st.booleans()):
            node[key] = data.draw(_json_values)
            break
        node = node[key]
    _check(tmp_path, "".join(json.dumps(x) + "\n" for x in lines).encode())


@_settings
@given(blob=st.binary(max_size=200))
def test_random_bytes_raise_only_format_error(tmp_path, blob):
    _check(tmp_path, blob)
