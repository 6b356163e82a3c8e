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


def test_the_dataset_counts_are_the_manifests():
    """The README's counts of shipped datasets had drifted (31 said, more shipped): read from the manifest."""
    from mpx.datasets import shipped

    line = next(ln for ln in README.read_text().splitlines() if "the shipped real workloads (" in ln)
    m = re.search(r"the shipped real workloads \((\d+)\): (\d+) under callgrind and (\d+) under gem5 in the main "
                  r"collection, (\d+) at other callgrind grains \(`callgrind-grains`\), (\d+) steady-state gem5 "
                  r"recordings \(`gem5-long`\) and (\d+) of 250 ms \(`gem5-long-250ms`; the recipes? of (\w+) more", line)
    assert m, line
    words = {"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
    said = [int(g) for g in m.groups()[:6]] + [words.get(g, g) for g in m.groups()[6:]]
    recorded = set(shipped.names(None, None))
    unrecorded = [r for r in shipped.recipes() if r["name"] not in recorded]
    shipped_counts = [len(recorded), len(shipped.names("callgrind")), len(shipped.names("gem5")),
                      len(shipped.names("callgrind", "callgrind-grains")), len(shipped.names("gem5", "gem5-long")),
                      len(shipped.names("gem5", "gem5-long-250ms")),
                      sum(shipped.collection(r) in ("gem5-long", "gem5-long-250ms") for r in unrecorded)]
    assert said == shipped_counts, f"README says {said}, the manifest and recipes hold {shipped_counts}"


def test_ci_runs_the_readmes_test_command():
    """`.ci/run` runs exactly the README's test command (the one a user is told passes)."""
    repo = Path(__file__).resolve().parents[1]
    readme = (repo / "README.md").read_text()
    command = next(ln for ln in readme.splitlines() if ln.startswith('pip install -e ".[test]" && python -m pytest'))
    assert command in (repo / ".ci" / "run").read_text().splitlines()
