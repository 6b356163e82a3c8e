"""The house rules, checked mechanically: the layer contract (import-linter, `[tool.importlinter]` in
pyproject.toml), no import circles between modules, modules of a readable size, and tests that use the
public API only."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "mpx"

#: modules allowed past ~600 lines, with the reason (the closing note of the architecture issue repeats it)
LONG_MODULES: dict[str, str] = {}


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every mpx module ``path`` imports, at any depth of the file (deferred imports and imports for type
    checkers count too: a module that must know another's type is tied to it)."""
    name = _module_name(path)
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "mpx")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(pkg.split(".")[: len(pkg.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] == "mpx":
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _graph() -> nx.DiGraph:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    g = nx.DiGraph()
    g.add_nodes_from(files)
    for name, path in files.items():
        for target in _imports(path):
            if target in files and target != name and not name.startswith(target + "."):
                g.add_edge(name, target)
    return g


def test_layer_contract():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    r = subprocess.run([exe, "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_every_module_has_a_floor():
    """A top-level module the layer contract does not name would escape it."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    layers = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {n.strip(" ()").split(".")[0] for layer in layers for n in layer.replace(":", "|").split("|")}
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    modules |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert modules == named, f"not in the contract: {sorted(modules - named)}; gone: {sorted(named - modules)}"


def test_no_import_circles():
    """A package's ``__init__`` re-exporting its own modules is not a circle; any other cycle is."""
    g = _graph()
    cycles = [c for c in nx.simple_cycles(g) if len(c) > 1]
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c + [c[0]]) for c in cycles[:20])


def test_modules_are_readable_in_one_sitting():
    long = {_module_name(p): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 650}
    unexplained = {m: n for m, n in long.items() if m not in LONG_MODULES}
    assert not unexplained, f"modules over 650 lines without a reason in LONG_MODULES: {unexplained}"


def test_tests_import_no_private_helpers():
    bad = []
    for p in (REPO / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mpx"):
                bad += [f"{p.relative_to(REPO)}:{node.lineno} {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, "tests import private helpers:\n" + "\n".join(bad)


#: top-level tests of the whole repository rather than of one module (docs, examples, install, the house rules)
REPOSITORY_TESTS = {"test_api_docs", "test_architecture", "test_citations", "test_doc_tables", "test_examples",
                    "test_golden", "test_install", "test_readme"}


def test_tests_mirror_the_package():
    """Every subpackage of mpx has its tests folder (``tests/<subpackage>/`` with a ``test_*.py``), and a test at
    the top of ``tests/`` is named after a top-level module (``test_trace_load.py``: `mpx.trace`) or tests the
    repository as a whole (`REPOSITORY_TESTS`): a test is found where its module is."""
    tests = REPO / "tests"
    missing = [p.parent.name for p in PACKAGE.glob("*/__init__.py")
               if not any((tests / p.parent.name).glob("test_*.py"))]
    assert not missing, f"subpackages without a tests/<name>/ folder of tests: {sorted(missing)}"
    spine = {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    stray = [p.name for p in tests.glob("test_*.py") if p.stem not in REPOSITORY_TESTS
             and not any(p.stem == f"test_{m}" or p.stem.startswith(f"test_{m}_") for m in spine)]
    assert not stray, f"top-level tests named after no top-level module (move them to tests/<subpackage>/): {stray}"
