"""Declarative experiments: a TOML config expands to a grid of cells; `run_experiment` computes the cells
not yet in a results store (`mpx.experiment.store`).

The config format (every section and key, with examples) is documented in ``experiments/README.md``,
section "Config reference". A **cell** is a plain JSON-able dict; its **key** hashes the dict, which holds
the full configuration, the dataset checksum and the code version (`mpx.code_version`): change any of them and
the cell is recomputed, change nothing and the store skips it.

Modules:

- `config`: `Experiment` / `load_config` — the TOML read, sections and keys checked;
- `grid`: ``[sweep]`` variants, `cell_key`;
- `inputs`: datasets (`load_dataset`, `dataset_checksum`), `catalog_checksum`;
- `hardware`: the ``[hardware]`` table → `mpx.problem.Problem` (`build_problem`);
- `kinds`: the registry of cell kinds (each declares its row tables; its module holds their report sections);
  one module per kind: `scaling` (replays scored with scalers), `schedule` (schedulers scored on metric catalogs),
  `partition` (partitioners on hypergraphs), `alignment` (trace alignment against multiplexing);
- `schedule_cache`: static schedules computed once per process, handed to `mpx.multiplex.multiplex`;
- `rows`: the rows a replay cell writes (the schema `mpx.experiment.store` documents);
- `runner`: `run_cell`, `run_experiment` (in-process, process pool or Dask).
"""

from __future__ import annotations

from mpx.experiment.config import Experiment, expand, load_config
from mpx.experiment.grid import cell_key
from mpx.experiment.hardware import build_problem
from mpx import code_version
from mpx.experiment.inputs import catalog_checksum, dataset_checksum, load_dataset
from mpx.experiment.kinds import BUILTIN as _BUILTIN_KINDS
from mpx.experiment.rows import TIMING_COLUMNS
from mpx.experiment.runner import run_cell, run_experiment

__all__ = ["Experiment", "load_config", "expand", "cell_key", "run_cell", "run_experiment", "code_version", "KINDS",
           "TIMING_COLUMNS", "build_problem", "load_dataset", "dataset_checksum", "catalog_checksum"]

#: the built-in cell kinds (`mpx.experiment.kinds.kind_names()` adds registered and installed ones)
KINDS = tuple(_BUILTIN_KINDS)
