"""An experiment config: the TOML file read, its sections checked, the kind's own checks run.

The format is documented in ``experiments/README.md`` ("Config reference"). Errors are `ConfigError`s
naming the file and the key. The sections and keys a config may hold are those every kind shares
(``[experiment]``, ``[data]``, ``[sweep]``, ``[output]``) plus those the cell kinds declare
(`mpx.experiment.kinds`); the kind named by ``[experiment] kind`` checks the rest.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mpx import scalers, schedulers
from mpx.errors import ConfigError, FormatError
from mpx.experiment.kinds import all_kinds, get_kind, kind_names
from mpx.experiment.grid import variants

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["NAME_RE", "Experiment", "load_config", "load_config_or_suite", "load_suite", "expand", "plugin_names",
           "check_plugin_sections", "seeds"]

#: sections every kind shares (``None``: any key)
COMMON_SECTIONS: dict[str, frozenset[str] | None] = {
    "experiment": frozenset({"name", "description", "kind"}),
    "data": frozenset(),  # the kinds add their data keys
    "sweep": None,
    "output": frozenset({"series_events", "series_workloads", "figures", "summary", "headline"}),
}

#: an experiment name: it becomes the folder ``results/<name>``, so no separator, no ``..``, no leading dot
NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

_PLUGINS = {"schedulers": schedulers, "scalers": scalers}


def sections() -> dict[str, frozenset[str] | None]:
    """Every section a config may hold, with its keys: the common ones and those of every cell kind."""
    every = all_kinds()
    out: dict[str, frozenset[str] | None] = {"experiment": COMMON_SECTIONS["experiment"],
                                             "data": frozenset().union(*(k.data_keys for k in every))}
    for kind in every:
        for sec, keys in kind.sections.items():
            out[sec] = keys if out.get(sec) is None else out[sec] | keys
    out["sweep"], out["output"] = COMMON_SECTIONS["sweep"], COMMON_SECTIONS["output"]
    return out


class Experiment:
    """A validated experiment config: ``name``, ``kind``, ``raw`` (the TOML as read), ``path`` and
    ``base`` (the folder relative paths are resolved from). `cells` expands the grid."""

    def __init__(self, raw: dict, path: str | os.PathLike | None = None) -> None:
        self.raw = raw
        self.path = None if path is None else Path(path)
        self.base = self.path.resolve().parent if self.path is not None else Path.cwd()
        self.where = str(path) if path is not None else "<config>"
        self._variants: list[dict] | None = None
        self._validate()

    @property
    def name(self) -> str:
        return self.raw["experiment"]["name"]

    @property
    def kind(self) -> str:
        return self.raw["experiment"].get("kind", "scaling")

    @property
    def output(self) -> dict:
        return dict(self.raw.get("output", {}))

    def variants(self) -> list[dict]:
        """Every ``[sweep]`` variant of the config (`mpx.experiment.grid.variants`), expanded once: the
        kind's validation and its cells read the same list (read-only)."""
        if self._variants is None:
            self._variants = variants(self.raw, self.where)
        return self._variants

    def cells(self) -> list[dict]:
        """Every cell of the grid (JSON-able dicts with a ``key``), in a deterministic order."""
        return get_kind(self.kind).cells(self)

    def existing(self, v: Any, what: str) -> str:
        """The absolute path of a file named in the config (relative to it); refused if missing."""
        if not isinstance(v, str):
            raise ConfigError(f"{self.where}: {what} must be a path, got {v!r}")
        q = Path(v) if os.path.isabs(v) else self.base / v
        if not q.exists():
            raise ConfigError(f"{self.where}: {what} {v!r} does not exist (resolved to {q})")
        return str(q.resolve())

    def _validate(self) -> None:
        w, raw = self.where, self.raw
        known = sections()
        for sec, val in raw.items():
            if sec not in known:
                raise ConfigError(f"{w}: unknown section [{sec}]; known: {', '.join(known)}")
            if not isinstance(val, dict):
                raise ConfigError(f"{w}: [{sec}] must be a table")
            allowed = known[sec]
            if allowed is not None:
                bad = sorted(set(val) - allowed)
                if bad:
                    raise ConfigError(f"{w}: unknown key(s) {bad} in [{sec}]; known: {sorted(allowed)}")
        for path in raw.get("sweep", {}):  # a typo would run identical copies of one cell: refuse it here
            sec, _, key = str(path).partition(".")
            allowed = known.get(sec, frozenset())
            if sec == "sweep" or sec not in known or not key:
                raise ConfigError(f"{w}: [sweep] {path!r} names no config key (a path 'section.key'; sections: "
                                  f"{', '.join(s for s in known if s != 'sweep')})")
            if allowed is not None and key.split(".")[0] not in allowed:
                raise ConfigError(f"{w}: [sweep] {path!r} names no config key: [{sec}] keys are {sorted(allowed)}")
        exp = raw.get("experiment")
        if not exp or not isinstance(exp.get("name"), str) or not exp["name"]:
            raise ConfigError(f"{w}: [experiment] name is required (a non-empty string)")
        if not NAME_RE.fullmatch(exp["name"]):
            raise ConfigError(f"{w}: [experiment] name {exp['name']!r} must be letters, digits, _ - . and start "
                              "with a letter, digit or _ (it names the output folder results/<name>: no path)")
        names = kind_names()
        if self.kind not in names:
            raise ConfigError(f"{w}: [experiment] kind must be one of {names}, got {self.kind!r}")
        kind = get_kind(self.kind)
        foreign = [s for s in raw if s not in COMMON_SECTIONS and s not in kind.sections]
        if foreign:
            kind.refuse_sections(self, foreign)
        kind.validate(self)


def plugin_names(cfg: dict, sec: str, where: str) -> list[str]:
    """The names a variant's ``[schedulers]`` / ``[scalers]`` ``use`` lists: ``"builtin"`` the shipped ones
    (the same on every machine), ``"all"`` every installed one that loads, or a list
    (`mpx.registry.Registry.select`)."""
    return _PLUGINS[sec].REGISTRY.select(cfg[sec]["use"], f"{where}: [{sec}] use")


def check_plugin_sections(raw: dict, where: str) -> None:
    """``[schedulers]`` and ``[scalers]``: registered names, and parameters those classes take."""
    for sec, reg in _PLUGINS.items():
        if sec not in raw:
            continue
        names = plugin_names(raw, sec, where)
        avail = reg.available()
        bad = [n for n in names if n not in avail]
        if bad:
            raise ConfigError(f"{where}: [{sec}] use: unknown {sec[:-1]}(s) {bad}; available: {', '.join(avail)}")
        params = raw[sec].get("params", {})
        if not isinstance(params, dict):
            raise ConfigError(f"{where}: [{sec}] params must be a table of tables")
        for n, p in params.items():
            if n not in avail:
                raise ConfigError(f"{where}: [{sec}.params.{n}]: unknown {sec[:-1]} {n!r}")
            if not isinstance(p, dict):
                raise ConfigError(f"{where}: [{sec}.params.{n}] must be a table")
            allowed = reg.get_class(n).param_names()
            bad = sorted(set(p) - set(allowed))
            if bad:
                raise ConfigError(f"{where}: [{sec}.params.{n}] unknown parameter(s) {bad}; {n} takes {allowed}")


def seeds(table: dict, where: str, section: str = "multiplex") -> list[int]:
    """The seeds of a ``seeds`` / ``repetitions`` table (``[multiplex]``, ``[partition]``); default ``[0]``."""
    if "repetitions" in table:
        r = table["repetitions"]
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ConfigError(f"{where}: [{section}] repetitions must be a positive integer, got {r!r}")
        return list(range(r))
    out = table.get("seeds", [0])
    if isinstance(out, int):
        out = [out]
    if not isinstance(out, list) or not all(isinstance(s, int) and s >= 0 for s in out):
        raise ConfigError(f"{where}: [{section}] seeds must be a list of integers >= 0, got {out!r}")
    return out


def _toml_load(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise
    except Exception as exc:  # tomllib.TOMLDecodeError carries line and column in its message
        raise FormatError(path, None, f"not valid TOML: {exc}") from None


def _read(path: str | os.PathLike) -> tuple[Path, dict]:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"experiment config {str(path)!r} does not exist")
    return p, _toml_load(p)


def load_config(path: str | os.PathLike) -> Experiment:
    """Read and validate an experiment TOML file (`ConfigError` naming the key on a bad one)."""
    p, raw = _read(path)
    return Experiment(raw, p)


def load_suite(path: str | os.PathLike) -> tuple[str, list[Path]] | None:
    """A suite file (a TOML whose only table is ``[suite]`` with ``name`` and ``configs``, paths relative
    to the file): ``(name, config paths)``, run one after the other into one results store; None for an
    ordinary experiment config."""
    return _suite(*_read(path))


def load_config_or_suite(path: str | os.PathLike) -> Experiment | tuple[str, list[Path]]:
    """The file at ``path`` read once: a suite's ``(name, config paths)`` (`load_suite`) or the validated
    `Experiment` (`load_config`), so ``mpx run`` parses its TOML one time."""
    p, raw = _read(path)
    suite = _suite(p, raw)
    return Experiment(raw, p) if suite is None else suite


def _suite(p: Path, raw: dict) -> tuple[str, list[Path]] | None:
    if "suite" not in raw:
        return None
    suite = raw["suite"]
    if set(raw) != {"suite"} or not isinstance(suite, dict) or set(suite) - {"name", "configs", "description"}:
        raise ConfigError(f"{p}: a suite has one table [suite] with name, configs and description only")
    name, configs = suite.get("name"), suite.get("configs")
    if not isinstance(name, str) or not name.isidentifier():
        raise ConfigError(f"{p}: [suite] name must be an identifier, got {name!r}")
    if not isinstance(configs, list) or not configs or not all(isinstance(c, str) for c in configs):
        raise ConfigError(f"{p}: [suite] configs must be a non-empty list of config paths")
    paths = [(p.parent / c) for c in configs]
    missing = [str(c) for c in paths if not c.is_file()]
    if missing:
        raise ConfigError(f"{p}: [suite] configs: no such file(s) {missing}")
    return name, paths


def expand(path_or_raw: Any) -> list[dict]:
    """The grid of cells of a config file, an already-read config dict or an `Experiment`."""
    exp = path_or_raw if isinstance(path_or_raw, Experiment) else (
        Experiment(path_or_raw) if isinstance(path_or_raw, dict) else load_config(path_or_raw))
    return exp.cells()
