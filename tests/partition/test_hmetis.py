"""hMetis .hgr files: round trips of every weight format, comments, malformed files, fuzzing, the real ibm01."""

from __future__ import annotations

import lzma

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpx.errors import ConfigError, FormatError
from mpx.partition import Hypergraph, read_hmetis, write_hmetis


def _hg(net_weights=None, vertex_weights=None) -> Hypergraph:
    return Hypergraph.from_nets([[0, 1], [0, 2, 3], [3], [1, 2, 3, 4]], num_vertices=5,
                                net_weights=net_weights, vertex_weights=vertex_weights)


@pytest.mark.parametrize("fmt, nw, vw", [
    (0, None, None),
    (1, [2, 1, 7, 3], None),
    (10, None, [1, 4, 2, 2, 9]),
    (11, [2, 1, 7, 3], [1, 4, 2, 2, 9]),
])
def test_round_trip_every_format(tmp_path, fmt, nw, vw):
    hg = _hg(nw, vw)
    path = tmp_path / "g.hgr"
    write_hmetis(hg, path)
    head = path.read_text().splitlines()[0].split()
    assert head[:2] == ["4", "5"] and (int(head[2]) if len(head) == 3 else 0) == fmt
    back = read_hmetis(path)
    assert back == hg
    assert back.nets() == [[0, 1], [0, 2, 3], [3], [1, 2, 3, 4]]


def test_explicit_format_with_unit_weights_and_comments(tmp_path):
    hg = _hg()
    path = tmp_path / "g.hgr"
    write_hmetis(hg, path, fmt=11, comment="written by a test\nsecond line")
    text = path.read_text()
    assert text.startswith("% written by a test\n% second line\n4 5 11\n")
    assert read_hmetis(path) == hg


def test_write_refuses_to_drop_weights(tmp_path):
    with pytest.raises(ConfigError, match="drop"):
        write_hmetis(_hg([2, 1, 1, 1]), tmp_path / "g.hgr", fmt=10)
    with pytest.raises(ConfigError, match="no pins"):
        write_hmetis(Hypergraph(2, [0, 0], []), tmp_path / "e.hgr")


def test_comments_blank_lines_and_compression(tmp_path):
    text = "% header comment\n\n3 4 1\n% a net weight follows\n5 1 2\n1 3 4 2\n\n2 4\n% trailing comment\n"
    path = tmp_path / "c.hgr"
    path.write_text(text)
    hg = read_hmetis(path)
    assert hg.nets() == [[0, 1], [2, 3, 1], [3]]
    assert hg.net_weights.tolist() == [5, 1, 2] and hg.vertex_weights.tolist() == [1, 1, 1, 1]
    xz = tmp_path / "c.hgr.xz"
    xz.write_bytes(lzma.compress(text.encode()))
    assert read_hmetis(xz) == hg


@pytest.mark.parametrize("text, line, needle", [
    ("", None, "empty file"),
    ("% only a comment\n", None, "empty file"),
    ("2\n1 2\n", 1, "header must be"),
    ("2 3 1 7\n", 1, "header must be"),
    ("2 3 5\n1 2\n2 3\n", 1, "unknown fmt"),
    ("2 x\n", 1, "'x' is not an integer"),
    ("-1 3\n", 1, "negative size"),
    ("2 3\n1 2\n", 2, "file ends after 1 of 2 nets"),
    ("2 3\n1 2\n2 4\n", 3, "pin 4 out of range 1..3"),
    ("2 3\n1 2\n0 3\n", 3, "pin 0 out of range"),
    ("2 3\n1 2\n2 2\n", 3, "pin 2 listed twice"),
    ("2 3\n1 2.5\n2 3\n", 2, "'2.5' is not an integer"),
    ("2 3 1\n-4 1 2\n1 2 3\n", 2, "negative weight -4"),
    ("2 3 1\n4\n1 2 3\n", 2, "net 1 has no pins"),
    ("1 3 10\n1 2\n1\n2\n", 4, "file ends after 2 of 3 vertex weights"),
    ("1 3 10\n1 2\n1\n-2\n1\n", 4, "vertex 2: negative weight -2"),
    ("1 3 10\n1 2\n1\n2 3\n1\n", 4, "expected one weight"),
    ("1 3\n1 2\n2 3\n", 3, "unexpected line"),
    ("1 2 10\n1 2\n1\n1\n5\n", 5, "unexpected line"),
])
def test_malformed_files_name_file_and_line(tmp_path, text, line, needle):
    path = tmp_path / "bad.hgr"
    path.write_text(text)
    with pytest.raises(FormatError) as exc:
        read_hmetis(path)
    assert exc.value.line == line
    assert exc.value.path == str(path)
    assert needle in str(exc.value)


def test_not_utf8_is_a_format_error(tmp_path):
    path = tmp_path / "bin.hgr"
    path.write_bytes(b"2 3\n1 \xff\n")
    with pytest.raises(FormatError, match="not UTF-8"):
        read_hmetis(path)


_VALID = "% c\n4 5 11\n2 1 2\n1 1 3 4\n3 4\n1 2 3 4 5\n1\n4\n2\n2\n9\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_or_truncated_files_raise_only_format_error(tmp_path, data):
    text = _VALID
    op = data.draw(st.sampled_from(["truncate", "replace", "insert", "delete_line"]))
    if op == "truncate":
        text = text[: data.draw(st.integers(0, len(text)))]
    elif op == "replace":
        i = data.draw(st.integers(0, len(text) - 1))
        text = text[:i] + data.draw(st.sampled_from(list("0123456789 -x\n%.e"))) + text[i + 1:]
    elif op == "insert":
        i = data.draw(st.integers(0, len(text)))
        text = text[:i] + data.draw(st.text(alphabet="0123456789 -\n%", max_size=6)) + text[i:]
    else:
        lines = text.splitlines()
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        text = "\n".join(lines)
    path = tmp_path / "fuzz.hgr"
    path.write_text(text)
    try:
        hg = read_hmetis(path)
    except FormatError as exc:
        assert exc.path == str(path)
        return
    # whatever was accepted is a consistent hypergraph
    assert hg.pins.size == hg.net_offsets[-1]
    assert hg.pins.size == 0 or (hg.pins.min() >= 0 and hg.pins.max() < hg.num_vertices)
    assert (hg.vertex_weights >= 0).all() and (hg.net_weights >= 0).all()


def test_real_ibm01(shared, tmp_path):
    path = shared("data", "hypergraphs", "ISPD98_ibm01.hgr")
    hg = read_hmetis(path)
    assert (hg.num_vertices, hg.num_nets, hg.num_pins) == (12752, 14111, 50566)
    assert hg.total_weight == 12752 and int(hg.net_weights.sum()) == 14111
    assert hg.degrees.sum() == 50566 and hg.net_sizes.max() == 42
    out = tmp_path / "ibm01.hgr"
    write_hmetis(hg, out)
    assert read_hmetis(out) == hg
