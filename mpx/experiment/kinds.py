"""The registry of cell kinds: what ``[experiment] kind = "..."`` names.

A kind is a `CellKind` subclass in one module: the config sections and ``[data]`` keys it reads, the
row tables it writes (`CellKind.tables`: name → key columns; the results store refuses any other) and
the report section of each (`CellKind.report`), how it validates a config (`CellKind.validate`), how it
expands a config into cells (`CellKind.cells`) and how it computes one cell (`CellKind.run`). Built-ins: ``scaling`` (`mpx.experiment.scaling`), ``schedule``
(`mpx.experiment.schedule`), ``partition`` (`mpx.experiment.partition`), ``alignment``
(`mpx.experiment.alignment`). A new kind is one module and one entry: ``REGISTRY.register(name, MyKind)``
at run time, or from another package::

    [project.entry-points."mpx.experiment_kinds"]
    mine = "my_package.my_kind:MyKind"
"""

from __future__ import annotations

from typing import Any, ClassVar

from mpx.errors import ConfigError
from mpx.registry import Registry

__all__ = ["CellKind", "REGISTRY", "BUILTIN", "all_kinds", "available", "declared_tables", "get", "get_class", "get_kind",
           "kind_names", "register", "unregister"]


class CellKind:
    """One kind of experiment cell. Subclasses set ``name``, ``sections`` (section → allowed keys) and
    ``data_keys``, and implement the three methods. Instances are stateless. ``exp`` is the
    `mpx.experiment.config.Experiment` being expanded (that module imports this one, not the reverse)."""

    name: ClassVar[str] = ""
    #: the config sections this kind reads besides [experiment], [data], [sweep] and [output]
    sections: ClassVar[dict[str, frozenset[str]]] = {}
    #: the keys of [data] this kind reads
    data_keys: ClassVar[frozenset[str]] = frozenset()
    #: the row tables a cell of this kind writes: table name → the key columns its rows are sorted by (each
    #: row also carries ``cell_key``); two kinds writing one table declare the same keys
    tables: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: the report section of a table: table name → ``"module:function"`` taking the table (a DataFrame of
    #: the run's rows) and returning named summary tables (`mpx.studies.report.summary_tables` calls it)
    report: ClassVar[dict[str, str]] = {}

    def validate(self, exp: Any) -> None:
        """Check the kind's sections of ``exp`` (every swept variant), raising `ConfigError` naming the key."""
        raise NotImplementedError

    def refuse_sections(self, exp: Any, foreign: list[str]) -> None:
        """Raise the `ConfigError` for sections of ``exp`` that other kinds read and this one does not."""
        s = foreign[0]
        owners = " or ".join(f'"{k.name}"' for k in all_kinds() if s in k.sections)
        raise ConfigError(f"{exp.where}: [{s}] belongs to kind = {owners} experiments only")

    def cells(self, exp: Any) -> list[dict]:
        """Every cell of ``exp``'s grid: JSON-able dicts with ``kind``, ``code_version``, ``key`` and
        ``experiment`` (`mpx.experiment.grid.finish_cell`), and what the kind needs (replay kinds: ``dataset``,
        ``dataset_checksum``, ``scheduler``, ``seed``)."""
        raise NotImplementedError

    def run(self, cell: dict) -> dict[str, Any]:
        """Compute one cell: rows of its declared `tables` (`mpx.experiment.rows`), plus ``"_status":
        (status, reason)`` when it is not simply ``done``. Raising `mpx.errors.MpxError` stores the cell as
        skipped."""
        raise NotImplementedError

    def jit_schedulers(self, cell: dict) -> list[str]:
        """Registered schedulers the cell runs that compile numba kernels on first use (their ``jit`` tag):
        the runner compiles them in a side process while other cells run."""
        from mpx import schedulers

        s = cell.get("scheduler")
        if not s or s.get("name") not in schedulers.REGISTRY:
            return []
        return [s["name"]] if schedulers.REGISTRY.tags(s["name"]).jit else []

    def jit_scalers(self, cell: dict) -> list[str]:
        """Registered scalers the cell runs that compile numba kernels on first use (their ``jit`` tag):
        a pool of workers compiles them once, in one worker, before the cells that run them."""
        from mpx import scalers

        names = [s.get("name") for s in cell.get("scalers") or [] if isinstance(s, dict)]
        return [n for n in names if n in scalers.REGISTRY and scalers.REGISTRY.tags(n).jit]


#: built-in kinds, in the order error messages list them
BUILTIN = {"scaling": "mpx.experiment.scaling:ScalingKind",
           "schedule": "mpx.experiment.schedule:ScheduleKind",
           "partition": "mpx.experiment.partition:PartitionKind",
           "alignment": "mpx.experiment.alignment:AlignmentKind"}

REGISTRY = Registry("experiment kind", "mpx.experiment_kinds", BUILTIN, protocol="mpx.experiment.kinds:CellKind")

available, get, get_class, register, unregister = REGISTRY.verbs()


def kind_names() -> tuple[str, ...]:
    """Every kind: the built-ins first (in `BUILTIN` order), then registered and installed ones."""
    return tuple(REGISTRY.available())


def get_kind(name: str) -> CellKind:
    """An instance of kind ``name``."""
    return REGISTRY.get(name)


def all_kinds() -> list[CellKind]:
    """An instance of every kind that loads (for the union of the config sections they read): a broken
    installed kind is a warning line, not the end of every config (`mpx.registry.Registry.installed`)."""
    return [get_kind(n) for n in REGISTRY.installed()]


def declared_tables(kinds: list[CellKind] | None = None) -> dict[str, tuple[str, ...]]:
    """The row tables ``kinds`` (default: every kind) declare, name → key columns; a `ConfigError` when two
    kinds declare one table with different keys."""
    out: dict[str, tuple[str, ...]] = {}
    for k in all_kinds() if kinds is None else kinds:
        for t, keys in k.tables.items():
            if out.setdefault(t, tuple(keys)) != tuple(keys):
                raise ConfigError(f"experiment kind {k.name!r} declares table {t!r} with keys {tuple(keys)}, "
                                  f"another kind with {out[t]}")
    return out
