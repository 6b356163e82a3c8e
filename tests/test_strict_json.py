"""Issue 40, item 5: a key repeated in one JSON object is refused by every JSON reader (Python's json keeps the
last value silently: a perf stat -j record with "counter-value" twice loaded the second number, an hperf entry
with "perf_name" twice counted the second event)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from mpx.errors import FormatError
from mpx.strict_json import RepeatedKey, loads

DATA = Path(__file__).resolve().parent / "data" / "perfstat"


def test_loads_names_the_key_and_where_it_is_repeated():
    assert loads('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}  # one key in two objects is fine
    with pytest.raises(RepeatedKey) as info:
        loads('[{"a": 1},\n {"a": 2, "s": "}{",\n  "a": 3}]')
    assert info.value.key == "a" and info.value.lineno == 3 and "given twice" in info.value.msg
    assert isinstance(info.value, json.JSONDecodeError)


@pytest.mark.parametrize("key", ["counter-value", "pcnt-running", "metric-value", "event-runtime"])
def test_a_perf_stat_json_record_with_a_key_twice_is_refused_with_its_line(key, tmp_path):
    from mpx.readers.perfstat import read_perf_stat

    lines = (DATA / "real_global.jsonl").read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if f'"{key}"' in ln)
    obj = json.loads(lines[at])
    lines[at] = lines[at].rstrip("}\n") + f', "{key}" : {json.dumps(obj[key])}}}\n'
    p = tmp_path / "twice.jsonl"
    p.write_text("".join(lines))
    with pytest.raises(FormatError, match=re.escape(f"key '{key}' given twice")) as info:
        read_perf_stat(p)
    assert info.value.line == at + 1


def test_an_hperf_entry_with_perf_name_twice_is_refused(tmp_path):
    from mpx.metrics import load_catalog

    text = json.dumps({"platform": {"available_GP": 4}, "events": [
        {"id": 0, "perf_name": "cycles", "name": "CYCLES"},
        {"id": 1, "perf_name": "instructions", "name": "INSTRUCTIONS"}], "metrics": []}, indent=1)
    text = text.replace('"perf_name": "instructions"', '"perf_name": "instructions", "perf_name": "r08d1"')
    p = tmp_path / "twice_hperf.json"
    p.write_text(text)
    with pytest.raises(FormatError, match="key 'perf_name' given twice") as info:
        load_catalog(p)
    assert info.value.line == text[:text.index('"perf_name": "r08d1"')].count("\n") + 1


def test_a_trace_header_with_a_key_twice_is_refused(tmp_path):
    from mpx.trace import Trace

    t = Trace(["a"], np.array([[1], [2]]), [0, 1, 2], "cycles", {"workload": "w"})
    p = tmp_path / "t.npz"
    t.save(p)
    with np.load(p) as z:
        members = {k: z[k] for k in z.files}
    head = members["header"].tobytes().decode()
    head = head.replace('"format":', '"format": "x", "format":', 1).replace('"format" :', '"format": "x", "format" :', 1)
    assert head.count('"format"') == 2
    members["header"] = np.frombuffer(head.encode(), dtype=np.uint8)
    q = tmp_path / "u.npz"
    np.savez(q, **members)
    with pytest.raises(FormatError, match="given twice"):
        Trace.load(q)

