"""`Relation`: a linear identity or inequality among event counts (catalog relations, BayesPerf's
constraints), and `vector_total_relations` (gem5's ``prefix::total == sum of the parts``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpx.errors import ConfigError, FormatError
from mpx.metrics import expr as E

__all__ = ["Relation", "vector_total_relations"]


# -- Relation ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Relation:
    """``sum_i a_i * x_i == 0`` (kind ``"=="``) or ``<= 0`` (kind ``"<="``) for every interval.

    ``terms`` are (event, coefficient) pairs sorted by event name. Build one with `from_expr`
    (``"ILmr <= I1mr"``, ``"a + b == c"``), `identity` or `at_most`.
    """

    name: str
    terms: tuple[tuple[str, float], ...]
    kind: str = "=="
    description: str = ""
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("==", "<="):
            raise ValueError(f"relation {self.name!r}: kind must be '==' or '<=', got {self.kind!r}")
        if not self.terms:
            raise ValueError(f"relation {self.name!r} has no terms")

    @classmethod
    def from_coeffs(cls, name: str, coeffs: Mapping[str, float], kind: str = "==", **kw: Any) -> Relation:
        terms = tuple(sorted((k, float(v)) for k, v in coeffs.items() if v != 0))
        return cls(name=name, terms=terms, kind=kind, **kw)

    @classmethod
    def from_expr(
        cls, text: str, name: str, *, literals: Mapping[str, Any] | None = None, path=None, line=None, **kw: Any
    ) -> Relation:
        """Parse ``lhs OP rhs`` with OP in ``== <= >=``; both sides must be linear in event names with
        constant (number or known literal) coefficients and no constant term."""
        what = f"relation {name!r}"
        ast = E.parse(text, path=path, line=line, what=what)
        if not (isinstance(ast, E.Binary) and ast.op in ("==", "<=", ">=")):
            raise FormatError(path, line, f"{what}: must be 'lhs == rhs', 'lhs <= rhs' or 'lhs >= rhs': {text!r}")
        lhs, rhs = (ast.left, ast.right) if ast.op != ">=" else (ast.right, ast.left)
        try:
            coeffs = E.linear_form(E.Binary("-", lhs, rhs), literals)
        except ValueError as exc:
            raise FormatError(path, line, f"{what}: {exc}") from None
        if not coeffs:
            raise FormatError(path, line, f"{what}: both sides are equal, nothing to relate: {text!r}")
        return cls.from_coeffs(name, coeffs, "==" if ast.op == "==" else "<=", **kw)

    @classmethod
    def identity(cls, name: str, total: str, parts: Iterable[str], **kw: Any) -> Relation:
        """``total == sum(parts)``."""
        coeffs: dict[str, float] = {total: -1.0}
        for p in parts:
            coeffs[p] = coeffs.get(p, 0.0) + 1.0
        return cls.from_coeffs(name, coeffs, "==", **kw)

    @classmethod
    def at_most(cls, name: str, small: str, big: str, **kw: Any) -> Relation:
        """``small <= big``."""
        return cls.from_coeffs(name, {small: 1.0, big: -1.0}, "<=", **kw)

    @property
    def coeffs(self) -> dict[str, float]:
        return dict(self.terms)

    @property
    def events(self) -> frozenset[str]:
        return frozenset(k for k, _ in self.terms)

    def to_expr(self) -> str:
        """Readable form with positive coefficients on each side (``a + b == c``)."""
        def side(items):
            parts = [E.fmt_name(k) if v == 1 else f"{E.fmt_num(v)} * {E.fmt_name(k)}" for k, v in items]
            return " + ".join(parts) if parts else "0"

        lhs = [(k, v) for k, v in self.terms if v > 0]
        rhs = [(k, -v) for k, v in self.terms if v < 0]
        return f"{side(lhs)} {self.kind} {side(rhs)}"

    def residual(self, counts: Mapping[str, Any]) -> np.ndarray:
        """``sum_i a_i x_i`` per interval (0 for an exact identity, <= 0 for a satisfied inequality)."""
        total = 0.0
        for k, v in self.terms:
            if k not in counts:
                raise ConfigError(f"relation {self.name!r} needs event {k!r}, which the counts do not have")
            total = total + v * np.asarray(counts[k], dtype=np.float64)
        return np.asarray(total, dtype=np.float64)

    def violation(self, counts: Mapping[str, Any]) -> np.ndarray:
        """How far each interval is from satisfying the relation (>= 0; 0 when satisfied)."""
        r = self.residual(counts)
        return np.abs(r) if self.kind == "==" else np.maximum(r, 0.0)

    def holds(self, counts: Mapping[str, Any], *, rtol: float = 0.0, atol: float = 0.0) -> np.ndarray:
        """Per interval: is the violation <= ``atol + rtol * sum_i |a_i x_i|``? Exact by default."""
        scale = sum(abs(v) * np.abs(np.asarray(counts[k], dtype=np.float64)) for k, v in self.terms)
        return self.violation(counts) <= atol + rtol * scale


def vector_total_relations(event_names: Iterable[str], *, within: Iterable[str] | None = None,
                           source: str = "gem5 vector ::total") -> list[Relation]:
    """gem5 vector identities ``prefix::total == sum of prefix::<part>`` for every ``prefix::total``
    among ``event_names`` (additive counters only: pass a Trace's events, never formulas).

    Distributions (a part named ``samples``, ``mean``, ``stdev``, ``underflows``, ...) are skipped: their
    ``::total`` is not the sum of the other rows. Parts gem5 left out (zero ``nozero`` stats) are zero,
    so the identity still holds with the parts present. A part that *is* in the stats but not in
    ``event_names`` is not zero: pass every event of the trace, not a selection of it, and ``within``
    (e.g. the problem's events) to keep only the vectors with an event there — the parts outside it are
    then latent variables of the relations (`mpx.scalers.inference.relations.relation_set`).
    """
    dist_keys = {"samples", "mean", "gmean", "stdev", "underflows", "overflows", "min_value", "max_value"}
    by_prefix: dict[str, list[str]] = {}
    for name in event_names:
        prefix, sep, part = name.rpartition("::")
        if sep:
            by_prefix.setdefault(prefix, []).append(part)
    keep = None if within is None else {n.rpartition("::")[0] for n in within if "::" in n}
    out = []
    for prefix, parts in by_prefix.items():
        if "total" not in parts or dist_keys & set(parts) or (keep is not None and prefix not in keep):
            continue
        others = [p for p in parts if p != "total"]
        if others:
            out.append(
                Relation.identity(
                    f"{prefix}::total", f"{prefix}::total", [f"{prefix}::{p}" for p in others], source=source
                )
            )
    return out
