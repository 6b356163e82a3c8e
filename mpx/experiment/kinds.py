"""The registry of cell kinds: what ``[experiment] kind = "..."`` names.

A kind is a `CellKind` subclass in one module: the config sections and ``[data]`` keys it reads, how it
validates them (`CellKind.validate`), how it expands a config into cells (`CellKind.cells`) and how it
computes one cell (`CellKind.run`). Built-ins: ``scaling`` (`mpx.experiment.scaling`), ``schedule``
(`mpx.experiment.schedule`), ``partition`` (`mpx.experiment.partition`), ``alignment``
(`mpx.experiment.alignment`). A new kind is one module and one entry: ``REGISTRY.register(name, MyKind)``
at run time, or from another package::

    [project.entry-points."mpx.experiment_kinds"]
    mine = "my_package.my_kind:MyKind"
"""

from __future__ import annotations

from typing import Any, ClassVar

from mpx.errors import ConfigError
from mpx.registry import Registry, subclass_of

__all__ = ["CellKind", "REGISTRY", "BUILTIN", "get_kind", "kind_names", "all_kinds"]


class CellKind:
    """One kind of experiment cell. Subclasses set ``name``, ``sections`` (section → allowed keys) and
    ``data_keys``, and implement the three methods. Instances are stateless. ``exp`` is the
    `mpx.experiment.config.Experiment` being expanded (that module imports this one, not the reverse)."""

    name: ClassVar[str] = ""
    #: the config sections this kind reads besides [experiment], [data], [sweep] and [output]
    sections: ClassVar[dict[str, frozenset[str]]] = {}
    #: the keys of [data] this kind reads
    data_keys: ClassVar[frozenset[str]] = frozenset()

    def validate(self, exp: Any) -> None:
        """Check the kind's sections of ``exp`` (every swept variant), raising `ConfigError` naming the key."""
        raise NotImplementedError

    def refuse_sections(self, exp: Any, foreign: list[str]) -> None:
        """Raise the `ConfigError` for sections of ``exp`` that other kinds read and this one does not."""
        s = foreign[0]
        owners = " or ".join(f'"{k.name}"' for k in all_kinds() if s in k.sections)
        raise ConfigError(f"{exp.where}: [{s}] belongs to kind = {owners} experiments only")

    def cells(self, exp: Any) -> list[dict]:
        """Every cell of ``exp``'s grid: JSON-able dicts with ``kind``, ``dataset``, ``dataset_checksum``,
        ``scheduler``, ``seed``, ``code_version``, ``key`` and ``experiment`` (`mpx.experiment.grid.finish_cell`)."""
        raise NotImplementedError

    def run(self, cell: dict) -> dict[str, Any]:
        """Compute one cell: its row tables (`mpx.experiment.rows`), plus ``"_status": (status, reason)``
        when it is not simply ``done``. Raising `mpx.errors.MpxError` stores the cell as skipped."""
        raise NotImplementedError


#: built-in kinds, in the order error messages list them
BUILTIN = {"scaling": "mpx.experiment.scaling:ScalingKind",
           "schedule": "mpx.experiment.schedule:ScheduleKind",
           "partition": "mpx.experiment.partition:PartitionKind",
           "alignment": "mpx.experiment.alignment:AlignmentKind"}

REGISTRY = Registry("experiment kind", "mpx.experiment_kinds", BUILTIN, subclass_of("mpx.experiment.kinds:CellKind"))


def kind_names() -> tuple[str, ...]:
    """Every kind: the built-ins first (in `BUILTIN` order), then registered and installed ones."""
    return tuple(BUILTIN) + tuple(n for n in REGISTRY.available() if n not in BUILTIN)


def get_kind(name: str) -> CellKind:
    """An instance of kind ``name``."""
    return REGISTRY.load(name)()


def all_kinds() -> list[CellKind]:
    """An instance of every kind (for the union of the config sections they read)."""
    return [get_kind(n) for n in kind_names()]
