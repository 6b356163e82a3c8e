"""The README's Python example runs as written (in a scratch folder: it writes its stats file there)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_python_api_example_runs_as_written(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    section = text[text.index("## Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a reader's first example warns of nothing ("fewer than 20 ...")
        exec(compile(code, "README.md (Python API)", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["linear", "dcam"]
    for line in out:  # a score per scaler, as a percentage
        assert re.fullmatch(r"\w+ \d+\.\d%", line), line
    assert (tmp_path / "run.jsonl").stat().st_size > 0
