"""A toy catalog format, one file and a ``register()`` call (the module is the format): a first line
``# toy-catalog``, then one ``name = expression`` line per metric."""

from __future__ import annotations

import os
import sys
from typing import Any

from mpx.metrics import Catalog, Metric
from mpx.metrics import formats

NAME = "toy"
MAGIC = "# toy-catalog"


def sniff(path: str | os.PathLike, text: str, obj: Any) -> bool:
    """Mine when the first line is the magic line."""
    return text.startswith(MAGIC)


def load(path: str | os.PathLike) -> Catalog:
    """The catalog in ``path``."""
    metrics = []
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        if i == 1 or not line.strip():
            continue
        name, _, expr = line.partition("=")
        metrics.append(Metric.from_expr(name.strip(), expr.strip(), path=path, line=i))
    return Catalog(metrics, name=os.path.basename(str(path)), meta={"format": NAME, "sources": [str(path)]})


def register() -> None:
    formats.register(NAME, sys.modules[__name__])
